// runtime_bench_noop: BENCH.md B1 in miniature. No-op expand -> map -> reduce, batch 64, one
// actor per Call. Prints child grains/s end to end and lineage bytes per child.
// Usage: runtime_bench_noop [roots=10000] [children=100] [batch=64] [max_inflight_roots=256]
//                           [inline|threads] [failed]
// `inline` runs every batch on the driver thread (no handoffs): the lineage bookkeeping cost
// alone, independent of how busy the machine's other cores are. `failed`: the report lists
// only failed roots (RunOptions::report_ok_roots off), so memory follows the roots in flight.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "rop/runtime/executor.h"
#include "rop/runtime/run.h"

using namespace rop::runtime;

namespace {

class Counter final : public RootSource {
  public:
    explicit Counter(std::size_t n) : n_(n) {}
    std::optional<Root> next() override {
        if (i_ == n_) return std::nullopt;
        return Root{Value::of<int>(static_cast<int>(i_++)), {}};
    }
    std::optional<std::size_t> size_hint() const override { return n_; }

  private:
    std::size_t n_, i_ = 0;
};

struct Expand final : Actor {
    int children;
    explicit Expand(int k) : children(k) {}
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) {
            for (int c = 0; c < children; ++c) b.emit_child(g, Value::of<int>(c));
        }
    }
};
struct Pass final : Actor {
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) b.set_output(g, 0, b.input(g, 0));
    }
};
struct Count final : Actor {
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const auto& group = b.input(g, 0).get<ReduceGroup>();
            b.set_output(g, 0, Value::of<int>(static_cast<int>(group.values.size())));
        }
    }
};

class InlineExecutor final : public Executor {
  public:
    void start(const Plan& plan, ReportQueue& reports) override {
        plan_ = &plan;
        reports_ = &reports;
    }
    void submit(BatchJob& job) override {
        auto& actor = actors_[job.call];
        if (!actor) actor = plan_->calls[job.call].factory();
        execute_job(actor.get(), job, *reports_);
    }
    void abandon(BatchJob&) override {}
    void stop() override { actors_.clear(); }

  private:
    const Plan* plan_ = nullptr;
    ReportQueue* reports_ = nullptr;
    std::map<CallId, std::unique_ptr<Actor>> actors_;
};

}  // namespace

int main(int argc, char** argv) {
    const std::size_t roots = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
    const int children = argc > 2 ? std::atoi(argv[2]) : 100;
    const auto batch = static_cast<std::uint32_t>(argc > 3 ? std::atoi(argv[3]) : 64);
    const std::size_t inflight = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 256;

    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId docs = b.source("docs");
    const PortId pages = b.add_port("pages", page);
    const PortId mapped = b.add_port("mapped", page);
    const PortId counted = b.add_port("counted", doc);
    CallOptions opt;
    opt.batch = batch;
    b.add_call({"expand", CallKind::Expand, doc, {{docs}}, {pages}, opt, [children] {
                    return std::make_unique<Expand>(children);
                }});
    b.add_call({"map", CallKind::Map, page, {{pages}}, {mapped}, opt, [] {
                    return std::make_unique<Pass>();
                }});
    b.add_call({"reduce", CallKind::Reduce, doc, {{mapped}}, {counted}, opt, [] {
                    return std::make_unique<Count>();
                }});
    const Plan plan = b.build();

    Counter source(roots);
    RunOptions options;
    options.max_inflight_roots = inflight;
    options.report_ok_roots = !(argc > 6 && std::string(argv[6]) == "failed");
    const auto t0 = std::chrono::steady_clock::now();
    const bool inline_mode = argc > 5 && std::string(argv[5]) == "inline";
    InlineExecutor inline_executor;
    const RunReport report =
        inline_mode ? run(plan, source, options, inline_executor) : run(plan, source, options);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double child_grains = static_cast<double>(roots) * children;
    std::printf("roots=%zu children=%d batch=%u inflight=%zu executor=%s wall=%.3fs\n", roots,
                children, batch, inflight, inline_mode ? "inline" : "threads", s);
    std::printf("child grains/s: %.0f   ns/child: %.1f\n", child_grains / s,
                s * 1e9 / child_grains);
    std::printf("lineage bytes: %zu (%.1f per entity, %zu entities)  peak live payloads: %zu\n",
                report.lineage_bytes,
                static_cast<double>(report.lineage_bytes) / static_cast<double>(report.entities),
                report.entities, report.peak_live_items);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    std::printf("cpu (all threads, user+sys): %.3fs = %.1f ns/child; peak RSS %ld MiB\n", cpu,
                cpu * 1e9 / child_grains, usage.ru_maxrss / 1024);
    std::printf("map batches=%llu fill=%.2f\n",
                static_cast<unsigned long long>(report.calls[1].batches),
                report.calls[1].mean_batch_fill);
    return 0;
}
