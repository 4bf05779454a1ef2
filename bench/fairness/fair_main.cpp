// bench_fairness (issue 17 item 4): does a huge root that comes first starve the small roots
// behind it? The study's pipeline shape on rop's runtime (PlanBuilder + run(), thread executor):
// render (expand, streams pages) -> OCR (map, batch cap, GPU-like cost) -> assemble (reduce),
// every cost a sleep in compressed "paper" seconds (bench/study's cost model: render 0.5 s a
// document + 0.25 s a page, OCR 7.55 s + 1.416 s a page per batch, assemble 1 s + 0.02 s a page
// + 0.5 s upload).
//
//   bench_fairness --small N [--big PAGES] [--render-actors R] [--actors A] [--cap C]
//                  [--compress X] [--seed S] [--page-bytes B] [--budget-mb M]
//
// The corpus: one root of PAGES pages first (0: none), then N small roots of 1-40 pages
// (log-uniform, seeded). Prints one JSON line: the makespan and, over the small roots, the
// time-to-commit (admitted: taken from the source -> committed) p50, p90, p99 and max, in paper
// seconds.
// --page-bytes pads every page to B bytes and --budget-mb sets max_payload_bytes, so that
// backpressure pauses the render (a scanned PDF's page images on a small budget).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

using namespace rop::runtime;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
    long big = 427, small = 200, render_actors = 1, actors = 4, cap = 48, seed = 1;
    double compress = 200;
    long page_bytes = 0, budget_mb = 1024;
};

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        if (i + 1 >= argc) throw std::runtime_error(k + ": needs a value");
        const char* v = argv[++i];
        if (k == "--big")
            a.big = std::atol(v);
        else if (k == "--small")
            a.small = std::atol(v);
        else if (k == "--render-actors")
            a.render_actors = std::atol(v);
        else if (k == "--actors")
            a.actors = std::atol(v);
        else if (k == "--cap")
            a.cap = std::atol(v);
        else if (k == "--compress")
            a.compress = std::atof(v);
        else if (k == "--seed")
            a.seed = std::atol(v);
        else if (k == "--page-bytes")
            a.page_bytes = std::atol(v);
        else if (k == "--budget-mb")
            a.budget_mb = std::atol(v);
        else
            throw std::runtime_error("unknown option " + k);
    }
    if (a.small < 1 || a.actors < 1 || a.render_actors < 1 || a.cap < 1 || a.compress <= 0)
        throw std::runtime_error("--small, --actors, --render-actors, --cap and --compress > 0");
    return a;
}

struct Doc {
    std::uint32_t id, pages;
};

// What the bench records per root: when the runtime took it from the source (admitted) and when
// it was committed.
struct Times {
    std::mutex mutex;
    std::vector<Clock::time_point> start, commit;
};

class Docs final : public RootSource {
  public:
    Docs(const std::vector<std::uint32_t>& pages, Times& times) : pages_(pages), times_(times) {}
    std::optional<Root> next() override {
        if (i_ == pages_.size()) return std::nullopt;
        const auto id = static_cast<std::uint32_t>(i_++);
        {
            std::lock_guard<std::mutex> lock(times_.mutex);
            times_.start[id] = Clock::now();
        }
        return Root{Value::of(Doc{id, pages_[id]}), "doc" + std::to_string(id)};
    }
    std::optional<std::size_t> size_hint() const override { return pages_.size(); }

  private:
    const std::vector<std::uint32_t>& pages_;
    Times& times_;
    std::size_t i_ = 0;
};

struct Costs {
    double compress;
    std::size_t page_bytes;
    Clock::duration real(double paper_s) const {
        return std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(paper_s / compress));
    }
};

// A function-like render: no state of its own, so the runtime may lend it (priority rule 6).
struct Render final : Actor {
    const Costs& cost;
    explicit Render(const Costs& c) : cost(c) {}
#ifndef BENCH_FAIRNESS_BASELINE  // a runtime from before Actor::reentrant (run.sh's FIFO build)
    bool reentrant() const override { return true; }
#endif
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const Doc& d = b.input(g, 0).get<Doc>();
            Clock::time_point t = Clock::now() + cost.real(0.5);
            for (std::uint32_t k = 0; k < d.pages; ++k) {
                t += cost.real(0.25);
                std::this_thread::sleep_until(t);
                std::string page = std::to_string(k);  // the page number, then padding
                if (page.size() < cost.page_bytes) page.resize(cost.page_bytes, ' ');
                b.emit_child(g, Value::of<std::string>(std::move(page)));
            }
        }
    }
};

