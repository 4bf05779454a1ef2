// The UDFs of random pipelines: deterministic, batch-shape independent functions of their inputs'
// content, with failures injected as deterministic functions of that content, so the runtime
// and the reference interpreter must agree on every outcome.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "rop/runtime/plan.h"

namespace rop::runtime::reference {

// Injected faults, in per mille of Grains (picked by a hash of the Grain's inputs).
struct Faults {
    std::uint32_t record = 0;     // RecordFailure
    std::uint32_t group = 0;      // GroupFailure
    std::uint32_t poison = 0;     // opaque error on every attempt: needs isolate_tail
    std::uint32_t transient = 0;  // opaque error on the Grain's first attempt only
    std::uint32_t infra = 0;      // InfraFailure on the Grain's first attempt only
    bool throw_typed = false;     // throw Record/GroupFailure (last Grain) instead of fail_*()
    bool any_opaque() const { return poison || transient; }
};

struct UdfParams {
    CallKind kind = CallKind::Map;
    std::uint64_t salt = 0;        // distinguishes Calls
    std::uint32_t inputs = 1;      // map
    std::uint32_t outputs = 1;     // map / reduce
    std::uint32_t max_fanout = 0;  // expand
    std::uint32_t drop_pct = 0;    // filter
    Faults faults;
    // Physical options the UDF checks each batch against (0 / false: unchecked).
    std::uint32_t batch_cap = 0;
    bool single_parent = false;
};

// State shared by every actor of one run (one instance per run: reference or runtime).
class UdfEnv {
  public:
    std::uint32_t max_sleep_us = 0;  // actors sleep up to this long per batch (completion order)

    // Marks a first-attempt-only fault as spent; true if it was not spent yet.
    bool fire(std::uint64_t salt, std::uint64_t digest) {
        std::lock_guard<std::mutex> lock(mu_);
        return fired_.insert({salt, digest}).second;
    }
    // Root EntityId -> source ordinal, from the GrainInfo the runtime hands to UDFs.
    void note_root(EntityId entity, std::uint32_t ordinal) {
        std::lock_guard<std::mutex> lock(mu_);
        roots_[entity] = ordinal;
    }
    std::map<EntityId, std::uint32_t> roots() const {
        std::lock_guard<std::mutex> lock(mu_);
        return roots_;
    }
    // Batches that broke their Call's batch cap or single_parent mode.
    void violation(std::string what) {
        std::lock_guard<std::mutex> lock(mu_);
        if (violations_.size() < 10) violations_.push_back(std::move(what));
    }
    std::vector<std::string> violations() const {
        std::lock_guard<std::mutex> lock(mu_);
        return violations_;
    }

  private:
    mutable std::mutex mu_;
    std::set<std::pair<std::uint64_t, std::uint64_t>> fired_;
    std::map<EntityId, std::uint32_t> roots_;
    std::vector<std::string> violations_;
};

ActorFactory make_random_udf(const UdfParams& params, std::shared_ptr<UdfEnv> env);

// "r5 g0 p0 t30 i0" — for pipeline descriptions.
std::string describe(const Faults& faults);

}  // namespace rop::runtime::reference
