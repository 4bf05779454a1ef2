// Event-based synchronisation for the runtime tests, in place of sleeps and wall-clock bounds: a
// Gate a UDF waits on until the test opens it, and a wait for detached actor threads to let go of
// a UDF's captures. The limits only guard against a hang (a broken runtime reaches them, a slow
// machine does not): they never bound how long the runtime may take.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace rop::runtime::test {

inline constexpr std::chrono::seconds kHangGuard{60};

// Opens once, for good. A UDF that waits on it is "stuck" for as long as the test wants, so that
// what the test checks follows from the order of events, not from how long a sleep lasted.
class Gate {
  public:
    void open() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            open_ = true;
        }
        opened_.notify_all();
    }
    // Whether it opened (false: kHangGuard passed first).
    bool wait(std::chrono::milliseconds limit = kHangGuard) {
        std::unique_lock<std::mutex> lock(mutex_);
        return opened_.wait_for(lock, limit, [this] { return open_; });
    }
    bool is_open() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return open_;
    }

  private:
    mutable std::mutex mutex_;
    std::condition_variable opened_;
    bool open_ = false;
};

// Waits until `held` is the last owner of what it points to: every copy the Plan, its actors and
// a detached actor thread held is gone. A thread abandoned by a run drops its copy (its pool's
// factory, its actor) only when it has returned from the UDF and finished with the report queue,
// so after this nothing of the test's runs on it any more.
template <class T>
bool wait_sole_owner(const std::shared_ptr<T>& held, std::chrono::milliseconds limit = kHangGuard) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (held.use_count() > 1) {  // polls for the event; nothing is assumed to have happened
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace rop::runtime::test
