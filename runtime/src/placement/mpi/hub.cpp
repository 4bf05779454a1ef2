// hub.h: the rank's one MPI thread.
#include "hub.h"

#include <mpi.h>

#include <limits>
#include <stdexcept>

namespace rop::runtime::detail::mpi {

struct Hub::InFlight {
    std::string frame;
    MPI_Request request = MPI_REQUEST_NULL;
};

Hub::Hub() : pump_([this] { pump(); }) {}

Hub::~Hub() { stop(); }

void Hub::send(int rank, int tag, std::string frame) {
    if (frame.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        throw std::length_error("mpi: a frame of " + std::to_string(frame.size() >> 20) +
                                " MiB is over MPI's 2 GiB message limit");
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return;  // the run is over: nobody listens any more
        stats_.bytes_sent += frame.size();
        ++stats_.frames_sent;
        outbox_.push_back({rank, tag, std::move(frame)});
    }
    wake_.notify_one();
}

std::optional<std::string> Hub::receive(int rank, int tag) {
    std::unique_lock<std::mutex> lock(mutex_);
    Mailbox& box = mailboxes_[{rank, tag}];
    box.arrived.wait(lock, [&] { return !box.frames.empty() || stopped_; });
    if (box.frames.empty()) return std::nullopt;
    std::string frame = std::move(box.frames.front());
    box.frames.pop_front();
    return frame;
}

std::optional<std::pair<int, std::string>> Hub::receive_any(int tag) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::optional<std::pair<int, std::string>> out;
    ++any_tags_[tag];
    any_arrived_.wait(lock, [&] {
        for (auto& [key, box] : mailboxes_) {
            if (key.second == tag && !box.frames.empty()) {
                out.emplace(key.first, std::move(box.frames.front()));
                box.frames.pop_front();
                return true;
            }
        }
        return stopped_;
    });
    if (--any_tags_[tag] == 0) any_tags_.erase(tag);
    return out;
}

std::optional<std::string> Hub::receive_for(int rank, int tag, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    Mailbox& box = mailboxes_[{rank, tag}];
    if (!box.arrived.wait_for(lock, timeout, [&] { return !box.frames.empty() || stopped_; }) ||
        box.frames.empty()) {
        return std::nullopt;
    }
    std::string frame = std::move(box.frames.front());
    box.frames.pop_front();
    return frame;
}

void Hub::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!pump_.joinable()) return;
        stopping_ = true;
    }
    wake_.notify_one();
    pump_.join();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopped_ = true;
        for (auto& [key, box] : mailboxes_) box.arrived.notify_all();
    }
    any_arrived_.notify_all();
}

HubStats Hub::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
}

bool Hub::pump_once() {
    bool moved = false;
    std::deque<Outgoing> sending;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        sending.swap(outbox_);
    }
    for (Outgoing& o : sending) {
        auto* f = new InFlight{std::move(o.frame)};
        MPI_Isend(f->frame.data(), static_cast<int>(f->frame.size()), MPI_BYTE, o.rank, o.tag,
                  MPI_COMM_WORLD, &f->request);
        in_flight_.push_back(f);
        moved = true;
    }
    for (std::size_t i = 0; i < in_flight_.size();) {
        int done = 0;
        MPI_Test(&in_flight_[i]->request, &done, MPI_STATUS_IGNORE);
        if (done) {
            delete in_flight_[i];
            in_flight_[i] = in_flight_.back();
            in_flight_.pop_back();
            moved = true;
        } else {
            ++i;
        }
    }
    for (;;) {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (!flag) break;
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        std::string frame(static_cast<std::size_t>(count), '\0');
        MPI_Recv(frame.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stats_.bytes_received += frame.size();
            ++stats_.frames_received;
            Mailbox& box = mailboxes_[{status.MPI_SOURCE, status.MPI_TAG}];
            box.frames.push_back(std::move(frame));
            box.arrived.notify_all();
            if (any_tags_.count(status.MPI_TAG)) any_arrived_.notify_all();
        }
        moved = true;
    }
    return moved;
}

void Hub::pump() {
    // Idle: poll again after 20 us, backing off to 500 us; a queued send wakes it at once.
    constexpr auto kMinIdle = std::chrono::microseconds(20);
    constexpr auto kMaxIdle = std::chrono::microseconds(500);
    auto idle = kMinIdle;
    for (;;) {
        if (pump_once()) {
            idle = kMinIdle;
            continue;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        if (stopping_ && outbox_.empty() && in_flight_.empty()) break;
        wake_.wait_for(lock, idle, [this] { return !outbox_.empty(); });
        idle = std::min<std::chrono::microseconds>(idle * 2, kMaxIdle);
    }
}

}  // namespace rop::runtime::detail::mpi
