// lineage and single-parent: the study pipeline on rop's runtime (PlanBuilder + run(), the thread
// executor), exactly as bench/b1_runtime drives it: expand (render) -> map (OCR, batch cap, any
// or single parent) -> reduce (assemble + upload), `actors` actors per Call.
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"
#include "study.h"

namespace rop::study {

using namespace rop::runtime;

namespace {

struct DocRef {
    std::uint32_t id, pages;
    bool poisoned;
};
struct PageRef {
    std::uint32_t root, page;
    bool poisoned;
};
struct PageOut {
    std::uint64_t text;
};
struct DocOut {
    std::uint64_t digest;
};

class DocSource final : public RootSource {
  public:
    explicit DocSource(const Corpus& c) : c_(c) {}
    std::optional<Root> next() override {
        if (i_ == c_.pages.size()) return std::nullopt;
        const std::uint32_t id = std::uint32_t(i_++);
        return Root{Value::of(DocRef{id, c_.pages[id], c_.poisoned[id] != 0}), {}};
    }
    std::optional<std::size_t> size_hint() const override { return c_.pages.size(); }

  private:
    const Corpus& c_;
    std::size_t i_ = 0;
};

struct Render final : Actor {
    const CostModel& cost;
    Recorder& rec;
    Render(const CostModel& c, Recorder& r) : cost(c), rec(r) {}
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const DocRef& d = b.input(g, 0).get<DocRef>();
            rec.render_start(d.id);
            Clock::time_point t = Clock::now() + cost.real(cost.render_root);
            for (std::uint32_t k = 0; k < d.pages; ++k) {
                t += cost.real(cost.render_page);
                sleep_until(t);  // absolute deadlines: oversleeping does not accumulate
                b.emit_child(g, Value::of(PageRef{d.id, k, d.poisoned}));
            }
        }
    }
};

struct Ocr final : Actor {
    const CostModel& cost;
    Recorder& rec;
    Ocr(const CostModel& c, Recorder& r) : cost(c), rec(r) {}
    void process(Batch& b) override {
        // The batch's fixed cost, then each page's: a page a sibling's GroupFailure barred
        // meanwhile (Batch::wanted) is skipped, not OCR'd. STUDY_IGNORE_WANTED=1: every page,
        // as before Batch::wanted (the A/B in docs/benchmarks.md).
        static const bool ignore = std::getenv("STUDY_IGNORE_WANTED") != nullptr;
        auto t = Clock::now() + cost.real(cost.ocr_batch);
        sleep_until(t);
        std::vector<bool> skipped(b.size(), false);
        for (std::size_t g = 0; g < b.size(); ++g) {
            if (!ignore && !b.wanted(g)) {
                skipped[g] = true;
                continue;
            }
            t += cost.real(cost.ocr_page);
            sleep_until(t);  // absolute deadlines: oversleeping does not accumulate
            const PageRef& p = b.input(g, 0).get<PageRef>();
            if (p.poisoned && p.page == 0) {  // known now: streamed to the driver at once
                b.fail_group(g, "poisoned page 0 of root " + std::to_string(p.root));
            }
        }
        rec.batch(b.size());
        for (std::size_t g = 0; g < b.size(); ++g) {
            if (skipped[g]) continue;  // unwanted: left without a result
            const PageRef& p = b.input(g, 0).get<PageRef>();
            if (p.poisoned && p.page == 0) continue;  // failed above
            b.set_output(g, 0, Value::of(PageOut{page_text(p.root, p.page)}));
        }
    }
};

struct Assemble final : Actor {
    const CostModel& cost;
    Recorder& rec;
    Assemble(const CostModel& c, Recorder& r) : cost(c), rec(r) {}
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const ReduceGroup& group = b.input(g, 0).get<ReduceGroup>();
            const std::uint32_t root = b.info(g).ordinal;  // a root's ordinal: source position
            std::uint64_t h = root;
            for (const Value& v : group.values) h = digest_step(h, v.get<PageOut>().text);
            // gather (its pages' texts moved to this actor) + assemble + upload; no shuffle
            sleep_until(Clock::now() +
                        cost.real(lineage_finish(cost, root, std::uint32_t(group.values.size()))));
            rec.done(root, Status::Ok, h);
            b.set_output(g, 0, Value::of(DocOut{h}));
        }
    }
};

