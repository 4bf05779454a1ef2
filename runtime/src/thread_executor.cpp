// The default executor: a pool of persistent actor threads per Call. Each thread constructs its
// Actor once (lazily, on its first batch) and then runs batches one at a time.
#include <deque>
#include <list>
#include <atomic>
#include <chrono>
#include <thread>

#include "rop/runtime/executor.h"

namespace rop::runtime {
namespace {

class ThreadExecutor final : public Executor {
public:
    ~ThreadExecutor() override { stop(); }

    void start(const Plan& plan, ReportQueue& reports) override {
        reports_ = &reports;
        pools_.clear();
        for (std::size_t c = 0; c < plan.calls.size(); ++c) {
            auto pool = std::make_unique<Pool>();
            pool->factory = plan.calls[c].factory;
            if (pool->factory) {
                for (std::uint32_t a = 0; a < plan.calls[c].options.actors; ++a) spawn(*pool);
            }
            pools_.push_back(std::move(pool));
        }
    }

    void submit(BatchJob& job) override {
        Pool& pool = *pools_.at(job.call);
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
        Pool& pool = *pools_.at(job.call);
        std::lock_guard<std::mutex> lock(pool.mutex);
        for (auto& worker : pool.workers) {
            if (worker->current == &job && !worker->retired) {
                worker->retired = true;  // finishes its batch (reported stale), then exits
                spawn_locked(pool);
                pool.wake.notify_all();
                return;
            }
        }
    }

    void stop() override {
        for (auto& pool : pools_) {
            {
                std::lock_guard<std::mutex> lock(pool->mutex);
                pool->stopping = true;
            }
            pool->wake.notify_all();
        }
        for (auto& pool : pools_) {
            for (auto& worker : pool->workers) {
                if (worker->thread.joinable()) worker->thread.join();
            }
        }
        pools_.clear();
    }

private:
    struct Worker {
        std::thread thread;
        BatchJob* current = nullptr;  // guarded by the pool mutex
        bool retired = false;
        std::uint32_t id = 0;
    };
    struct Pool {
        ActorFactory factory;
        std::mutex mutex;
        std::condition_variable wake;
        std::deque<BatchJob*> jobs;
        std::list<std::unique_ptr<Worker>> workers;  // stable addresses
        bool stopping = false;
        int sleepers = 0;                     // workers blocked on `wake`
        std::atomic<std::size_t> queued{0};   // jobs.size(), readable without the mutex
    };

    void spawn(Pool& pool) {
        std::lock_guard<std::mutex> lock(pool.mutex);
        spawn_locked(pool);
    }
    void spawn_locked(Pool& pool) {
        auto worker = std::make_unique<Worker>();
        worker->id = next_actor_id_++;
        Worker* w = worker.get();
        pool.workers.push_back(std::move(worker));
        w->thread = std::thread([this, &pool, w] { loop(pool, *w); });
    }

    void loop(Pool& pool, Worker& self) {
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
            pool.wake.wait(lock, [&] { return self.retired || pool.stopping || !pool.jobs.empty(); });
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
            const bool replace = execute_job(actor.get(), *job, *reports_, setup_error);
            if (replace) {  // infra failure: the next batch gets a fresh actor
                actor.reset();
                setup_error.clear();
            }
            lock.lock();
            self.current = nullptr;
        }
    }

    ReportQueue* reports_ = nullptr;
    std::vector<std::unique_ptr<Pool>> pools_;
    std::uint32_t next_actor_id_ = 0;  // guarded by the owning pool's mutex at spawn time
};

}  // namespace

std::unique_ptr<Executor> make_thread_executor() { return std::make_unique<ThreadExecutor>(); }

}  // namespace rop::runtime
