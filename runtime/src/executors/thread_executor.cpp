// The default executor: a pool of persistent actor threads per Call (per shared pool for its
// Calls: ActorSets). Each thread constructs its
// Actor once (lazily, on its first batch) and then runs batches one at a time.
//
// Stuck actors. A thread cannot be killed, so an actor abandoned after a timeout (or still busy
// when an aborted run stops waiting) is detached at stop(), never joined: run() returns even if
// its UDF never does. Such a thread must only touch memory that outlives the run, so a worker
// thread holds a std::shared_ptr to its Pool (taken once, when the thread is spawned) and the
// Pool holds a std::shared_ptr to the driver's ReportQueue; the thread never touches the
// executor object itself. The queue takes custody of the job the thread is running (see
// ReportQueue in executor.h) and frees it when its late Done arrives. The last detached thread
// of a pool to exit frees the pool, and with it (once the driver is gone) the queue. No
// reference count is touched per batch: the hot path is unchanged.
#include <atomic>
#include <chrono>
#include <deque>
#include <list>
#include <thread>

#include "rop/runtime/executor.h"

namespace rop::runtime {
namespace {

class ThreadExecutor final : public Executor {
  public:
    ~ThreadExecutor() override { stop(); }

    void start(const Plan& plan, ReportQueue& reports) override {
        stop();
        std::shared_ptr<ReportQueue> shared;
        try {
            shared = reports.shared_from_this();
        } catch (const std::bad_weak_ptr&) {
            throw ContractError("thread executor: the ReportQueue must be owned by a shared_ptr");
        }
        ActorSets sets = actor_sets(plan);
        for (ActorSet& set : sets.sets) {
            auto pool = std::make_shared<Pool>();
            pool->factory = std::move(set.factory);
            // A streaming expand with no timeout may lend its actor to the Call's queued batches
            // (Yielder, priority rule 6); with a timeout each batch keeps its own clock. A shared
            // pool's actor does not lend (its next batch may be another Call's).
            const CallSpec& first = plan.calls[set.calls.front()];
            pool->lend =
                !set.pool && first.kind == CallKind::Expand && first.options.timeout.count() == 0;
            pool->reports = shared;
            if (pool->factory) {
                for (std::uint32_t a = 0; a < set.actors; ++a) spawn(pool);
            }
            pools_.push_back(std::move(pool));
        }
        of_call_ = std::move(sets.of_call);
    }

    void submit(BatchJob& job) override {
        Pool& pool = *pools_[of_call_.at(job.call)];
        bool sleeping;
        {
            std::lock_guard<std::mutex> lock(pool.mutex);
            pool.jobs.push_back(&job);
            pool.queued.store(pool.jobs.size(), std::memory_order_release);
            sleeping = pool.sleepers > 0;
        }
        if (sleeping) pool.wake.notify_one();
    }

    void abandon(BatchJob& job) override {
        const std::shared_ptr<Pool>& pool = pools_.at(of_call_.at(job.call));
        std::lock_guard<std::mutex> lock(pool->mutex);
        for (auto& worker : pool->workers) {
            if (worker->current == &job && !worker->retired) {
                worker->retired = true;  // finishes its batch (reported stale), then exits
                if (worker->actor) worker->actor->cancel();
                spawn_locked(pool);
                pool->wake.notify_all();
                return;
            }
        }
    }

    // Joins idle workers; detaches every worker still inside a batch (or its factory): it exits
    // on its own when (if) the UDF returns, keeping its Pool and the report queue alive.
    void stop() override {
        std::vector<std::thread> idle;
        for (auto& pool : pools_) {
            {
                std::lock_guard<std::mutex> lock(pool->mutex);
                pool->stopping = true;
                pool->jobs.clear();  // never started: dropped (the driver's queue adopts them)
                pool->queued.store(0, std::memory_order_release);
                for (auto& worker : pool->workers) {
                    if (!worker->thread.joinable()) continue;
                    if (worker->current) {
                        if (worker->actor) worker->actor->cancel();
                        worker->thread.detach();
                    } else {
                        idle.push_back(std::move(worker->thread));
                    }
                }
            }
            pool->wake.notify_all();
        }
        for (std::thread& thread : idle) thread.join();
        pools_.clear();
    }

  private:
    struct Worker {
        std::thread thread;
        BatchJob* current = nullptr;  // guarded by the pool mutex
        Actor* actor = nullptr;       // its actor while it runs `current`; guarded likewise
        bool retired = false;
        std::uint32_t id = 0;
    };
    // Shared by the executor and the pool's threads: a detached thread keeps it alive.
    struct Pool {
        ActorFactory factory;
        std::shared_ptr<ReportQueue> reports;
        std::mutex mutex;
        std::condition_variable wake;
        std::deque<BatchJob*> jobs;
        std::list<std::unique_ptr<Worker>> workers;  // stable addresses
        bool stopping = false;
        bool lend = false;                   // its batches may lend their actor (Lender)
        int sleepers = 0;                    // workers blocked on `wake`
        std::atomic<std::size_t> queued{0};  // jobs.size(), readable without the mutex
    };

