// What a Call's code sees: a Batch of Grains (possibly from many parents) and the typed failures
// it may raise. Generated adapters (ropc build) and tests implement Actor against this interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "rop/runtime/ids.h"
#include "rop/runtime/value.h"
#include "rop/udf.h"

namespace rop::runtime {

// Typed failures (SEMANTICS.md "Failures are typed"): the ones a UDF throws (rop/udf.h holds
// their one definition). Thrown from Actor::process they apply to the Grain `index()` of the
// batch; Batch::fail_record/fail_group report them without throwing. Any other exception is an
// opaque UDF error, handled by the Call's recovery policy.
using rop::GroupFailure;
using rop::RecordFailure;

// An infra failure raised deliberately (lost device, OOM on the accelerator): replayed on a fresh
// actor with generation+1 while `infra_retries` lasts.
class InfraFailure : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Where a Grain's entity sits in the lineage: fixed at creation, schedule-independent.
struct GrainInfo {
    EntityId entity;
    EntityId parent;        // kNoEntity for roots
    std::uint32_t ordinal;  // zero-based among its parent's children (root: source order)
};

// A member that a reduce with `on_failure skip` left out because it FAILED or was SUPPRESSED:
// its ordinal under the parent and the reason recorded for it (or below it), else "suppressed".
// The type a reduce UDF's rop::Skipped lists (rop/udf.h).
using rop::SkippedChild;

// The members of one reduce group, in ordinal order (DROPPED children left out; with
// `on_failure skip`, FAILED and SUPPRESSED ones too, listed in `skipped` in ordinal order).
struct ReduceGroup {
    std::vector<Value> values;
    std::vector<std::uint32_t> ordinals;
    std::vector<SkippedChild> skipped;
};

// One physical batch. Results are written per Grain; a Grain left without a result when
// process() returns is a contract error (fail fast, clear message).
class Batch {
  public:
    virtual ~Batch() = default;

    virtual std::size_t size() const = 0;
    virtual GrainInfo info(std::size_t grain) const = 0;
    // Input `input` of Grain `grain`; an empty Value for a missing optional input.
    // For a reduce Call the single input holds a ReduceGroup.
    virtual const Value& input(std::size_t grain, std::size_t input) const = 0;
    // For a reduce Grain: the parent entity's value on the paired expand's FIRST input port
    // (the value the children were expanded from), kept alive until the reduce has run. An
    // empty Value for any other Call, or when the reduce has no UDF. Feeds rop::Parent<P>.
    virtual const Value& parent(std::size_t grain) const;

    // map / reduce: one Value per output port (multi-output Calls publish all or nothing).
    virtual void set_output(std::size_t grain, std::size_t output, Value value) = 0;
    // filter: true keeps the item (its value passes unchanged), false drops it.
    virtual void set_keep(std::size_t grain, bool keep) = 0;
    // expand: emit the next child (streaming: the driver may schedule it before process()
    // returns); then finish_children(grain) seals the count (implicit when process() returns).
    virtual void emit_child(std::size_t grain, Value child) = 0;
    virtual void finish_children(std::size_t grain) = 0;

    virtual void fail_record(std::size_t grain, std::string reason) = 0;
    virtual void fail_group(std::size_t grain, std::string reason) = 0;

    // False once the driver no longer wants the Grain's result (a sibling's GroupFailure barred
    // it, or the expansion it came from failed: it will be SUPPRESSED whatever it returns). An
    // actor may skip such a Grain and leave it without a result. Always true where the driver
    // cannot say (a process-isolated or remote actor).
    virtual bool wanted(std::size_t grain) const {
        (void)grain;
        return true;
    }
    // The Call whose Grains these are (every Grain of a batch is of one Call): what a shared
    // pool's actor dispatches on (PoolSpec). kNoCall where the batch does not say.
    virtual CallId call() const { return kNoCall; }
};

// A persistent worker of one Call. Constructed once per actor (its setup: load a model, open an
// OCR engine) and then fed batches one at a time from one thread.
class Actor {
  public:
    virtual ~Actor() = default;
    virtual void process(Batch& batch) = 0;
    // Called from another thread when the batch being processed is abandoned (a timeout) or the
    // run ends without waiting for it: an actor that can stop its work (a process-isolated one
    // kills its worker) does so, and process() then returns or throws soon. Default: nothing.
    virtual void cancel() noexcept {}
    // True when process() may be called again on this actor while a call is under way on the
    // same thread: a streaming expand's actor then lends itself, from inside emit_child, to
    // another root's queued batch instead of holding every other root back until its own
    // expansion ends (docs/runtime.md, priority rule 6). Default: false (one batch at a time).
    virtual bool reentrant() const { return false; }
};

using ActorFactory = std::function<std::unique_ptr<Actor>()>;

}  // namespace rop::runtime
