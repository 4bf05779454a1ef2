// The C++ baselines, on plain threads, with the same corpus, cost model, batch cap and actors:
//  - flat-regroup (the Ray Data / Daft shape): render flattens every document into one global
//    page stream; OCR actors take full batches (cap) from it, mixing documents (a partial batch
//    only once rendering is over); rows (root, page, text, error) are collected; after the last
//    OCR batch a global group-by barrier (sort by root, page) rebuilds documents, and a shuffle
//    over `actors` regroup partitions moves the rows (CostModel: fixed + per row + per byte);
//    assemble actors then process each partition's documents as it lands; a poisoned document
//    is filtered after the regroup.
//  - per-parent (native MinerU): `actors` workers, each owns one document end to end: render it,
//    OCR its pages in batches of at most cap (only this document's pages), assemble + upload.
//    A failing batch ends its document at once (the rest of its pages are never OCR'd).
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "study.h"

namespace rop::study {

namespace {

struct Row {
    std::uint32_t root, page;
    std::uint64_t text;
    bool error;
};

void join_all(std::vector<std::thread>& ts) {
    for (std::thread& t : ts) t.join();
    ts.clear();
}

}  // namespace

void run_flat_regroup(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                      Recorder& rec, std::string& extra_json) {
    const std::size_t roots = corpus.pages.size();
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Row> queue;  // rendered pages waiting for OCR (text unset)
    std::size_t renders_left = roots;
    std::atomic<std::size_t> next_root{0};
    std::vector<Row> rows;  // OCR output rows, in completion order
    rows.reserve(corpus.total_pages());
    std::mutex rows_mu;
    std::size_t peak_queue = 0;

    std::vector<std::thread> render, ocr;
    for (std::uint32_t a = 0; a < config.actors; ++a) {
        render.emplace_back([&] {
            for (;;) {
                const std::size_t i = next_root.fetch_add(1);
                if (i >= roots) break;
                const std::uint32_t id = std::uint32_t(i);
                rec.render_start(id);
                Clock::time_point t = Clock::now() + cost.real(cost.render_root);
                for (std::uint32_t k = 0; k < corpus.pages[id]; ++k) {
                    t += cost.real(cost.render_page);
                    sleep_until(t);
                    std::lock_guard<std::mutex> lock(mu);
                    queue.push_back(Row{id, k, 0, false});
                    peak_queue = std::max(peak_queue, queue.size());
                    if (queue.size() >= cost.cap) cv.notify_one();
                }
                std::lock_guard<std::mutex> lock(mu);
                if (--renders_left == 0) cv.notify_all();
            }
        });
        ocr.emplace_back([&] {
            std::vector<Row> batch;
            for (;;) {
                {
                    std::unique_lock<std::mutex> lock(mu);
                    cv.wait(lock, [&] { return queue.size() >= cost.cap || renders_left == 0; });
                    if (queue.empty()) break;
                    const std::size_t n = std::min<std::size_t>(cost.cap, queue.size());
                    batch.assign(queue.begin(), queue.begin() + std::ptrdiff_t(n));
                    queue.erase(queue.begin(), queue.begin() + std::ptrdiff_t(n));
                    if (queue.size() >= cost.cap) cv.notify_one();
                }
                sleep_until(Clock::now() + cost.real(cost.ocr_cost(batch.size())));
                rec.batch(batch.size());
                for (Row& r : batch) {
                    r.text = page_text(r.root, r.page);
                    r.error = corpus.poisoned[r.root] && r.page == 0;
                }
                std::lock_guard<std::mutex> lock(rows_mu);
                rows.insert(rows.end(), batch.begin(), batch.end());
            }
        });
    }
    join_all(render);
    join_all(ocr);

    // The global regroup barrier: every row is known only now.
    const double barrier_at = rec.now();
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return a.root != b.root ? a.root < b.root : a.page < b.page;
    });
    std::vector<std::size_t> begin(roots + 1, 0);
    for (const Row& r : rows) ++begin[r.root + 1];
    for (std::size_t i = 0; i < roots; ++i) begin[i + 1] += begin[i];
    const double regrouped_at = rec.now();

    // The shuffle: `actors` regroup partitions, contiguous root ranges balanced by rows; each
    // moves its rows (shuffle_fixed + per row + per byte), then its documents join the assemble
    // queue, served by the `actors` assemble threads.
    const std::uint32_t parts = std::max<std::uint32_t>(1, config.actors);
    std::vector<std::size_t> part_begin{0};  // root index where each partition starts
    const double per_part = double(rows.size()) / parts;
    for (std::size_t i = 0; i < roots && part_begin.size() < parts; ++i)
        if (double(begin[i + 1]) >= per_part * double(part_begin.size()))
            part_begin.push_back(i + 1);
    part_begin.push_back(roots);
    std::mutex ready_mu;
    std::condition_variable ready_cv;
    std::deque<std::uint32_t> ready;  // documents regrouped, waiting for an assemble actor
    std::size_t shuffling = part_begin.size() - 1;
    double shuffle_end = 0;
    std::vector<std::thread> shuffle, assemble;
    for (std::size_t p = 0; p + 1 < part_begin.size(); ++p) {
        shuffle.emplace_back([&, p] {
            std::uint64_t bytes = 0;
            const std::size_t r0 = begin[part_begin[p]], r1 = begin[part_begin[p + 1]];
            for (std::size_t j = r0; j < r1; ++j)
                bytes += text_bytes(cost, rows[j].root, rows[j].page);
            if (r1 > r0 || cost.shuffle_fixed > 0)
                sleep_until(Clock::now() + cost.real(cost.shuffle_cost(r1 - r0, bytes)));
            std::lock_guard<std::mutex> lock(ready_mu);
            for (std::size_t i = part_begin[p]; i < part_begin[p + 1]; ++i)
                ready.push_back(std::uint32_t(i));
            if (--shuffling == 0) shuffle_end = rec.now();
            ready_cv.notify_all();
        });
    }
    for (std::uint32_t a = 0; a < config.actors; ++a) {
        assemble.emplace_back([&] {
            for (;;) {
                std::uint32_t id;
                {
                    std::unique_lock<std::mutex> lock(ready_mu);
                    ready_cv.wait(lock, [&] { return !ready.empty() || shuffling == 0; });
                    if (ready.empty()) break;
                    id = ready.front();
                    ready.pop_front();
                }
                bool error = false;
                std::uint64_t h = id;
                for (std::size_t j = begin[id]; j < begin[id + 1]; ++j) {
                    error |= rows[j].error;
                    h = digest_step(h, rows[j].text);
                }
                if (error) {  // the error column, filtered after the regroup
                    rec.done(id, Status::Failed, 0,
                             "poisoned page 0 of root " + std::to_string(id));
                    continue;
                }
                sleep_until(Clock::now() + cost.real(cost.finish_cost(corpus.pages[id])));
                rec.done(id, Status::Ok, h);
            }
        });
    }
    join_all(shuffle);
    join_all(assemble);
    rec.finish();
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  ", \"flat\": {\"barrier_s\": %.6f, \"regroup_s\": %.6f, \"shuffle_s\": %.6f, "
                  "\"partitions\": %zu, \"peak_queue\": %zu}",
                  barrier_at, regrouped_at - barrier_at, shuffle_end - barrier_at,
                  part_begin.size() - 1, peak_queue);
    extra_json += buf;
}

