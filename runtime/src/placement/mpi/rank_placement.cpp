// mpi_runtime.h, implemented on Open MPI: rank 0's proxies (MpiActor), the other ranks' slots.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cache/result_cache.h"
#include "core/crash.h"
#include "hub.h"
#include "placement/actor_placement.h"
#include "placement/gpu_devices.h"
#include "placement/mpi_runtime.h"
#include "placement/process.h"
#include "placement/process_wire.h"
#include "placement/sites.h"
#include "rop/runtime/executor.h"

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

// Payloads worker to worker (docs/cluster.md): an item a rank's actor makes whose Codec bytes are
// at least `inline_bytes` stays in that rank's store; the frames to rank 0 carry a reference
// (wire::RemoteRef), and a rank that runs a batch on the item fetches it from the owner itself.
// The owner keeps it until rank 0 drops its last copy. Rank 0 owns nothing: what its sinks
// write is fetched by the driver thread.
class RankItems {
  public:
    RankItems(mpi::Hub& hub, int rank, std::size_t inline_bytes)
        : hub_(hub), rank_(static_cast<std::uint32_t>(rank)), inline_bytes_(inline_bytes) {
        stash_ = [this](const Value& item, std::size_t bytes) { return keep(item, bytes); };
    }

    // Writers on this rank keep their large items here (wire::Writer::set_stash).
    const wire::Stash& stash() const { return stash_; }

    std::optional<wire::RemoteRef> keep(const Value& item, std::size_t bytes) {
        if (bytes < inline_bytes_) return std::nullopt;
        std::lock_guard<std::mutex> lock(mutex_);
        const wire::RemoteRef ref{rank_, next_id_++, bytes};
        items_.emplace(ref.id, Kept{item, bytes});
        ++counts_.kept_items;
        counts_.kept_bytes += bytes;
        held_bytes_ += bytes;
        counts_.peak_held_bytes = std::max(counts_.peak_held_bytes, held_bytes_);
        return ref;
    }

