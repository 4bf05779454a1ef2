// mpi_runtime.h, implemented on Open MPI: rank 0's proxies (MpiActor), the other ranks' slots.
#include "../mpi_runtime.h"

#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "../gpu_devices.h"
#include "../placement.h"
#include "../process.h"
#include "../process_wire.h"
#include "hub.h"

namespace rop::runtime::detail {
namespace {

using wire::Kind;

std::string kind_of(const std::string& frame) { return frame.empty() ? "" : frame.substr(0, 1); }

Kind kind(const std::string& frame) {
    if (frame.empty()) throw wire::WireError("mpi: an empty frame");
    return static_cast<Kind>(frame[0]);
}

wire::Reader body(const std::string& frame) {
    return wire::Reader(std::string_view(frame).substr(1));
}

// Rank 0's stand-in for an actor on another rank: it asks that rank to build the actor in a
// slot (a tag of its own), then sends it each batch and applies what comes back, streamed
// children first, exactly as a process-isolated actor's proxy does with its worker.
class MpiActor final : public Actor {
  public:
    MpiActor(mpi::Hub& hub, const ActorSite& site, std::uint32_t call, const CallSpec& spec,
             int slot)
        : hub_(hub),
          rank_(site.rank),
          slot_(slot),
          kind_(spec.kind),
          num_inputs_(static_cast<std::uint32_t>(spec.inputs.size())),
          num_outputs_(static_cast<std::uint32_t>(spec.outputs.size())) {
        wire::Writer start(Kind::Start);
        start.u32(call);
        start.u32(static_cast<std::uint32_t>(slot));
        start.u32(static_cast<std::uint32_t>(site.devices.size()));
        for (int d : site.devices) start.u32(static_cast<std::uint32_t>(d));
        hub_.send(rank_, mpi::kControl, start.frame());
        const std::optional<std::string> frame = hub_.receive(rank_, slot_);
        if (!frame) throw InfraFailure("rank " + std::to_string(rank_) + " is gone");
        if (kind(*frame) == Kind::Setup) {
            wire::Reader in = body(*frame);
            throw std::runtime_error(in.str() + " (on rank " + std::to_string(rank_) + ")");
        }
        if (kind(*frame) != Kind::Ready) throw wire::WireError("mpi: no handshake from a slot");
        ready_ = true;
    }

    ~MpiActor() override {
        if (ready_) hub_.send(rank_, slot_, wire::Writer(Kind::Close).frame());
    }

    void process(Batch& batch) override {
        hub_.send(rank_, slot_, wire::encode_batch(batch, kind_, num_inputs_).frame());
        for (;;) {
            const std::optional<std::string> frame = hub_.receive(rank_, slot_);
            if (!frame) throw InfraFailure("rank " + std::to_string(rank_) + " is gone");
            wire::Reader in = body(*frame);
            switch (kind(*frame)) {
                case Kind::Emitted: {
                    const std::uint32_t grain = in.u32();
                    batch.emit_child(grain, in.value());
                    break;
                }
                case Kind::Done: wire::apply_done(batch, in, num_outputs_); return;
                default: throw wire::WireError("mpi: unexpected frame '" + kind_of(*frame) + "'");
            }
        }
    }

    // The remote actor is cancelled there (a process-isolated one kills its worker); this
    // thread keeps waiting for the batch's Done, as it would for an actor of its own.
    void cancel() noexcept override {
        try {
            wire::Writer out(Kind::Cancel);
            out.u32(static_cast<std::uint32_t>(slot_));
            hub_.send(rank_, mpi::kControl, out.frame());
        } catch (...) {
        }
    }

