// Plan: the immutable tables of a pipeline — Domains (a tree), Ports, Calls with their inputs,
// options and actor factories. Generated code and tests build one with PlanBuilder.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rop/runtime/ids.h"
#include "rop/runtime/udf.h"
#include "rop/vocab/call_kind.h"
#include "rop/vocab/call_options.h"

namespace rop::runtime {

// The Call kinds and the options are the compiler's too, one enumeration and one struct from
// the vocabulary (rop/vocab/call_kind.h, rop/vocab/call_options.h). A Plan holds no source or
// sink Call (PlanBuilder refuses them).
using vocab::CallKind;
const char* to_string(CallKind kind);  // "map", "filter", "expand", "broadcast", "reduce"
enum class InputMode : std::uint8_t { Required, Optional };
// OnFailure: what a reduce does with members that FAILED or were SUPPRESSED: suppress its group
// (the default), or skip them like DROPPED ones and fold the rest (fail-open; docs/runtime.md).
using vocab::Batching;
using vocab::Isolation;
using vocab::OnFailure;
using vocab::Recovery;

// Every option of the table, with its default, a field each named as the option (`batch`,
// `timeout` in std::chrono::milliseconds, 0: none, ...), so a hand-built plan runs like a
// compiled one. Option by name: vocab::visit_field, vocab::option_value, vocab::set_option_value.
using vocab::CallOptions;

// "ocr@mineru.rop:5" -> "ocr": a Call's or a pool's name without where it is written (what
// --set, the store's keys and --help go by).
inline std::string bare_name(const std::string& name) { return name.substr(0, name.find('@')); }

struct DomainSpec {
    std::string name;
    DomainId parent = kNoDomain;  // kNoDomain for the root Domain
};

struct PortSpec {
    std::string name;
    DomainId domain;
};

struct CallInput {
    PortId port;
    InputMode mode = InputMode::Required;
};

// What ropc learned about a Call's code, for the result store (--cache; docs/runtime.md,
// "Re-runs"). A hand-built plan leaves it empty: its Calls are keyed without a fingerprint.
struct CodeFunction {
    std::string name;      // qualified: "wordcount::count_words"
    std::string location;  // "udfs/wordcount.hpp:12"
    std::string hash;      // hex digest of its normalized tokens
};
struct CodeFingerprint {
    std::string digest;                   // hex: the functions, the flags that change results
    std::vector<CodeFunction> functions;  // what went in: the UDF and every function it reaches
    std::string flags;                    // the result-changing compile flags that went in
    std::string fallback;       // non-empty: why the whole translation unit was hashed instead
    bool volatile_udf = false;  // the determinism lint (W0500) flagged it
};

// Shared actor pools (docs/runtime.md "Shared pools"): several Calls served by one set of actors,
// each actor holding one instance of the pool's class (set up once: a model loaded once per actor
// instead of once per actor per Call). A pooled Call keeps its own queue, batching, recovery,
// counters and timeout; a batch holds one Call's Grains; the pool's actors take the batches of its
// Calls in turn.
using PoolId = std::uint32_t;
inline constexpr PoolId kNoPool = 0xFFFFFFFFu;
// One instance of a pool's class, type-erased: made once per pool actor, shared by the views of
// the pool's Calls on that actor (and kept alive by them).
using PoolInstance = std::shared_ptr<void>;
// A pooled Call's actor on one pool actor: a view of that actor's instance (it calls the Call's
// method on it). Made once per Call per pool actor, on the actor's thread (or worker process).
using PoolView = std::function<std::unique_ptr<Actor>(const PoolInstance&)>;

struct PoolSpec {
    std::string name;  // "vlm" or "vlm@mineru.rop:12"
    // The placement options, which the pool's Calls share: actors, gpus, isolation, memory_mb (the
    // other fields are not read). PlanBuilder copies them into each pooled Call's options, which
    // must not set them otherwise (a Call's actors is its pool's).
    CallOptions options = {};
    std::function<PoolInstance()> instance = {};  // builds one instance (the class's setup)
    std::string (*identity)() = nullptr;  // the class's cache_identity(), for the store's keys
    std::string arguments = {};           // its constructor's arguments as text (store keys)
    std::vector<CallId> calls = {};       // PlanBuilder fills: the Calls that use it, in order
    // Set by place_actors (actor_placement.h), empty before: what makes one of the pool's actors
    // where it is placed (a thread's PoolActor, a worker process's proxy, a rank's slot).
    ActorFactory factory = {};
};

struct CallSpec {
    std::string name;  // for reports, traces and messages: "ocr" or "ocr@mineru.rop:5"
    CallKind kind;
    DomainId domain;  // where its Grains live: map/filter/expand: the inputs' Domain;
                      // broadcast: the target Domain; reduce: the parent Domain
    std::vector<CallInput> inputs;
    std::vector<PortId> outputs;  // expand: one port in the child Domain
    CallOptions options;
    ActorFactory factory;       // empty for broadcast and for a reduce without a UDF
    CodeFingerprint code = {};  // from ropc: what the result store keys the UDF's code by
    // The effective run-time arguments as text ("dpi=150 text=detect"; pipeline_main sets them
    // after --set) and what the operator declares about itself (a class UDF's static
    // cache_identity(): a library's version, a model's name): both go into the store's keys.
    std::string arguments = {};
    std::string (*identity)() = nullptr;
    // A pooled Call: its pool, and its view of the pool's instance (`factory` is then left empty:
    // PlanBuilder sets one that refuses to build a lone actor, since the pool's actors are used).
    PoolId pool = kNoPool;
    PoolView view = {};
};

struct Plan {
    std::vector<DomainSpec> domains;  // domains[0] is the root Domain
    std::vector<PortSpec> ports;
    std::vector<CallSpec> calls;       // in a topological order
    PortId source_port = 0;            // root entities' values are published here
    std::vector<PoolSpec> pools = {};  // shared actor pools (CallSpec::pool indexes them)
};

// The options a pool decides for its Calls (PoolSpec::options): actors, gpus, isolation,
// memory_mb (the vocabulary's one list, which ropc checks against too).
using vocab::is_pool_option;

// Builds and validates a Plan (throws ContractError with a clear message on a malformed one:
// unknown ids, cycles, inputs in different Domains, reduce not to the direct parent ...).
class PlanBuilder {
  public:
    DomainId add_domain(std::string name, DomainId parent = kNoDomain);
    PortId add_port(std::string name, DomainId domain);
    PortId source(std::string name);  // the root Domain's source port (call once)
    CallId add_call(CallSpec spec);
    PoolId add_pool(PoolSpec spec);  // before the Calls that use it
    Plan build();

  private:
    Plan plan_;
    bool source_set_ = false;
};

}  // namespace rop::runtime
