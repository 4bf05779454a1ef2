// Integer identities shared by the plan, the lineage store and the executors.
// Ids are dense indexes into flat tables; none is ever reused within a run.
#pragma once

#include <cstdint>
#include <limits>

namespace rop::runtime {

using DomainId = std::uint16_t;  // a level: Doc, Page, Region
using PortId = std::uint32_t;    // one named stream (a stage output)
using CallId = std::uint32_t;    // one stage invocation site
using EntityId = std::uint32_t;  // one document, one page ... (dense per run)

inline constexpr DomainId kNoDomain = std::numeric_limits<DomainId>::max();
inline constexpr EntityId kNoEntity = std::numeric_limits<EntityId>::max();
inline constexpr CallId kNoCall = std::numeric_limits<CallId>::max();

// Terminal outcome of an Item (Port x Entity). Set exactly once.
enum class Outcome : std::uint8_t { Unresolved, Present, Dropped, Failed, Suppressed };

const char* to_string(Outcome outcome);

}  // namespace rop::runtime
