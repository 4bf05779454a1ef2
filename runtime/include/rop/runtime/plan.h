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

// The Call kinds are the compiler's too, one enumeration from the vocabulary
// (rop/vocab/call_kind.h). A Plan holds no source or sink Call (PlanBuilder refuses them).
using vocab::CallKind;
const char* to_string(CallKind kind);  // "map", "filter", "expand", "broadcast", "reduce"
enum class InputMode : std::uint8_t { Required, Optional };
// The option enumerations and their spellings are the compiler's too (rop/vocab/call_options.h).
// OnFailure: what a reduce does with members that FAILED or were SUPPRESSED: suppress its group
// (the default), or skip them like DROPPED ones and fold the rest (fail-open; docs/runtime.md).
using vocab::Batching;
using vocab::Isolation;
using vocab::OnFailure;
using vocab::Recovery;

// Defaults come from the option table, so a hand-built plan runs like a compiled one. The
// field order is what generated code's designated initializers follow (compiler/codegen).
struct CallOptions {
    std::uint32_t batch = vocab::default_of<std::uint32_t>("batch");
    std::uint32_t actors = vocab::default_of<std::uint32_t>("actors");
    double gpus = vocab::default_of<double>("gpus");
    Batching batching = vocab::default_of<Batching>("batching");
    Recovery recovery = vocab::default_of<Recovery>("recovery");  // SEMANTICS.md: isolates
    // Opaque-error retries for retry_* / isolate_tail.
    std::uint32_t retries = vocab::default_of<std::uint32_t>("retries");
    // Replays after an infra failure (crash, timeout).
    std::uint32_t infra_retries = vocab::default_of<std::uint32_t>("infra_retries");
    std::chrono::milliseconds timeout{vocab::default_of<std::int64_t>("timeout")};  // 0: none
    Isolation isolation = vocab::default_of<Isolation>("isolation");
    OnFailure on_failure = vocab::default_of<OnFailure>("on_failure");  // reduce only
    // isolation process: each worker's address-space limit in MiB (setrlimit RLIMIT_AS; 0: none).
    std::uint32_t memory_mb = vocab::default_of<std::uint32_t>("memory_mb");
};

// An option's value in `options` as the table counts it: the number (Int, Number, Gpus), the
// milliseconds (Duration; 0: none) or the enumerator's index (Enum); nullopt for a name the
// struct has no field for. `--set` and `--help` go through these two, and a test holds them
// equal to the table's defaults and to the compiler's CallOptions for every option.
std::optional<double> option_value(const CallOptions& options, std::string_view name);
// Stores a value already checked against the table (kind, range); false for an unknown name.
bool set_option_value(CallOptions& options, std::string_view name, double value);

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

struct CallSpec {
    std::string name;  // for reports, traces and messages: "ocr" or "ocr@mineru.rop:5"
    CallKind kind;
    DomainId domain;  // where its Grains live: map/filter/expand: the inputs' Domain;
                      // broadcast: the target Domain; reduce: the parent Domain
    std::vector<CallInput> inputs;
    std::vector<PortId> outputs;  // expand: one port in the child Domain
    CallOptions options;
    ActorFactory factory;  // empty for broadcast and for a reduce without a UDF
};

struct Plan {
    std::vector<DomainSpec> domains;  // domains[0] is the root Domain
    std::vector<PortSpec> ports;
    std::vector<CallSpec> calls;  // in a topological order
    PortId source_port = 0;       // root entities' values are published here
};

// Builds and validates a Plan (throws ContractError with a clear message on a malformed one:
// unknown ids, cycles, inputs in different Domains, reduce not to the direct parent ...).
class PlanBuilder {
  public:
    DomainId add_domain(std::string name, DomainId parent = kNoDomain);
    PortId add_port(std::string name, DomainId domain);
    PortId source(std::string name);  // the root Domain's source port (call once)
    CallId add_call(CallSpec spec);
    Plan build();

  private:
    Plan plan_;
    bool source_set_ = false;
};

}  // namespace rop::runtime
