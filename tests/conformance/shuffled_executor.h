// "Completion orders" for the conformance suite: an Executor that runs every Call's batches on
// one thread in a seeded random order, so children, siblings and Calls finish in orders the
// thread executor rarely produces. Batches never overlap here: a test must not make one batch
// wait for another.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "rop/runtime/executor.h"

namespace rop::conformance {

class ShuffledExecutor final : public runtime::Executor {
  public:
    explicit ShuffledExecutor(unsigned seed) : rng_(seed) {}
    ~ShuffledExecutor() override { stop(); }

    void start(const runtime::Plan& plan, runtime::ReportQueue& reports) override {
        plan_ = &plan;
        reports_ = &reports;
        thread_ = std::thread([this] { loop(); });
    }
    void submit(runtime::BatchJob& job) override {
        std::lock_guard<std::mutex> lock(mu_);
        pending_.push_back(&job);
        cv_.notify_one();
    }
    void abandon(runtime::BatchJob&) override {}
    void stop() override {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stopping_ = true;
        }
        cv_.notify_one();
        if (thread_.joinable()) thread_.join();
    }

  private:
    void loop() {
        std::map<runtime::CallId, std::unique_ptr<runtime::Actor>> actors;
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
            if (pending_.empty()) return;
            // Let a few batches pile up, then run a random one of them.
            lock.unlock();
            std::this_thread::yield();
            lock.lock();
            std::uniform_int_distribution<std::size_t> pick(0, pending_.size() - 1);
            const std::size_t i = pick(rng_);
            runtime::BatchJob* job = pending_[i];
            pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
            lock.unlock();
            auto& actor = actors[job->call];
            if (!actor) actor = plan_->calls[job->call].factory();
            // true: the actor is suspect (infra failure); the next batch gets a fresh one.
            if (runtime::execute_job(actor.get(), *job, *reports_)) actor.reset();
            lock.lock();
        }
    }

    const runtime::Plan* plan_ = nullptr;
    runtime::ReportQueue* reports_ = nullptr;
    std::mt19937 rng_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<runtime::BatchJob*> pending_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace rop::conformance
