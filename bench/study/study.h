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
//
// The regroup tail (issue 17): a page's OCR output carries its text (`text_bytes`, mean
// `page_bytes`). flat-regroup rebuilds documents with a shuffle as Ray Data and Daft do: it
// starts after the last OCR batch, the rows are split over `actors` regroup partitions
// (contiguous root ranges balanced by rows, the best case of a sort-based shuffle), and each
// partition costs shuffle_fixed + shuffle_row per row + shuffle_byte per byte; a partition's
// documents are then assembled on the assemble actors. The lineage strategies never shuffle
// (their rows are grouped by lineage already) but their reduce still receives its root's pages
// from the OCR actors: each root's assemble pays the same per-row and per-byte move cost
// (`gather_cost`), not the fixed one, overlapped with other roots' OCR. per-parent pays none
// (one worker holds a document's pages from render to upload).
struct CostModel {
    double compress = 1000;     // modelled seconds per real second
    double render_root = 0.5;   // expand: per document (open, parse) ...
    double render_page = 0.25;  // ... plus per page (rasterize), streamed page by page
    double ocr_batch = 7.55;    // OCR batch of n pages: ocr_batch + ocr_page * n
    double ocr_page = 1.416;
    double assemble_root = 1.0;       // per document: assemble ...
    double assemble_page = 0.02;      // ... plus per page
    double upload_root = 0.5;         // ... plus upload
    std::uint32_t cap = 48;           // OCR batch cap (every strategy)
    std::uint32_t page_bytes = 4000;  // mean OCR text bytes per page (text_bytes)
    double shuffle_fixed = 0;         // per regroup partition (flat-regroup only)
    double shuffle_row = 0;           // per row moved (flat-regroup's shuffle, lineage's gather)
    double shuffle_byte = 0;          // per byte moved (likewise)

    double render_cost(std::uint32_t pages) const { return render_root + render_page * pages; }
    double ocr_cost(std::size_t n) const { return ocr_batch + ocr_page * double(n); }
    double finish_cost(std::uint32_t pages) const {
        return assemble_root + assemble_page * pages + upload_root;
    }
    // Moving `rows` pages of `bytes` text bytes to where they are assembled.
    double gather_cost(std::uint64_t rows, std::uint64_t bytes) const {
        return shuffle_row * double(rows) + shuffle_byte * double(bytes);
    }
    // One regroup partition of flat-regroup's shuffle.
    double shuffle_cost(std::uint64_t rows, std::uint64_t bytes) const {
        return shuffle_fixed + gather_cost(rows, bytes);
    }
    // OCR work per page in full batches (the paper's 1.573 s per page per GPU).
    double ocr_per_page() const { return ocr_cost(cap) / double(cap); }
    // The tail's mean per-page move cost as a fraction of ocr_per_page() (bench_study --tail).
    double tail_fraction() const { return gather_cost(1, page_bytes) / ocr_per_page(); }
    // Sets the per-row and per-byte costs so that moving a mean page costs `fraction` of its OCR
    // work: a quarter per row, three quarters per byte (data volume dominates a shuffle).
    void set_tail(double fraction) {
        const double per_page = fraction * ocr_per_page();
        shuffle_row = 0.25 * per_page;
        shuffle_byte = page_bytes ? 0.75 * per_page / double(page_bytes) : 0;
        if (!page_bytes) shuffle_row = per_page;
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
// The OCR text size of a page: page_bytes / 2 + [0, page_bytes], from its text (mean
// page_bytes). bench/study/rop/study_udfs.hpp has the same function.
inline std::uint64_t text_bytes(const CostModel& cost, std::uint32_t root, std::uint32_t page) {
    return cost.page_bytes / 2 + page_text(root, page) % (std::uint64_t(cost.page_bytes) + 1);
}
inline std::uint64_t root_bytes(const CostModel& cost, std::uint32_t root, std::uint32_t pages) {
    std::uint64_t bytes = 0;
    for (std::uint32_t k = 0; k < pages; ++k) bytes += text_bytes(cost, root, k);
    return bytes;
}
// A lineage root's finish: its pages gathered to the assembler, then assemble + upload.
inline double lineage_finish(const CostModel& cost, std::uint32_t root, std::uint32_t pages) {
    return cost.gather_cost(pages, root_bytes(cost, root, pages)) + cost.finish_cost(pages);
}

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
