// --estimate: the sample run, the fit, the prediction and the recommendation (estimate.h).
#include "estimate/estimate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <thread>

#include "core/thread_clock.h"
#include "rop/runtime/udf.h"

namespace rop::runtime::estimate {
namespace {

// Roots from a vector, until `deadline` (the count pass's): then the source ends and the roots
// in flight finish.
class VectorRoots final : public RootSource {
  public:
    explicit VectorRoots(std::vector<Root> roots, std::chrono::steady_clock::time_point deadline =
                                                      std::chrono::steady_clock::time_point::max())
        : roots_(std::move(roots)), deadline_(deadline) {}
    std::optional<Root> next() override {
        if (next_ == roots_.size() || std::chrono::steady_clock::now() >= deadline_)
            return std::nullopt;
        return roots_[next_++];
    }
    std::optional<std::size_t> size_hint() const override { return roots_.size(); }

  private:
    std::vector<Root> roots_;
    std::chrono::steady_clock::time_point deadline_;
    std::size_t next_ = 0;
};

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, s < 10 ? "%.2f s" : "%.1f s", s);
    return buf;
}

std::string percent(double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
    return buf;
}

std::string megabytes(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
    return buf;
}

// A size in kB of /proc/self/status ("VmHWM"), in bytes; 0 when it cannot be read.
std::uint64_t status_bytes(const std::string& field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(field + ":", 0) != 0) continue;
        return std::strtoull(line.c_str() + field.size() + 1, nullptr, 10) * 1024;
    }
    return 0;
}

// Starts this process's peak resident memory (VmHWM) again from its resident memory now (Linux
// 4.0 and later); where it cannot, the peak also counts what came before.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// A root's bytes when its name is a readable file; nullopt otherwise.
std::optional<std::uint64_t> file_size_of(const std::string& name) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(name, ec)) return std::nullopt;
    const auto size = std::filesystem::file_size(name, ec);
    if (ec) return std::nullopt;
    return size;
}

// The actor set a Call's batches go to: its pool's options, or its own.
CallOptions& set_options(Plan& plan, CallId c) {
    CallSpec& spec = plan.calls[c];
    return spec.pool != kNoPool ? plan.pools[spec.pool].options : spec.options;
}

struct Candidate {
    std::uint32_t actors = 0, batch = 0;
    SimOutcome sim;
};

// Children per root of a root-Domain expand in the sample run, by the root's ordinal in it: the
// expand's actors are wrapped so that each emitted child is counted (rop's GrainInfo ordinal of a
// root is its place in the source). Several actor threads count at once.
class ChildCounts {
  public:
    explicit ChildCounts(std::size_t roots) : counts_(roots, 0) {}
    void add(std::uint32_t root) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (root < counts_.size()) ++counts_[root];
    }
    std::vector<std::uint64_t> take() {
        std::lock_guard<std::mutex> lock(mutex_);
        return counts_;
    }

  private:
    std::mutex mutex_;
    std::vector<std::uint64_t> counts_;
};

class CountingBatch final : public Batch {
  public:
    CountingBatch(Batch& inner, ChildCounts& counts) : inner_(inner), counts_(counts) {}
    std::size_t size() const override { return inner_.size(); }
    GrainInfo info(std::size_t g) const override { return inner_.info(g); }
    const Value& input(std::size_t g, std::size_t i) const override { return inner_.input(g, i); }
    const Value& parent(std::size_t g) const override { return inner_.parent(g); }
    void set_output(std::size_t g, std::size_t o, Value v) override {
        inner_.set_output(g, o, std::move(v));
    }
    void set_keep(std::size_t g, bool keep) override { inner_.set_keep(g, keep); }
    void emit_child(std::size_t g, Value child) override {
        inner_.emit_child(g, std::move(child));
        counts_.add(inner_.info(g).ordinal);
    }
    void finish_children(std::size_t g) override { inner_.finish_children(g); }
    void fail_record(std::size_t g, std::string reason) override {
        inner_.fail_record(g, std::move(reason));
    }
    void fail_group(std::size_t g, std::string reason) override {
        inner_.fail_group(g, std::move(reason));
    }
    bool wanted(std::size_t g) const override { return inner_.wanted(g); }
    CallId call() const override { return inner_.call(); }

  private:
    Batch& inner_;
    ChildCounts& counts_;
};

class CountingActor final : public Actor {
  public:
    CountingActor(std::unique_ptr<Actor> inner, ChildCounts& counts)
        : inner_(std::move(inner)), counts_(counts) {}
    void process(Batch& batch) override {
        CountingBatch counting(batch, counts_);
        inner_->process(counting);
    }
    void cancel() noexcept override { inner_->cancel(); }
    bool reentrant() const override { return inner_->reentrant(); }

  private:
    std::unique_ptr<Actor> inner_;
    ChildCounts& counts_;
};

// The count pass (docs/runtime.md "Estimates", step 2): a root-Domain expand's actors run on
// more roots than the sample, each only until its children are known, and none of them goes on:
// an expand that announces its count (rop::expected_children, as std.pdf.pages does once the
// document is open) is stopped there, by a RecordFailure from the announcement; one that does
// not has its children counted and dropped. Either way the Grain then fails, so no other Call
// runs for the root. Counts are by the root's ordinal in the pass's source; several actor
// threads count at once.
class CountPass {
  public:
    explicit CountPass(std::size_t roots) : counts_(roots) {}
    void record(std::uint32_t root, std::uint64_t children) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (root < counts_.size()) counts_[root] = children;
    }
    std::vector<std::optional<std::uint64_t>> take() {
        std::lock_guard<std::mutex> lock(mutex_);
        return counts_;
    }

  private:
    std::mutex mutex_;
    std::vector<std::optional<std::uint64_t>> counts_;
};

