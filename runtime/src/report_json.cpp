// RunReport::to_json (the --report file) and the Chrome/Perfetto trace of batches.
#include <algorithm>
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

std::string RunReport::to_json() const {
    nlohmann::json j;
    // Who ran, where and when (pipeline_main fills them; null when unknown).
    auto text_or_null = [](const std::string& s) {
        return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
    };
    j["pipeline"] = text_or_null(pipeline);
    j["rop_version"] = text_or_null(rop_version);
    j["rop_hash"] = text_or_null(rop_hash);
    j["host"] = text_or_null(host);
    j["started_at"] = text_or_null(started_at);
    j["ended_at"] = text_or_null(ended_at);
    j["aborted"] = aborted;
    if (aborted) j["abort_reason"] = abort_reason;
    j["interrupted"] = interrupted;
    if (interrupted) j["interrupt_reason"] = interrupt_reason;
    j["wall_s"] = wall_s;
    j["time_to_first_root_s"] = time_to_first_root_s;
    j["peak_inflight_roots"] = peak_inflight_roots;
    j["peak_live_items"] = peak_live_items;
    j["peak_live_bytes"] = peak_live_bytes;
    j["backpressure_pauses"] = backpressure_pauses;
    std::size_t counts[3] = {omitted.ok, omitted.dropped, 0};
    std::size_t resumed = omitted.resumed;
    std::vector<double> latencies = omitted.latency_s;
    auto& roots_json = j["roots"] = nlohmann::json::array();
    for (const RootResult& r : roots) {
        ++counts[static_cast<int>(r.status)];
        nlohmann::json e{
            {"name", r.name}, {"status", to_string(r.status)}, {"latency_s", r.latency_s}};
        if (r.resumed) {
            e["resumed"] = true;  // journaled by an earlier run, not run again
            ++resumed;
        } else {
            latencies.push_back(r.latency_s);
        }
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
        roots_json.push_back(std::move(e));
    }
    j["summary"] = {{"roots", total_roots()},
                    {"ok", counts[0]},
                    {"dropped", counts[1]},
                    {"failed", counts[2]},
                    {"resumed", resumed}};
    if (!latencies.empty()) {
        // Nearest rank: the p-th percentile is the smallest latency with at least p% of the
        // sample at or below it, so it is always a latency that happened. p99 needs 100 roots
        // to mean anything (below that it would be the max or next to it): null then.
        std::sort(latencies.begin(), latencies.end());
        const std::size_t n = latencies.size();
        auto rank = [&](std::size_t percent) {  // ceil(percent * n / 100), 1-based
            return latencies[(percent * n + 99) / 100 - 1];
        };
        j["root_latency_s"] = {{"n", n},
                               {"p50", rank(50)},
                               {"p99", n >= kMinP99Sample ? nlohmann::json(rank(99)) : nullptr},
                               {"max", latencies.back()}};
    }
    auto& calls_json = j["calls"] = nlohmann::json::array();
    for (const CallCounters& c : calls) {
        calls_json.push_back({{"name", c.name},
                              {"grains", c.grains},
                              {"batches", c.batches},
                              {"mean_batch_fill", c.mean_batch_fill},
                              {"median_batch_s", c.median_batch_s},
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
    }
    return j.dump(2);
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