    // The item `ref` names: this rank's own, or fetched from its owner, whose answer comes on
    // (owner, reply_tag). Throws InfraFailure when the owner no longer has it.
    Value resolve(const wire::RemoteRef& ref, int reply_tag) {
        if (ref.owner == rank_) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (auto it = items_.find(ref.id); it != items_.end()) return it->second.item;
            throw InfraFailure("item " + std::to_string(ref.id) + " is no longer kept by rank " +
                               std::to_string(rank_));
        }
        wire::Writer ask(Kind::Fetch);
        ask.u64(ref.id);
        ask.u32(static_cast<std::uint32_t>(reply_tag));
        hub_.send(static_cast<int>(ref.owner), mpi::kItems, ask.frame());
        const std::optional<std::string> frame =
            hub_.receive(static_cast<int>(ref.owner), reply_tag);
        if (!frame) throw InfraFailure("rank " + std::to_string(ref.owner) + " is gone");
        if (kind(*frame) != Kind::Item) throw wire::WireError("mpi: a fetch was not answered");
        wire::Reader in = body(*frame);
        if (in.u8() == 0) throw InfraFailure(in.str());
        const std::string name = in.str();
        const std::string bytes = in.str();
        const TypeInfo* type = find_type(name);
        if (!type) throw wire::WireError("mpi: item type '" + name + "' unknown to this binary");
        {
            std::lock_guard<std::mutex> lock(mutex_);
            ++counts_.fetched_items;
            counts_.fetched_bytes += bytes.size();
        }
        return Value::decode(*type, bytes);
    }

    // The store's server (ranks >= 1): Fetch and Drop from any rank, until the hub stops.
    void serve() {
        for (;;) {
            std::optional<std::pair<int, std::string>> request = hub_.receive_any(mpi::kItems);
            if (!request) return;
            const auto& [from, frame] = *request;
            try {
                wire::Reader in = body(frame);
                if (kind(frame) == Kind::Drop) {
                    const std::uint64_t n = in.u64();
                    std::lock_guard<std::mutex> lock(mutex_);
                    for (std::uint64_t i = 0; i < n; ++i) {
                        if (auto it = items_.find(in.u64()); it != items_.end()) {
                            held_bytes_ -= it->second.bytes;
                            items_.erase(it);
                        }
                    }
                    continue;
                }
                if (kind(frame) != Kind::Fetch) throw wire::WireError("mpi: not a fetch");
                const std::uint64_t id = in.u64();
                const auto reply_tag = static_cast<int>(in.u32());
                Value item;
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    if (auto it = items_.find(id); it != items_.end()) item = it->second.item;
                }
                wire::Writer out(Kind::Item);
                if (item.has_value()) {
                    out.u8(1);
                    out.str(item.type()->type->name());
                    out.str(item.encode());
                } else {
                    out.u8(0);
                    out.str("item " + std::to_string(id) + " is no longer kept by rank " +
                            std::to_string(rank_));
                }
                hub_.send(from, reply_tag, out.frame());
            } catch (const std::exception& e) {
                std::fprintf(stderr, "rop mpi: rank %u: item store: %s\n", rank_, e.what());
            }
        }
    }

    struct Counts {
        std::uint64_t kept_items = 0, kept_bytes = 0;        // items this rank kept
        std::uint64_t fetched_items = 0, fetched_bytes = 0;  // fetched from other ranks
        std::uint64_t peak_held_bytes = 0;                   // the most kept at once
    };
    Counts counts() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return counts_;
    }

  private:
    mpi::Hub& hub_;
    std::uint32_t rank_;
    std::size_t inline_bytes_;
    wire::Stash stash_;
    mutable std::mutex mutex_;
    struct Kept {
        Value item;
        std::uint64_t bytes;
    };
    std::unordered_map<std::uint64_t, Kept> items_;
    std::uint64_t next_id_ = 1;
    std::uint64_t held_bytes_ = 0;
    Counts counts_;
};

// Rank 0's copy of an item another rank keeps: when the last copy goes, the owner drops it.
struct Lease {
    mpi::Hub& hub;
    wire::RemoteRef ref;
    ~Lease() {
        try {
            wire::Writer drop(Kind::Drop);
            drop.u64(1);
            drop.u64(ref.id);
            hub.send(static_cast<int>(ref.owner), mpi::kItems, drop.frame());
        } catch (...) {  // the run is over: nothing to drop any more
        }
    }
};