void run_per_parent(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                    Recorder& rec, std::string& extra_json) {
    const std::size_t roots = corpus.pages.size();
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> workers;
    for (std::uint32_t a = 0; a < config.actors; ++a) {
        workers.emplace_back([&] {
            for (;;) {
                const std::size_t i = next.fetch_add(1);
                if (i >= roots) break;
                const std::uint32_t id = std::uint32_t(i), pages = corpus.pages[i];
                rec.render_start(id);
                sleep_until(Clock::now() + cost.real(cost.render_cost(pages)));
                std::uint64_t h = id;
                bool failed = false;
                for (std::uint32_t off = 0; off < pages && !failed; off += cost.cap) {
                    const std::uint32_t n = std::min(cost.cap, pages - off);
                    sleep_until(Clock::now() + cost.real(cost.ocr_cost(n)));
                    rec.batch(n);
                    if (corpus.poisoned[id] && off == 0) {
                        failed = true;
                        rec.suppressed(pages - n);  // the rest of the document: never OCR'd
                        break;
                    }
                    for (std::uint32_t k = off; k < off + n; ++k)
                        h = digest_step(h, page_text(id, k));
                }
                if (failed) {
                    rec.done(id, Status::Failed, 0,
                             "poisoned page 0 of root " + std::to_string(id));
                    continue;
                }
                sleep_until(Clock::now() + cost.real(cost.finish_cost(pages)));
                rec.done(id, Status::Ok, h);
            }
        });
    }
    join_all(workers);
    rec.finish();
    (void)extra_json;
}

void run_strategy(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                  Recorder& recorder, std::string& extra_json) {
    recorder.reset(corpus.pages.size());
    if (config.strategy == "lineage" || config.strategy == "single-parent")
        run_rop(config, corpus, cost, recorder, extra_json);
    else if (config.strategy == "flat-regroup")
        run_flat_regroup(config, corpus, cost, recorder, extra_json);
    else if (config.strategy == "per-parent")
        run_per_parent(config, corpus, cost, recorder, extra_json);
    else if (config.strategy == "tbb-lineage")
        run_tbb_lineage(config, corpus, cost, recorder, extra_json);
    else
        throw std::invalid_argument("unknown strategy '" + config.strategy + "'");
}

}  // namespace rop::study
