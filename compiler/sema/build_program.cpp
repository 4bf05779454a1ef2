#include "sema/build_program.h"

namespace rop::sema {

namespace {

CallKind call_kind(const ast::Statement& statement) {
    if (std::holds_alternative<ast::Source>(statement)) return CallKind::Source;
    if (std::holds_alternative<ast::Sink>(statement)) return CallKind::Sink;
    return std::get<ast::Stage>(statement).kind;  // the same enumeration
}

OpRef lower_op(const ast::OpRef& op) { return {op.name.str(), op.args, op.range, op.name.range}; }

class Lowering {
  public:
    Lowering(const ast::Program& program, const Resolution& resolution,
             const DomainInference& inference)
        : program_(program), resolution_(resolution), inference_(inference) {}

    CheckedProgram run() {
        out_.file = program_.file;
        if (program_.header) out_.pipeline_name = program_.header->name.name;
        call_of_.assign(program_.statements.size(), 0);
        CallId next = 0;
        for (std::uint32_t s = 0; s < program_.statements.size(); ++s) {
            if (const auto* use = std::get_if<ast::Use>(&program_.statements[s])) {
                out_.uses.push_back(use->path);
                out_.use_ranges.push_back(use->range);
                continue;
            }
            if (!is_call(s)) continue;
            call_of_[s] = next++;
        }
        lower_domains();
        lower_ports();
        lower_pools();
        for (std::uint32_t s = 0; s < program_.statements.size(); ++s) {
            if (is_call(s)) lower_call(s);
        }
        pair_expands_with_reduces();
        return std::move(out_);
    }

  private:
    bool is_call(std::uint32_t s) const {
        return !std::holds_alternative<ast::Use>(program_.statements[s]) &&
               !std::holds_alternative<ast::Pool>(program_.statements[s]);
    }

    // The pools in source order: PoolId p is resolution_.pools[p] (duplicates were errors).
    void lower_pools() {
        for (PoolId p = 0; p < resolution_.pools.size(); ++p) {
            const auto& node =
                std::get<ast::Pool>(program_.statements[resolution_.pools[p].statement]);
            Pool pool;
            pool.id = p;
            pool.name = node.name.name;
            pool.op = lower_op(node.op);
            for (const ast::Option& option : node.options) apply_option(option, pool.options);
            pool.written = node.options;
            pool.range = node.range;
            pool.name_range = node.name.range;
            out_.pools.push_back(std::move(pool));
        }
    }

    // A pooled Call runs with its pool's placement options (the runtime copies them too).
    void take_pool_options(Call& call) const {
        const CallOptions& from = out_.pools[*call.pool].options;
        for (const OptionSpec& spec : option_specs()) {
            if (is_pool_option(spec.name)) {
                set_option_value(call.options, spec, option_value(from, spec));
            }
        }
    }

    void lower_domains() {
        for (std::uint32_t d = 0; d < resolution_.domains.size(); ++d) {
            const DomainDecl& decl = resolution_.domains[d];
            Domain domain{std::string(decl.name),   std::nullopt, inference_.domains[d].depth,
                          call_of_[decl.statement], {},           decl.range};
            if (inference_.domains[d].parent != kUnresolved) {
                domain.parent = inference_.domains[d].parent;
            }
            out_.domains.push_back(std::move(domain));
        }
        for (DomainId d = 0; d < out_.domains.size(); ++d) {
            if (out_.domains[d].parent) out_.domains[*out_.domains[d].parent].children.push_back(d);
        }
    }

    void lower_ports() {
        for (std::uint32_t p = 0; p < resolution_.streams.size(); ++p) {
            const StreamDef& def = resolution_.streams[p];
            out_.ports.push_back({std::string(def.name), inference_.streams[p],
                                  call_of_[def.statement], def.output, def.range});
        }
    }

    void lower_call(std::uint32_t s) {
        const ast::Statement& statement = program_.statements[s];
        Call call;
        call.id = call_of_[s];
        call.kind = call_kind(statement);
        call.range = std::visit([](const auto& node) { return node.range; }, statement);
        if (const auto* inputs = statement_inputs(statement)) {
            for (std::size_t i = 0; i < inputs->size(); ++i) {
                call.inputs.push_back(
                    {resolution_.inputs[s][i], (*inputs)[i].optional, (*inputs)[i].range});
            }
        }
        for (const ast::Ident* output : statement_outputs(statement)) {
            call.outputs.push_back(resolution_.stream_by_name.at(output->name));
        }
        const std::vector<ast::Option>* options = nullptr;
        if (const auto* source = std::get_if<ast::Source>(&statement)) {
            call.op = lower_op(source->op);
            options = &source->options;
            out_.source = call.id;
        } else if (const auto* sink = std::get_if<ast::Sink>(&statement)) {
            call.op = lower_op(sink->op);
            options = &sink->options;
            out_.sinks.push_back(call.id);
        } else {
            const auto& stage = std::get<ast::Stage>(statement);
            if (stage.op) call.op = lower_op(*stage.op);
            options = &stage.options;
            if (resolution_.pool_of[s] != kUnresolved) {
                call.pool = resolution_.pool_of[s];
                call.method = stage.op->name.parts.back().name;
                out_.pools[*call.pool].calls.push_back(call.id);
            }
        }
        for (const ast::Option& option : *options) apply_option(option, call.options);
        if (call.pool) take_pool_options(call);
        call.written = *options;
        call.domain = grain_domain(call);
        out_.calls.push_back(std::move(call));
    }

    // Where a Call's Grains live: an expand runs per parent, a reduce per parent, every other
    // Call in the Domain of what it produces or (a sink) consumes.
    DomainId grain_domain(const Call& call) const {
        if (call.kind == CallKind::Expand || call.kind == CallKind::Sink) {
            return out_.ports[call.inputs.front().port].domain;
        }
        return out_.ports[call.outputs.front()].domain;
    }

    void pair_expands_with_reduces() {
        std::vector<std::size_t> pair_of_domain(out_.domains.size(), SIZE_MAX);
        for (const Call& call : out_.calls) {
            if (call.kind != CallKind::Expand) continue;
            const DomainId child = out_.ports[call.outputs.front()].domain;
            pair_of_domain[child] = out_.expand_reduce.size();
            out_.expand_reduce.push_back({child, call.id, {}});
        }
        for (const Call& call : out_.calls) {
            if (call.kind != CallKind::Reduce) continue;
            const DomainId child = out_.ports[call.inputs.front().port].domain;
            out_.expand_reduce[pair_of_domain[child]].reduces.push_back(call.id);
        }
    }

    const ast::Program& program_;
    const Resolution& resolution_;
    const DomainInference& inference_;
    std::vector<CallId> call_of_;
    CheckedProgram out_;
};

}  // namespace

CheckedProgram build_program(const ast::Program& program, const Resolution& resolution,
                             const DomainInference& inference) {
    return Lowering(program, resolution, inference).run();
}

const char* to_string(CallKind kind) { return vocab::word(kind).data(); }

}  // namespace rop::sema
