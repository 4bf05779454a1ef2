// Plan: the immutable tables of a pipeline — Domains (a tree), Ports, Calls with their inputs,
// options and actor factories. Generated code and tests build one with PlanBuilder.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rop/runtime/ids.h"
#include "rop/runtime/udf.h"

namespace rop::runtime {

enum class CallKind : std::uint8_t { Map, Filter, Expand, Broadcast, Reduce };
enum class InputMode : std::uint8_t { Required, Optional };
enum class Batching : std::uint8_t { AnyParent, SingleParent };
enum class Recovery : std::uint8_t { Abort, RetryBatch, RetryTail, IsolateTail };
enum class Isolation : std::uint8_t { Thread, Process };
// What a reduce does with members that FAILED or were SUPPRESSED: suppress its group (the
// default), or skip them like DROPPED ones and fold the rest (fail-open; docs/runtime.md).
enum class OnFailure : std::uint8_t { Suppress, Skip };

struct CallOptions {
    std::uint32_t batch = 1;
    std::uint32_t actors = 1;
    double gpus = 0;
    Batching batching = Batching::AnyParent;
    Recovery recovery = Recovery::IsolateTail;  // SEMANTICS.md: the default isolates
    std::uint32_t retries = 0;        // opaque-error retries for retry_* / isolate_tail
    std::uint32_t infra_retries = 2;  // replays after an infra failure (crash, timeout)
    std::chrono::milliseconds timeout{0};  // 0: none
    Isolation isolation = Isolation::Thread;
    OnFailure on_failure = OnFailure::Suppress;  // reduce only
};

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
    std::string name;             // for reports, traces and messages: "ocr" or "ocr@mineru.rop:5"
    CallKind kind;
    DomainId domain;              // where its Grains live: map/filter/expand: the inputs' Domain;
                                  // broadcast: the target Domain; reduce: the parent Domain
    std::vector<CallInput> inputs;
    std::vector<PortId> outputs;  // expand: one port in the child Domain
    CallOptions options;
    ActorFactory factory;         // empty for broadcast and for a reduce without a UDF
};

struct Plan {
    std::vector<DomainSpec> domains;  // domains[0] is the root Domain
    std::vector<PortSpec> ports;
    std::vector<CallSpec> calls;      // in a topological order
    PortId source_port = 0;           // root entities' values are published here
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