inline constexpr const char* kCounted = "estimate: children counted";

class CountOnlyBatch final : public Batch, public rop::ExpectedChildrenSink {
  public:
    CountOnlyBatch(Batch& inner, CountPass& pass)
        : inner_(inner), pass_(pass), state_(inner.size()) {}
    std::size_t size() const override { return inner_.size(); }
    GrainInfo info(std::size_t g) const override { return inner_.info(g); }
    const Value& input(std::size_t g, std::size_t i) const override { return inner_.input(g, i); }
    const Value& parent(std::size_t g) const override { return inner_.parent(g); }
    void set_output(std::size_t g, std::size_t o, Value v) override {
        inner_.set_output(g, o, std::move(v));
    }
    void set_keep(std::size_t g, bool keep) override { inner_.set_keep(g, keep); }
    void emit_child(std::size_t g, Value) override { ++state_[g].emitted; }
    // Finished: counted, and failed, so that nothing runs after it.
    void finish_children(std::size_t g) override { end(g, kCounted); }
    void fail_record(std::size_t g, std::string reason) override { end(g, std::move(reason)); }
    void fail_group(std::size_t g, std::string reason) override { end(g, std::move(reason)); }
    bool wanted(std::size_t g) const override { return inner_.wanted(g); }
    CallId call() const override { return inner_.call(); }

    // rop::expected_children from the UDF: the Grain it runs (the first not ended, as the
    // runtime's own sink takes it) is counted, and its UDF stopped.
    void expect(std::uint64_t children) override {
        std::size_t g = 0;
        while (g < state_.size() && state_[g].ended) ++g;
        if (g == state_.size()) return;
        state_[g].announced = children;
        stopped_ = true;
        throw rop::RecordFailure(kCounted);
    }

    // After the actor's process(): whether a UDF was stopped at its announcement, and the
    // Grains a hand-written actor left unended when that stop went through it (an actor made
    // by ropc ends each Grain itself): counted where announced, failed either way.
    bool stopped() const { return stopped_; }
    void end_rest() {
        for (std::size_t g = 0; g < state_.size(); ++g) end(g, kCounted);
    }

  private:
    struct State {
        std::uint64_t emitted = 0;
        std::optional<std::uint64_t> announced;
        bool ended = false;
    };
    bool stopped_ = false;
    void end(std::size_t g, std::string reason) {
        State& s = state_[g];
        if (s.ended) return;
        s.ended = true;
        // A Grain that failed on its own before it announced anything is not counted.
        if (s.announced) {
            pass_.record(inner_.info(g).ordinal, *s.announced);
        } else if (reason == kCounted && !stopped_) {
            pass_.record(inner_.info(g).ordinal, s.emitted);
        }
        inner_.fail_record(g, std::move(reason));
    }

    Batch& inner_;
    CountPass& pass_;
    std::vector<State> state_;
};

// Holds the pass by a shared pointer: an actor stopped at the pass's end may still be running
// after run_estimate has moved on (a UDF that hangs is left behind, as a stuck batch is).
class CountOnlyActor final : public Actor {
  public:
    CountOnlyActor(std::unique_ptr<Actor> inner, std::shared_ptr<CountPass> pass)
        : inner_(std::move(inner)), pass_(std::move(pass)) {}
    void process(Batch& batch) override {
        CountOnlyBatch counting(batch, *pass_);
        rop::ExpectedChildrenSink*& slot = rop::current_expected_children_sink();
        rop::ExpectedChildrenSink* const previous = slot;
        slot = &counting;
        try {
            inner_->process(counting);
        } catch (...) {
            slot = previous;
            if (!counting.stopped()) throw;
        }
        slot = previous;
        if (counting.stopped()) counting.end_rest();
    }
    void cancel() noexcept override { inner_->cancel(); }
    bool reentrant() const override { return inner_->reentrant(); }

  private:
    std::unique_ptr<Actor> inner_;
    std::shared_ptr<CountPass> pass_;
};

// The first expand of the root Domain whose actors run here (a Call of its own, in this
// process): the one whose children per root give the roots' weights.
std::optional<CallId> root_expand(const Plan& plan) {
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const CallSpec& spec = plan.calls[c];
        if (spec.kind == CallKind::Expand && spec.domain == 0 && spec.factory &&
            spec.pool == kNoPool && spec.options.isolation == Isolation::Thread) {
            return static_cast<CallId>(c);
        }
    }
    return std::nullopt;
}

}  // namespace

