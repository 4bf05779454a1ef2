#include "sema/call_options.h"

namespace rop::sema {

namespace {

constexpr unsigned kCall = static_cast<unsigned>(OptionSite::Call);
constexpr unsigned kReduce = static_cast<unsigned>(OptionSite::Reduce);
constexpr unsigned kEverywhere =
    kCall | static_cast<unsigned>(OptionSite::Source) | static_cast<unsigned>(OptionSite::Sink);

constexpr double kWeekMs = 7.0 * 24 * 3600 * 1000;

}  // namespace

const char* to_string(Recovery recovery) {
    switch (recovery) {
        case Recovery::Abort:
            return "abort";
        case Recovery::RetryBatch:
            return "retry_batch";
        case Recovery::RetryTail:
            return "retry_tail";
        case Recovery::IsolateTail:
            return "isolate_tail";
    }
    return "?";
}

const char* to_string(OnFailure on_failure) {
    return on_failure == OnFailure::Suppress ? "suppress" : "skip";
}

const char* to_string(Batching batching) {
    return batching == Batching::AnyParent ? "any_parent" : "single_parent";
}

const char* to_string(Isolation isolation) {
    return isolation == Isolation::Thread ? "thread" : "process";
}

const std::vector<OptionSpec>& option_specs() {
    static const std::vector<OptionSpec> specs = {
        {"batch", OptionKind::Int, 1, 65536, {}, kCall, "most Grains in one physical batch"},
        {"actors", OptionKind::Int, 1, 4096, {}, kCall, "persistent actors running the UDF"},
        {"gpus",
         OptionKind::Gpus,
         0,
         64,
         {},
         kCall,
         "GPUs per actor: whole GPUs (1, 2, ...) or a fraction of one shared GPU (0.5)"},
        {"retries", OptionKind::Int, 0, 100, {}, kEverywhere, "replays of a failing UDF batch"},
        {"infra_retries",
         OptionKind::Int,
         0,
         100,
         {},
         kEverywhere,
         "replays after an actor crash, lost worker or timeout"},
        {"recovery",
         OptionKind::Enum,
         0,
         0,
         {"abort", "retry_batch", "retry_tail", "isolate_tail"},
         kCall,
         "what a UDF error does to its batch"},
        {"timeout",
         OptionKind::Duration,
         1,
         kWeekMs,
         {},
         kEverywhere,
         "longest one batch may run (an infra failure when exceeded)"},
        {"batching",
         OptionKind::Enum,
         0,
         0,
         {"any_parent", "single_parent"},
         kCall,
         "whether one batch may mix children of different parents"},
        {"isolation",
         OptionKind::Enum,
         0,
         0,
         {"thread", "process"},
         kCall,
         "run the UDF in threads of the executor or in separate actor processes"},
        {"on_failure",
         OptionKind::Enum,
         0,
         0,
         {"suppress", "skip"},
         kReduce,
         "what failed children do to a reduce: suppress its group, or skip them (fail-open)"},
    };
    return specs;
}

const OptionSpec* find_option_spec(std::string_view name) {
    for (const OptionSpec& spec : option_specs()) {
        if (spec.name == name) return &spec;
    }
    return nullptr;
}

bool allowed_at(const OptionSpec& spec, OptionSite site) {
    return (spec.sites & static_cast<unsigned>(site)) != 0;
}

void apply_option(const ast::Option& option, CallOptions& options) {
    const ast::Value& v = option.value;
    const std::string_view name = option.name.name;
    const double number =
        v.kind == ast::Value::Kind::Float ? v.float_value : static_cast<double>(v.int_value);
    if (name == "batch") {
        options.batch = v.int_value;
    } else if (name == "actors") {
        options.actors = v.int_value;
    } else if (name == "gpus") {
        options.gpus = number;
    } else if (name == "retries") {
        options.retries = v.int_value;
    } else if (name == "infra_retries") {
        options.infra_retries = v.int_value;
    } else if (name == "timeout") {
        options.timeout_ms = v.int_value;
    } else if (name == "recovery") {
        if (v.text == "retry_batch") options.recovery = Recovery::RetryBatch;
        if (v.text == "retry_tail") options.recovery = Recovery::RetryTail;
        if (v.text == "isolate_tail") options.recovery = Recovery::IsolateTail;
        if (v.text == "abort") options.recovery = Recovery::Abort;
    } else if (name == "batching") {
        options.batching = v.text == "single_parent" ? Batching::SingleParent : Batching::AnyParent;
    } else if (name == "isolation") {
        options.isolation = v.text == "process" ? Isolation::Process : Isolation::Thread;
    } else if (name == "on_failure") {
        options.on_failure = v.text == "skip" ? OnFailure::Skip : OnFailure::Suppress;
    }
}

}  // namespace rop::sema
