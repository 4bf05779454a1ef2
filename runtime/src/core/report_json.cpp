// RunReport::to_json (the --report file) and the Chrome/Perfetto trace of batches.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine.h"

namespace rop::runtime {

namespace {
constexpr std::size_t kMinP99Sample = 100;  // roots before root_latency_s.p99 is reported
}  // namespace

const char* to_string(RootStatus status) {
    switch (status) {
        case RootStatus::Ok: return "ok";
        case RootStatus::Dropped: return "dropped";
        case RootStatus::Failed: return "failed";
    }
    return "?";
}

// LatencySample: exact, then buckets 1% wide from 1 us up (2,779 of them reach 11 days).
namespace {
constexpr double kBucketBase = 1e-6;
constexpr std::size_t kBuckets = 2780;
std::size_t bucket_of(double seconds) {
    if (!(seconds > kBucketBase)) return 0;
    const double index = std::floor(std::log(seconds / kBucketBase) / std::log(1.01)) + 1;
    return std::min<std::size_t>(static_cast<std::size_t>(index), kBuckets - 1);
}
}  // namespace

void LatencySample::to_buckets() {
    buckets_.assign(kBuckets, 0);
    bucket_max_.assign(kBuckets, 0);
    for (const double v : values_) {
        const std::size_t b = bucket_of(v);
        ++buckets_[b];
        bucket_max_[b] = std::max(bucket_max_[b], v);
    }
    std::vector<double>().swap(values_);
}

void LatencySample::add(double seconds) {
    ++n_;
    max_ = n_ == 1 ? seconds : std::max(max_, seconds);
    if (buckets_.empty()) {
        values_.push_back(seconds);
        if (values_.size() > kExact) to_buckets();
        return;
    }
    const std::size_t b = bucket_of(seconds);
    ++buckets_[b];
    bucket_max_[b] = std::max(bucket_max_[b], seconds);
}

void LatencySample::add(const LatencySample& other) {
    if (other.buckets_.empty()) {
        for (const double v : other.values_) add(v);
        return;
    }
    if (buckets_.empty()) to_buckets();
    for (std::size_t b = 0; b < kBuckets; ++b) {
        buckets_[b] += other.buckets_[b];
        bucket_max_[b] = std::max(bucket_max_[b], other.bucket_max_[b]);
    }
    max_ = n_ == 0 ? other.max_ : std::max(max_, other.max_);
    n_ += other.n_;
}

double LatencySample::percentile(std::size_t percent) const {
    const std::size_t rank = (percent * n_ + 99) / 100;  // ceil(percent * n / 100), 1-based
    if (buckets_.empty()) {
        std::vector<double> sorted = values_;
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank - 1),
                         sorted.end());
        return sorted[rank - 1];
    }
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
        seen += buckets_[b];
        if (seen >= rank) return bucket_max_[b];
    }
    return max_;
}

std::size_t RunReport::failed_roots() const {
    std::size_t failed = omitted.failed;
    for (const RootResult& r : roots) failed += r.status == RootStatus::Failed;
    return failed;
}