  private:
    mpi::Hub& hub_;
    int rank_, slot_;
    CallKind kind_;
    std::uint32_t num_inputs_, num_outputs_;
    bool ready_ = false;
};

// A rank's actor slot: its thread builds the actor (pinned to its devices), then runs the
// batches rank 0 sends to the slot until it is closed.
struct Slot {
    std::thread thread;
    std::mutex mutex;
    Actor* actor = nullptr;  // while built; cancel() goes to it
    std::atomic<bool> finished{false};
};

void run_slot(mpi::Hub& hub, const Plan& plan, std::uint32_t call, int slot,
              std::vector<int> devices, Slot& self) {
    const auto send = [&hub, slot](const wire::Writer& frame) { hub.send(0, slot, frame.frame()); };
    std::unique_ptr<Actor> actor;
    std::string error;
    try {
        pin_thread(devices);
        if (plan.calls[call].factory) actor = plan.calls[call].factory();
        if (!actor) error = "the factory returned no actor";
    } catch (const std::exception& e) {
        error = e.what();
    } catch (...) {
        error = "unknown exception";
    }
    if (!error.empty()) {
        wire::Writer out(Kind::Setup);
        out.str(error);
        send(out);
        self.finished = true;
        return;
    }
    {
        std::lock_guard<std::mutex> lock(self.mutex);
        self.actor = actor.get();
    }
    send(wire::Writer(Kind::Ready));
    try {
        for (;;) {
            const std::optional<std::string> frame = hub.receive(0, slot);
            if (!frame || kind(*frame) == Kind::Close) break;
            if (kind(*frame) != Kind::Batch) throw wire::WireError("mpi: unexpected frame");
            wire::Reader in = body(*frame);
            wire::run_batch(*actor, in, plan.calls[call], send, 0);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rop mpi: rank slot %d (call '%s'): %s\n", slot,
                     plan.calls[call].name.c_str(), e.what());
    }
    {
        std::lock_guard<std::mutex> lock(self.mutex);
        self.actor = nullptr;
    }
    actor.reset();
    self.finished = true;
}

class OpenMpiRuntime final : public MpiRuntime {
  public:
    void start() override {
        if (hub_) return;
        int provided = 0;
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
            throw std::runtime_error("MPI_Init_thread failed");
        }
        if (provided < MPI_THREAD_SERIALIZED) {
            throw std::runtime_error("this MPI library does not support MPI_THREAD_SERIALIZED");
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        started_ = std::chrono::steady_clock::now();
        hub_ = std::make_unique<mpi::Hub>();
        if (rank_ > 0) {
            wire::Writer hello(Kind::Hello);
            char host[256] = {};
            ::gethostname(host, sizeof host - 1);
            hello.str(host);
            hello.u32(std::max(1u, std::thread::hardware_concurrency()));
            GpuCount gpus;
            try {
                gpus = count_gpus();
            } catch (const std::exception& e) {
                gpus.how = e.what();
            }
            hello.u32(static_cast<std::uint32_t>(gpus.devices));
            hello.str(gpus.how);
            hub_->send(0, mpi::kControl, hello.frame());
        }
    }
    int rank() const override { return rank_; }
    int size() const override { return size_; }

    int serve(const Plan& plan, const RunOptions& options, std::ostream& err) override {
        std::optional<Plan> isolated = with_process_actors(plan, options);
        // Shared with the slots: one that is stuck in its UDF at the end outlives this call.
        const auto local = std::make_shared<const Plan>(isolated ? std::move(*isolated) : plan);
        std::map<int, std::unique_ptr<Slot>> slots;
        int status = 0;
        auto join_finished = [&slots] {
            for (auto it = slots.begin(); it != slots.end();) {
                if (it->second->finished) {
                    it->second->thread.join();
                    it = slots.erase(it);
                } else {
                    ++it;
                }
            }
        };
        try {
            for (;;) {
                const std::optional<std::string> frame = hub_->receive(0, mpi::kControl);
                if (!frame) break;
                wire::Reader in = body(*frame);
                const Kind k = kind(*frame);
                if (k == Kind::Stop) break;
                if (k == Kind::Start) {
                    const std::uint32_t call = in.u32();
                    const auto slot = static_cast<int>(in.u32());
                    std::vector<int> devices(in.u32());
                    for (int& d : devices) d = static_cast<int>(in.u32());
                    if (call >= local->calls.size()) throw wire::WireError("mpi: bad call index");
                    auto s = std::make_unique<Slot>();
                    Slot* ref = s.get();
                    slots[slot] = std::move(s);
                    ref->thread = std::thread([hub = hub_.get(), local, call, slot, devices, ref] {
                        run_slot(*hub, *local, call, slot, devices, *ref);
                    });
                } else if (k == Kind::Cancel) {
                    const auto slot = static_cast<int>(in.u32());
                    if (auto it = slots.find(slot); it != slots.end()) {
                        std::lock_guard<std::mutex> lock(it->second->mutex);
                        if (it->second->actor) it->second->actor->cancel();
                    }
                } else {
                    throw wire::WireError("mpi: unexpected control frame '" + kind_of(*frame) +
                                          "'");
                }
                join_finished();
            }
        } catch (const std::exception& e) {
            err << "rop mpi: rank " << rank_ << ": " << e.what() << "\n";
            status = 1;
        }
        // Rank 0 closed every slot before it ended the run (MPI keeps a pair of ranks' messages
        // in order); a slot still running its UDF gets a moment, then is left behind.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (!slots.empty() && std::chrono::steady_clock::now() < until) {
            join_finished();
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        for (auto& [slot, s] : slots) {
            s->thread.detach();
            s.release();  // its thread still uses it
            abandoned_ = true;
        }
        if (abandoned_) err << "rop mpi: rank " << rank_ << ": an actor was still running\n";
        return status;
    }