// Stamps failed roots at their commit point (the root is done: parent-local).
class FailedRootProbe final : public ItemObserver {
  public:
    FailedRootProbe(PortId source, Recorder& rec, std::size_t roots)
        : source_(source), rec_(rec), ok_(roots, 0) {}
    void on_item(PortId port, EntityId entity, Outcome outcome, const Value& value) override {
        if (port == source_ && outcome == Outcome::Present) ids_[entity] = value.get<DocRef>().id;
        if (port == out_ && outcome == Outcome::Present) ok_[ids_.at(entity)] = 1;
    }
    void on_root_done(EntityId root) override {
        const std::uint32_t id = ids_.at(root);
        if (!ok_[id]) rec_.done(id, Status::Failed, 0);
    }
    PortId out_ = 0;

  private:
    PortId source_;
    Recorder& rec_;
    std::unordered_map<EntityId, std::uint32_t> ids_;
    std::vector<std::uint8_t> ok_;
};

}  // namespace

void run_rop(const RunConfig& config, const Corpus& corpus, const CostModel& cost, Recorder& rec,
             std::string& extra_json) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId docs = b.source("docs");
    const PortId pages = b.add_port("pages", page);
    const PortId texts = b.add_port("texts", page);
    const PortId out = b.add_port("documents", doc);
    CallOptions one;
    one.batch = 1;
    one.actors = config.actors;
    CallOptions ocr = one;
    ocr.batch = cost.cap;
    ocr.batching =
        config.strategy == "single-parent" ? Batching::SingleParent : Batching::AnyParent;
    const CostModel* c = &cost;
    Recorder* r = &rec;
    b.add_call({"render", CallKind::Expand, doc, {{docs}}, {pages}, one, [c, r] {
                    return std::make_unique<Render>(*c, *r);
                }});
    b.add_call({"ocr", CallKind::Map, page, {{pages}}, {texts}, ocr, [c, r] {
                    return std::make_unique<Ocr>(*c, *r);
                }});
    b.add_call({"assemble", CallKind::Reduce, doc, {{texts}}, {out}, one, [c, r] {
                    return std::make_unique<Assemble>(*c, *r);
                }});
    const Plan plan = b.build();

    DocSource source(corpus);
    FailedRootProbe probe(docs, rec, corpus.pages.size());
    probe.out_ = out;
    RunOptions options;
    options.max_inflight_roots = config.inflight;
    options.observer = &probe;
    RunReport report = run(plan, source, options);
    rec.finish();
    for (std::size_t i = 0; i < report.roots.size(); ++i)
        if (report.roots[i].status == RootStatus::Failed)
            rec.set_reason(std::uint32_t(i),
                           "call '" + report.roots[i].failed_call + "': " + report.roots[i].reason);
    std::uint64_t suppressed = 0;
    double fill = 0;
    std::uint64_t mixed = 0;
    for (const CallCounters& cc : report.calls) {
        if (cc.name == "ocr") {
            suppressed = cc.suppressed;
            fill = cc.mean_batch_fill;
            mixed = cc.mixed_parent_batches;
        }
    }
    rec.set_suppressed(suppressed);
    char buf[400];
    std::snprintf(
        buf, sizeof buf,
        ", \"rop\": {\"aborted\": %s, \"wall_s\": %.6f, \"time_to_first_root_s\": %.6f, "
        "\"peak_inflight_roots\": %zu, \"peak_live_items\": %zu, \"ocr_mean_batch_fill\": "
        "%.4f, \"ocr_mixed_parent_batches\": %llu, \"entities\": %zu}",
        report.aborted ? "true" : "false", report.wall_s, report.time_to_first_root_s,
        report.peak_inflight_roots, report.peak_live_items, fill,
        static_cast<unsigned long long>(mixed), report.entities);
    extra_json += buf;
}

}  // namespace rop::study