std::vector<double> root_weights(const std::vector<std::uint64_t>& children, std::size_t roots,
                                 std::uint64_t seed) {
    std::vector<double> weights;
    if (children.empty()) return weights;
    double mean = 0;
    for (std::uint64_t c : children) mean += static_cast<double>(c);
    mean /= static_cast<double>(children.size());
    if (mean <= 0) return weights;
    // Every sampled root stands for roots / k of them (the remainder: a seeded pick), in a
    // seeded order: the weights' mean is the sample's, not a draw's (independent draws from a
    // long-tailed sample moved the total work, and the makespan, by 8% in B9).
    std::mt19937_64 rng(seed);
    std::vector<std::size_t> order(children.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    weights.reserve(roots);
    for (std::size_t i = 0; i < roots; ++i) {
        weights.push_back(static_cast<double>(children[order[i % order.size()]]) / mean);
    }
    std::shuffle(weights.begin(), weights.end(), rng);
    // The remainder's pick moves the mean a little: scale it back to exactly 1.
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (total > 0) {
        for (double& w : weights) w *= static_cast<double>(roots) / total;
    }
    return weights;
}

std::vector<std::size_t> spread_order(std::size_t n) {
    // The middle of the whole, then of each half, then of each quarter ...: breadth first.
    std::vector<std::size_t> order;
    order.reserve(n);
    std::deque<std::pair<std::size_t, std::size_t>> ranges;  // [begin, end)
    if (n > 0) ranges.emplace_back(0, n);
    while (!ranges.empty()) {
        const auto [begin, end] = ranges.front();
        ranges.pop_front();
        const std::size_t middle = begin + (end - begin) / 2;
        order.push_back(middle);
        if (begin < middle) ranges.emplace_back(begin, middle);
        if (middle + 1 < end) ranges.emplace_back(middle + 1, end);
    }
    return order;
}

std::vector<double> count_weights(const std::vector<std::optional<std::uint64_t>>& counts,
                                  const std::vector<std::uint64_t>& sample,
                                  const std::vector<std::uint64_t>& sizes, std::uint64_t seed) {
    double sample_mean = 0;
    for (std::uint64_t c : sample) sample_mean += static_cast<double>(c);
    if (sample.empty() || sample_mean <= 0) return {};
    sample_mean /= static_cast<double>(sample.size());
    std::vector<std::uint64_t> known;
    double known_children = 0, known_bytes = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (!counts[i]) continue;
        known.push_back(*counts[i]);
        known_children += static_cast<double>(*counts[i]);
        if (sizes.size() == counts.size()) known_bytes += static_cast<double>(sizes[i]);
    }
    if (known.empty()) return {};
    // A root not counted: its bytes at the counted roots' children per byte, or else the
    // children of a counted root, each standing for an equal share (a seeded order).
    std::mt19937_64 rng(seed);
    std::shuffle(known.begin(), known.end(), rng);
    const bool by_size = sizes.size() == counts.size() && known_bytes > 0;
    std::vector<double> weights;
    weights.reserve(counts.size());
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        double children = 0;
        if (counts[i]) {
            children = static_cast<double>(*counts[i]);
        } else if (by_size) {
            children = static_cast<double>(sizes[i]) * known_children / known_bytes;
        } else {
            children = static_cast<double>(known[drawn++ % known.size()]);
        }
        weights.push_back(children / sample_mean);
    }
    return weights;
}

bool weigh_by_children(const std::vector<std::optional<std::uint64_t>>& counts,
                       const std::vector<std::uint64_t>& sizes) {
    if (sizes.size() != counts.size()) return true;
    std::optional<std::uint64_t> first;
    for (const std::optional<std::uint64_t>& c : counts) {
        if (!c) continue;
        if (first && *c != *first) return true;
        first = c;
    }
    return false;
}

std::optional<double> fanout_spread(const std::vector<std::uint64_t>& children, std::size_t roots,
                                    double fanout) {
    const auto k = static_cast<double>(children.size());
    if (children.size() < 2 || fanout <= 0) return std::nullopt;
    double mean = 0, var = 0;
    for (std::uint64_t c : children) mean += static_cast<double>(c) / k;
    if (mean <= 0) return std::nullopt;
    for (std::uint64_t c : children)
        var += (static_cast<double>(c) - mean) * (static_cast<double>(c) - mean);
    var /= k - 1;
    // Sampled without replacement from `roots`: the finite population correction.
    const double n = static_cast<double>(std::max(roots, children.size()));
    const double se = std::sqrt(var / k * (1 - k / n));
    return 2 * se / mean;
}

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (2 beyond 30): what a
// standard error of a mean of df + 1 draws is multiplied by. A sample of 3 roots knows its
// mean cost to 4.3 standard errors, not 2.
static double student_t95(std::size_t df) {
    static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                    2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                    2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                    2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    return df >= 1 && df <= std::size(kT) ? kT[df - 1] : 2.0;
}

// A batch's cost: its time less its wait for a core, but never less than its CPU time (the two
// clocks disagree by a few percent under a hypervisor): the replay shares the cores again.
static double batch_cost_s(const BatchRecord& b) {
    const double wall = static_cast<double>(b.end_ns - b.start_ns) * 1e-9;
    const double wait = b.cpu_ns >= 0 ? static_cast<double>(b.wait_ns) * 1e-9 : 0;
    const double cpu = b.cpu_ns >= 0 ? static_cast<double>(b.cpu_ns) * 1e-9 : 0;
    return std::max({0.0, wall - wait, std::min(cpu, wall)});
}

std::optional<double> cost_spread(const Plan& plan, const SimModel& model, const RunReport& sample,
                                  const std::vector<double>& weights, std::size_t roots) {
    const std::size_t k = weights.size();
    std::vector<double> measured(k, 0), modelled(k, 0);
    for (const BatchRecord& b : sample.batches) {
        if (b.stale || b.call >= model.calls.size() || b.roots.size() != b.size) continue;
        const bool expand = plan.calls[b.call].kind == CallKind::Expand;
        auto weight = [&](std::uint32_t r) { return expand && r < k ? weights[r] : 1.0; };
        double work = 0;
        for (std::uint32_t r : b.roots) work += weight(r);
        if (work <= 0) continue;
        const double ran = batch_cost_s(b);
        const double model_s = model.calls[b.call].batch_s(work);
        for (std::uint32_t r : b.roots) {
            if (r >= k) continue;
            measured[r] += ran * weight(r) / work;
            modelled[r] += model_s * weight(r) / work;
        }
    }
    std::vector<double> ratios;
    for (std::size_t r = 0; r < k; ++r) {
        if (modelled[r] > 0) ratios.push_back(measured[r] / modelled[r]);
    }
    const auto n = static_cast<double>(ratios.size());
    if (ratios.size() < 2) return std::nullopt;
    double mean = 0, var = 0;
    for (double x : ratios) mean += x / n;
    if (mean <= 0) return std::nullopt;
    for (double x : ratios) var += (x - mean) * (x - mean);
    var /= n - 1;
    const double population = static_cast<double>(std::max(roots, ratios.size()));
    return student_t95(ratios.size() - 1) * std::sqrt(var / n * (1 - n / population)) / mean;
}

