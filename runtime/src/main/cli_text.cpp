// Suggestions and option spelling for the pipeline command line.
#include "cli_text.h"

#include <cmath>

#include "rop/vocab/suggest.h"

namespace rop::runtime {

namespace cli {

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

bool applies_to(const vocab::CallOptionSpec& spec, CallKind kind) {
    return vocab::allowed_at(spec, vocab::OptionSite::Call) ||
           (kind == CallKind::Reduce && vocab::allowed_at(spec, vocab::OptionSite::Reduce));
}

std::vector<std::string> settable_options() {
    std::vector<std::string> names;
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        if (spec.run_time) names.emplace_back(spec.name);
    }
    return names;
}

// Whole numbers print without a fraction: "48", "0.5".
std::string format_number(double value) {
    if (value == std::floor(value) && std::abs(value) < 1e15) {
        return std::to_string(static_cast<std::int64_t>(value));
    }
    std::string text = std::to_string(value);
    while (text.back() == '0') text.pop_back();
    return text;
}

std::string format_option(const CallOptions& options, const vocab::CallOptionSpec& spec) {
    const double value = vocab::option_value(options, spec);
    switch (spec.kind) {
        case vocab::OptionKind::Duration: return format_duration(static_cast<std::int64_t>(value));
        case vocab::OptionKind::Enum:
            return std::string(spec.enumerators[static_cast<std::size_t>(value)]);
        case vocab::OptionKind::Int:
        case vocab::OptionKind::Number:
        case vocab::OptionKind::Gpus: break;
    }
    return format_number(value);
}

std::string format_options(const CallOptions& options, CallKind kind) {
    std::string s;
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        if (!spec.run_time || !applies_to(spec, kind)) continue;
        // A worker's memory limit means something only for a Call in worker processes.
        if (spec.name == "memory_mb" && options.isolation != Isolation::Process) continue;
        s += (s.empty() ? "" : " ") + std::string(spec.name) + " " + format_option(options, spec);
    }
    return s;
}

std::string options_dump(const std::vector<CallDefinition>& calls, const Plan& plan) {
    std::string s;
    for (std::size_t i = 0; i < plan.calls.size(); ++i) {
        const std::string& name = i < calls.size() ? calls[i].name : plan.calls[i].name;
        for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
            s += name + "." + std::string(spec.name) + "=" +
                 format_option(plan.calls[i].options, spec) + "\n";
        }
    }
    return s;
}

std::string accepted_values(const vocab::CallOptionSpec& spec) {
    switch (spec.kind) {
        case vocab::OptionKind::Duration: return "500ms, 30s, 2m, 1h or none";
        case vocab::OptionKind::Enum: {
            std::string words;
            for (std::string_view w : spec.enumerators) {
                words += (words.empty() ? "" : "|") + std::string(w);
            }
            return words;
        }
        case vocab::OptionKind::Int:
        case vocab::OptionKind::Number:
        case vocab::OptionKind::Gpus: break;
    }
    return format_number(spec.min) + ".." + format_number(spec.max);
}

std::string explain_cache(const std::vector<CallCounters>& calls) {
    std::string out = "cache, per Call: Grains from the store, Grains that ran (why)\n";
    for (const CallCounters& c : calls) {
        if (c.cache_hits + c.cache_misses == 0) continue;
        out += "  " + c.name + ": " + std::to_string(c.cache_hits) + " from the store, " +
               std::to_string(c.cache_misses) + " ran";
        std::string reasons;
        for (const auto& [reason, n] : c.cache_miss_reasons)
            reasons += (reasons.empty() ? "" : "; ") + std::to_string(n) + " " + reason;
        if (!reasons.empty()) out += " (" + reasons + ")";
        if (c.cache_corrupt) out += ", " + std::to_string(c.cache_corrupt) + " corrupt entries";
        out += "\n";
    }
    return out;
}

}  // namespace cli
}  // namespace rop::runtime