namespace {

nlohmann::json root_object(const RootResult& r) {
    nlohmann::json e{{"name", r.name}, {"status", to_string(r.status)}, {"latency_s", r.latency_s}};
    if (r.resumed) e["resumed"] = true;  // journaled by an earlier run, not run again
    if (r.status == RootStatus::Failed) {
        e["call"] = r.failed_call;
        e["reason"] = r.reason;
        e["attempts"] = r.attempts;
    }
    if (r.partial) e["partial"] = true;
    if (!r.skipped.empty()) {
        auto& skipped = e["skipped"] = nlohmann::json::array();
        for (const SkippedMember& s : r.skipped) {
            skipped.push_back({{"call", s.call}, {"ordinal", s.ordinal}, {"reason", s.reason}});
        }
    }
    return e;
}

// Invalid UTF-8 (a root name is a file path) is replaced, never thrown over.
std::string dump(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string RunReport::root_json(const RootResult& root) { return dump(root_object(root), -1); }

namespace {

// The estimate the run was given, each figure beside what the run did ("measured": null where
// the run cannot say, as p99 under 100 roots).
nlohmann::json estimate_object(const RunPrediction& e, const RunReport& r,
                               const LatencySample& latencies) {
    auto pair = [](double predicted, nlohmann::json measured) {
        return nlohmann::json{{"predicted", predicted}, {"measured", std::move(measured)}};
    };
    const std::size_t n = latencies.size();
    nlohmann::json j{
        {"file", e.file},
        {"roots", e.roots},
        {"estimated_roots", e.estimated_roots},
        {"cores", e.cores},
        {"makespan_s", pair(e.makespan_s, r.wall_s)},
        {"time_to_first_root_s", pair(e.first_root_s, r.time_to_first_root_s)},
        {"p50_commit_s",
         pair(e.p50_commit_s, n > 0 ? nlohmann::json(latencies.percentile(50)) : nullptr)},
        {"p99_commit_s",
         pair(e.p99_commit_s,
              n >= kMinP99Sample ? nlohmann::json(latencies.percentile(99)) : nullptr)}};
    if (e.peak_rss_bytes) {
        j["peak_rss_bytes"] =
            pair(*e.peak_rss_bytes,
                 r.peak_rss_bytes > 0 ? nlohmann::json(r.peak_rss_bytes) : nlohmann::json(nullptr));
    }
    if (e.makespan_low_s && e.makespan_high_s) {
        j["makespan_s"]["low"] = *e.makespan_low_s;
        j["makespan_s"]["high"] = *e.makespan_high_s;
    }
    auto& calls = j["calls"] = nlohmann::json::array();
    for (const PredictedCall& c : e.calls) {
        const CallCounters* measured = nullptr;
        for (const CallCounters& k : r.calls) {
            if (k.name == c.name) measured = &k;
        }
        calls.push_back(
            {{"name", c.name},
             {"grains",
              pair(c.grains,
                   measured ? nlohmann::json(measured->grains + measured->suppressed) : nullptr)},
             {"busy_s", pair(c.busy_s, measured ? nlohmann::json(measured->busy_s) : nullptr)}});
    }
    return j;
}

nlohmann::json summary_object(const RunReport& r) {
    nlohmann::json j;
    // Who ran, where and when (pipeline_main fills them; null when unknown).
    auto text_or_null = [](const std::string& s) {
        return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
    };
    j["pipeline"] = text_or_null(r.pipeline);
    j["rop_version"] = text_or_null(r.rop_version);
    j["rop_hash"] = text_or_null(r.rop_hash);
    j["host"] = text_or_null(r.host);
    j["started_at"] = text_or_null(r.started_at);
    j["ended_at"] = text_or_null(r.ended_at);
    j["aborted"] = r.aborted;
    if (r.aborted) j["abort_reason"] = r.abort_reason;
    j["interrupted"] = r.interrupted;
    if (r.interrupted) j["interrupt_reason"] = r.interrupt_reason;
    j["wall_s"] = r.wall_s;
    j["time_to_first_root_s"] = r.time_to_first_root_s;
    j["peak_inflight_roots"] = r.peak_inflight_roots;
    j["peak_live_items"] = r.peak_live_items;
    j["peak_live_bytes"] = r.peak_live_bytes;
    j["peak_rss_bytes"] = r.peak_rss_bytes > 0 ? nlohmann::json(r.peak_rss_bytes) : nullptr;
    j["backpressure_pauses"] = r.backpressure_pauses;
    std::size_t counts[3] = {r.omitted.ok, r.omitted.dropped, r.omitted.failed};
    std::size_t resumed = r.omitted.resumed;
    LatencySample latencies = r.omitted.latency;
    for (const RootResult& root : r.roots) {
        ++counts[static_cast<int>(root.status)];
        if (root.resumed) {
            ++resumed;
        } else {
            latencies.add(root.latency_s);
        }
    }
    j["summary"] = {{"roots", r.total_roots()},
                    {"ok", counts[0]},
                    {"dropped", counts[1]},
                    {"failed", counts[2]},
                    {"resumed", resumed}};
    // With the result store: the roots it answered whole (ResultCache::RootAnswer).
    if (r.cache_roots_answered > 0 ||
        std::any_of(r.calls.begin(), r.calls.end(),
                    [](const CallCounters& c) { return c.cache_hits + c.cache_misses > 0; })) {
        j["summary"]["from_store"] = r.cache_roots_answered;
    }
    if (latencies.size() > 0) {
        // Nearest rank: the p-th percentile is the smallest latency with at least p% of the
        // sample at or below it, so it is always a latency that happened (past a million
        // roots, within 1%: LatencySample). p99 needs 100 roots to mean anything (below that
        // it would be the max or next to it): null then.
        const std::size_t n = latencies.size();
        j["root_latency_s"] = {
            {"n", n},
            {"p50", latencies.percentile(50)},
            {"p99", n >= kMinP99Sample ? nlohmann::json(latencies.percentile(99)) : nullptr},
            {"max", latencies.max()}};
        if (!latencies.exact()) j["root_latency_s"]["within"] = 0.01;
    }
    auto& calls_json = j["calls"] = nlohmann::json::array();
    for (const CallCounters& c : r.calls) {
        calls_json.push_back({{"name", c.name},
                              {"grains", c.grains},
                              {"batches", c.batches},
                              {"mean_batch_fill", c.mean_batch_fill},
                              {"median_batch_s", c.median_batch_s},
                              {"busy_s", c.busy_s},
                              {"retries", c.retries},
                              {"retried_items", c.retried_items},
                              {"infra_retries", c.infra_retries},
                              {"infra_retried_items", c.infra_retried_items},
                              {"suppressed", c.suppressed},
                              {"dropped", c.dropped},
                              {"stale_reports", c.stale_reports},
                              {"failed", c.failed},
                              {"mixed_parent_batches", c.mixed_parent_batches},
                              {"stuck_batches", c.stuck_batches},
                              {"skipped_members", c.skipped_members}});
        if (!c.udf_counters.empty()) calls_json.back()["udf_counters"] = c.udf_counters;
        if (c.cache_hits + c.cache_misses > 0) {
            calls_json.back()["cache"] = {{"hits", c.cache_hits},
                                          {"misses", c.cache_misses},
                                          {"corrupt", c.cache_corrupt},
                                          {"miss_reasons", c.cache_miss_reasons}};
        }
    }
    if (r.prediction) j["estimate"] = estimate_object(*r.prediction, r, latencies);
    if (!r.eta.empty()) {
        auto& eta = j["eta"] = nlohmann::json::array();
        for (const EtaReading& e : r.eta) eta.push_back({{"at_s", e.at_s}, {"end_s", e.end_s}});
    }
    return j;
}

}  // namespace

std::string RunReport::summary_json() const { return dump(summary_object(*this), 2); }

std::string RunReport::to_json() const {
    nlohmann::json j = summary_object(*this);
    auto& roots_json = j["roots"] = nlohmann::json::array();
    for (const RootResult& r : roots) roots_json.push_back(root_object(r));
    return dump(j, 2);
}

namespace detail {

void write_trace(const std::string& path, const Plan& plan, const std::vector<TraceEvent>& events,
                 std::int64_t origin_ns) {
    nlohmann::json trace;
    auto& list = trace["traceEvents"] = nlohmann::json::array();
    for (const TraceEvent& e : events) {
        const std::string& call = plan.calls[e.call].name;
        list.push_back({{"name", call},
                        {"cat", "batch"},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", e.actor},
                        {"ts", static_cast<double>(e.start_ns - origin_ns) / 1000.0},
                        {"dur", static_cast<double>(e.end_ns - e.start_ns) / 1000.0},
                        {"args",
                         {{"call", call},
                          {"size", e.size},
                          {"parents", e.parents},
                          {"mixed", e.parents > 1},
                          {"stale", e.stale}}}});
    }
    trace["displayTimeUnit"] = "ms";
    std::ofstream out(path);
    if (!out) throw ContractError("run: cannot write trace file '" + path + "'");
    out << trace.dump();
}

}  // namespace detail
}  // namespace rop::runtime
