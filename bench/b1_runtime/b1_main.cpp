// bench_b1: BENCH.md B1, runtime overhead. No-op UDFs expand -> map -> reduce, batch 64.
// One configuration per process (so peak RSS belongs to it); prints one JSON object.
//
//   bench_b1 --roots N --children K [--batch 64] [--executor one|inline|threads]
//            [--inflight 256] [--repeat 3]
//
// Measures, each as the median of --repeat runs:
//  - end-to-end child grains/s of the full pipeline (wall clock, and per CPU second);
//  - ns per grain per Call, by difference of process CPU time (robust on a shared machine):
//    expand alone, expand -> map, expand -> map -> reduce;
//  - lineage bytes per live child after payloads are released: heap bytes in use (glibc
//    mallinfo2) when the last root is done — every child's lineage is still held then, while its
//    payloads are gone — minus the heap before run(), over the children; next to it the
//    runtime's own account (RunReport::lineage_bytes / entities);
//  - peak RSS of the process (getrusage).
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "executors.h"
#include "noop_pipeline.h"

using namespace rop::runtime;

namespace {

struct Args {
    std::size_t roots = 10000;
    std::size_t children = 100;
    std::uint32_t batch = 64;
    std::string executor = "one";
    std::size_t inflight = 256;
    int repeat = 3;
};

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string key = argv[i], value = argv[i + 1];
        if (key == "--roots")
            a.roots = std::strtoull(value.c_str(), nullptr, 10);
        else if (key == "--children")
            a.children = std::strtoull(value.c_str(), nullptr, 10);
        else if (key == "--batch")
            a.batch = std::uint32_t(std::strtoul(value.c_str(), nullptr, 10));
        else if (key == "--executor")
            a.executor = value;
        else if (key == "--inflight")
            a.inflight = std::strtoull(value.c_str(), nullptr, 10);
        else if (key == "--repeat")
            a.repeat = std::atoi(value.c_str());
        else {
            std::fprintf(stderr, "bench_b1: unknown option %s\n", key.c_str());
            std::exit(2);
        }
    }
    return a;
}

std::size_t heap_in_use() {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

// Samples the heap when the last root is done (driver thread, inside run()).
class LastRootProbe final : public ItemObserver {
  public:
    explicit LastRootProbe(std::size_t roots) : roots_(roots) {}
    void on_item(PortId, EntityId, Outcome, const Value&) override {}
    void on_root_done(EntityId) override {
        if (++done_ == roots_) heap_at_end = heap_in_use();
    }
    std::size_t heap_at_end = 0;

  private:
    std::size_t roots_, done_ = 0;
};

// CPU seconds of the whole process (driver and workers): robust on a loaded, shared machine.
double cpu_seconds() {
    struct rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto tv = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
    return tv(u.ru_utime) + tv(u.ru_stime);
}

struct Timing {
    double wall_s;
    double cpu_s;
    RunReport report;
};

Timing run_once(const Args& a, int stages, ItemObserver* observer = nullptr) {
    Plan plan = rop::bench::noop_plan(stages, a.children, a.batch);
    rop::bench::CountingSource source(a.roots);
    RunOptions options;
    options.max_inflight_roots = a.inflight;
    options.observer = observer;
    std::unique_ptr<Executor> executor;
    if (a.executor == "inline")
        executor = std::make_unique<rop::bench::InlineExecutor>();
    else if (a.executor == "one")
        executor = std::make_unique<rop::bench::OneWorkerExecutor>();
    else
        executor = make_thread_executor();
    const double c0 = cpu_seconds();
    auto t0 = std::chrono::steady_clock::now();
    RunReport report = run(plan, source, options, *executor);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {s, cpu_seconds() - c0, std::move(report)};
}

struct Medians {
    double wall_s, cpu_s;
};

Medians medians(const Args& a, int stages) {
    std::vector<double> walls, cpus;
    for (int r = 0; r < a.repeat; ++r) {
        Timing t = run_once(a, stages);
        walls.push_back(t.wall_s);
        cpus.push_back(t.cpu_s);
    }
    std::sort(walls.begin(), walls.end());
    std::sort(cpus.begin(), cpus.end());
    return {walls[walls.size() / 2], cpus[cpus.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    const double children = double(a.roots) * double(a.children);

    // Memory first, on a fresh heap: one full run with the probe.
    std::size_t heap_before = heap_in_use();
    LastRootProbe probe(a.roots);
    Timing mem = run_once(a, 3, &probe);
    const double heap_per_child = (double(probe.heap_at_end) - double(heap_before)) / children;
    const double self_per_entity =
        double(mem.report.lineage_bytes) / double(std::max<std::size_t>(1, mem.report.entities));

    const Medians m1 = medians(a, 1), m2 = medians(a, 2), m3 = medians(a, 3);
    const double t1 = m1.cpu_s, t2 = m2.cpu_s, t3 = m3.cpu_s;  // per-Call costs: CPU time
    struct rusage usage{};
    getrusage(RUSAGE_SELF, &usage);

    std::printf(
        "{\"system\": \"rop\", \"executor\": \"%s\", \"roots\": %zu, \"children\": %zu, "
        "\"batch\": %u, \"inflight\": %zu, \"repeat\": %d, \"child_grains\": %.0f, "
        "\"wall_s\": %.6f, \"cpu_s\": %.6f, \"child_grains_per_s\": %.0f, "
        "\"child_grains_per_cpu_s\": %.0f, \"ns_per_child_end_to_end\": %.2f, "
        "\"ns_per_grain\": {\"expand_per_child\": %.2f, \"expand_per_root\": %.2f, "
        "\"map\": %.2f, \"reduce_per_member\": %.2f, \"reduce_per_root\": %.2f}, "
        "\"lineage_heap_bytes_per_live_child\": %.1f, \"lineage_self_bytes_per_entity\": %.1f, "
        "\"entities\": %zu, \"peak_live_payloads\": %zu, \"peak_rss_kib\": %ld, "
        "\"aborted\": %s}\n",
        a.executor.c_str(), a.roots, a.children, a.batch, a.inflight, a.repeat, children, m3.wall_s,
        t3, children / m3.wall_s, children / t3, m3.wall_s * 1e9 / children, t1 * 1e9 / children,
        t1 * 1e9 / double(a.roots), (t2 - t1) * 1e9 / children, (t3 - t2) * 1e9 / children,
        (t3 - t2) * 1e9 / double(a.roots), heap_per_child, self_per_entity, mem.report.entities,
        mem.report.peak_live_items, usage.ru_maxrss, mem.report.aborted ? "true" : "false");
    return mem.report.aborted ? 1 : 0;
}
