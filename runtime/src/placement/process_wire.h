// The messages between the driver's proxy of a process-isolated actor (process_actor.cpp) and
// its worker process (process_worker.cpp): length-prefixed frames over a local stream socket
// (Boost.Asio), each one kind byte and a body built with Wire::Writer / read with Wire::Reader.
// Items travel as (typeid name, Codec bytes): the worker finds the TypeInfo by name
// (find_type), so both ends must be the same binary (the worker is started from it).
#pragma once

#include <boost/asio/local/stream_protocol.hpp>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/udf.h"
#include "rop/runtime/value.h"

namespace rop::runtime::detail::wire {

// Frame kinds. Driver -> worker: Batch. Worker -> driver: Ready (its actor is built), Setup
// (the actor could not be built: message), Emitted (one streamed child), Done (the results).
// Between MPI ranks (mpi/), also: Hello (a rank's host, cores and GPUs, to rank 0), Start (build
// an actor in a slot), Cancel (cancel a slot's batch), Close (a slot's actor is done), Stop, Bye
// (a rank's counts, to rank 0, after Stop); and to a rank's item store: Fetch (an item it keeps),
// answered by Item, and Drop (rank 0 holds it no more).
enum class Kind : std::uint8_t {
    Batch = 'B',
    Ready = 'R',
    Setup = 'S',
    Emitted = 'E',
    Done = 'D',
    Hello = 'H',
    Start = 'A',
    Cancel = 'C',
    Close = 'X',
    Stop = 'Q',
    Fetch = 'F',
    Item = 'I',
    Drop = 'P',
    Bye = 'Y',
    Note = 'N',  // MPI: what a worker rank's crash handler says of the next batch (crash.h)
};

// A Grain's flags in a Done frame: set_keep was called (and its verdict), children sealed.
inline constexpr std::uint8_t kKeepSet = 1, kKeep = 2, kFinished = 4;

// How a batch ended in the worker, as execute_job classifies process()'s exceptions.
enum class Ending : std::uint8_t { Ok, Opaque, Infra, Contract, Record, Group };

// An item that stays on the rank that made it (the MPI executor, mpi/, docs/cluster.md): its
// frames carry this reference instead of the item's bytes, and the rank that runs a batch on it
// fetches it from its owner. Rank 0 holds a RemoteItem in place of the item; `lease` tells the
// owner to drop the item when rank 0's last copy goes (its lineage rows are released).
struct RemoteRef {
    std::uint32_t owner = 0;  // the rank that holds the item
    std::uint64_t id = 0;     // its key there
    std::uint64_t bytes = 0;  // its Codec bytes: the backpressure budget counts these
};
struct RemoteItem {
    RemoteRef ref;
    std::shared_ptr<const void> lease;
};

}  // namespace rop::runtime::detail::wire

// The payload budget counts a remote item's bytes, wherever they are held.
template <>
struct rop::ByteSize<rop::runtime::detail::wire::RemoteItem> {
    static std::size_t of(const rop::runtime::detail::wire::RemoteItem& item) {
        return item.ref.bytes;
    }
};

namespace rop::runtime::detail::wire {
// Keeps an item whose Codec bytes number `encoded_bytes` on this rank and says where; nullopt:
// it travels in the frame.
using Stash = std::function<std::optional<RemoteRef>(const Value& item, std::size_t encoded_bytes)>;
// The item a RemoteRef names (fetched from its owner), or rank 0's RemoteItem for it.
using Resolve = std::function<Value(const RemoteRef&)>;

// A frame or its decoding is malformed: the other end is not a rop worker of this binary.
class WireError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Writer {
  public:
    explicit Writer(Kind kind) { out_.push_back(static_cast<char>(kind)); }
    void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u32(std::uint32_t v) { raw(&v, sizeof v); }
    void u64(std::uint64_t v) { raw(&v, sizeof v); }
    void str(std::string_view s) {
        u64(s.size());
        out_.append(s);
    }
    // An item: empty, or its typeid name and Codec bytes; a reduce Grain's ReduceGroup with
    // its members, ordinals and skipped children.
    // A RemoteItem travels as its reference; with a stash, so does any item it keeps.
    void value(const Value& v);
    void set_stash(const Stash* stash) { stash_ = stash; }
    const std::string& frame() const { return out_; }

