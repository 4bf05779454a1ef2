// Executors for measuring the runtime's own cost (BENCH.md B1) through the public Executor seam:
//  - InlineExecutor runs each batch synchronously on the driver thread (no worker thread: the
//    pure bookkeeping cost of lineage, queues and commit);
//  - OneWorkerExecutor runs every Call's actor on one shared worker thread ("one worker
//    thread"), so each batch pays one hand-off to the worker and one report back.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "rop/runtime/executor.h"

namespace rop::bench {

using runtime::Actor;
using runtime::BatchJob;
using runtime::Plan;
using runtime::ReportQueue;

// Actors per Call, built lazily on the thread that runs them; replaced after an infra failure.
class ActorTable {
  public:
    void start(const Plan& plan) {
        plan_ = &plan;
        actors_.clear();
        actors_.resize(plan.calls.size());
    }
    void run(BatchJob& job, ReportQueue& reports) {
        std::unique_ptr<Actor>& actor = actors_[job.call];
        if (!actor) actor = plan_->calls[job.call].factory();
        if (runtime::execute_job(actor.get(), job, reports)) actor.reset();
    }
    void clear() { actors_.clear(); }

  private:
    const Plan* plan_ = nullptr;
    std::vector<std::unique_ptr<Actor>> actors_;
};

class InlineExecutor final : public runtime::Executor {
  public:
    void start(const Plan& plan, ReportQueue& reports) override {
        reports_ = &reports;
        actors_.start(plan);
    }
    void submit(BatchJob& job) override { actors_.run(job, *reports_); }
    void abandon(BatchJob&) override {}  // B1 sets no timeouts
    void stop() override { actors_.clear(); }

  private:
    ReportQueue* reports_ = nullptr;
    ActorTable actors_;
};

class OneWorkerExecutor final : public runtime::Executor {
  public:
    ~OneWorkerExecutor() override { stop(); }

    void start(const Plan& plan, ReportQueue& reports) override {
        reports_ = &reports;
        actors_.start(plan);
        stopping_ = false;
        worker_ = std::thread([this] { loop(); });
    }
    void submit(BatchJob& job) override {
        bool sleeping;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            jobs_.push_back(&job);
            queued_.store(jobs_.size(), std::memory_order_release);
            sleeping = sleeping_;
        }
        if (sleeping) wake_.notify_one();  // a futex wake only when the worker really sleeps
    }
    void abandon(BatchJob&) override {}
    void stop() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_one();
        if (worker_.joinable()) worker_.join();
    }

  private:
    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            if (jobs_.empty() && !stopping_) {
                // The driver usually sends the next batch within microseconds: poll briefly
                // before sleeping, as the runtime's thread executor does.
                lock.unlock();
                const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
                while (queued_.load(std::memory_order_acquire) == 0 &&
                       std::chrono::steady_clock::now() < until) {
                    std::this_thread::yield();
                }
                lock.lock();
            }
            sleeping_ = true;
            wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
            sleeping_ = false;
            if (jobs_.empty()) break;
            BatchJob* job = jobs_.front();
            jobs_.pop_front();
            queued_.store(jobs_.size(), std::memory_order_release);
            lock.unlock();
            actors_.run(*job, *reports_);
            lock.lock();
        }
        actors_.clear();
    }

    ReportQueue* reports_ = nullptr;
    ActorTable actors_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<BatchJob*> jobs_;
    std::atomic<std::size_t> queued_{0};  // jobs_.size(), readable without the mutex
    bool sleeping_ = false;               // guarded by mutex_
    bool stopping_ = false;
    std::thread worker_;
};

}  // namespace rop::bench
