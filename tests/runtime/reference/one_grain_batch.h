// The reference interpreter's Batch: exactly one Grain, with strict checks of what a UDF may do
// for each Call kind (a wrong call is a contract error, as in the runtime).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/udf.h"

namespace rop::runtime::reference {

// What one Grain produced, before a barrier decides whether it commits.
struct GrainResult {
    enum class Kind { NotRun, Ok, RecordFailed, GroupFailed, Aborted };
    Kind kind = Kind::Ok;
    Outcome not_run = Outcome::Unresolved;  // NotRun: the outcome its inputs imposed
    std::vector<Value> outputs;             // map / reduce: one per output port
    bool keep = false;                      // filter
    std::vector<Value> children;            // expand
    std::string reason;                     // failures
};

class OneGrainBatch final : public Batch {
  public:
    OneGrainBatch(const CallSpec& call, GrainInfo info, std::vector<Value> inputs)
        : call_(call), info_(info), inputs_(std::move(inputs)), outputs_(call.outputs.size()) {}

    std::size_t size() const override { return 1; }
    GrainInfo info(std::size_t grain) const override {
        check(grain);
        return info_;
    }
    const Value& input(std::size_t grain, std::size_t input) const override {
        check(grain);
        if (input >= inputs_.size()) fail("input index out of range");
        return inputs_[input];
    }
    void set_output(std::size_t grain, std::size_t output, Value value) override {
        check(grain);
        expect(call_.kind == CallKind::Map || call_.kind == CallKind::Reduce, "set_output");
        if (output >= outputs_.size()) fail("output index out of range");
        outputs_[output] = std::move(value);
    }
    void set_keep(std::size_t grain, bool keep) override {
        check(grain);
        expect(call_.kind == CallKind::Filter, "set_keep");
        keep_ = keep;
    }
    void emit_child(std::size_t grain, Value child) override {
        check(grain);
        expect(call_.kind == CallKind::Expand, "emit_child");
        if (finished_) fail("emit_child after finish_children");
        children_.push_back(std::move(child));
    }
    void finish_children(std::size_t grain) override {
        check(grain);
        expect(call_.kind == CallKind::Expand, "finish_children");
        finished_ = true;
    }
    void fail_record(std::size_t grain, std::string reason) override {
        check(grain);
        failure_ = GrainResult::Kind::RecordFailed;
        reason_ = std::move(reason);
    }
    void fail_group(std::size_t grain, std::string reason) override {
        check(grain);
        failure_ = GrainResult::Kind::GroupFailed;
        reason_ = std::move(reason);
    }

    // The Grain's result once process() returned normally.
    GrainResult result() {
        GrainResult r;
        if (failure_) {
            r.kind = *failure_;
            r.reason = reason_;
            return r;
        }
        if (call_.kind == CallKind::Filter && !keep_) fail("filter left without set_keep");
        if (call_.kind == CallKind::Map || call_.kind == CallKind::Reduce)
            for (const Value& v : outputs_)
                if (!v.has_value()) fail("Grain left without a result for an output");
        r.outputs = std::move(outputs_);
        r.keep = keep_.value_or(false);
        r.children = std::move(children_);
        return r;
    }

  private:
    void check(std::size_t grain) const {
        if (grain != 0) fail("grain index out of range");
    }
    void expect(bool ok, const char* what) const {
        if (!ok) fail(std::string(what) + " is not allowed for this Call kind");
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw ContractError("reference: Call '" + call_.name + "': " + what);
    }

    const CallSpec& call_;
    GrainInfo info_;
    std::vector<Value> inputs_;
    std::vector<Value> outputs_;
    std::optional<bool> keep_;
    std::vector<Value> children_;
    bool finished_ = false;
    std::optional<GrainResult::Kind> failure_;
    std::string reason_;
};

}  // namespace rop::runtime::reference