    void spawn(const std::shared_ptr<Pool>& pool) {
        std::lock_guard<std::mutex> lock(pool->mutex);
        spawn_locked(pool);
    }
    void spawn_locked(const std::shared_ptr<Pool>& pool) {
        auto worker = std::make_unique<Worker>();
        worker->id = next_actor_id_++;
        Worker* w = worker.get();
        pool->workers.push_back(std::move(worker));
        w->thread = std::thread([pool, w] { loop(*pool, *w); });
    }

    // A streaming expand batch's Yielder: runs the Call's next queued batch on the same actor
    // and thread, nested inside the running batch's emit_child (one level deep: the nested batch
    // gets no Yielder, so it does not lend in turn). `self.current` stays the outer batch, which
    // the nested one ends before. An infra failure in a nested batch replaces the actor once the
    // outer one is done, and stops the lending until then.
    class Lender final : public Yielder {
      public:
        Lender(Pool& pool, Worker& self, Actor* actor) : pool_(pool), self_(self), actor_(actor) {}
        bool run_waiting() override {
            if (replace_ || pool_.queued.load(std::memory_order_acquire) == 0) {
                return false;  // the common case: nothing queued, no lock taken
            }
            BatchJob* job;
            {
                std::lock_guard<std::mutex> lock(pool_.mutex);
                if (pool_.stopping || self_.retired || pool_.jobs.empty()) return false;
                job = pool_.jobs.front();
                pool_.jobs.pop_front();
                pool_.queued.store(pool_.jobs.size(), std::memory_order_release);
            }
            job->actor = self_.id;
            job->yielder = nullptr;
            replace_ = execute_job(actor_, *job, *pool_.reports, "");
            return true;
        }
        bool replace() const { return replace_; }

      private:
        Pool& pool_;
        Worker& self_;
        Actor* actor_;
        bool replace_ = false;
    };

    // The thread body. It touches only `pool` (owned by the thread too), `self` (owned by the
    // pool), the report queue (owned by the pool) and the jobs it takes -- never the executor.
    static void loop(Pool& pool, Worker& self) {
        std::unique_ptr<Actor> actor;
        std::string setup_error;
        std::unique_lock<std::mutex> lock(pool.mutex);
        for (;;) {
            if (pool.jobs.empty() && !pool.stopping && !self.retired) {
                // The driver usually sends the next batch within microseconds: poll briefly
                // (yielding) before sleeping, which spares a futex wake per batch.
                lock.unlock();
                const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
                while (pool.queued.load(std::memory_order_acquire) == 0 &&
                       std::chrono::steady_clock::now() < until) {
                    std::this_thread::yield();
                }
                lock.lock();
            }
            ++pool.sleepers;
            pool.wake.wait(lock,
                           [&] { return self.retired || pool.stopping || !pool.jobs.empty(); });
            --pool.sleepers;
            if (self.retired || pool.jobs.empty()) return;  // stopping with nothing left
            BatchJob* job = pool.jobs.front();
            pool.jobs.pop_front();
            pool.queued.store(pool.jobs.size(), std::memory_order_release);
            self.current = job;
            lock.unlock();
            job->actor = self.id;
            if (!actor && setup_error.empty()) {
                try {
                    actor = pool.factory();
                    if (!actor) setup_error = "the factory returned no actor";
                } catch (const std::exception& e) {
                    setup_error = e.what();
                } catch (...) {
                    setup_error = "unknown exception";
                }
            }
            lock.lock();
            self.actor = actor.get();  // abandon() and stop() may cancel it from now on
            lock.unlock();
            Lender lender(pool, self, actor.get());
            job->yielder = pool.lend && actor && actor->reentrant() ? &lender : nullptr;
            job->since_yield = 0;
            const bool replace =
                execute_job(actor.get(), *job, *pool.reports, setup_error) || lender.replace();
            lock.lock();
            self.current = nullptr;
            self.actor = nullptr;
            if (replace) {  // infra failure: the next batch gets a fresh actor
                lock.unlock();
                actor.reset();
                setup_error.clear();
                lock.lock();
            }
        }
    }

    std::vector<std::shared_ptr<Pool>> pools_;  // per ActorSet
    std::vector<std::uint32_t> of_call_;        // ActorSets::of_call
    std::uint32_t next_actor_id_ = 0;           // driver thread only (start, abandon)
};

}  // namespace

std::unique_ptr<Executor> make_thread_executor() { return std::make_unique<ThreadExecutor>(); }

}  // namespace rop::runtime