std::vector<std::size_t> choose_sample(std::size_t roots, const std::vector<std::uint64_t>& sizes,
                                       double fraction, std::size_t min_sample) {
    if (roots == 0) return {};
    const auto wanted = std::clamp<std::size_t>(
        std::max(min_sample,
                 static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(roots)))),
        1, roots);
    std::vector<std::size_t> order(roots);
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (sizes.size() == roots) {
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
    }
    const std::size_t strata = std::min<std::size_t>(4, wanted);
    std::vector<std::size_t> picked;
    for (std::size_t s = 0; s < strata; ++s) {
        const std::size_t begin = roots * s / strata, end = roots * (s + 1) / strata;
        // This stratum's share of the sample, at least one root.
        const std::size_t take = std::clamp<std::size_t>(
            wanted * (s + 1) / strata - wanted * s / strata, 1, end - begin);
        for (std::size_t k = 0; k < take; ++k) {
            picked.push_back(order[begin + (end - begin) * (2 * k + 1) / (2 * take)]);
        }
    }
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    return picked;
}

std::pair<double, double> fit_cost(const std::vector<std::pair<double, double>>& points) {
    if (points.empty()) return {0, 0};
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : points) {
        n += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double var = sxx - sx * sx / n;
    if (var <= 1e-12 * std::max(1.0, sxx)) return {0, sx > 0 ? sy / sx : 0};  // one size
    double b = (sxy - sx * sy / n) / var;
    double a = (sy - b * sx) / n;
    if (b < 0) return {std::max(0.0, sy / n), 0.0};
    if (a < 0) return {0.0, sxx > 0 ? std::max(0.0, sxy / sxx) : 0};
    return {a, b};
}

SimModel fit_model(const Plan& plan, const RunReport& sample) {
    SimModel model;
    model.calls.resize(plan.calls.size());
    std::vector<std::vector<std::pair<double, double>>> points(plan.calls.size());
    std::vector<double> cpu_s(plan.calls.size(), 0), run_s(plan.calls.size(), 0);
    for (const BatchRecord& b : sample.batches) {
        if (b.stale || b.call >= points.size()) continue;
        const double cpu = b.cpu_ns >= 0 ? static_cast<double>(b.cpu_ns) * 1e-9 : 0;
        const double ran = batch_cost_s(b);
        points[b.call].emplace_back(static_cast<double>(b.size), ran);
        if (b.cpu_ns >= 0) {
            cpu_s[b.call] += cpu;
            run_s[b.call] += ran;
        }
    }
    const std::uint64_t bytes =
        sample.peak_live_items > 0
            ? std::max<std::uint64_t>(1, sample.peak_live_bytes / sample.peak_live_items)
            : 64;
    model.root_bytes = bytes;
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const CallSpec& spec = plan.calls[c];
        CallCost& cost = model.calls[c];
        std::tie(cost.fixed_s, cost.per_item_s) = fit_cost(points[c]);
        cost.cpu_share = run_s[c] > 0 ? std::clamp(cpu_s[c] / run_s[c], 0.0, 1.0) : 0;
        cost.bytes = bytes;
        const std::uint64_t grains = c < sample.calls.size() ? sample.calls[c].grains : 0;
        if (spec.kind == CallKind::Filter && grains > 0) {
            cost.keep =
                1.0 - static_cast<double>(sample.calls[c].dropped) / static_cast<double>(grains);
        }
        if (spec.kind == CallKind::Expand && !spec.outputs.empty()) {
            const DomainId child = plan.ports[spec.outputs[0]].domain;
            std::uint64_t children = 0;
            for (std::size_t d = 0; d < plan.calls.size() && d < sample.calls.size(); ++d) {
                if (plan.calls[d].domain == child)
                    children = std::max(children, sample.calls[d].grains);
            }
            cost.fanout =
                grains > 0 ? static_cast<double>(children) / static_cast<double>(grains) : 0;
        }
    }
    return model;
}

