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
#include <stdexcept>
#include <string>
#include <string_view>

#include "rop/runtime/plan.h"
#include "rop/runtime/udf.h"
#include "rop/runtime/value.h"

namespace rop::runtime::detail::wire {

// Frame kinds. Driver -> worker: Batch. Worker -> driver: Ready (its actor is built), Setup
// (the actor could not be built: message), Emitted (one streamed child), Done (the results).
// Between MPI ranks (mpi/), also: Hello (a rank's host, cores and GPUs, to rank 0), Start (build
// an actor in a slot), Cancel (cancel a slot's batch), Close (a slot's actor is done), Stop.
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
};

// A Grain's flags in a Done frame: set_keep was called (and its verdict), children sealed.
inline constexpr std::uint8_t kKeepSet = 1, kKeep = 2, kFinished = 4;

// How a batch ended in the worker, as execute_job classifies process()'s exceptions.
enum class Ending : std::uint8_t { Ok, Opaque, Infra, Contract, Record, Group };

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
    void value(const Value& v);
    const std::string& frame() const { return out_; }

  private:
    void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
    std::string out_;
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
    Value value();
    bool done() const { return in_.empty(); }

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
};

// A batch's request and results, as any out-of-process actor moves them (process workers here,
// MPI ranks in rop_runtime_mpi): the Batch frame (the Grains' infos and items), and on the other
// side the Done frame applied to the driver's Batch, rethrowing how process() ended there.
Writer encode_batch(const Batch& batch, CallKind kind, std::uint32_t num_inputs);
void apply_done(Batch& batch, Reader& in, std::uint32_t num_outputs);

// The remote side: decodes a Batch frame, runs `actor` on it, sends each streamed child as an
// Emitted frame and then the Done frame through `send`, classifying what process() threw as
// execute_job does. `memory`: the worker's memory limit in bytes, for an out-of-memory reason.
using Send = std::function<void(const Writer&)>;
void run_batch(Actor& actor, Reader& in, const CallSpec& spec, const Send& send,
               std::uint64_t memory);

using Socket = boost::asio::local::stream_protocol::socket;

// One frame: a u64 length, then the frame (kind byte first). Both throw boost::system's
// system_error when the peer is gone (EOF, reset).
void send(Socket& socket, const Writer& frame);
std::string receive(Socket& socket);

}  // namespace rop::runtime::detail::wire
