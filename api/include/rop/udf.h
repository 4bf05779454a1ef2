// rop/udf.h: the vocabulary a UDF header includes to talk to rop — streaming emitters, typed
// failures (thrown, or returned per item as rop::ItemResult; a permanent one no retry can fix),
// reduce ordinals, skipped children, the reduce parent, counters and the expected-children hint.
// docs/udfs.md gives the signature conventions.
//
// The one definition of the types a UDF and the runtime both see: rop::RecordFailure,
// rop::GroupFailure, rop::SkippedChild and rop::RootKey are also rop::runtime's (its udf.h and
// run.h re-export them), so a failure thrown by a UDF is the failure the runtime catches.
//
// Slim on purpose: ropc parses this header (and the user's) for every pipeline it checks, so it
// includes standard headers only and declares no functions with bodies worth compiling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace rop {

// An expand UDF that streams its children takes `rop::Emitter<Child>&` right after its inputs
// and calls emit() once per child, in order. The runtime may schedule a child before the UDF
// returns, so emit early when children are expensive. Generated code binds it to the runtime's
// Batch::emit_child; tests can use CollectingEmitter below.
template <class T>
class Emitter {
  public:
    using value_type = T;

    virtual ~Emitter() = default;
    virtual void emit(T child) = 0;

  protected:
    Emitter() = default;
    Emitter(const Emitter&) = default;
    Emitter& operator=(const Emitter&) = default;
};

// An Emitter that keeps what it is given, for unit-testing a streaming expand UDF.
template <class T>
class CollectingEmitter final : public Emitter<T> {
  public:
    void emit(T child) override { children.push_back(std::move(child)); }

    std::vector<T> children;
};

// Typed failures. Throw RecordFailure from a UDF to fail one item: its lineage records
// failed(reason); its siblings and every other parent go on. Not retried: the input itself is
// bad. `index` names the item of a batch it is about (a hand-written runtime Actor); left out
// (kUnnamed), the runtime finds the item itself: thrown from a batch UDF, the batch is replayed
// in halves until the throwing item is alone, and only that item fails (SEMANTICS.md: no root
// that did nothing wrong fails). From an element UDF the item is the one being run. A batch UDF
// that knows its bad items returns rop::ItemResult results instead (below): no replay.
inline constexpr std::size_t kUnnamed = static_cast<std::size_t>(-1);

class RecordFailure : public std::runtime_error {
  public:
    explicit RecordFailure(const std::string& reason, std::size_t index = kUnnamed)
        : std::runtime_error(reason), index_(index) {}
    const char* reason() const noexcept { return what(); }
    std::size_t index() const noexcept { return index_; }

  private:
    std::size_t index_;
};

// Throw PermanentFailure for a failure that no retry can fix, though the item itself may be
// fine: a server certificate that does not verify, a proxy that refuses the tunnel, a request the
// server rejects. It is a RecordFailure (whatever catches one catches it): the item fails with
// `reason` and is not run again, whatever the Call's `retries` and `recovery`, which are for
// errors that may pass. From an element UDF the item is the one being run. From a batch UDF,
// `index` names the item of its span whose attempt failed: that item fails, and the batch's
// other items run again in a later batch, none of them failed for it. Left out (kUnnamed), the
// runtime isolates without retries: halves of the batch run again until the failure is thrown
// for one item alone, which fails then, on that first failure alone; an item that only shared a
// batch with it never fails (docs/udfs.md, "Failures no retry can fix").
class PermanentFailure : public RecordFailure {
  public:
    explicit PermanentFailure(const std::string& reason, std::size_t index = kUnnamed)
        : RecordFailure(reason, index) {}
};

// Throw from a UDF to fail the item's whole group: the siblings under the same direct parent are
// suppressed (queued ones dropped, in-flight ones cannot commit) and the parent's result is
// failed(reason). Unrelated parents go on. `index` as for RecordFailure.
class GroupFailure : public std::runtime_error {
  public:
    explicit GroupFailure(const std::string& reason, std::size_t index = kUnnamed)
        : std::runtime_error(reason), index_(index) {}
    const char* reason() const noexcept { return what(); }
    std::size_t index() const noexcept { return index_; }

  private:
    std::size_t index_;
};

// One item's failure, as a UDF returns it instead of throwing: fail_item(reason) fails that item
// (as RecordFailure does), fail_group(reason) its whole group (as GroupFailure does).
struct ItemFailure {
    std::string reason;
    bool group = false;
};
inline ItemFailure fail_item(std::string reason) { return {std::move(reason), false}; }
inline ItemFailure fail_group(std::string reason) { return {std::move(reason), true}; }

// One item's result from a UDF that fails items without throwing: a value, or that item's
// failure. A batch map returns `std::vector<rop::ItemResult<Out>>` (a batch filter
// `std::vector<rop::ItemResult<bool>>`: true keeps, false drops), one per item in order; each
// failed item fails alone, the rest of the batch publishes, and nothing is replayed. An element
// map or filter may return `rop::ItemResult<Out>` too. The stream's item type is `Out`.
template <class T>
class ItemResult {
  public:
    using value_type = T;

    ItemResult(T value)
        : value_(std::move(value)) {}  // NOLINT: implicit, `return value;` reads well
    ItemResult(ItemFailure failure) : failure_(std::move(failure)) {}  // NOLINT: as above

    // No operator bool: for an ItemResult<bool> it would read as the verdict.
    bool ok() const { return value_.has_value(); }
    // The value; only when ok().
    T& operator*() { return *value_; }
    const T& operator*() const { return *value_; }
    T* operator->() { return &*value_; }
    const T* operator->() const { return &*value_; }
    // The failure; only when !ok().
    const ItemFailure& failure() const { return failure_; }

