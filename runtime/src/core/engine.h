// The driver: owns the run's parts and the single-threaded event loop.
//  - LineageStore (lineage_store.h, lineage.cpp): entities, items, payloads, expansions, roots;
//  - Resolver (resolver.h, resolve.cpp): the input algebra, READY or sealed without running;
//  - Scheduler (scheduler.h, dispatch.cpp): admission, ready queues, batches, dispatch;
//  - Committer (committer.h, commit.cpp): the fence, pre-scan, recovery, barriers, timeouts;
//  - RootSinks (root_sinks.h, root_sinks.cpp): per-root sink buffers and the journal;
//  - Engine (driver.cpp, stuck.cpp): the loop, stuck batches, progress and the RunReport.
// Each part keeps its state private; they talk through the narrow interfaces in those headers.
// The store is the only writer of lineage facts; the others change it through its operations.
// No part holds another that holds it back: the two ways back (the store telling of a root's
// items and completion, the scheduler and committer asking for the store's tasks to be
// resolved) are interfaces the Engine implements (StoreListener, TaskDrain), as is the
// scheduler's way to the result store's whole-root answers (RootShortcut).
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "cache/digest.h"
#include "committer.h"
#include "lineage_store.h"
#include "resolver.h"
#include "root_sinks.h"
#include "scheduler.h"

namespace rop::runtime::detail {

class ResultCache;

// Batches per Call whose run times give its median batch time (stuck batches).
inline constexpr std::size_t kMedianWindow = 64;

// A finished batch (run.h), its times on steady_clock while the run goes.
using TraceEvent = BatchRecord;

class Engine final : private StoreListener, private TaskDrain, private RootShortcut {
  public:
    // `cache`: the result store's side of the run (cache/result_cache.h): its counts and its
    // whole-root answers; null when the run has none.
    Engine(const Plan& plan, RootSource& source, const RunOptions& options, Executor& executor,
           ResultCache* cache = nullptr);
    RunReport run();

  private:
    void root_item(const std::vector<std::uint32_t>& sinks, EntityId entity,
                   const Value& value) override {
        sinks_.buffer(sinks, entity, value);
    }
    void root_complete(const RootState& root) override;  // sinks, journal line, observer
    void drain() override { resolver_.drain(); }
    // A root answered whole from the result store: its sinks, journal line, done. A root that
    // is not is keyed (root_keys_), to be stored whole when it finishes.
    bool answer(std::uint32_t ordinal, RootSource::Root& root) override;
    // A root's last steps: first-root time, the commit group, the observer (an entity the
    // store has), the callback.
    void finish_root(const RootResult& result, EntityId entity);
    CallCounters counters(CallId call) const;  // every part's counts of the Call

    void event_loop();
    void settle(Clock::time_point deadline);
    void shut_down(std::vector<Report>& left);
    void note_done(const BatchJob& job);  // trace event and batch time, before commit
    void poll_stop();                     // a new StopRequest: stop admitting, or end now
    Progress progress() const;

    // ---- stuck.cpp ----
    struct BatchTimes {  // run times of the last kMedianWindow batches (ring)
        std::vector<std::int64_t> ns;
        std::size_t next = 0;
        std::int64_t total_ns = 0;  // every finished batch's, for CallCounters::busy_s
    };
    void note_batch_time(const BatchJob& job);  // a finished batch's run time (median)
    double median_batch_s(CallId call) const;
    void check_stuck();                             // flags new stuck batches (on_stuck)
    std::vector<StuckBatch> stuck_batches() const;  // flagged and still running
    StuckBatch describe_stuck(const BatchJob& job, Clock::time_point now) const;

    const Plan& plan_;
    ResultCache* cache_;
    std::unordered_map<std::uint32_t, Digest> root_keys_;  // roots in flight the store may keep
    const RunOptions& options_;
    RootSource& source_;
    Executor& executor_;
    // The Engine's own part of CallCounters: names, stuck batches, the UDFs' counters.
    std::vector<CallCounters> counters_;
    LineageStore store_;
    RootSinks sinks_;
    Scheduler scheduler_;
    Committer committer_;
    Resolver resolver_;
    // Shared with executors whose threads may outlive run() (a stuck, abandoned actor): see
    // ReportQueue in executor.h and Engine::shut_down.
    std::shared_ptr<ReportQueue> reports_ = std::make_shared<ReportQueue>();
    std::vector<Report> inbox_;
    std::vector<BatchTimes> batch_times_;
    std::vector<TraceEvent> trace_;
    Clock::time_point start_{};
    double time_to_first_root_s_ = -1;
    int stops_seen_ = 0;
    bool stopping_ = false;  // a StopRequest came: no new roots, in-flight ones until the deadline
    Clock::time_point stop_deadline_{};
    std::string stop_reason_;
};

// report_json.cpp: the Chrome/Perfetto trace of batches ("X" events, actor as tid).
void write_trace(const std::string& path, const Plan& plan, const std::vector<TraceEvent>& events,
                 std::int64_t origin_ns);

}  // namespace rop::runtime::detail
