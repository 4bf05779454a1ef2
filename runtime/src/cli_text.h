// Shared text helpers of the pipeline command line (cli_*.cpp): "did you mean" suggestions and
// how Call options are spelled, matching the `.rop` language (docs/language.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rop/runtime/plan.h"

namespace rop::runtime::cli {

// The candidate the user most likely meant (rop/vocab/suggest.h), or "" when none is close.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);
// "; did you mean 'x'?" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// 30000 -> "30s", 1500 -> "1500ms", 120000 -> "2m", 0 -> "none".
std::string format_duration(std::int64_t ms);
const char* kind_name(CallKind kind);
const char* recovery_name(Recovery recovery);
const char* batching_name(Batching batching);
// "batch 48 actors 4 recovery isolate_tail retries 3 infra_retries 2 timeout 30s ..."
std::string format_options(const CallOptions& options);

// Option ranges, as the compiler checks them (compiler/sema/call_options.cpp).
inline constexpr std::int64_t kMaxBatch = 65536;
inline constexpr std::int64_t kMaxActors = 4096;
inline constexpr std::int64_t kMaxRetries = 100;
inline constexpr std::int64_t kMaxTimeoutMs = 7LL * 24 * 3600 * 1000;  // one week

}  // namespace rop::runtime::cli