  private:
    std::optional<T> value_;
    ItemFailure failure_;
};

// A reduce UDF that wants to know where each child sat under its parent takes `rop::Ordinals`
// right after its span of children: ordinals[i] is the zero-based ordinal of children[i] as the
// expand emitted it. Children that were dropped (filtered out, failed) leave gaps.
using Ordinals = std::span<const std::uint32_t>;

// A reduce with `on_failure skip` leaves out children that FAILED (or were suppressed by a
// failure) and folds the rest. A reduce UDF that wants to know which takes `rop::Skipped` after
// its span of children (and after rop::Ordinals, before rop::Parent, when it takes those): one
// entry per left-out child, in ordinal order, with the reason recorded for it ("suppressed" when
// none was). Empty under the default `on_failure suppress`, which never runs a partial group.
struct SkippedChild {
    std::uint32_t ordinal = 0;
    std::string reason;
};
using Skipped = std::span<const SkippedChild>;

// A reduce UDF that needs its parent's item (the Doc a span of Pages folds into) takes
// `const rop::Parent<Doc>&` after its children (and after rop::Ordinals when it takes those).
template <class T>
class Parent {
  public:
    explicit Parent(const T& value) : value_(&value) {}

    const T& get() const { return *value_; }
    const T& operator*() const { return *value_; }
    const T* operator->() const { return value_; }

  private:
    const T* value_;
};

// How an item type crosses a process boundary (an `isolation process` Call): specialize
// rop::Codec<T> with static encode/decode, here in the UDF header, for a type ropc cannot derive
// one for (docs/udfs.md, "Types that cross a process boundary"). <rop/codec.h> has the builtin
// codecs to build on; this declaration is that same template.
template <class T>
struct Codec;

// A UDF's own counters (an HTTP client's retries): rop::count("http_retries") adds to the counter
// of that name of the Call whose batch runs on the calling thread; the run report sums them per
// Call (CallCounters::udf_counters, "udf_counters" in --report). Outside a batch (a unit test)
// and in an `isolation process` worker it counts nothing. The runtime installs the sink.
class CounterSink {
  public:
    virtual void add(std::string_view name, std::uint64_t n) = 0;

  protected:
    ~CounterSink() = default;
};
inline CounterSink*& current_counter_sink() noexcept {
    thread_local CounterSink* sink = nullptr;
    return sink;
}
inline void count(std::string_view name, std::uint64_t n = 1) {
    if (CounterSink* sink = current_counter_sink()) sink->add(name, n);
}

// An expand that knows how many children it will emit before it emits them (a PDF's page count)
// says so: rop::expected_children(427). The progress display then estimates the root's work
// from that count instead of from the children seen so far, so one long document does not make
// the ETA look nearly done (docs/runtime.md "Progress"). Only a hint: emitting more or fewer
// children is not an error. It applies to the Grain the UDF is running (a hand-written Actor:
// the first Grain of the batch without a result); outside an expand batch (a unit test) and in
// an `isolation process` worker it does nothing. The runtime installs the sink.
class ExpectedChildrenSink {
  public:
    virtual void expect(std::uint64_t children) = 0;

  protected:
    ~ExpectedChildrenSink() = default;
};
inline ExpectedChildrenSink*& current_expected_children_sink() noexcept {
    thread_local ExpectedChildrenSink* sink = nullptr;
    return sink;
}
inline void expected_children(std::uint64_t children) {
    if (ExpectedChildrenSink* sink = current_expected_children_sink()) sink->expect(children);
}

// Whether item `i` of the batch a batch UDF is running is still wanted: false once a sibling's
// GroupFailure barred it or the expansion it came from failed, so that its result will be
// discarded whatever it is (docs/runtime.md "Suppression reaches work in flight"). A batch UDF
// whose cost is per item may skip such an item; the value it returns for it is ignored. True
// outside a batch (a unit test), in an `isolation process` worker and on an MPI rank.
class WantedSource {
  public:
    virtual bool wanted(std::size_t item) const = 0;

  protected:
    ~WantedSource() = default;
};
inline const WantedSource*& current_wanted_source() noexcept {
    thread_local const WantedSource* source = nullptr;
    return source;
}
inline bool wanted(std::size_t item) {
    const WantedSource* source = current_wanted_source();
    return !source || source->wanted(item);
}

// Fails item `i`'s group now, from inside a batch UDF, as the returned rop::fail_group(reason)
// would when the batch ends: the runtime raises the barrier at once (docs/runtime.md, "A
// GroupFailure is streamed"), so the item's siblings still to come in this batch turn unwanted
// (rop::wanted) and those queued are not run. Return rop::fail_group(reason) for the item too
// (the first reason stays; a value returned for it is ignored). An `item` outside the batch
// is a contract error that stops the run. Outside a batch, in an `isolation process` worker
// and on an MPI rank it does nothing: the returned failure is what counts there.
class GroupFailureSink {
  public:
    virtual void fail_group(std::size_t item, std::string reason) = 0;

  protected:
    ~GroupFailureSink() = default;
};
inline GroupFailureSink*& current_group_failure_sink() noexcept {
    thread_local GroupFailureSink* sink = nullptr;
    return sink;
}
inline void fail_group_now(std::size_t item, std::string reason) {
    if (GroupFailureSink* sink = current_group_failure_sink()) {
        sink->fail_group(item, std::move(reason));
    }
}

// Which root a sink is writing: its zero-based position in the source and its display name
// (the file path or URI the source gave it). A sink that writes one file per root names the
// file after `name`; ordinals are stable across a rerun of the same input.
struct RootKey {
    std::uint64_t ordinal = 0;
    std::string name;
};

}  // namespace rop
