// The inline executor (`--executor inline`): every batch runs on the driver thread, inside
// submit(), one at a time, in dispatch order. No threads, so a run is deterministic for a given
// source and a debugger sees the UDF and the driver on one stack. Each Call keeps one actor
// (built on its first batch, replaced after an InfraFailure), whatever its `actors` option says.
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
        plan_ = &plan;
        reports_ = &reports;
        actors_.clear();
        actors_.resize(plan.calls.size());
        setup_errors_.assign(plan.calls.size(), {});
    }

    void submit(BatchJob& job) override {
        std::unique_ptr<Actor>& actor = actors_[job.call];
        std::string& setup_error = setup_errors_[job.call];
        job.actor = job.call;
        if (!actor && setup_error.empty()) {
            try {
                actor = plan_->calls[job.call].factory();
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
    const Plan* plan_ = nullptr;
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
