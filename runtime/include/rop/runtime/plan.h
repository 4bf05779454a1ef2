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

struct CallSpec {
    std::string name;  // for reports, traces and messages: "ocr" or "ocr@mineru.rop:5"
    CallKind kind;
    DomainId domain;  // where its Grains live: map/filter/expand: the inputs' Domain;
                      // broadcast: the target Domain; reduce: the parent Domain
    std::vector<CallInput> inputs;
    std::vector<PortId> outputs;  // expand: one port in the child Domain
    CallOptions options;
    ActorFactory factory;  // empty for broadcast and for a reduce without a UDF
    CodeFingerprint code;  // from ropc: what the result store keys the UDF's code by
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