int run_estimate(const Plan& plan, RootSource& source, const RunOptions& base,
                 const EstimateSettings& settings, std::ostream& out, std::ostream& err) {
    // Every root, to count them and stratify the sample (a root is a Value and a name).
    std::vector<RootSource::Root> roots;
    while (std::optional<RootSource::Root> r = source.next()) roots.push_back(std::move(*r));
    if (roots.empty()) {
        err << "estimate: the input has no roots\n";
        return 2;
    }
    std::vector<std::uint64_t> sizes;
    for (const RootSource::Root& r : roots) {
        const std::optional<std::uint64_t> size = file_size_of(r.name);
        if (!size) {
            sizes.clear();
            break;
        }
        sizes.push_back(*size);
    }
    const std::vector<std::size_t> picked =
        choose_sample(roots.size(), sizes, settings.sample_fraction, settings.min_sample);
    std::vector<RootSource::Root> sample_roots;
    for (std::size_t i : picked) sample_roots.push_back(roots[i]);

    // The sample, for real, with nothing written: no sinks, no journal, no store.
    RunOptions options = base;
    options.root_sinks.clear();
    options.sinks.clear();
    options.journal_path.clear();
    options.resume = options.retry_failed = options.resume_rebuilt = false;
    options.cache_dir.clear();
    options.trace_path.clear();
    options.observer = nullptr;
    options.on_progress = nullptr;
    options.on_root_result = nullptr;
    options.on_root_finished = nullptr;
    options.on_stuck = nullptr;
    options.stop = nullptr;
    options.keep_batches = true;
    options.measure_cpu = true;
    options.report_ok_roots = false;
    VectorRoots sample_source(sample_roots);
    Plan counted = plan;
    ChildCounts children(sample_roots.size());
    const std::optional<CallId> expand = root_expand(plan);
    if (expand) {
        counted.calls[*expand].factory = [inner = plan.calls[*expand].factory,
                                          &children]() -> std::unique_ptr<Actor> {
            std::unique_ptr<Actor> actor = inner();
            if (!actor) return actor;
            return std::make_unique<CountingActor>(std::move(actor), children);
        };
    }
    // This process's peak resident memory during the sample: its actors' setup (models loaded)
    // and the payload it held at once.
    reset_peak_rss();
    // The driver runs on this thread: its CPU time over the sample's wall time is the share of a
    // core it keeps busy beside the Calls' batches (admission, scheduling, commits).
    const std::int64_t driver_cpu_at_start = thread_cpu_ns();
    const RunReport sample = run(counted, sample_source, options);
    const double driver_cpu_s = static_cast<double>(thread_cpu_ns() - driver_cpu_at_start) * 1e-9;
    const std::uint64_t sample_peak_rss = status_bytes("VmHWM");
    if (sample.aborted) {
        err << "estimate: the sample run aborted: " << sample.abort_reason << "\n";
        return 1;
    }

    SimModel model = fit_model(plan, sample);
    const char* weights = "equal";  // what the roots' weights follow, for the table and JSON
    if (!sizes.empty()) {           // a root's weight: its file's size against the sample's mean
        weights = "file size";
        double mean = 0;
        for (std::size_t i : picked) mean += static_cast<double>(sizes[i]);
        mean /= static_cast<double>(picked.size());
        for (std::uint64_t s : sizes) {
            model.root_scales.push_back(mean > 0 ? static_cast<double>(s) / mean : 1.0);
        }
    } else if (expand) {  // each root weighs a sampled root's fan-out over the sample's mean
        model.root_scales = root_weights(children.take(), roots.size(), 1);
        if (!model.root_scales.empty()) weights = "the sample's children";
    }
    const std::uint32_t cores =
        settings.cores ? settings.cores : std::max(1u, std::thread::hardware_concurrency());
    // The Calls' CPU time shares the stated cores; under MPI the actors are on other ranks'
    // cores, which the replay does not share.
    model.cores = options.placement ? 0 : cores;
    model.driver_cpu = sample.wall_s > 0 ? std::clamp(driver_cpu_s / sample.wall_s, 0.0, 1.0) : 0;
    SimOutcome predicted = simulate(plan, model, roots.size(), options);

    // The count pass: the other roots' children, as many as settings.count_share of the
    // predicted run allows (actors on other MPI ranks cannot be wrapped here: no pass).
    std::vector<std::optional<std::uint64_t>> counts(roots.size());
    if (expand) {
        const std::vector<std::uint64_t> in_sample = children.take();
        for (std::size_t k = 0; k < picked.size(); ++k) counts[picked[k]] = in_sample[k];
    }
    std::size_t pass_counted = 0;
    double pass_wall_s = 0;
    const double budget_s =
        settings.count_share > 0
            ? std::max(settings.count_share * predicted.makespan_s, settings.count_floor_s)
            : 0;
    // With file roots whose sampled children are all alike (a video's scenes), the weights
    // stay by size (weigh_by_children): no pass.
    std::vector<std::optional<std::uint64_t>> sampled(roots.size());
    for (std::size_t i : picked) sampled[i] = counts[i];
    const bool children_tell = weigh_by_children(sampled, sizes);
    if (expand && children_tell && !options.placement && picked.size() < roots.size() &&
        budget_s > 0) {
        std::vector<std::size_t> order;  // every prefix spread over the source
        for (std::size_t i : spread_order(roots.size())) {
            if (!counts[i]) order.push_back(i);
        }
        std::vector<RootSource::Root> pass_roots;
        for (std::size_t i : order) pass_roots.push_back(roots[i]);
        Plan counting = plan;
        auto pass = std::make_shared<CountPass>(order.size());
        CallSpec& spec = counting.calls[*expand];
        spec.factory = [inner = plan.calls[*expand].factory, pass]() -> std::unique_ptr<Actor> {
            std::unique_ptr<Actor> actor = inner();
            if (!actor) return actor;
            return std::make_unique<CountOnlyActor>(std::move(actor), pass);
        };
        // One root a batch, no retry: a Grain that fails on its own is left uncounted.
        spec.options.batch = 1;
        spec.options.retries = 0;
        spec.options.infra_retries = 0;
        RunOptions pass_options = options;
        pass_options.keep_batches = pass_options.measure_cpu = false;
        pass_options.max_inflight_roots = std::max(1u, set_options(counting, *expand).actors);
        const auto start = std::chrono::steady_clock::now();
        const auto budget = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::duration<double>(budget_s));
        VectorRoots pass_source(std::move(pass_roots), start + budget);
        // The roots in flight at the deadline get as long again, at least the count pass's
        // give-up time; an expand that is still running then (a UDF that hangs) is stopped and
        // its root left uncounted, so the estimate never waits on it.
        const auto give_up =
            start + budget + std::max<std::chrono::nanoseconds>(budget, settings.count_give_up);
        StopRequest stop;
        pass_options.stop = &stop;
        pass_options.stop_grace = std::chrono::milliseconds(0);
        std::mutex watch_mutex;
        std::condition_variable watch_wake;
        bool pass_done = false;
        std::thread watchdog([&] {
            std::unique_lock<std::mutex> lock(watch_mutex);
            if (!watch_wake.wait_until(lock, give_up, [&] { return pass_done; })) stop.request();
        });
        const RunReport report = run(counting, pass_source, pass_options);
        {
            std::lock_guard<std::mutex> lock(watch_mutex);
            pass_done = true;
        }
        watch_wake.notify_one();
        watchdog.join();
        pass_wall_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (report.interrupted) {
            err << "estimate: the count pass stopped after " << seconds(pass_wall_s)
                << ": an expand was still running on a root (its children are not counted)\n";
        }
        if (report.aborted) {
            err << "estimate: the count pass aborted (" << report.abort_reason
                << "); the sample's fan-out stands\n";
        } else {
            const std::vector<std::optional<std::uint64_t>> got = pass->take();
            for (std::size_t k = 0; k < got.size(); ++k) {
                if (got[k]) {
                    counts[order[k]] = got[k];
                    ++pass_counted;
                }
            }
        }
        if (pass_counted > 0 && weigh_by_children(counts, sizes)) {
            std::vector<std::uint64_t> in_sample;
            for (std::size_t i : picked) in_sample.push_back(counts[i].value_or(0));
            std::vector<double> scales = count_weights(counts, in_sample, sizes, 1);
            if (!scales.empty()) {
                model.root_scales = std::move(scales);
                weights = "children";
                predicted = simulate(plan, model, roots.size(), options);
            }
        }
    }
    // The run's peak: the sample's, plus the payload the whole run holds at once beyond the
    // sample's (the replay counts items in flight at the sample's mean bytes per item). Setup
    // and code are the sample's; isolated Calls' worker processes are not counted.
    const double extra_payload = std::max(0.0, static_cast<double>(predicted.peak_live_bytes) -
                                                   static_cast<double>(sample.peak_live_bytes));
    const double peak_rss =  // 0: unknown (no /proc)
        sample_peak_rss > 0 ? static_cast<double>(sample_peak_rss) + extra_payload : 0;
    // The range: the whole input replayed again with the mean fan-out at +- 2 standard errors
    // of the children per sampled root (when some roots' children are not known), and every
    // Call's cost at its 95% Student's t bounds from what each sampled root took against what
    // the model gives it (a page's cost differs between documents; 3 documents know little of
    // it: cost_spread).
    std::optional<std::pair<double, double>> range;
    double fan_spread = 0, cost_range = 0;  // 0: none (every root counted; an exact sample)
    if (expand) {
        std::vector<std::uint64_t> known;  // the sample's, and the count pass's
        for (const std::optional<std::uint64_t>& c : counts) {
            if (c) known.push_back(*c);
        }
        fan_spread = fanout_spread(known, roots.size(), model.calls[*expand].fanout).value_or(0);
    }
    {
        std::vector<double> sample_weights;
        for (std::size_t i : picked) {
            sample_weights.push_back(i < model.root_scales.size() ? model.root_scales[i] : 1.0);
        }
        cost_range = cost_spread(plan, model, sample, sample_weights, roots.size()).value_or(0);
    }
    const bool fan_wide = fan_spread > 1e-9, cost_wide = cost_range > 1e-9;
    if (fan_wide || cost_wide) {
        std::pair<double, double> r;
        for (const double sign : {-1.0, 1.0}) {
            SimModel shifted = model;
            if (expand) {
                shifted.calls[*expand].fanout =
                    std::max(0.0, model.calls[*expand].fanout * (1 + sign * fan_spread));
            }
            const double k = std::max(0.0, 1 + sign * cost_range);
            for (CallCost& c : shifted.calls) {
                c.fixed_s *= k;
                c.per_item_s *= k;
            }
            const double m = simulate(plan, shifted, roots.size(), options).makespan_s;
            (sign < 0 ? r.first : r.second) = m;
        }
        range = r;
    }

    // The bottleneck: the actor set busiest for its size (a shared pool's Calls add up), and in
    // a pool its busiest Call.
    std::vector<double> set_busy(predicted.calls.size(), 0);
    for (std::size_t c = 0; c < predicted.calls.size(); ++c) {
        for (std::size_t d = 0; d < predicted.calls.size(); ++d) {
            const bool same = d == c || (plan.calls[c].pool != kNoPool &&
                                         plan.calls[d].pool == plan.calls[c].pool);
            if (same) set_busy[c] += predicted.calls[d].utilization;
        }
    }
    std::optional<CallId> bottleneck;
    for (std::size_t c = 0; c < predicted.calls.size(); ++c) {
        if (predicted.calls[c].actors == 0) continue;
        if (!bottleneck || set_busy[c] > set_busy[*bottleneck] + 1e-12 ||
            (set_busy[c] >= set_busy[*bottleneck] - 1e-12 &&
             predicted.calls[c].utilization > predicted.calls[*bottleneck].utilization))
            bottleneck = static_cast<CallId>(c);
    }
    const bool call_bound = bottleneck && set_busy[*bottleneck] >= 0.5;

    // What-if: the bottleneck's actors in 1, 2, 4 ... cores, the current count and twice it
    // (more actors than cores pay only for a Call that waits: the replay shares the cores), its
    // batch at cap, 2x, half.
    std::optional<Candidate> best;
    std::size_t tried = 0;
    if (bottleneck) {
        // Actors are the set's (a pool's for a pool's Call), the batch cap the Call's own.
        CallOptions current = plan.calls[*bottleneck].options;
        current.actors = set_options(const_cast<Plan&>(plan), *bottleneck).actors;
        std::vector<std::uint32_t> actor_counts;
        for (std::uint32_t a = 1; a <= cores; a *= 2) actor_counts.push_back(a);
        actor_counts.push_back(cores);
        actor_counts.push_back(current.actors);
        actor_counts.push_back(current.actors * 2);
        std::sort(actor_counts.begin(), actor_counts.end());
        actor_counts.erase(std::unique(actor_counts.begin(), actor_counts.end()),
                           actor_counts.end());
        std::vector<std::uint32_t> batches = {current.batch, current.batch * 2,
                                              std::max(1u, current.batch / 2)};
        std::sort(batches.begin(), batches.end());
        batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
        for (std::uint32_t a : actor_counts) {
            for (std::uint32_t b : batches) {
                Plan what_if = plan;
                set_options(what_if, *bottleneck).actors = a;
                what_if.calls[*bottleneck].options.batch = b;
                Candidate c{a, b, simulate(what_if, model, roots.size(), options)};
                ++tried;
                if (c.sim.failed_roots > 0) continue;
                // Best makespan; within 1%, the fewer actors, then the smaller change of batch.
                if (!best || c.sim.makespan_s < best->sim.makespan_s * 0.99 ||
                    (c.sim.makespan_s <= best->sim.makespan_s * 1.01 && a < best->actors)) {
                    best = std::move(c);
                }
            }
        }
    }

    // The table.
    const CallSpec* neck = bottleneck ? &plan.calls[*bottleneck] : nullptr;
    const std::string neck_set =
        neck ? (neck->pool != kNoPool ? plan.pools[neck->pool].name : neck->name) : "";
    std::ostringstream o;
    o << "estimate: " << roots.size() << " roots, from a sample of " << picked.size() << " ("
      << (sizes.empty() ? "strata by source order" : "strata by file size") << ") that ran "
      << seconds(sample.wall_s) << "; " << cores << " cores\n";
    const std::size_t known = static_cast<std::size_t>(
        std::count_if(counts.begin(), counts.end(), [](const auto& c) { return c.has_value(); }));
    if (pass_counted > 0) {
        o << "  children counted          on " << known << " of " << roots.size()
          << " roots (the count pass: " << pass_counted << " in " << seconds(pass_wall_s) << ")\n";
    }
    o << "  roots weighed by          " << weights
      << (pass_counted > 0 && std::string(weights) == "file size"
              ? " (every counted root had the same children)"
              : "")
      << "\n";
    o << "  predicted makespan        " << seconds(predicted.makespan_s);
    if (expand && known == roots.size()) o << " (every root's children counted)";
    o << "\n";
    if (range) {
        o << "  makespan range            " << seconds(range->first) << " to "
          << seconds(range->second) << " (95% bounds of "
          << (fan_wide && cost_wide ? "the mean fan-out and the cost"
              : fan_wide            ? "the mean fan-out"
                                    : "the cost")
          << ": " << (cost_wide ? "the sampled roots' costs differ against the model" : "")
          << (fan_wide && cost_wide ? ", " : "")
          << (fan_wide ? "some roots' children are not counted" : "") << ")\n";
    }
    o << "  time to first root        " << seconds(predicted.first_root_s) << "\n";
    if (peak_rss > 0) {
        o << "  peak memory               " << megabytes(peak_rss)
          << " (this process: the sample's " << megabytes(static_cast<double>(sample_peak_rss))
          << " + " << megabytes(extra_payload) << " more payload in flight)\n";
    }
    o << "  time to commit p50 / p99  " << seconds(predicted.p50_latency_s) << " / "
      << seconds(predicted.p99_latency_s) << "\n";
    o << "  sample / predicted run    "
      << percent(predicted.makespan_s > 0 ? (sample.wall_s + pass_wall_s) / predicted.makespan_s
                                          : 0)
      << (pass_counted > 0 ? " (with the count pass)" : "") << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-24s %7s %8s %12s %6s  %s\n", "call", "actors", "batches",
                  "busy", "util", "model (a + b n)");
    o << line;
    for (std::size_t c = 0; c < predicted.calls.size(); ++c) {
        const SimCall& k = predicted.calls[c];
        const CallCost& m = model.calls[c];
        std::string fit = seconds(m.fixed_s) + " + " + seconds(m.per_item_s) + " n";
        if (plan.calls[c].kind == CallKind::Expand) {
            char f[48];
            std::snprintf(f, sizeof f, ", %.2f children each", m.fanout);
            fit += f;
        }
        if (plan.calls[c].kind == CallKind::Filter) fit += ", keeps " + percent(m.keep);
        if (model.cores > 0 && m.cpu_share >= 0.005) fit += ", " + percent(m.cpu_share) + " CPU";
        std::snprintf(line, sizeof line, "  %-24s %7u %8llu %12s %6s  %s\n", k.name.c_str(),
                      k.actors, static_cast<unsigned long long>(k.batches),
                      seconds(k.busy_s).c_str(), k.actors ? percent(k.utilization).c_str() : "-",
                      fit.c_str());
        o << line;
    }
    if (neck) {
        o << "  bottleneck                " << neck->name << " ("
          << (neck->pool != kNoPool ? "pool " + neck_set + ": " : "")
          << percent(set_busy[*bottleneck]) << " busy)"
          << (call_bound ? ""
                         : "; no Call is busy half the time: the source, admission "
                           "(--max-inflight-roots) or the chain's latency limits the run")
          << "\n";
    }
    if (best) {
        const double gain = 1 - best->sim.makespan_s / predicted.makespan_s;
        o << "  recommended               --set " << neck_set << ".actors=" << best->actors
          << " --set " << neck->name << ".batch=" << best->batch << "  -> "
          << seconds(best->sim.makespan_s) << " (" << (gain >= 0 ? "-" : "+")
          << percent(std::abs(gain)) << ", " << tried << " settings simulated)\n";
    }
    out << o.str();

    if (!settings.json_path.empty()) {
        nlohmann::json j{{"format", kPredictionFormat},
                         {"pipeline", base.pipeline_name},
                         {"roots", roots.size()},
                         {"sample_roots", picked.size()},
                         {"sample_wall_s", sample.wall_s},
                         {"count_wall_s", pass_wall_s},
                         {"driver_cpu", model.driver_cpu},
                         {"count_roots", pass_counted},
                         {"counted_roots", known},
                         {"weights", weights},
                         {"makespan_s", predicted.makespan_s},
                         {"first_root_s", predicted.first_root_s},
                         {"p50_commit_s", predicted.p50_latency_s},
                         {"p99_commit_s", predicted.p99_latency_s},
                         {"cores", cores},
                         {"bottleneck", neck ? neck->name : ""}};
        if (peak_rss > 0) {
            j["peak_rss_bytes"] = peak_rss;
            j["sample_peak_rss_bytes"] = sample_peak_rss;
        }
        j["peak_live_bytes"] = predicted.peak_live_bytes;
        if (range) {
            j["makespan_low_s"] = range->first;
            j["makespan_high_s"] = range->second;
        }
        if (fan_wide) j["fanout_spread"] = fan_spread;
        if (cost_wide) j["cost_spread"] = cost_range;
        j["progress"] = predicted.progress;  // [share, seconds] at each hundredth
        auto& calls = j["calls"] = nlohmann::json::array();
        for (std::size_t c = 0; c < predicted.calls.size(); ++c) {
            const SimCall& k = predicted.calls[c];
            calls.push_back({{"name", plan.calls[c].name},
                             {"actors", k.actors},
                             {"grains", k.grains},
                             {"batches", k.batches},
                             {"busy_s", k.busy_s},
                             {"utilization", k.utilization},
                             {"fixed_s", model.calls[c].fixed_s},
                             {"per_item_s", model.calls[c].per_item_s},
                             {"cpu_share", model.calls[c].cpu_share}});
        }
        if (best) {
            j["recommended"] = {{"set", neck_set},
                                {"call", neck->name},
                                {"actors", best->actors},
                                {"batch", best->batch},
                                {"makespan_s", best->sim.makespan_s}};
        }
        std::ofstream json(settings.json_path);
        json << j.dump(2) << "\n";
        if (!json) {
            err << "estimate: --estimate-json: cannot write " << settings.json_path << "\n";
            return 2;
        }
    }
    return 0;
}

