// Suggestions and option spelling for the pipeline command line.
#include "cli_text.h"

#include "rop/vocab/suggest.h"

namespace rop::runtime::cli {

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
    const auto best = vocab::closest(word, candidates);
    return best ? std::string(*best) : std::string();
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    const std::string best = closest(word, candidates);
    return best.empty() ? std::string() : "; did you mean '" + best + "'?";
}

std::string format_duration(std::int64_t ms) {
    if (ms == 0) return "none";
    if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
    if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
}

const char* kind_name(CallKind kind) {
    switch (kind) {
        case CallKind::Map:
            return "map";
        case CallKind::Filter:
            return "filter";
        case CallKind::Expand:
            return "expand";
        case CallKind::Broadcast:
            return "broadcast";
        case CallKind::Reduce:
            return "reduce";
    }
    return "?";
}

const char* recovery_name(Recovery recovery) {
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

const char* batching_name(Batching batching) {
    return batching == Batching::AnyParent ? "any_parent" : "single_parent";
}

std::string format_options(const CallOptions& o) {
    std::string s = "batch " + std::to_string(o.batch) + " actors " + std::to_string(o.actors) +
                    " recovery " + recovery_name(o.recovery) + " retries " +
                    std::to_string(o.retries) + " infra_retries " +
                    std::to_string(o.infra_retries) + " timeout " +
                    format_duration(o.timeout.count()) + " batching " + batching_name(o.batching);
    return s;
}

}  // namespace rop::runtime::cli
