// The B1 pipeline: no-op UDFs expand -> map -> reduce over two Domains (Doc -> Page). The UDFs
// allocate nothing: children and outputs share one preallocated Value (a reference-count bump),
// so what is measured is the runtime.
#pragma once

#include <memory>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::bench {

using namespace rop::runtime;

class CountingSource final : public RootSource {
  public:
    explicit CountingSource(std::size_t n) : n_(n), value_(Value::of<int>(0)) {}
    std::optional<Root> next() override {
        if (i_ == n_) return std::nullopt;
        ++i_;
        return Root{value_, {}};
    }
    std::optional<std::size_t> size_hint() const override { return n_; }

  private:
    std::size_t n_, i_ = 0;
    Value value_;
};

struct NoopExpand final : Actor {
    std::size_t children;
    Value child = Value::of<int>(1);
    explicit NoopExpand(std::size_t k) : children(k) {}
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g)
            for (std::size_t c = 0; c < children; ++c) b.emit_child(g, child);
    }
};

struct NoopMap final : Actor {
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) b.set_output(g, 0, b.input(g, 0));
    }
};

struct NoopReduce final : Actor {
    Value out = Value::of<int>(2);
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) b.set_output(g, 0, out);
    }
};

// stages: 1 = expand only, 2 = expand -> map, 3 = expand -> map -> reduce.
inline Plan noop_plan(int stages, std::size_t children, std::uint32_t batch) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId docs = b.source("docs");
    const PortId pages = b.add_port("pages", page);
    CallOptions opt;
    opt.batch = batch;
    b.add_call({"expand", CallKind::Expand, doc, {{docs}}, {pages}, opt, [children] {
                    return std::make_unique<NoopExpand>(children);
                }});
    if (stages >= 2) {
        const PortId mapped = b.add_port("mapped", page);
        b.add_call({"map", CallKind::Map, page, {{pages}}, {mapped}, opt, [] {
                        return std::make_unique<NoopMap>();
                    }});
        if (stages >= 3) {
            const PortId reduced = b.add_port("reduced", doc);
            b.add_call({"reduce", CallKind::Reduce, doc, {{mapped}}, {reduced}, opt, [] {
                            return std::make_unique<NoopReduce>();
                        }});
        }
    }
    return b.build();
}

}  // namespace rop::bench
