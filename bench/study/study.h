// The B2/B3 scheduling study (BENCH.md; issue 6): corpus generator, cost model, the per-run
// recorder every strategy writes into, and the strategies themselves.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rop::study {

using Clock = std::chrono::steady_clock;

// ---- corpus ---------------------------------------------------------------------------------
struct Corpus {
    std::string kind;  // "mineru" or "b3"
    double scale = 1;
    std::uint64_t seed = 0;
    std::vector<std::uint32_t> pages;    // pages per root, source order
    std::vector<std::uint8_t> poisoned;  // page 0 of this root fails (B3)
    std::uint64_t total_pages() const;
};

// The paper's MinerU corpus shape: 3,689 roots, 174,744 pages, 1..427 pages per root, heavy
// tailed (clipped log-normal, sigma 1.1). `scale` multiplies roots and pages; exact totals.
Corpus mineru_corpus(double scale, std::uint64_t seed);
// The B3 corpus: `roots` roots, `pages` pages; the round(5.25%) largest roots hold ~51.9% of the
// pages and are poisoned (page 0) when `poison` is set.
Corpus b3_corpus(std::size_t roots, std::size_t pages, std::uint64_t seed, bool poison);

// ---- cost model -----------------------------------------------------------------------------
// All costs in modelled ("paper") seconds; realized by sleeping cost / compress.
struct CostModel {
    double compress = 1000;     // modelled seconds per real second
    double render_root = 0.5;   // expand: per document (open, parse) ...
    double render_page = 0.25;  // ... plus per page (rasterize), streamed page by page
    double ocr_batch = 7.55;    // OCR batch of n pages: ocr_batch + ocr_page * n
    double ocr_page = 1.416;
    double assemble_root = 1.0;   // per document: assemble ...
    double assemble_page = 0.02;  // ... plus per page
    double upload_root = 0.5;     // ... plus upload
    std::uint32_t cap = 48;       // OCR batch cap (every strategy)

    double render_cost(std::uint32_t pages) const { return render_root + render_page * pages; }
    double ocr_cost(std::size_t n) const { return ocr_batch + ocr_page * double(n); }
    double finish_cost(std::uint32_t pages) const {
        return assemble_root + assemble_page * pages + upload_root;
    }
    // Real duration of `modelled` seconds.
    Clock::duration real(double modelled) const {
        return std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(modelled / compress));
    }
};

// The lower bound on the makespan (modelled seconds) with `actors` per stage: each stage's
// total work over its actors (OCR in full batches), or the largest root's critical path.
double ideal_bound(const Corpus& corpus, const CostModel& cost, std::uint32_t actors);

// Deterministic "OCR text" of a page and the document digest of an ordered page sequence.
inline std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
inline std::uint64_t page_text(std::uint32_t root, std::uint32_t page) {
    return mix((std::uint64_t(root) << 32) | page);
}
inline std::uint64_t digest_step(std::uint64_t h, std::uint64_t text) { return mix(h ^ text) + 1; }

// ---- recorder -------------------------------------------------------------------------------
enum class Status : std::uint8_t { Pending, Ok, Failed };

// What one run records, identically for every strategy: per root when its first page started
// rendering and when it was committed (assembled + uploaded, or reported failed), its digest,
// status and reason; every OCR batch size; pages OCR'd and sibling pages suppressed.
class Recorder {
  public:
    void reset(std::size_t roots);
    double now() const;  // real seconds since reset()
    void render_start(std::uint32_t root) {
        start_[root].store(now_ns(), std::memory_order_relaxed);
    }
    void done(std::uint32_t root, Status status, std::uint64_t digest, std::string reason = {});
    void batch(std::size_t n);
    void ocr_pages(std::size_t n) { ocr_pages_.fetch_add(n, std::memory_order_relaxed); }
    void suppressed(std::size_t n) { suppressed_.fetch_add(n, std::memory_order_relaxed); }
    void finish();  // stamps the makespan
    void set_suppressed(std::uint64_t n) { suppressed_.store(n); }
    void set_reason(std::uint32_t root, std::string reason);  // no time stamp

    // One JSON object (a line): `head` holds the run's own fields without braces.
    std::string to_json(const std::string& head, const Corpus& corpus) const;
    double makespan() const { return makespan_; }
    std::size_t failed_roots() const;

  private:
    std::int64_t now_ns() const {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count();
    }
    Clock::time_point t0_;
    std::vector<std::atomic<std::int64_t>> start_, end_;
    std::vector<std::uint64_t> digest_;
    std::vector<Status> status_;
    std::vector<std::string> reason_;
    std::mutex mutex_;                              // reasons, batches
    std::map<std::size_t, std::uint64_t> batches_;  // size -> count
    std::atomic<std::uint64_t> ocr_pages_{0}, suppressed_{0};
    double makespan_ = 0;
};

// ---- strategies -----------------------------------------------------------------------------
struct RunConfig {
    std::string strategy;       // lineage, single-parent, flat-regroup, per-parent, tbb-lineage
    std::uint32_t actors = 64;  // per stage (render, OCR, assemble); per-parent: workers
    std::size_t inflight = 0;   // rop/tbb: max in-flight roots (0: 4 x actors, at least 64)
};

// Runs one strategy; the recorder holds the result afterwards. Throws on an unknown strategy.
void run_strategy(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                  Recorder& recorder, std::string& extra_json);

void run_rop(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
             Recorder& recorder, std::string& extra_json);
void run_flat_regroup(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                      Recorder& recorder, std::string& extra_json);
void run_per_parent(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                    Recorder& recorder, std::string& extra_json);
void run_tbb_lineage(const RunConfig& config, const Corpus& corpus, const CostModel& cost,
                     Recorder& recorder, std::string& extra_json);

inline void sleep_until(Clock::time_point t) { std::this_thread::sleep_until(t); }

}  // namespace rop::study