struct Ocr final : Actor {
    const Costs& cost;
    explicit Ocr(const Costs& c) : cost(c) {}
    void process(Batch& b) override {
        std::this_thread::sleep_for(cost.real(7.55 + 1.416 * static_cast<double>(b.size())));
        for (std::size_t g = 0; g < b.size(); ++g) {
            b.set_output(g, 0, Value::of<long>(std::stol(b.input(g, 0).get<std::string>())));
        }
    }
};

struct Assemble final : Actor {
    const Costs& cost;
    explicit Assemble(const Costs& c) : cost(c) {}
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const auto& group = b.input(g, 0).get<ReduceGroup>();
            std::this_thread::sleep_for(
                cost.real(1.5 + 0.02 * static_cast<double>(group.values.size())));
            b.set_output(g, 0, Value::of<long>(static_cast<long>(group.values.size())));
        }
    }
};

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
    return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) try {
    const Args a = parse(argc, argv);
    std::vector<std::uint32_t> pages;
    if (a.big > 0) pages.push_back(static_cast<std::uint32_t>(a.big));
    std::mt19937_64 rng(static_cast<std::uint64_t>(a.seed));
    std::uniform_real_distribution<double> u(0, std::log(40.0));
    for (long i = 0; i < a.small; ++i) {
        pages.push_back(static_cast<std::uint32_t>(std::lround(std::exp(u(rng)))));
    }
    const Costs cost{a.compress, static_cast<std::size_t>(a.page_bytes)};
    Times times;
    times.start.resize(pages.size());
    times.commit.resize(pages.size());

    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId docs = b.source("docs");
    const PortId rendered = b.add_port("pages", page);
    const PortId texts = b.add_port("texts", page);
    const PortId out = b.add_port("documents", doc);
    CallOptions render;
    render.batch = 1;
    render.actors = static_cast<std::uint32_t>(a.render_actors);
    CallOptions ocr;
    ocr.batch = static_cast<std::uint32_t>(a.cap);
    ocr.actors = static_cast<std::uint32_t>(a.actors);
    CallOptions assemble = ocr;
    assemble.batch = 1;
    b.add_call({"render", CallKind::Expand, doc, {{docs}}, {rendered}, render, [&cost] {
                    return std::make_unique<Render>(cost);
                }});
    b.add_call({"ocr", CallKind::Map, page, {{rendered}}, {texts}, ocr, [&cost] {
                    return std::make_unique<Ocr>(cost);
                }});
    b.add_call({"assemble", CallKind::Reduce, doc, {{texts}}, {out}, assemble, [&cost] {
                    return std::make_unique<Assemble>(cost);
                }});
    const Plan plan = b.build();

    Docs source(pages, times);
    RunOptions options;
    options.max_inflight_roots = std::max<std::size_t>(64, 4 * static_cast<std::size_t>(a.actors));
    options.max_payload_bytes = static_cast<std::size_t>(a.budget_mb) << 20;
    options.on_root_finished = [&](const RootResult& r) {
        const auto id = static_cast<std::size_t>(std::stoul(r.name.substr(3)));
        std::lock_guard<std::mutex> lock(times.mutex);
        times.commit[id] = Clock::now();
    };
    const Clock::time_point begin = Clock::now();
    const RunReport report = run(plan, source, options);
    const double makespan = std::chrono::duration<double>(Clock::now() - begin).count();
    std::vector<double> small;
    double big = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        if (report.roots.at(i).status != RootStatus::Ok) {
            std::fprintf(stderr, "bench_fairness: root %zu: %s\n", i,
                         report.roots[i].reason.c_str());
            return 1;
        }
        const double s =
            std::chrono::duration<double>(times.commit[i] - times.start[i]).count() * a.compress;
        if (a.big > 0 && i == 0) {
            big = s;
        } else {
            small.push_back(s);
        }
    }
    std::printf(
        "{\"big\": %ld, \"small\": %ld, \"render_actors\": %ld, \"actors\": %ld, \"cap\": %ld, "
        "\"compress\": %g, \"seed\": %ld, \"makespan_s\": %.3f, \"makespan_paper_s\": %.1f, "
        "\"small_p50\": %.1f, \"small_p90\": %.1f, \"small_p99\": %.1f, \"small_max\": %.1f, "
        "\"big_commit\": %.1f, \"page_bytes\": %ld, \"budget_mb\": %ld, \"pauses\": %llu}\n",
        a.big, a.small, a.render_actors, a.actors, a.cap, a.compress, a.seed, makespan,
        makespan * a.compress, quantile(small, 0.5), quantile(small, 0.9), quantile(small, 0.99),
        quantile(small, 1.0), big, a.page_bytes, a.budget_mb,
        static_cast<unsigned long long>(report.backpressure_pauses));
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_fairness: %s\n", e.what());
    return 2;
}
