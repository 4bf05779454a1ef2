// Shared text helpers of the pipeline command line (cli_*.cpp): "did you mean" suggestions and
// how Call options are spelled, matching the `.rop` language: names, ranges and words come from
// the option table the compiler checks against (rop/vocab/call_options.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rop/runtime/pipeline_main.h"
#include "rop/runtime/plan.h"
#include "rop/vocab/call_options.h"

namespace rop::runtime::cli {

// The candidate the user most likely meant (rop/vocab/suggest.h), or "" when none is close.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);
// "; did you mean 'x'?" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// 30000 -> "30s", 1500 -> "1500ms", 120000 -> "2m", 0 -> "none".
std::string format_duration(std::int64_t ms);

// Whether a Call of `kind` takes the option at all (on_failure: a reduce only).
bool applies_to(const vocab::CallOptionSpec& spec, CallKind kind);
// The options `--set` may change, in table order: "batch", "actors", "retries", ...
std::vector<std::string> settable_options();
// One option's value as `--set` and the language spell it: "48", "isolate_tail", "30s", "none".
std::string format_option(const CallOptions& options, const vocab::CallOptionSpec& spec);
// The run-time options of a Call of `kind`, in table order:
// "batch 48 actors 4 retries 3 infra_retries 3 recovery isolate_tail timeout 30s ..."
std::string format_options(const CallOptions& options, CallKind kind);
// Every option of the table for every Call of `plan`, one `CALL.OPTION=VALUE` line each, in
// plan and table order: the Call named as `calls` names it, the value as format_option spells
// it (so a run-time option's line is a valid --set). What a binary's hidden --rop-dump-options
// prints: the options the run would get, after --set.
std::string options_dump(const std::vector<CallDefinition>& calls, const Plan& plan);
// What `--set` accepts for an option: "1..65536", "abort|retry_batch|...", "500ms, ... or none".
std::string accepted_values(const vocab::CallOptionSpec& spec);
// --explain-cache: per Call with Grains, its hits and misses by reason, one line each:
// "  count_words: 12 from the store, 3 ran (3 new or changed input)".
std::string explain_cache(const std::vector<CallCounters>& calls);

}  // namespace rop::runtime::cli
