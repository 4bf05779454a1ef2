#include "sema/plan_json.h"

#include <nlohmann/json.hpp>

namespace rop::sema {

namespace {

using nlohmann::json;

json value_json(const ast::Value& value) {
    switch (value.kind) {
        case ast::Value::Kind::String:
        case ast::Value::Kind::Ident: return value.text;
        case ast::Value::Kind::Int: return value.int_value;
        case ast::Value::Kind::Float: return value.float_value;
        case ast::Value::Kind::Bool: return value.bool_value;
        case ast::Value::Kind::Duration: return json{{"duration_ms", value.int_value}};
        case ast::Value::Kind::List: {
            json items = json::array();
            for (const ast::Value& item : value.items) items.push_back(value_json(item));
            return items;
        }
    }
    return nullptr;
}

json location_json(const SourceManager& sources, SourceRange range) {
    const LineCol at = sources.line_col(range.file, range.begin);
    return {{"line", at.line}, {"column", at.column}};
}

// One key per option of the table (rop/vocab/call_options.h); a duration is keyed NAME_ms and
// is null when not set.
json options_json(const CallOptions& options) {
    json out = json::object();
    for (const OptionSpec& spec : option_specs()) {
        const double value = option_value(options, spec);
        switch (spec.kind) {
            case OptionKind::Int:
                out[std::string(spec.name)] = static_cast<std::int64_t>(value);
                break;
            case OptionKind::Number:
            case OptionKind::Gpus: out[std::string(spec.name)] = value; break;
            case OptionKind::Duration:
                out[std::string(spec.name) + "_ms"] =
                    value > 0 ? json(static_cast<std::int64_t>(value)) : json(nullptr);
                break;
            case OptionKind::Enum:
                out[std::string(spec.name)] =
                    std::string(spec.enumerators[static_cast<std::size_t>(value)]);
                break;
        }
    }
    return out;
}

json op_json(const std::optional<OpRef>& op) {
    if (!op) return nullptr;
    json args = json::object();
    for (const ast::Argument& arg : op->args) args[arg.name.name] = value_json(arg.value);
    return {{"name", op->name}, {"args", args}};
}

// What went into a Call's code fingerprint (docs/build.md, "Code fingerprints").
json code_json(const std::optional<CodeFingerprint>& code) {
    if (!code) return nullptr;
    json functions = json::array();
    for (const CodeFunction& function : code->functions) {
        functions.push_back(
            {{"name", function.name}, {"location", function.location}, {"hash", function.hash}});
    }
    return {{"digest", code->digest},
            {"functions", functions},
            {"flags", code->flags},
            {"fallback", code->fallback.empty() ? json(nullptr) : json(code->fallback)},
            {"volatile_udf", code->volatile_udf}};
}

json binding_json(const std::optional<OpBinding>& binding) {
    if (!binding) return nullptr;
    // Filled by the front half after binding (driver/front.cpp); docs/build.md documents it.
    auto or_null = [](const std::string& text) {
        return text.empty() ? json(nullptr) : json(text);
    };
    return {{"cpp_symbol", or_null(binding->cpp_symbol)},
            {"udf_kind", or_null(binding->udf_kind)},
            {"shape", or_null(binding->shape)},
            {"batch", binding->batch},
            {"input_types", binding->input_types},
            {"output_types", binding->output_types},
            {"code", code_json(binding->code)}};
}

json call_json(const Call& call, const SourceManager& sources) {
    json inputs = json::array();
    for (const CallInput& input : call.inputs) {
        inputs.push_back({{"port", input.port}, {"optional", input.optional}});
    }
    json out = {{"id", call.id},
                {"kind", to_string(call.kind)},
                {"op", op_json(call.op)},
                {"domain", call.domain},
                {"inputs", inputs},
                {"outputs", call.outputs},
                {"options", options_json(call.options)},
                {"binding", binding_json(call.binding)},
                {"location", location_json(sources, call.range)}};
    // Only a pooled Call has the key, so a plan without pools reads as it always did.
    if (call.pool) {
        out["pool"] = *call.pool;
        out["method"] = call.method;
    }
    return out;
}

// A pool's options: only the placement ones mean anything (kPoolOptions).
json pool_json(const Pool& pool, const SourceManager& sources) {
    json options = json::object();
    const json all = options_json(pool.options);
    for (const std::string_view name : kPoolOptions)
        options[std::string(name)] = all.at(std::string(name));
    return {{"id", pool.id},          {"name", pool.name},
            {"op", op_json(pool.op)}, {"options", options},
            {"calls", pool.calls},    {"location", location_json(sources, pool.range)}};
}

}  // namespace

std::string plan_json(const CheckedProgram& program, const SourceManager& sources) {
    json domains = json::array();
    for (DomainId d = 0; d < program.domains.size(); ++d) {
        const Domain& domain = program.domains[d];
        domains.push_back({{"id", d},
                           {"name", domain.name},
                           {"parent", domain.parent ? json(*domain.parent) : json(nullptr)},
                           {"depth", domain.depth},
                           {"opened_by", domain.opened_by},
                           {"children", domain.children}});
    }
    json ports = json::array();
    for (PortId p = 0; p < program.ports.size(); ++p) {
        const Port& port = program.ports[p];
        ports.push_back({{"id", p},
                         {"name", port.name},
                         {"domain", port.domain},
                         {"producer", port.producer},
                         {"output_index", port.output_index}});
    }
    json calls = json::array();
    json edges = json::array();
    for (const Call& call : program.calls) {
        calls.push_back(call_json(call, sources));
        for (std::size_t i = 0; i < call.inputs.size(); ++i) {
            const CallInput& input = call.inputs[i];
            edges.push_back({{"from", program.ports[input.port].producer},
                             {"port", input.port},
                             {"to", call.id},
                             {"input_index", i},
                             {"optional", input.optional}});
        }
    }
    json pairs = json::array();
    for (const ExpandReducePair& pair : program.expand_reduce) {
        pairs.push_back(
            {{"domain", pair.child}, {"expand", pair.expand}, {"reduces", pair.reduces}});
    }
    json plan = {{"pipeline", program.pipeline_name},
                 {"file", sources.name(program.file)},
                 {"uses", program.uses},
                 {"domains", domains},
                 {"ports", ports},
                 {"calls", calls},
                 {"edges", edges},
                 {"source", program.source},
                 {"sinks", program.sinks},
                 {"expand_reduce", pairs}};
    if (!program.pools.empty()) {
        json pools = json::array();
        for (const Pool& pool : program.pools) pools.push_back(pool_json(pool, sources));
        plan["pools"] = pools;
    }
    return plan.dump(2) + "\n";
}

}  // namespace rop::sema
