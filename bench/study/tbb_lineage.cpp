// tbb-lineage: the lineage pipeline hand-written with oneTBB's flow graph, as a C++ engineer would
// build it instead of rop: input_node -> limiter_node (in-flight roots) -> render
// (multifunction_node, `actors`, streams pages) -> batcher (serial; full batches of cap, a
// partial one only when no OCR batch is in flight, like rop's rule) -> OCR (`actors`) -> per-root
// countdown (pages + 1 render token) -> assemble (`actors`) -> limiter decrement.
// Blocking sleeps occupy TBB threads, so the graph runs in an arena of 3 x actors + 4 threads.
// Not used for B3 (no failure handling).
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <memory>
#include <tuple>

#include "study.h"

namespace rop::study {

namespace {

struct PageMsg {
    std::uint32_t root = 0, page = 0;
    bool flush = false;  // no page: "an OCR slot may be free, flush a partial batch"
};

}  // namespace

void run_tbb_lineage(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                     Recorder& rec, std::string& extra_json) {
    namespace flow = oneapi::tbb::flow;
    const std::size_t roots = corpus.pages.size();
    const int threads = int(3 * config.actors + 4);
    oneapi::tbb::global_control control(oneapi::tbb::global_control::max_allowed_parallelism,
                                        std::size_t(threads));
    oneapi::tbb::task_arena arena(threads);

    std::vector<std::vector<std::uint64_t>> text(roots);
    for (std::size_t i = 0; i < roots; ++i) text[i].resize(corpus.pages[i]);
    std::unique_ptr<std::atomic<std::int64_t>[]> remaining(new std::atomic<std::int64_t>[roots]);
    for (std::size_t i = 0; i < roots; ++i) remaining[i] = std::int64_t(corpus.pages[i]) + 1;
    std::atomic<int> inflight_batches{0};
    std::vector<PageMsg> pending;  // the batcher's (serial node)
    std::size_t next = 0;

    arena.execute([&] {
        flow::graph g;
        flow::input_node<std::uint32_t> src(g, [&](oneapi::tbb::flow_control& fc) -> std::uint32_t {
            if (next == roots) {
                fc.stop();
                return 0;
            }
            return std::uint32_t(next++);
        });
        flow::limiter_node<std::uint32_t> limit(g, config.inflight);
        using RenderNode =
            flow::multifunction_node<std::uint32_t, std::tuple<PageMsg, std::uint32_t>>;
        RenderNode render(g, config.actors,
                          [&](std::uint32_t id, RenderNode::output_ports_type& out) {
                              rec.render_start(id);
                              Clock::time_point t = Clock::now() + cost.real(cost.render_root);
                              for (std::uint32_t k = 0; k < corpus.pages[id]; ++k) {
                                  t += cost.real(cost.render_page);
                                  sleep_until(t);
                                  std::get<0>(out).try_put(PageMsg{id, k, false});
                              }
                              std::get<0>(out).try_put(PageMsg{0, 0, true});
                              if (--remaining[id] == 0) std::get<1>(out).try_put(id);
                          });
        using BatchNode = flow::multifunction_node<PageMsg, std::tuple<std::vector<PageMsg>>>;
        BatchNode batcher(
            g, flow::serial, [&](const PageMsg& m, BatchNode::output_ports_type& out) {
                if (!m.flush) pending.push_back(m);
                std::size_t off = 0;
                while (pending.size() - off >= cost.cap) {
                    ++inflight_batches;
                    std::get<0>(out).try_put(
                        std::vector<PageMsg>(pending.begin() + std::ptrdiff_t(off),
                                             pending.begin() + std::ptrdiff_t(off + cost.cap)));
                    off += cost.cap;
                }
                pending.erase(pending.begin(), pending.begin() + std::ptrdiff_t(off));
                if (!pending.empty() && inflight_batches.load() == 0) {
                    ++inflight_batches;
                    std::get<0>(out).try_put(pending);
                    pending.clear();
                }
            });
        using OcrNode =
            flow::multifunction_node<std::vector<PageMsg>, std::tuple<PageMsg, std::uint32_t>>;
        OcrNode ocr(g, config.actors,
                    [&](const std::vector<PageMsg>& batch, OcrNode::output_ports_type& out) {
                        sleep_until(Clock::now() + cost.real(cost.ocr_cost(batch.size())));
                        rec.batch(batch.size());
                        for (const PageMsg& p : batch) {
                            text[p.root][p.page] = page_text(p.root, p.page);
                            if (--remaining[p.root] == 0) std::get<1>(out).try_put(p.root);
                        }
                        if (--inflight_batches == 0) std::get<0>(out).try_put(PageMsg{0, 0, true});
                    });
        flow::function_node<std::uint32_t, flow::continue_msg> assemble(
            g, config.actors, [&](std::uint32_t id) {
                std::uint64_t h = id;
                for (std::uint64_t t : text[id]) h = digest_step(h, t);
                sleep_until(Clock::now() + cost.real(lineage_finish(cost, id, corpus.pages[id])));
                rec.done(id, Status::Ok, h);
                return flow::continue_msg();
            });
        flow::make_edge(src, limit);
        flow::make_edge(limit, render);
        flow::make_edge(flow::output_port<0>(render), batcher);
        flow::make_edge(flow::output_port<1>(render), assemble);
        flow::make_edge(flow::output_port<0>(batcher), ocr);
        flow::make_edge(flow::output_port<0>(ocr), batcher);
        flow::make_edge(flow::output_port<1>(ocr), assemble);
        flow::make_edge(assemble, limit.decrementer());
        src.activate();
        g.wait_for_all();
    });
    rec.finish();
    (void)extra_json;
}

}  // namespace rop::study
