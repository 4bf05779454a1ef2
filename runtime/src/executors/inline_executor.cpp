// The inline executor (`--executor inline`): every batch runs on the driver thread, inside
// submit(), one at a time, in dispatch order. No threads, so a run is deterministic for a given
// source and a debugger sees the UDF and the driver on one stack. Each Call keeps one actor
// (built on its first batch, replaced after an InfraFailure), whatever its `actors` option says;
// the Calls of a shared pool share one pool actor.
// A batch cannot be interrupted: a Call's `timeout` is checked only after the batch returns
// (by then its report is in, so nothing is abandoned), and a hung UDF hangs the run.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rop/runtime/executor.h"

namespace rop::runtime {
namespace {

class InlineExecutor final : public Executor {
  public:
    void start(const Plan& plan, ReportQueue& reports) override {
        sets_ = actor_sets(plan);
        reports_ = &reports;
        actors_.clear();
        actors_.resize(sets_.sets.size());
        setup_errors_.assign(sets_.sets.size(), {});
    }

    void submit(BatchJob& job) override {
        const std::uint32_t set = sets_.of_call.at(job.call);
        std::unique_ptr<Actor>& actor = actors_.at(set);
        std::string& setup_error = setup_errors_[set];
        job.actor = set;
        if (!actor && setup_error.empty()) {
            try {
                actor = sets_.sets[set].factory();
                if (!actor) setup_error = "the factory returned no actor";
            } catch (const std::exception& e) {
                setup_error = e.what();
            } catch (...) {
                setup_error = "unknown exception";
            }
        }
        if (execute_job(actor.get(), job, *reports_, setup_error)) {  // infra: a fresh actor
            actor.reset();
            setup_error.clear();
        }
    }

    void abandon(BatchJob&) override {}  // never: a batch is over before its timeout is checked

    void stop() override { actors_.clear(); }

  private:
    ActorSets sets_;
    ReportQueue* reports_ = nullptr;
    std::vector<std::unique_ptr<Actor>> actors_;
    std::vector<std::string> setup_errors_;
};

}  // namespace

std::unique_ptr<Executor> make_inline_executor() { return std::make_unique<InlineExecutor>(); }

const std::vector<std::string_view>& executor_names() {
    static const std::vector<std::string_view> names = {"threads", "inline"};
    return names;
}

std::unique_ptr<Executor> make_executor(std::string_view name) {
    if (name == "threads") return make_thread_executor();
    if (name == "inline") return make_inline_executor();
    std::string known;
    for (std::string_view n : executor_names())
        known += (known.empty() ? "" : ", ") + std::string(n);
    if (name == "mpi") {
        throw std::invalid_argument(
            "'mpi' is not an executor: it places actors on the ranks of an MPI job "
            "(RunOptions::placement; pipeline_main under mpirun or srun, docs/cluster.md); the "
            "executors are " +
            known);
    }
    throw std::invalid_argument("unknown executor '" + std::string(name) +
                                "' (available: " + known + ")");
}

}  // namespace rop::runtime
