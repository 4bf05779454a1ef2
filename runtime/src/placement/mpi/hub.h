// Hub: every MPI call of a rank, made by one thread (MPI_THREAD_SERIALIZED is all it needs).
// Other threads queue frames to send and wait for the frames addressed to them, by (peer rank,
// tag): a tag is an actor's slot (kControl carries the rank's own messages). Sends never block
// the caller, so two ranks sending each other large frames at once cannot deadlock, and the
// pump polls instead of blocking in MPI (Open MPI's blocking calls spin a core; an oversubscribed
// node would lose it).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace rop::runtime::detail::mpi {

inline constexpr int kControl = 0;          // the tag of rank-level messages; actor slots are 1..
inline constexpr int kItems = 32767;        // requests to a rank's item store (MPI_TAG_UB >= 32767)
inline constexpr int kDriverFetch = 32766;  // rank 0's fetches: the replies come on this tag
inline constexpr int kMaxSlot = 32765;

struct HubStats {
    std::uint64_t bytes_sent = 0, bytes_received = 0;
    std::uint64_t frames_sent = 0, frames_received = 0;
};

class Hub {
  public:
    Hub();  // MPI is initialised; starts the pump
    ~Hub();
    Hub(const Hub&) = delete;
    Hub& operator=(const Hub&) = delete;

    // Queues `frame` for (rank, tag); returns at once. Throws std::length_error for a frame of
    // 2 GiB or more (an MPI count is an int).
    void send(int rank, int tag, std::string frame);
    // The next frame from (rank, tag), in the order it was sent; nullopt once the hub is stopped
    // (and nothing is left for it).
    std::optional<std::string> receive(int rank, int tag);
    // The next frame for `tag` from any rank, with the rank that sent it.
    std::optional<std::pair<int, std::string>> receive_any(int tag);
    // Like receive, but gives up after `timeout` (nullopt).
    std::optional<std::string> receive_for(int rank, int tag, std::chrono::milliseconds timeout);

    // Waits until every queued frame has been delivered to MPI and completed, then stops the
    // pump (before MPI_Finalize). Receivers waiting get nullopt.
    void stop();
    HubStats stats() const;

  private:
    struct Outgoing {
        int rank, tag;
        std::string frame;
    };
    void pump();
    bool pump_once();  // true when something moved

    mutable std::mutex mutex_;
    // One per (rank, tag), each with its own condition: a frame wakes only the thread waiting
    // for it (rank 0 has a proxy thread per remote actor, hundreds of them).
    struct Mailbox {
        std::deque<std::string> frames;
        std::condition_variable arrived;  // a frame here, or stopped_
    };
    std::condition_variable any_arrived_;  // a frame for a tag in any_tags_, or stopped_
    std::condition_variable wake_;         // the pump: something to send, or stopping_
    std::deque<Outgoing> outbox_;
    std::map<std::pair<int, int>, Mailbox> mailboxes_;
    std::map<int, int> any_tags_;  // tag -> threads in receive_any for it
    bool stopping_ = false, stopped_ = false;
    HubStats stats_;
    // Pump-only state.
    struct InFlight;
    std::vector<InFlight*> in_flight_;
    std::thread pump_;
};

}  // namespace rop::runtime::detail::mpi