  private:
    void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
    void remote(const RemoteRef& ref);
    std::string out_;
    const Stash* stash_ = nullptr;
};

class Reader {
  public:
    explicit Reader(std::string_view in) : in_(in) {}
    std::uint8_t u8() { return take<std::uint8_t>(); }
    std::uint32_t u32() { return take<std::uint32_t>(); }
    std::uint64_t u64() { return take<std::uint64_t>(); }
    std::string str() {
        const std::uint64_t n = u64();
        if (n > in_.size()) throw WireError("process worker: a string runs past its frame");
        std::string s(in_.substr(0, n));
        in_.remove_prefix(n);
        return s;
    }
    // A remote reference becomes what `resolve` gives; without one it is a WireError.
    Value value();
    void set_resolve(const Resolve* resolve) { resolve_ = resolve; }
    bool done() const { return in_.empty(); }
    std::size_t left() const { return in_.size(); }  // bytes not read yet

  private:
    template <class T>
    T take() {
        if (in_.size() < sizeof(T)) throw WireError("process worker: a frame ends too early");
        T v;
        std::memcpy(&v, in_.data(), sizeof v);
        in_.remove_prefix(sizeof v);
        return v;
    }
    std::string_view in_;
    const Resolve* resolve_ = nullptr;
};

// What an actor out of process serves (a worker's --rop-worker value, an MPI Start frame): one
// Call (its index), or a shared pool (kPoolTarget | its index), whose batches are of its Calls.
inline constexpr std::uint32_t kPoolTarget = 0x80000000u;
// The Calls a target serves; throws WireError for one the plan does not have.
std::vector<CallId> target_calls(const Plan& plan, std::uint32_t target);
std::string target_name(const Plan& plan, std::uint32_t target);  // "call 'ocr'", "pool 'vlm'"
// One actor of `target` as `placed` (the plan with its actors placed here) makes it.
std::unique_ptr<Actor> make_target_actor(const Plan& placed, std::uint32_t target);

// What a proxy needs of each Call its remote actor serves to move that Call's batches.
class TargetShapes {
  public:
    TargetShapes(const Plan& plan, std::uint32_t target);
    struct Shape {
        CallId call;
        CallKind kind;
        std::uint32_t inputs, outputs;
    };
    const Shape& of(const Batch& batch) const;  // by Batch::call (a lone Call's: its own)

  private:
    std::vector<Shape> shapes_;
};

// A batch's request and results, as any out-of-process actor moves them (process workers here,
// MPI ranks in rop_runtime_mpi): the Batch frame (its Call, the Grains' infos and items), and on
// the other side the Done frame applied to the driver's Batch, rethrowing how process() ended
// there.
Writer encode_batch(const Batch& batch, const TargetShapes::Shape& shape);
void apply_done(Batch& batch, Reader& in, std::uint32_t num_outputs);

// The remote side: decodes a Batch frame, runs `actor` on it, sends each streamed child as an
// Emitted frame and then the Done frame through `send`, classifying what process() threw as
// execute_job does. `memory`: the worker's memory limit in bytes, for an out-of-memory reason.
// `stash`: where the items it makes may stay (an MPI rank). An input that cannot be resolved
// (`in`'s resolve threw) ends the batch as an infra failure.
using Send = std::function<void(const Writer&)>;
// `calls`: the Calls the actor serves (target_calls); the frame's Call must be one of them.
void run_batch(Actor& actor, Reader& in, const Plan& plan, const std::vector<CallId>& calls,
               const Send& send, std::uint64_t memory, const Stash* stash = nullptr);

using Socket = boost::asio::local::stream_protocol::socket;

// One frame: a u64 length, then the frame (kind byte first). Both throw boost::system's
// system_error when the peer is gone (EOF, reset).
void send(Socket& socket, const Writer& frame);
std::string receive(Socket& socket);

}  // namespace rop::runtime::detail::wire
