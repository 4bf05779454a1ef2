// The worker's side of a process-isolated actor (process.h): the pipeline's binary, started with
// --rop-worker CALL:FD:MEMORY, builds the Call's actor and runs the batches the driver sends.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/system/system_error.hpp>
#include <charconv>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "process.h"
#include "process_wire.h"

namespace rop::runtime::detail {
namespace {

struct WorkerSpec {
    std::uint32_t call = 0;
    int fd = -1;
    std::uint64_t memory = 0;
};

std::optional<WorkerSpec> parse_spec(std::string_view spec) {
    WorkerSpec out;
    auto field = [&spec](auto& value) {
        const std::size_t colon = spec.find(':');
        const std::string_view part = spec.substr(0, colon);
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        spec = colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
        return ec == std::errc() && end == part.data() + part.size();
    };
    if (!field(out.call) || !field(out.fd)) return std::nullopt;
    if (!spec.empty() && !field(out.memory)) return std::nullopt;
    return out;
}

// The worker's address space in bytes (what RLIMIT_AS limits): /proc/self/statm's first field,
// in pages. Reads into a stack buffer: it runs in the new-handler, where memory has run out.
std::uint64_t address_space() noexcept {
    const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[64];
    const ssize_t n = ::read(fd, text, sizeof text);
    ::close(fd);
    std::uint64_t pages = 0;
    if (n > 0) std::from_chars(text, text + n, pages);
    return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// A worker tells an allocation that failed from a std::bad_alloc the UDF throws itself: operator
// new calls the new-handler only when it found no memory (the worker's limit, or the machine's,
// said no), and the handler notes it, with the address space in use then (before unwinding frees
// what the UDF held). run_batch clears the note before each batch.
std::atomic<bool> allocation_failed{false};
std::atomic<std::uint64_t> in_use_when_failed{0};

void note_failed_allocation() {
    in_use_when_failed.store(address_space(), std::memory_order_relaxed);
    allocation_failed.store(true, std::memory_order_relaxed);
    throw std::bad_alloc();  // what operator new throws without a handler
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The reason a std::bad_alloc out of process() gives. Where the handler is not installed (an MPI
// rank), every bad_alloc reads as out of memory, as it always did.
std::string bad_alloc_reason(const std::bad_alloc& e, std::uint64_t limit) {
    const std::string limit_text =
        limit ? "out of memory (the worker's limit is " + mib(limit) + ")" : "out of memory";
    if (std::get_new_handler() != note_failed_allocation) return limit_text;
    if (allocation_failed.load(std::memory_order_relaxed)) {
        return limit_text + ": an allocation failed with " +
               mib(in_use_when_failed.load(std::memory_order_relaxed)) + " in use";
    }
    return std::string(e.what()) + ", thrown by the UDF: no allocation failed (" +
           mib(address_space()) + " in use" +
           (limit ? " of the worker's " + mib(limit) + " limit)" : ")");
}

// The end of a Done frame: how process() ended.
void write_ending(wire::Writer& out, wire::Ending ending, std::uint64_t index,
                  const std::string& message) {
    out.u8(static_cast<std::uint8_t>(ending));
    out.u64(index);
    out.str(message);
}

// The Batch a worker's actor sees: the decoded items; what the actor reports is kept for the
// Done frame, except streamed children, which go to the driver at once.
class WorkerBatch final : public Batch {
  public:
    WorkerBatch(wire::Reader& in, CallId call, const CallSpec& spec, const wire::Send& send,
                const wire::Stash* stash)
        : call_(call),
          num_inputs_(spec.inputs.size()),
          num_outputs_(spec.outputs.size()),
          reduce_(spec.kind == CallKind::Reduce),
          send_(send),
          stash_(stash) {
        const std::uint32_t n = in.u32();
        infos_.resize(n);
        inputs_.resize(std::size_t{n} * num_inputs_);
        if (reduce_) parents_.resize(n);
        for (std::uint32_t g = 0; g < n; ++g) {
            infos_[g].entity = in.u32();
            infos_[g].parent = in.u32();
            infos_[g].ordinal = in.u32();
            for (std::size_t i = 0; i < num_inputs_; ++i) inputs_[g * num_inputs_ + i] = in.value();
            if (reduce_) parents_[g] = in.value();
        }
        outputs_.resize(std::size_t{n} * num_outputs_);
        flags_.assign(n, 0);
    }

    std::size_t size() const override { return infos_.size(); }
    CallId call() const override { return call_; }
    GrainInfo info(std::size_t grain) const override { return infos_.at(grain); }
    const Value& input(std::size_t grain, std::size_t input) const override {
        return inputs_.at(grain * num_inputs_ + input);
    }
    const Value& parent(std::size_t grain) const override {
        return reduce_ ? parents_.at(grain) : Batch::parent(grain);
    }
    void set_output(std::size_t grain, std::size_t output, Value value) override {
        if (output >= num_outputs_ || grain >= size()) {
            throw ContractError("set_output: grain " + std::to_string(grain) + ", output " +
                                std::to_string(output) + " out of range");
        }
        outputs_[grain * num_outputs_ + output] = std::move(value);
    }
    void set_keep(std::size_t grain, bool keep) override {
        flags_.at(grain) |= static_cast<std::uint8_t>(wire::kKeepSet | (keep ? wire::kKeep : 0));
    }
    void emit_child(std::size_t grain, Value child) override {
        wire::Writer out(wire::Kind::Emitted);
        out.set_stash(stash_);
        out.u32(static_cast<std::uint32_t>(grain));
        out.value(child);
        send_(out);
    }
    void finish_children(std::size_t grain) override { flags_.at(grain) |= wire::kFinished; }
    void fail_record(std::size_t grain, std::string reason) override {
        failures_.push_back({static_cast<std::uint32_t>(grain), false, std::move(reason)});
    }
    void fail_group(std::size_t grain, std::string reason) override {
        failures_.push_back({static_cast<std::uint32_t>(grain), true, std::move(reason)});
    }

    // The Done frame: per Grain its flags and outputs, the failures, then how process() ended.
    wire::Writer done(wire::Ending ending, std::uint64_t index, const std::string& message) const {
        wire::Writer out(wire::Kind::Done);
        out.set_stash(stash_);
        out.u32(static_cast<std::uint32_t>(size()));
        for (std::size_t g = 0; g < size(); ++g) {
            out.u8(flags_[g]);
            for (std::size_t o = 0; o < num_outputs_; ++o)
                out.value(outputs_[g * num_outputs_ + o]);
        }
        out.u32(static_cast<std::uint32_t>(failures_.size()));
        for (const Failure& f : failures_) {
            out.u32(f.grain);
            out.u8(f.group ? 1 : 0);
            out.str(f.reason);
        }
        write_ending(out, ending, index, message);
        return out;
    }

  private:
    CallId call_;
    struct Failure {
        std::uint32_t grain;
        bool group;
        std::string reason;
    };
    std::size_t num_inputs_, num_outputs_;
    bool reduce_;
    const wire::Send& send_;
    const wire::Stash* stash_;
    std::vector<GrainInfo> infos_;
    std::vector<Value> inputs_, parents_, outputs_;
    std::vector<std::uint8_t> flags_;
    std::vector<Failure> failures_;
};

}  // namespace

void wire::run_batch(Actor& actor, wire::Reader& in, const Plan& plan,
                     const std::vector<CallId>& calls, const wire::Send& send, std::uint64_t memory,
                     const wire::Stash* stash) {
    const CallId call = in.u32();
    if (std::find(calls.begin(), calls.end(), call) == calls.end()) {
        throw wire::WireError("a batch of call " + std::to_string(call) +
                              ", which this actor does not serve");
    }
    std::optional<WorkerBatch> decoded;
    try {
        decoded.emplace(in, call, plan.calls[call], send, stash);
    } catch (const InfraFailure& e) {
        // An input could not be fetched (an MPI rank's item): nothing ran; it may run again.
        wire::Writer out(wire::Kind::Done);
        out.u32(0);  // no Grains
        out.u32(0);  // no failures
        write_ending(out, wire::Ending::Infra, rop::kUnnamed, e.what());
        send(out);
        return;
    }
    WorkerBatch& batch = *decoded;
    allocation_failed.store(false, std::memory_order_relaxed);
    wire::Ending ending = wire::Ending::Ok;
    std::uint64_t index = rop::kUnnamed;
    std::string message;
    try {
        actor.process(batch);
    } catch (const RecordFailure& f) {
        ending = wire::Ending::Record;
        index = f.index();
        message = f.what();
    } catch (const GroupFailure& f) {
        ending = wire::Ending::Group;
        index = f.index();
        message = f.what();
    } catch (const InfraFailure& e) {
        ending = wire::Ending::Infra;
        message = e.what();
    } catch (const ContractError& e) {
        ending = wire::Ending::Contract;
        message = e.what();
    } catch (const std::bad_alloc& e) {
        ending = wire::Ending::Opaque;
        message = bad_alloc_reason(e, memory);
    } catch (const std::exception& e) {
        ending = wire::Ending::Opaque;
        message = e.what();
    } catch (...) {
        ending = wire::Ending::Opaque;
        message = "unknown exception";
    }
    send(batch.done(ending, index, message));
}

int serve_process_worker(const Plan& plan, std::string_view text, std::ostream& err) {
    const std::optional<WorkerSpec> spec = parse_spec(text);
    std::vector<CallId> calls;
    try {
        if (spec) calls = wire::target_calls(plan, spec->call);
    } catch (const wire::WireError&) {
    }
    if (!spec || calls.empty() || spec->fd < 0) {
        err << "rop worker: bad " << kWorkerFlag << " '" << text << "'\n";
        return 2;
    }
    // The driver owns the worker: it dies with the driver, and Ctrl-C (sent to the whole
    // process group) is the driver's to handle (its grace period lets this batch finish).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() == 1) return 1;
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_IGN);
    ::signal(SIGPIPE, SIG_IGN);
    if (spec->memory > 0) {
        const rlimit limit{spec->memory, spec->memory};
        ::setrlimit(RLIMIT_AS, &limit);
    }
    std::set_new_handler(note_failed_allocation);
    boost::asio::io_context io;
    wire::Socket socket(io);
    try {
        socket.assign(boost::asio::local::stream_protocol(), spec->fd);
    } catch (const boost::system::system_error& e) {
        err << "rop worker: fd " << spec->fd << ": " << e.what() << "\n";
        return 2;
    }
    const std::string name = wire::target_name(plan, spec->call);
    try {
        std::unique_ptr<Actor> actor;
        std::string setup_error;
        try {
            actor = wire::make_target_actor(plan, spec->call);
            if (!actor) setup_error = "the factory returned no actor";
        } catch (const std::exception& e) {
            setup_error = e.what();
        } catch (...) {
            setup_error = "unknown exception";
        }
        if (!setup_error.empty()) {
            wire::Writer out(wire::Kind::Setup);
            out.str(setup_error);
            wire::send(socket, out);
            return 1;
        }
        wire::send(socket, wire::Writer(wire::Kind::Ready));
        const wire::Send send = [&socket](const wire::Writer& frame) { wire::send(socket, frame); };
        for (;;) {
            std::string frame;
            try {
                frame = wire::receive(socket);
            } catch (const boost::system::system_error&) {
                return 0;  // the driver closed the socket: done
            }
            if (static_cast<wire::Kind>(frame[0]) != wire::Kind::Batch) {
                err << "rop worker: unexpected frame\n";
                return 2;
            }
            wire::Reader in(std::string_view(frame).substr(1));
            wire::run_batch(*actor, in, plan, calls, send, spec->memory);
        }
    } catch (const std::exception& e) {  // the socket broke mid-batch, or a malformed frame
        err << "rop worker (" << name << "): " << e.what() << "\n";
        return 1;
    }
}

}  // namespace rop::runtime::detail