    Plan distribute(const Plan& plan, std::string& explanation) override {
        if (ranks_.empty()) ranks_ = hellos();
        const std::vector<RankInfo>& ranks = ranks_;
        run_open_ = true;
        const Placement placement = place(plan, ranks);
        explanation = explain(plan, placement, ranks);
        Plan out = plan;
        for (std::size_t c = 0; c < out.calls.size(); ++c) {
            CallSpec& spec = out.calls[c];
            if (!spec.factory) continue;
            // Isolation happens on the rank that hosts the actor; here every actor is a proxy.
            spec.options.isolation = Isolation::Thread;
            auto sites = std::make_shared<const std::vector<ActorSite>>(placement.calls[c].sites);
            auto next = std::make_shared<std::atomic<std::size_t>>(0);
            const auto call = static_cast<std::uint32_t>(c);
            spec.factory = [this, sites, next, call,
                            spec = plan.calls[c]]() -> std::unique_ptr<Actor> {
                const ActorSite& site = (*sites)[next->fetch_add(1) % sites->size()];
                return std::make_unique<MpiActor>(*hub_, site, call, spec, next_slot_.fetch_add(1));
            };
        }
        return out;
    }

    void end_run() override {
        if (rank_ != 0 || !run_open_) return;
        run_open_ = false;
        for (int r = 1; r < size_; ++r) {
            hub_->send(r, mpi::kControl, wire::Writer(Kind::Stop).frame());
        }
    }

    void finish() override {
        if (!hub_ || finished_) return;
        end_run();
        finished_ = true;
        stats_ = hub_->stats();
        hub_->stop();
        MPI_Finalize();
        if (abandoned_) {  // its thread may still touch the hub: no static destructors
            std::fflush(nullptr);
            std::_Exit(0);
        }
    }

    std::string summary() const override {
        const mpi::HubStats s = hub_ && !finished_ ? hub_->stats() : stats_;
        char text[160];
        std::snprintf(text, sizeof text, "%d ranks; %.1f MiB in %llu frames through rank 0", size_,
                      static_cast<double>(s.bytes_sent + s.bytes_received) / (1 << 20),
                      static_cast<unsigned long long>(s.frames_sent + s.frames_received));
        return text;
    }

  private:
    // Each other rank's Hello (start()), in rank order.
    std::vector<RankInfo> hellos() {
        std::vector<RankInfo> ranks;
        for (int r = 1; r < size_; ++r) {
            const std::optional<std::string> frame = hub_->receive(r, mpi::kControl);
            if (!frame || kind(*frame) != Kind::Hello) {
                throw std::runtime_error("mpi: rank " + std::to_string(r) + " did not say hello");
            }
            wire::Reader in = body(*frame);
            RankInfo info;
            info.rank = r;
            info.host = in.str();
            info.cores = in.u32();
            info.gpus = static_cast<int>(in.u32());
            info.gpu_source = in.str();
            ranks.push_back(std::move(info));
        }
        return ranks;
    }

    int rank_ = 0, size_ = 1;
    std::unique_ptr<mpi::Hub> hub_;
    std::atomic<int> next_slot_{1};
    bool finished_ = false;
    mpi::HubStats stats_;
    std::vector<RankInfo> ranks_;
    bool run_open_ = false;
    bool abandoned_ = false;  // a slot's thread was left running its UDF
    std::chrono::steady_clock::time_point started_;
};

}  // namespace
}  // namespace rop::runtime::detail

extern "C" rop::runtime::detail::MpiRuntime* rop_mpi_runtime() {
    static rop::runtime::detail::OpenMpiRuntime runtime;
    return &runtime;
}
