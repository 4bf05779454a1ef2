// --report-html FILE: the run as one self-contained HTML page (docs/runtime.md "Observability",
// "The run as a picture"): inline SVG drawn here, no script, nothing fetched from anywhere.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rop/runtime/run.h"

namespace rop::runtime::detail {

// A Call as the page names and measures it: one per RunReport::calls, same order.
struct PictureCall {
    std::string name;          // as --set names it
    std::uint32_t batch = 1;   // its batch cap (batch fill)
    std::uint32_t actors = 1;  // its actors (utilization: busy time / (wall time x actors))
};
std::vector<PictureCall> picture_calls(const Plan& plan, const std::vector<std::string>& names);

// What an estimate predicted for the run (pipeline_main fills it from --with-estimate). The
// page draws a "predicted vs measured" section only when something is set.
struct CallEstimate {
    std::string call;                   // PictureCall::name; a name no Call has is listed alone
    std::optional<double> busy_s;       // the Call's batches' run time, summed
    std::optional<double> utilization;  // busy_s / (makespan x actors), 0..1
};
struct RunEstimate {
    std::optional<double> makespan_s;  // the run's wall time
    std::optional<double> peak_memory_bytes;
    std::optional<double> p50_commit_s, p99_commit_s;  // a root's admission to done
    std::vector<CallEstimate> calls;
    bool empty() const {
        return !makespan_s && !peak_memory_bytes && !p50_commit_s && !p99_commit_s && calls.empty();
    }
};

// Failed roots counted by Call and reason, in bounded memory: past kMaxRows distinct pairs a
// new reason counts as its Call's "other reasons"; a reason is cut at kMaxReason characters.
// Fed every root (RunOptions::on_root_result); resumed roots did not fail in this run and are
// not counted.
class FailureTally {
  public:
    static constexpr std::size_t kMaxRows = 100;
    static constexpr std::size_t kMaxReason = 300;
    struct Row {
        std::string call;    // "" for a root no Call failed (an abort, an interruption)
        std::string reason;  // "" for "other reasons"
        std::uint64_t roots = 0;
    };
    void add(const RootResult& root);
    std::vector<Row> rows() const;  // most roots first, then by Call and reason
    std::uint64_t failed() const { return failed_; }

  private:
    std::map<std::pair<std::string, std::string>, std::uint64_t> counts_;
    std::uint64_t failed_ = 0;
};

struct RunPicture {
    const RunReport* report = nullptr;
    std::vector<PictureCall> calls;  // one per report->calls; missing ones from the report
    // Every root's failures (pipeline_main's tally); null: counted from report->roots.
    const FailureTally* failures = nullptr;
    RunEstimate estimate = {};
    std::uint64_t peak_rss_bytes = 0;  // the process's peak resident memory; 0: unknown
};

// The page: deterministic, escaped, bounded in size however many batches ran (each timeline row
// at most ~2000 rectangles: busy intervals, gaps under a pixel or two merged).
std::string render_report_html(const RunPicture& picture);

// This process's peak resident set (getrusage), 0 when unknown.
std::uint64_t process_peak_rss_bytes();

}  // namespace rop::runtime::detail
