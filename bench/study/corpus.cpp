// Corpus generators, the ideal bound and the recorder.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>

#include "study.h"

namespace rop::study {

std::uint64_t Corpus::total_pages() const {
    return std::accumulate(pages.begin(), pages.end(), std::uint64_t{0});
}

namespace {

// Box-Muller on our own uniform draws: the same corpus for a seed on every standard library.
double normal(std::mt19937_64& rng) {
    const double u1 = (double(rng() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = (double(rng() >> 11) + 0.5) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// Scales positive weights to integers in [lo, hi] summing exactly to `total`.
std::vector<std::uint32_t> fit(const std::vector<double>& w, std::uint64_t total, std::uint32_t lo,
                               std::uint32_t hi, std::mt19937_64& rng) {
    const std::size_t n = w.size();
    if (total < std::uint64_t(lo) * n || total > std::uint64_t(hi) * n)
        throw std::invalid_argument("corpus: total pages out of reach for the root count");
    auto sum_at = [&](double k) {
        std::uint64_t s = 0;
        for (double x : w)
            s += std::clamp<std::uint64_t>(std::uint64_t(std::llround(k * x)), lo, hi);
        return s;
    };
    double lo_k = 0, hi_k = 1;
    while (sum_at(hi_k) < total) hi_k *= 2;
    for (int i = 0; i < 100; ++i) {
        const double mid = (lo_k + hi_k) / 2;
        (sum_at(mid) < total ? lo_k : hi_k) = mid;
    }
    std::vector<std::uint32_t> out(n);
    std::uint64_t s = 0;
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = std::uint32_t(
            std::clamp<std::uint64_t>(std::uint64_t(std::llround(hi_k * w[i])), lo, hi));
        s += out[i];
    }
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    while (s != total) {  // a few +-1 steps on random roots strictly inside the bounds
        std::uint32_t& p = out[pick(rng)];
        if (s < total && p < hi && p > lo)
            ++p, ++s;
        else if (s > total && p > lo + 1 && p < hi)
            --p, --s;
    }
    return out;
}

}  // namespace

Corpus mineru_corpus(double scale, std::uint64_t seed) {
    constexpr double kRoots = 3689, kPages = 174744;
    constexpr std::uint32_t kMax = 427;
    Corpus c;
    c.kind = "mineru";
    c.scale = scale;
    c.seed = seed;
    const std::size_t roots = std::max<std::size_t>(2, std::size_t(std::llround(kRoots * scale)));
    const std::uint64_t total =
        std::max<std::uint64_t>(roots, std::uint64_t(std::llround(kPages * scale)));
    std::mt19937_64 rng(seed);
    std::vector<double> w(roots);
    for (double& x : w) x = std::exp(1.1 * normal(rng));
    c.pages = fit(w, total, 1, kMax, rng);
    // Pin the paper's extremes (1 and 427 pages) on the currently smallest / largest roots,
    // moving the difference to mid-sized roots so the total stays exact.
    auto [mn, mx] = std::minmax_element(c.pages.begin(), c.pages.end());
    std::int64_t delta = std::int64_t(*mn) - 1 + std::int64_t(*mx) - std::int64_t(kMax);
    *mn = 1;
    *mx = kMax;
    std::uniform_int_distribution<std::size_t> pick(0, roots - 1);
    for (int guard = 0; delta != 0 && guard < 100000000; ++guard) {
        std::uint32_t& p = c.pages[pick(rng)];
        if (p <= 2 || p >= kMax - 1) continue;
        if (delta > 0)
            ++p, --delta;
        else
            --p, ++delta;
    }
    c.poisoned.assign(roots, 0);
    return c;
}

Corpus b3_corpus(std::size_t roots, std::size_t pages, std::uint64_t seed, bool poison) {
    Corpus c;
    c.kind = "b3";
    c.seed = seed;
    std::mt19937_64 rng(seed);
    const std::size_t large =
        std::max<std::size_t>(1, std::size_t(std::llround(0.0525 * double(roots))));
    const std::uint64_t large_pages = std::uint64_t(std::llround(0.519 * double(pages)));
    std::vector<double> wl(large), ws(roots - large);
    for (double& x : wl) x = std::exp(0.25 * normal(rng));
    for (double& x : ws) x = std::exp(0.8 * normal(rng));
    const std::uint64_t small_total = pages - large_pages;
    const std::uint32_t small_hi =
        std::uint32_t(std::max<double>(2, 0.8 * double(large_pages) / double(large)));
    std::vector<std::uint32_t> l = fit(wl, large_pages, small_hi + 1, 100000, rng);
    std::vector<std::uint32_t> s = fit(ws, small_total, 1, small_hi, rng);
    // Interleave: large roots spread evenly through source order (not all first or last).
    c.pages.resize(roots);
    c.poisoned.assign(roots, 0);
    const std::size_t stride = roots / large;
    std::size_t li = 0, si = 0;
    for (std::size_t i = 0; i < roots; ++i) {
        if (li < large && i % stride == stride / 2) {
            c.pages[i] = l[li++];
            c.poisoned[i] = poison ? 1 : 0;
        } else if (si < s.size()) {
            c.pages[i] = s[si++];
        } else {
            c.pages[i] = l[li++];
            c.poisoned[i] = poison ? 1 : 0;
        }
    }
    return c;
}

double ideal_bound(const Corpus& corpus, const CostModel& cost, std::uint32_t actors) {
    double render = 0, finish = 0, critical = 0;
    const double pages = double(corpus.total_pages());
    for (std::size_t i = 0; i < corpus.pages.size(); ++i) {
        const std::uint32_t p = corpus.pages[i];
        const double fin = lineage_finish(cost, std::uint32_t(i), p);
        render += cost.render_cost(p);
        finish += fin;
        // One root alone: render it (pages stream), OCR its last batch, gather + assemble +
        // upload (the lineage strategies' bound: no shuffle).
        const std::uint32_t last = p % cost.cap ? p % cost.cap : std::min(p, cost.cap);
        critical = std::max(critical, cost.render_cost(p) + cost.ocr_cost(last) + fin);
    }
    const double ocr = std::ceil(pages / cost.cap) * cost.ocr_batch + pages * cost.ocr_page;
    return std::max({render / actors, ocr / actors, finish / actors, critical});
}

// ---- Recorder -------------------------------------------------------------------------------

void Recorder::reset(std::size_t roots) {
    start_ = std::vector<std::atomic<std::int64_t>>(roots);
    end_ = std::vector<std::atomic<std::int64_t>>(roots);
    for (auto& a : start_) a.store(-1);
    for (auto& a : end_) a.store(-1);
    digest_.assign(roots, 0);
    status_.assign(roots, Status::Pending);
    reason_.assign(roots, {});
    batches_.clear();
    ocr_pages_ = 0;
    suppressed_ = 0;
    makespan_ = 0;
    t0_ = Clock::now();
}

double Recorder::now() const { return double(now_ns()) * 1e-9; }

void Recorder::done(std::uint32_t root, Status status, std::uint64_t digest, std::string reason) {
    end_[root].store(now_ns(), std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mutex_);
    digest_[root] = digest;
    status_[root] = status;
    reason_[root] = std::move(reason);
}

void Recorder::set_reason(std::uint32_t root, std::string reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_[root] = Status::Failed;
    reason_[root] = std::move(reason);
}

void Recorder::batch(std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++batches_[n];
    ocr_pages_.fetch_add(n, std::memory_order_relaxed);
}

void Recorder::finish() { makespan_ = now(); }

std::size_t Recorder::failed_roots() const {
    return std::size_t(std::count(status_.begin(), status_.end(), Status::Failed));
}

namespace {
std::string escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        if (ch == '"' || ch == '\\') o += '\\';
        if (std::uint8_t(ch) < 0x20) continue;
        o += ch;
    }
    return o;
}
}  // namespace

std::string Recorder::to_json(const std::string& head, const Corpus& corpus) const {
    std::string o = "{" + head;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  ", \"makespan_s\": %.6f, \"ocr_pages\": %llu, \"suppressed\": %llu", makespan_,
                  static_cast<unsigned long long>(ocr_pages_.load()),
                  static_cast<unsigned long long>(suppressed_.load()));
    o += buf;
    o += ", \"batches\": {";
    bool first = true;
    for (auto [n, count] : batches_) {
        std::snprintf(buf, sizeof buf, "%s\"%zu\": %llu", first ? "" : ", ", n,
                      static_cast<unsigned long long>(count));
        o += buf;
        first = false;
    }
    // roots: [pages, start_s, end_s, status (0 pending, 1 ok, 2 failed), digest hex, reason]
    o += "}, \"roots\": [";
    for (std::size_t i = 0; i < status_.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%s[%u, %.6f, %.6f, %d, \"%016llx\", \"", i ? ", " : "",
                      corpus.pages[i], double(start_[i].load()) * 1e-9,
                      double(end_[i].load()) * 1e-9, int(status_[i]),
                      static_cast<unsigned long long>(digest_[i]));
        o += buf;
        o += escape(reason_[i]);
        o += "\"]";
    }
    o += "]}";
    return o;
}

}  // namespace rop::study