// Rank 0's stand-in for an actor on another rank: it asks that rank to build the actor in a
// slot (a tag of its own), then sends it each batch and applies what comes back, streamed
// children first, exactly as a process-isolated actor's proxy does with its worker.
class MpiActor final : public Actor {
  public:
    // `target`: a Call, or a shared pool (wire::kPoolTarget).
    MpiActor(mpi::Hub& hub, const ActorSite& site, std::uint32_t target,
             const wire::TargetShapes& shapes, int slot, const wire::Resolve& remote)
        : hub_(hub), remote_(remote), rank_(site.rank), slot_(slot), shapes_(shapes) {
        wire::Writer start(Kind::Start);
        start.u32(target);
        start.u32(static_cast<std::uint32_t>(slot));
        start.u32(static_cast<std::uint32_t>(site.devices.size()));
        for (int d : site.devices) start.u32(static_cast<std::uint32_t>(d));
        // Where the rank journals a crash of its own (crash.h).
        start.str(crash_journal_path());
        start.str(crash_journal_header());
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
        // What the rank's crash handler says (and journals) should this batch bring it down.
        if (const BatchJob* job = running_job(); job && !job->crash_roots.empty()) {
            wire::Writer note(Kind::Note);
            note.str(job->crash_note);
            note.str(job->crash_call);
            note.u32(static_cast<std::uint32_t>(job->crash_roots.size()));
            for (std::uint64_t root : job->crash_roots) note.u64(root);
            hub_.send(rank_, slot_, note.frame());
        }
        const wire::TargetShapes::Shape& shape = shapes_.of(batch);
        hub_.send(rank_, slot_, wire::encode_batch(batch, shape).frame());
        for (;;) {
            const std::optional<std::string> frame = hub_.receive(rank_, slot_);
            if (!frame) throw InfraFailure("rank " + std::to_string(rank_) + " is gone");
            wire::Reader in = body(*frame);
            in.set_resolve(&remote_);
            switch (kind(*frame)) {
                case Kind::Emitted: {
                    const std::uint32_t grain = in.u32();
                    batch.emit_child(grain, in.value());
                    break;
                }
                case Kind::Done: wire::apply_done(batch, in, shape.outputs); return;
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
    const wire::Resolve& remote_;  // a reference in a frame becomes a RemoteItem
    int rank_, slot_;
    const wire::TargetShapes shapes_;
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

void run_slot(mpi::Hub& hub, RankItems& items, const Plan& plan, std::uint32_t target, int slot,
              std::vector<int> devices, Slot& self) {
    const std::vector<CallId> calls = wire::target_calls(plan, target);
    // This slot's fetches are answered on its own tag: rank 0 never uses it towards another
    // rank's store, and no other rank sends on it.
    const wire::Resolve fetch = [&items, slot](const wire::RemoteRef& ref) {
        return items.resolve(ref, slot);
    };
    const auto send = [&hub, slot](const wire::Writer& frame) { hub.send(0, slot, frame.frame()); };
    std::unique_ptr<Actor> actor;
    std::string error;
    try {
        pin_thread(devices);
        actor = wire::make_target_actor(plan, target);
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
    BatchJob described;  // the next batch as rank 0 describes it, for the crash handler
    try {
        for (;;) {
            const std::optional<std::string> frame = hub.receive(0, slot);
            if (!frame || kind(*frame) == Kind::Close) break;
            if (kind(*frame) == Kind::Note) {
                wire::Reader in = body(*frame);
                described.crash_note = in.str();
                described.crash_call = in.str();
                described.crash_roots.resize(in.u32());
                for (std::uint64_t& root : described.crash_roots) root = in.u64();
                continue;
            }
            if (kind(*frame) != Kind::Batch) throw wire::WireError("mpi: unexpected frame");
            wire::Reader in = body(*frame);
            in.set_resolve(&fetch);
            set_running_job(described.crash_roots.empty() ? nullptr : &described);
            wire::run_batch(*actor, in, plan, calls, send, 0, &items.stash());
            set_running_job(nullptr);
            described.crash_roots.clear();
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rop mpi: rank slot %d (%s): %s\n", slot,
                     wire::target_name(plan, target).c_str(), e.what());
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
        if (rank_ > 0) set_crash_rank(rank_);
        started_ = std::chrono::steady_clock::now();
        hub_ = std::make_unique<mpi::Hub>();
        items_ = std::make_unique<RankItems>(*hub_, rank_, inline_bytes());
        if (rank_ > 0) {
            items_thread_ = std::thread([items = items_.get()] { items->serve(); });
        }
        remote_ = [hub = hub_.get()](const wire::RemoteRef& ref) {
            return Value::of<wire::RemoteItem>(
                wire::RemoteItem{ref, std::shared_ptr<const Lease>(new Lease{*hub, ref})});
        };
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
        // The actors this rank hosts are placed here (threads, or workers for isolation
        // process); shared with the slots: one stuck in its UDF at the end outlives this call.
        // With --cache each is wrapped by this rank's side of the store: it keys, reads and
        // writes the Grains it runs (result_cache.h), and its counts go to rank 0 in the Bye.
        std::shared_ptr<const Plan> local =
            std::make_shared<const Plan>(place_actors(plan, options));
        std::shared_ptr<ResultCache> cache;
        std::vector<std::string> cache_notes;
        if (!options.cache_dir.empty()) {
            try {
                cache = std::make_shared<ResultCache>(plan, options, ResultCache::Role::RankHost);
                local = std::make_shared<const Plan>(cache->wrap(*local));
            } catch (const std::exception& e) {
                cache.reset();
                cache_notes.push_back(
                    "rank " + std::to_string(rank_) +
                    " cannot use the store, its Grains ran unstored: " + e.what());
            }
        }
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
                    const std::uint32_t target = in.u32();
                    const auto slot = static_cast<int>(in.u32());
                    std::vector<int> devices(in.u32());
                    for (int& d : devices) d = static_cast<int>(in.u32());
                    const std::string journal = in.str();
                    const std::string header = in.str();
                    if (!journal_checked_ && !journal.empty())
                        open_crash_journal(journal, header, err);
                    (void)wire::target_calls(*local, target);  // a bad index throws
                    auto s = std::make_unique<Slot>();
                    Slot* ref = s.get();
                    slots[slot] = std::move(s);
                    ref->thread = std::thread([hub = hub_.get(), items = items_.get(), local, cache,
                                               target, slot, devices, ref] {
                        run_slot(*hub, *items, *local, target, slot, devices, *ref);
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
        // What this rank kept and fetched, for rank 0's summary.
        const RankItems::Counts counts = items_->counts();
        wire::Writer bye(Kind::Bye);
        bye.u64(counts.kept_items);
        bye.u64(counts.kept_bytes);
        bye.u64(counts.fetched_items);
        bye.u64(counts.fetched_bytes);
        bye.u64(counts.peak_held_bytes);
        if (cache) {
            const std::vector<std::string> notes = cache->finish();
            cache_notes.insert(cache_notes.end(), notes.begin(), notes.end());
        }
        ResultCache::write_rank_counts(cache.get(), bye, cache_notes);
        hub_->send(0, mpi::kControl, bye.frame());
        return status;
    }

    // A worker rank journals its own crashes into rank 0's journal when it can open the same
    // file (one machine, or a shared filesystem): the header rank 0 wrote, with its random id,
    // tells it apart from another file at that path. Otherwise its crashes are only on stderr,
    // and rank 0 counts the roots in flight as the process's death (journal.h).
    void open_crash_journal(const std::string& path, const std::string& header, std::ostream& err) {
        journal_checked_ = true;
        const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
        if (fd < 0) {
            err << "rop mpi: rank " << rank_ << ": cannot open the journal " << path
                << " to record crashes (not on a shared filesystem?)\n";
            return;
        }
        std::string first(header.size(), '\0');
        if (::pread(fd, first.data(), first.size(), 0) != static_cast<ssize_t>(first.size()) ||
            first != header) {
            err << "rop mpi: rank " << rank_ << ": " << path
                << " here is not rank 0's journal: crashes on this rank are not journaled\n";
            ::close(fd);
            return;
        }
        set_crash_journal(fd);  // kept open for the process's life
    }

    std::shared_ptr<const ActorPlacement> place_on_ranks(const Plan& plan,
                                                         std::string& explanation) override {
        if (ranks_.empty()) ranks_ = hellos();
        const std::vector<RankInfo>& ranks = ranks_;
        run_open_ = true;
        const Placement placement = place(plan, ranks);
        explanation = explain(plan, placement, ranks);
        return std::make_shared<RankPlacement>(*this, placement);
    }

    // Every actor on its site's rank, behind an MpiActor; isolation happens on that rank.
    class RankPlacement final : public ActorPlacement {
      public:
        RankPlacement(OpenMpiRuntime& mpi, const Placement& placement) : mpi_(mpi) {
            for (const CallPlacement& call : placement.calls) {
                sites_.push_back(std::make_shared<const std::vector<ActorSite>>(call.sites));
                next_.push_back(std::make_shared<std::atomic<std::size_t>>(0));
            }
            for (const CallPlacement& pool : placement.pools) {
                pool_sites_.push_back(std::make_shared<const std::vector<ActorSite>>(pool.sites));
                pool_next_.push_back(std::make_shared<std::atomic<std::size_t>>(0));
            }
        }
        const char* name() const override { return "rank"; }
        ActorFactory factory(CallId call, const Plan& plan) const override {
            return make(call, plan, sites_[call], next_[call]);
        }
        ActorFactory pool_factory(PoolId pool, const Plan& plan) const override {
            return make(wire::kPoolTarget | pool, plan, pool_sites_[pool], pool_next_[pool]);
        }

      private:
        ActorFactory make(std::uint32_t target, const Plan& plan,
                          std::shared_ptr<const std::vector<ActorSite>> sites,
                          std::shared_ptr<std::atomic<std::size_t>> next) const {
            return [&mpi = mpi_, sites, next, target,
                    shapes = wire::TargetShapes(plan, target)]() -> std::unique_ptr<Actor> {
                const ActorSite& site = (*sites)[next->fetch_add(1) % sites->size()];
                const int slot = mpi.next_slot_.fetch_add(1);
                if (slot > mpi::kMaxSlot) {
                    throw InfraFailure("mpi: more than " + std::to_string(mpi::kMaxSlot) +
                                       " actors were started in this run");
                }
                return std::make_unique<MpiActor>(*mpi.hub_, site, target, shapes, slot,
                                                  mpi.remote_);
            };
        }

        OpenMpiRuntime& mpi_;
        std::vector<std::shared_ptr<const std::vector<ActorSite>>> sites_;       // per Call
        std::vector<std::shared_ptr<std::atomic<std::size_t>>> next_;            // per Call
        std::vector<std::shared_ptr<const std::vector<ActorSite>>> pool_sites_;  // per pool
        std::vector<std::shared_ptr<std::atomic<std::size_t>>> pool_next_;       // per pool
    };

    void end_run() override {
        if (rank_ != 0 || !run_open_) return;
        run_open_ = false;
        for (int r = 1; r < size_; ++r) {
            hub_->send(r, mpi::kControl, wire::Writer(Kind::Stop).frame());
        }
        // Each rank's counts; a rank that does not answer within 5 s in all (it is gone, or an
        // actor of its is stuck) is left out of the summary, and MPI is not finalized (a
        // finalize waits for every rank).
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        for (int r = 1; r < size_; ++r) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                until - std::chrono::steady_clock::now());
            const std::optional<std::string> frame =
                hub_->receive_for(r, mpi::kControl, std::max(left, std::chrono::milliseconds(1)));
            if (!frame || kind(*frame) != Kind::Bye) {
                ++silent_ranks_;
                continue;
            }
            wire::Reader in = body(*frame);
            ranks_kept_.kept_items += in.u64();
            ranks_kept_.kept_bytes += in.u64();
            ranks_kept_.fetched_items += in.u64();
            ranks_kept_.fetched_bytes += in.u64();
            ranks_kept_.peak_held_bytes = std::max(ranks_kept_.peak_held_bytes, in.u64());
            rank_cache_counts_.push_back(frame->substr(frame->size() - in.left()));
        }
    }

    void add_cache_counts(RunReport& report) const override {
        for (const std::string& counts : rank_cache_counts_) {
            wire::Reader in(counts);
            ResultCache::add_rank_counts(in, report);
        }
    }

    void deliver(RunOptions& options) override {
        for (RootSinkBinding& sink : options.root_sinks) {
            sink.write_root = [this, inner = std::move(sink.write_root)](
                                  const RootKey& root, std::span<const Value> items) {
                std::vector<Value> here;
                here.reserve(items.size());
                for (const Value& v : items) here.push_back(fetched(v));
                inner(root, here);
            };
        }
        for (SinkBinding& sink : options.sinks) {
            sink.consume = [this, inner = std::move(sink.consume)](
                               EntityId entity, const Value& v) { inner(entity, fetched(v)); };
        }
    }

    void finish() override {
        if (!hub_ || finished_) return;
        end_run();
        finished_ = true;
        stats_ = hub_->stats();
        hub_->stop();
        if (items_thread_.joinable()) items_thread_.join();
        if (silent_ranks_ > 0) {  // MPI_Finalize would wait for them
            std::fflush(nullptr);
            return;
        }
        MPI_Finalize();
        if (abandoned_) {  // its thread may still touch the hub: no static destructors
            std::fflush(nullptr);
            std::_Exit(0);
        }
    }

    std::string summary() const override {
        const mpi::HubStats s = hub_ && !finished_ ? hub_->stats() : stats_;
        const double through = static_cast<double>(s.bytes_sent + s.bytes_received);
        const double between = static_cast<double>(ranks_kept_.fetched_bytes);
        char text[400];
        std::snprintf(text, sizeof text,
                      "%d ranks; %.1f MiB in %llu frames through rank 0; %.1f MiB of items in "
                      "%llu fetches rank to rank (%.2f%% of the bytes moved went through rank "
                      "0); one rank held at most %.1f MiB at once, %.1f MiB kept in all",
                      size_, through / (1 << 20),
                      static_cast<unsigned long long>(s.frames_sent + s.frames_received),
                      between / (1 << 20),
                      static_cast<unsigned long long>(ranks_kept_.fetched_items),
                      through + between > 0 ? 100.0 * through / (through + between) : 0.0,
                      static_cast<double>(ranks_kept_.peak_held_bytes) / (1 << 20),
                      static_cast<double>(ranks_kept_.kept_bytes) / (1 << 20));
        return text;
    }

  private:
    // ROP_MPI_INLINE_BYTES: items smaller than this travel through rank 0 (default 4 KiB).
    static std::size_t inline_bytes() {
        const char* text = std::getenv("ROP_MPI_INLINE_BYTES");
        if (!text || !*text) return 4096;
        char* end = nullptr;
        const unsigned long long n = std::strtoull(text, &end, 10);
        if (*end != '\0') {
            throw std::runtime_error(std::string("ROP_MPI_INLINE_BYTES='") + text +
                                     "' is not a number of bytes");
        }
        return static_cast<std::size_t>(n);
    }

    // `v` with every item another rank keeps fetched. Rank 0 fetches on its own tag, from the
    // driver thread alone (the sinks run there).
    Value fetched(const Value& v) {
        if (const auto* item = v.try_get<wire::RemoteItem>()) {
            return items_->resolve(item->ref, mpi::kDriverFetch);
        }
        if (const auto* group = v.try_get<ReduceGroup>()) {
            ReduceGroup out = *group;
            for (Value& member : out.values) member = fetched(member);
            return Value::of<ReduceGroup>(std::move(out));
        }
        return v;
    }

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
    std::unique_ptr<RankItems> items_;
    std::thread items_thread_;      // ranks >= 1: the item store's server
    wire::Resolve remote_;          // rank 0: a reference in a frame becomes a RemoteItem
    RankItems::Counts ranks_kept_;  // rank 0: the other ranks' counts (their Byes)
    // rank 0: each hosting rank's result store counts, from its Bye (add_cache_counts)
    std::vector<std::string> rank_cache_counts_;
    std::atomic<int> next_slot_{1};
    bool finished_ = false;
    mpi::HubStats stats_;
    std::vector<RankInfo> ranks_;
    bool run_open_ = false;
    bool journal_checked_ = false;  // a worker rank tried to open rank 0's journal
    bool abandoned_ = false;        // a slot's thread was left running its UDF
    int silent_ranks_ = 0;          // rank 0: ranks that did not say Bye at the end of the run
    std::chrono::steady_clock::time_point started_;
};

}  // namespace
}  // namespace rop::runtime::detail

extern "C" rop::runtime::detail::MpiRuntime* rop_mpi_runtime() {
    static rop::runtime::detail::OpenMpiRuntime runtime;
    return &runtime;
}