RunPrediction read_prediction(const std::string& path, const Plan& plan,
                              std::optional<std::size_t> roots) {
    auto fail = [&](const std::string& why) -> RunPrediction {
        throw std::invalid_argument(path + ": " + why);
    };
    std::ifstream in(path);
    if (!in) return fail("cannot read it");
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail("not JSON (an --estimate-json file?)");
    if (j.value("format", "") != kPredictionFormat) {
        return fail("not an estimate of this rop (its \"format\" is not \"" +
                    std::string(kPredictionFormat) + "\"; write one with --estimate-json)");
    }
    RunPrediction e;
    e.file = path;
    try {
        e.estimated_roots = j.at("roots").get<std::size_t>();
        e.sample_roots = j.value("sample_roots", std::size_t{0});
        e.counted_roots = j.value("counted_roots", e.sample_roots);
        e.cores = j.at("cores").get<std::uint32_t>();
        e.makespan_s = j.at("makespan_s").get<double>();
        e.first_root_s = j.at("first_root_s").get<double>();
        e.p50_commit_s = j.at("p50_commit_s").get<double>();
        e.p99_commit_s = j.at("p99_commit_s").get<double>();
        if (j.contains("makespan_low_s") && j.contains("makespan_high_s")) {
            e.makespan_low_s = j.at("makespan_low_s").get<double>();
            e.makespan_high_s = j.at("makespan_high_s").get<double>();
        }
        if (j.contains("peak_rss_bytes")) e.peak_rss_bytes = j.at("peak_rss_bytes").get<double>();
        if (j.contains("progress")) {
            e.progress = j.at("progress").get<std::vector<std::pair<double, double>>>();
        }
        for (const nlohmann::json& c : j.at("calls")) {
            e.calls.push_back({c.at("name").get<std::string>(), c.at("grains").get<double>(),
                               c.at("busy_s").get<double>(), c.at("utilization").get<double>()});
        }
    } catch (const nlohmann::json::exception& x) {
        return fail(std::string("a field is missing or of the wrong type: ") + x.what());
    }
    std::vector<std::string> ours, theirs;
    for (const CallSpec& c : plan.calls) ours.push_back(c.name);
    for (const PredictedCall& c : e.calls) theirs.push_back(c.name);
    if (ours != theirs) {
        auto list = [](const std::vector<std::string>& names) {
            std::string text;
            for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
            return text.empty() ? std::string("none") : text;
        };
        return fail("an estimate of another pipeline (its Calls: " + list(theirs) +
                    "; this pipeline's: " + list(ours) + ")");
    }
    // Made for another count of roots (another input): the work and the time scale.
    e.roots = roots.value_or(e.estimated_roots);
    if (e.estimated_roots > 0 && e.roots != e.estimated_roots) {
        const double k = static_cast<double>(e.roots) / static_cast<double>(e.estimated_roots);
        e.makespan_s *= k;
        if (e.makespan_low_s) *e.makespan_low_s *= k;
        if (e.makespan_high_s) *e.makespan_high_s *= k;
        for (PredictedCall& c : e.calls) {
            c.grains *= k;
            c.busy_s *= k;
        }
        for (auto& point : e.progress) point.second *= k;
        // The sample's resident memory stays; only the payload in flight could grow, and more
        // roots keep about as many in flight: the peak is left as it was predicted.
    }
    return e;
}

}  // namespace rop::runtime::estimate
