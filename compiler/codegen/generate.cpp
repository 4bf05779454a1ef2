#include "codegen/generate.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bind/crossing.h"
#include "bind/records.h"
#include "codegen/arguments.h"
#include "codegen/byte_sizes.h"
#include "codegen/escape.h"
#include "codegen/printer.h"
#include "codegen/templates.h"
#include "codegen/wrap.h"

namespace rop::codegen {
namespace {

using bind::ArgKind;
using bind::BoundCall;
using bind::CxxType;
using bind::Missing;
using bind::Shape;
using bind::TypeForm;
using bind::UdfParam;

[[noreturn]] void fail(const std::string& what) { throw CodegenError("generate", 0, "", what); }

std::string_view tmpl(std::string_view name) {
    std::optional<std::string_view> text = template_text(name);
    if (!text) fail("template '" + std::string(name) + "' is not embedded");
    return *text;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += sep;
        out += parts[i];
    }
    return out;
}

std::vector<Expr> leaves(const std::vector<std::string>& texts) {
    std::vector<Expr> out;
    out.reserve(texts.size());
    for (const std::string& text : texts) out.push_back(leaf(text));
    return out;
}

class Generator {
  public:
    Generator(const bind::BoundProgram& bound, const SourceManager& sources,
              const GenerateOptions& options)
        : bound_(bound), program_(*bound.program), sources_(sources), options_(options) {
        rop_file_ = options.rop_file.empty() ? sources.name(program_.file) : options.rop_file;
        // The names the generated file defines besides the actor classes (the support code is
        // in namespace rop::gen of rop/runtime/generated.h).
        for (std::string_view reserved : {"make_pipeline", "main", "rop", "std"}) {
            names_.reserve(reserved);
        }
        if (bound.calls.size() != program_.calls.size()) {
            fail("the binding has " + std::to_string(bound.calls.size()) + " calls, the program " +
                 std::to_string(program_.calls.size()));
        }
        if (bound.port_types.size() != program_.ports.size()) {
            fail("the binding has " + std::to_string(bound.port_types.size()) +
                 " port types, the program " + std::to_string(program_.ports.size()) + " ports");
        }
    }

    GeneratedCode run() {
        for (const sema::Call& call : program_.calls) {
            if (needs_actor(call)) {
                class_names_[call.id] = names_.get("Call_" + call_name(call));
            }
        }
        emit("pipeline_main.cpp.tmpl", {{"source_path", cpp_comment_text(rop_file_)},
                                        {"includes", includes()},
                                        {"codecs", [this] { emit_codecs(); }},
                                        {"record_fields", [this] { emit_record_fields(); }},
                                        {"byte_sizes", [this] { emit_byte_sizes(); }},
                                        {"actors", [this] { emit_actors(); }},
                                        {"plan_builder", [this] { emit_plan(); }}});
        GeneratedCode out;
        out.code = printer_.take();
        out.line_map = std::move(line_map_);
        return out;
    }

  private:
    // Fills the embedded template `name` (codegen_templates/NAME) with `vars`.
    void emit(std::string_view name, const std::vector<Printer::Var>& vars = {}) {
        printer_.emit(name, tmpl(name), vars);
    }

    // --- names and locations ------------------------------------------------------------------

    std::string port_names(const std::vector<sema::PortId>& ports) const {
        std::vector<std::string> names;
        for (sema::PortId port : ports) names.push_back(program_.ports[port].name);
        return join(names, ",");
    }

    // The Call's `.rop` name: its output stream(s); a sink's: the stream(s) it writes.
    std::string call_name(const sema::Call& call) const {
        if (call.kind == sema::CallKind::Sink) {
            std::vector<sema::PortId> ports;
            for (const sema::CallInput& input : call.inputs) ports.push_back(input.port);
            return port_names(ports);
        }
        return port_names(call.outputs);
    }

    LineCol location(const sema::Call& call) const {
        SourceRange range = call.op ? call.op->range : call.range;
        return sources_.line_col(range.file, range.begin);
    }

    std::string location_text(const sema::Call& call) const {
        LineCol at = location(call);
        return rop_file_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
    }

    const std::string& type_of(sema::PortId port) const { return bound_.port_types[port].name; }

    bool needs_actor(const sema::Call& call) const {
        switch (call.kind) {
            case sema::CallKind::Source:
            case sema::CallKind::Sink:
            case sema::CallKind::Broadcast: return false;
            default: return true;
        }
    }

    // `#line` into the .rop file before a UDF call, and back into the generated file after it.
    Printer::Var rop_line(const sema::Call& call) {
        if (options_.cpp_file.empty()) return {"rop_line", ""};
        return {"rop_line", line_directive(rop_file_, location(call).line)};
    }
    Printer::Var cpp_line() {
        if (options_.cpp_file.empty()) return {"cpp_line", ""};
        return {"cpp_line", [this] {
                    printer_.print(line_directive(options_.cpp_file,
                                                  static_cast<std::uint32_t>(printer_.line() + 1)));
                }};
    }
    // The `#line` directive into the Call's `.rop` line, or "" without `#line`.
    std::string rop_directive(const sema::Call& call) const {
        if (options_.cpp_file.empty()) return "";
        return line_directive(rop_file_, location(call).line);
    }
    // Prints `expr` from the current column, wrapped within the column limit with `trail`
    // characters to follow it; `continuation_line` (a `#line`) goes before every continuation.
    void print_wrapped(const Expr& expr, std::size_t trail, std::string continuation_line) {
        printer_.print(layout(expr, {.column = printer_.column(),
                                     .indent = printer_.indent(),
                                     .trail = trail,
                                     .continuation_line = std::move(continuation_line)}));
    }
    // Prints the statement `expr` so that a C++ error in it points at the Call's `.rop` line.
    void print_at_rop(const sema::Call& call, const Expr& expr) {
        if (!options_.cpp_file.empty()) printer_.print(rop_directive(call) + "\n");
        print_wrapped(expr, 0, rop_directive(call));
        printer_.print("\n");
        if (!options_.cpp_file.empty()) {
            printer_.print(
                line_directive(options_.cpp_file, static_cast<std::uint32_t>(printer_.line() + 1)) +
                "\n");
        }
    }
    // A callback variable printing `expr` in place (followed by `trail` characters); its
    // continuation lines map to `call`'s `.rop` line when `call` is given.
    Printer::Var wrapped_var(std::string_view name, Expr expr, std::size_t trail,
                             const sema::Call* call = nullptr) {
        std::string continuation = call != nullptr ? rop_directive(*call) : std::string();
        return {name, [this, expr = std::move(expr), trail, continuation] {
                    print_wrapped(expr, trail, continuation);
                }};
    }

    std::string includes() const {
        std::string out;
        for (const std::string& header : bound_.includes) {
            if (header.find_first_of("\"\n\r\\") != std::string::npos) {
                fail("header path '" + cpp_comment_text(header) + "' cannot be #included");
            }
            out += "#include \"" + header + "\"\n";
        }
        if (!out.empty()) out.pop_back();
        return out;
    }

    // --- codecs -------------------------------------------------------------------------------

    // The codecs of the structs every Call passes (those that have one: public fields with
    // codecs), after the headers that declare them and before anything uses them: field by
    // field, in declaration order (rop::FieldsCodec, rop/codec.h). An item crosses a process
    // boundary with them (`isolation process`, --mpi), and the result store (--cache) keys and
    // keeps items by their bytes, so every pipeline gets them, not only those that cross.
    void emit_codecs() {
        const std::vector<const bind::TypeCodec*> codecs =
            bind::codecs_to_generate(bound_, /*every_call=*/true);
        if (codecs.empty()) return;
        printer_.print(
            "\n// How the structs the Calls pass become bytes and back: across processes and\n"
            "// ranks, and into the result store.\n");
        for (const bind::TypeCodec* codec : codecs) {
            std::vector<Expr> args{leaf(codec->name)};
            for (const std::string& field : codec->fields) {
                args.push_back(leaf("&" + codec->name + "::" + field));
            }
            emit("codec.tmpl",
                 {{"type", codec->name},
                  wrapped_var("fields_codec", list("rop::FieldsCodec<", std::move(args), ">"), 4)});
        }
    }

    // The field tables of the record types std.io's record sources and sinks read and write
    // (rop::Fields, rop/fields.h): each field by its C++ name, in declaration order, nested
    // structs first. Nothing without a record source or sink.
    void emit_record_fields() {
        const std::vector<const bind::TypeCodec*> records = bind::records_to_generate(bound_);
        if (records.empty()) return;
        printer_.print(
            "\n// The fields of the records the record sources and sinks read and write, by "
            "name.\n");
        for (const bind::TypeCodec* record : records) {
            std::vector<Expr> fields;
            for (const std::string& field : record->fields) {
                fields.push_back(
                    list("rop::field(",
                         {leaf(cpp_string_literal(field)), leaf("&" + record->name + "::" + field)},
                         ")"));
            }
            emit("fields.tmpl",
                 {{"type", record->name},
                  wrapped_var("fields", list("std::make_tuple(", std::move(fields), ")"), 1)});
        }
    }

    // The payload sizes of the structs passed between stages (rop::DerivedByteSize,
    // rop/byte_size.h), which --max-payload-mb counts: sizeof and what each field owns (a
    // string's buffer, a vector's elements, an image's pixels), each field by its name (a
    // bit-field has no member pointer, unlike FieldsCodec's list). `of` takes
    // `const auto&` so that it is instantiated where a Value is made, after all of them: a struct
    // may hold one that comes later (a cycle through a vector).
    void emit_byte_sizes() {
        const std::vector<const bind::TypeCodec*> types = byte_sizes_to_generate(bound_);
        if (types.empty()) return;
        printer_.print(
            "\n// What the structs passed between stages hold, field by field, for "
            "--max-payload-mb.\n");
        for (const bind::TypeCodec* type : types) {
            std::vector<Expr> args{leaf("value")};
            for (const std::string& field : type->fields) args.push_back(leaf("value." + field));
            emit("byte_size.tmpl",
                 {{"type", type->name},
                  wrapped_var("fields_byte_size",
                              list("rop::fields_byte_size(", std::move(args), ")"), 1)});
        }
    }

    // --- actors -------------------------------------------------------------------------------

    void emit_actors() {
        bool first = true;
        for (const sema::Call& call : program_.calls) {
            if (!needs_actor(call)) continue;
            if (!first) printer_.print("\n");
            first = false;
            const auto begin = static_cast<std::uint32_t>(printer_.line());
            emit_actor(call, bound_.calls[call.id]);
            LineCol at = location(call);
            line_map_.push_back({begin, static_cast<std::uint32_t>(printer_.line() - 1), at.line,
                                 at.column, call_name(call)});
        }
    }

    // The UDF's callee: the actor's member for a class, the qualified function otherwise.
    std::string callee(const BoundCall& bc) const {
        if (bc.pool) return "udf_->" + bc.decl->name;  // the method, on the pool's instance
        return bc.binding.is_class ? std::string("udf_") : "::" + bc.decl->qualified_name;
    }

    // The class of the pool a Call runs on: `::ns::Model`.
    std::string pool_class(sema::PoolId pool) const {
        const bind::UdfDecl* decl = bound_.pools.at(pool).decl;
        if (decl == nullptr) fail("pool '" + program_.pools.at(pool).name + "' is not bound");
        return "::" + decl->qualified_name;
    }

    std::vector<Printer::Var> common_vars(const sema::Call& call, const BoundCall& bc) {
        std::vector<Printer::Var> vars;
        vars.emplace_back("class_name", class_names_.at(call.id));
        vars.emplace_back("call_name", cpp_comment_text(call_name(call)));
        vars.emplace_back("rop_location", cpp_comment_text(location_text(call)));
        if (bc.pool) {
            // A view of the pool's instance, which the pool actor made (rop::gen::pool_view).
            const std::string cls = pool_class(*bc.pool);
            vars.emplace_back("udf_setup", "explicit " + class_names_.at(call.id) +
                                               "(std::shared_ptr<" + cls +
                                               "> udf) : udf_(std::move(udf)) {}");
            vars.emplace_back("udf_member", "std::shared_ptr<" + cls + "> udf_;");
        } else if (bc.binding.is_class) {
            const std::string cls = "::" + bc.decl->qualified_name;
            // Run-time settable arguments come from the effective ones (rop::gen::Arguments).
            Expr setup = run_time_table(bc.arguments, 0).empty()
                             ? list(class_names_.at(call.id) + "() : udf_(",
                                    leaves(named_expressions(bc.arguments)), ") {}")
                             : list("explicit " + class_names_.at(call.id) +
                                        "(const rop::gen::Arguments& arguments) : udf_(",
                                    leaves(run_time_expressions(bc.arguments)), ") {}");
            vars.emplace_back("udf_setup", [this, &call, setup] { print_at_rop(call, setup); });
            vars.emplace_back("udf_member", cls + " udf_;");
        } else {
            vars.emplace_back("udf_setup", "");
            vars.emplace_back("udf_member", "");
        }
        vars.push_back(rop_line(call));
        vars.push_back(cpp_line());
        return vars;
    }

    // The UDF call expression: `args` fill the parameters by position; a function's named
    // arguments follow at their positions.
    Expr call_expression(const BoundCall& bc, std::vector<std::string> args) const {
        if (!bc.binding.is_class) {
            std::vector<std::string> named = named_expressions(bc.arguments);
            args.insert(args.end(), named.begin(), named.end());
        }
        return list(callee(bc) + "(", leaves(args), ")");
    }

    // The arguments before the named ones, by parameter index: inputs from `input_expr`, the
    // runtime parameters by their local names.
    std::vector<std::string> positional(const BoundCall& bc,
                                        const std::vector<std::string>& input_exprs) const {
        const bind::Binding& b = bc.binding;
        std::map<std::size_t, std::string> by_index;
        for (std::size_t i = 0; i < b.inputs.size(); ++i)
            by_index[b.inputs[i].param_index] = input_exprs[i];
        if (b.emitter_param) by_index[*b.emitter_param] = "emitter";
        if (b.ordinals_param) by_index[*b.ordinals_param] = "ordinals";
        if (b.skipped_param) by_index[*b.skipped_param] = "skipped";
        if (b.parent_param) by_index[*b.parent_param] = "parent";
        std::vector<std::string> out;
        std::size_t expected = 0;
        for (auto& [index, expr] : by_index) {
            if (index != expected)
                fail("parameter " + std::to_string(expected) + " of " + bc.decl->qualified_name +
                     " is neither input nor runtime");
            out.push_back(expr);
            ++expected;
        }
        return out;
    }

    // Input `i` of a Grain as the UDF takes it: `grain.in<T>(i)`, or for an optional input
    // `grain.in_optional<T>(i)` (std::optional<T>) or `grain.in_pointer<T>(i)` (const T*).
    std::string element_input(const sema::Call& call, const BoundCall& bc, std::size_t i) const {
        const std::string& type = type_of(call.inputs[i].port);
        return "grain." + input_accessor(bc.binding.inputs[i].missing) + "<" + type + ">(" +
               std::to_string(i) + ")";
    }

    static std::string input_accessor(Missing missing) {
        switch (missing) {
            case Missing::NotAccepted: return "in";
            case Missing::Nullopt: return "in_optional";
            case Missing::Null: return "in_pointer";
        }
        fail("unknown Missing");
    }

    // Input `i` of every Grain of a batch, for a span: the Grains::gather forms.
    static std::string gather_accessor(Missing missing) {
        switch (missing) {
            case Missing::NotAccepted: return "gather";
            case Missing::Nullopt: return "gather_optional";
            case Missing::Null: return "gather_pointer";
        }
        fail("unknown Missing");
    }

    // Publishes `result` from `grain` (a rop::gen::Grain): a filter's verdict, or one output
    // per port (std::get<i> of a returned tuple). A rop::ItemResult result first fails the Grain
    // when it holds a failure, else publishes its value.
    std::string publish(const sema::Call& call, const BoundCall& bc, const std::string& grain,
                        const std::string& result) {
        if (bc.binding.item_result) {
            std::string value = publish_value(call, bc, grain, "(*" + result + ")");
            std::string indented = "    ";
            for (char c : value) indented += c == '\n' ? std::string("\n    ") : std::string(1, c);
            return "if (!" + grain + ".failed(" + result + ")) {\n" + indented + "\n}";
        }
        return publish_value(call, bc, grain, result);
    }

    std::string publish_value(const sema::Call& call, const BoundCall& bc, const std::string& grain,
                              const std::string& result) {
        if (call.kind == sema::CallKind::Filter) {
            return grain + ".keep(static_cast<bool>(" + result + "));";
        }
        if (!bc.binding.multi_output) {
            return grain + ".out<" + type_of(call.outputs[0]) + ">(0, std::move(" + result + "));";
        }
        std::vector<std::string> lines;
        for (std::size_t i = 0; i < call.outputs.size(); ++i) {
            const std::string index = std::to_string(i);
            lines.push_back(grain + ".out<" + type_of(call.outputs[i]) + ">(" + index +
                            ", std::move(std::get<" + index + ">(" + result + ")));");
        }
        return join(lines, "\n");
    }

    void emit_actor(const sema::Call& call, const BoundCall& bc) {
        if (call.kind == sema::CallKind::Reduce && bc.decl == nullptr) {
            emit("collect_actor.tmpl", {{"class_name", class_names_.at(call.id)},
                                        {"call_name", cpp_comment_text(call_name(call))},
                                        {"rop_location", cpp_comment_text(location_text(call))},
                                        {"child_type", type_of(call.inputs[0].port)}});
            return;
        }
        if (bc.decl == nullptr) fail("call '" + call_name(call) + "' is not bound to a UDF");
        std::vector<Printer::Var> vars = common_vars(call, bc);
        const std::string kind = sema::to_string(call.kind);
        // What follows `$udf_call$` on its template line: `;`.
        constexpr std::size_t kAfterCall = 1;
        switch (bc.binding.shape) {
            case Shape::ElementMap:
            case Shape::ElementFilter: {
                std::vector<std::string> inputs;
                for (std::size_t i = 0; i < call.inputs.size(); ++i) {
                    inputs.push_back(element_input(call, bc, i));
                }
                vars.emplace_back("kind", kind);
                vars.push_back(wrapped_var("udf_call", call_expression(bc, positional(bc, inputs)),
                                           kAfterCall, &call));
                vars.emplace_back("publish", publish(call, bc, "grain", "result"));
                emit("element_map_actor.tmpl", vars);
                return;
            }
            case Shape::BatchMap:
            case Shape::BatchFilter: {
                std::vector<std::string> gather;
                std::vector<std::string> inputs;
                for (std::size_t i = 0; i < call.inputs.size(); ++i) {
                    const std::string type = type_of(call.inputs[i].port);
                    const std::string var = "input_" + std::to_string(i);
                    std::string element = type;
                    switch (bc.binding.inputs[i].missing) {
                        case Missing::NotAccepted: break;
                        case Missing::Nullopt: element = "std::optional<" + type + ">"; break;
                        case Missing::Null: element = "const " + type + "*"; break;
                    }
                    gather.push_back("const auto " + var + " = grains." +
                                     gather_accessor(bc.binding.inputs[i].missing) + "<" + type +
                                     ">(" + std::to_string(i) + ");");
                    inputs.push_back("std::span<const " + element + ">(" + var + ")");
                }
                vars.emplace_back("kind", "batch " + kind);
                vars.emplace_back("gather", join(gather, "\n"));
                vars.push_back(wrapped_var("udf_call", call_expression(bc, positional(bc, inputs)),
                                           kAfterCall, &call));
                vars.emplace_back("udf_name", cpp_string_literal(bc.decl->qualified_name));
                vars.emplace_back("publish", publish(call, bc, "grains[i]", "results[i]"));
                emit("batch_actor.tmpl", vars);
                return;
            }
            case Shape::VectorExpand:
            case Shape::StreamingExpand: {
                std::vector<std::string> inputs;
                for (std::size_t i = 0; i < call.inputs.size(); ++i) {
                    inputs.push_back(element_input(call, bc, i));
                }
                Expr udf_call = call_expression(bc, positional(bc, inputs));
                Expr statement =
                    bc.binding.shape == Shape::StreamingExpand
                        ? std::move(udf_call)
                        : list("rop::gen::emit_each(", {leaf("emitter"), std::move(udf_call)}, ")");
                vars.emplace_back("child_type", type_of(call.outputs[0]));
                vars.push_back(wrapped_var("udf_call", std::move(statement), kAfterCall, &call));
                emit("expand_actor.tmpl", vars);
                return;
            }
            case Shape::SpanReduce: {
                const std::string child = type_of(call.inputs[0].port);
                std::string parent;
                if (bc.binding.parent_param) {
                    parent = "const auto parent = grain.parent<" + parent_port_type(call) + ">();";
                }
                vars.emplace_back("child_type", child);
                vars.emplace_back("parent", parent);
                vars.push_back(wrapped_var("udf_call",
                                           call_expression(bc, positional(bc, {"children"})),
                                           kAfterCall, &call));
                vars.emplace_back("publish", publish(call, bc, "grain", "result"));
                emit("reduce_actor.tmpl", vars);
                return;
            }
            case Shape::Source:
            case Shape::Sink: break;
        }
        fail("call '" + call_name(call) + "': its shape has no actor");
    }

    // The type of the parent entity a reduce folds into: the item on the first input of the
    // expand that opened the children's Domain.
    std::string parent_port_type(const sema::Call& reduce) const {
        for (const sema::ExpandReducePair& pair : program_.expand_reduce) {
            if (std::find(pair.reduces.begin(), pair.reduces.end(), reduce.id) !=
                pair.reduces.end()) {
                return type_of(program_.calls[pair.expand].inputs[0].port);
            }
        }
        fail("reduce '" + call_name(reduce) + "' has no expand");
    }

    // --- the plan -----------------------------------------------------------------------------

    // `rop::runtime::CallKind::Map`: the enumerator named after the kind's word ("map" -> Map,
    // "broadcast" -> Broadcast), the one enumeration ropc and the runtime share.
    static std::string runtime_kind(sema::CallKind kind) {
        if (!vocab::in_plan(kind)) fail("sources and sinks are not plan Calls");
        std::string name(vocab::word(kind));
        name[0] = static_cast<char>(name[0] - 'a' + 'A');
        return "rop::runtime::CallKind::" + name;
    }

    // `.options = rop::vocab::options_with({{"batch", 16}, {"recovery", "retry_tail"}})`: each
    // option of the table whose value differs from its default, as the table counts it (a
    // duration in milliseconds, an enumeration by its word), checked again when the generated
    // code compiles. An option added to the table reaches the binary without a change here.
    static Expr options_expression(const sema::CallOptions& options) {
        std::vector<std::string> settings;
        for (const sema::OptionSpec& spec : sema::option_specs()) {
            const double value = sema::option_value(options, spec);
            if (value == spec.default_value) continue;
            std::string text;
            switch (spec.kind) {
                case sema::OptionKind::Int:
                case sema::OptionKind::Duration:
                    text = std::to_string(static_cast<long long>(value));
                    break;
                case sema::OptionKind::Number:
                case sema::OptionKind::Gpus: text = float_literal(value); break;
                case sema::OptionKind::Enum:
                    text = cpp_string_literal(spec.enumerators[static_cast<std::size_t>(value)]);
                    break;
            }
            settings.push_back("{" + cpp_string_literal(spec.name) + ", " + text + "}");
        }
        if (settings.empty()) return leaf(".options = {}");
        return list(".options = rop::vocab::options_with({", leaves(settings), "})");
    }

    std::string op_text(const sema::Call& call) const {
        return call.op ? call.op->name : std::string();
    }

    // "File: std.io.files(glob)": one --help line for a source or sink.
    std::string description(const sema::Call& call, const BoundCall& bc,
                            const std::string& type) const {
        std::vector<std::string> params;
        for (const bind::BoundArgument& argument : bc.arguments)
            params.push_back(argument.param.name);
        return type + ": " + op_text(call) + "(" + join(params, ", ") + ")";
    }

    // The path a source or sink gets unless --input/--output says otherwise.
    static std::string default_path(const BoundCall& bc) {
        if (bc.arguments.empty() || !bc.arguments[0].value) return "";
        const ast::Value& value = bc.arguments[0].value->value;
        if (value.kind == ast::Value::Kind::String) return value.text;
        return "";
    }

    // The constructor arguments of a source or sink class: `first` (the effective path) in
    // place of the first one.
    static std::vector<std::string> ctor_arguments(const BoundCall& bc, const std::string& first) {
        if (bc.arguments.empty()) return {};
        std::vector<bind::BoundArgument> rest(bc.arguments.begin() + 1, bc.arguments.end());
        std::vector<std::string> args = named_expressions(rest);
        args.insert(args.begin(), first);
        return args;
    }

    void emit_plan() {
        emit("plan.tmpl",
             {{"name", cpp_string_literal(program_.pipeline_name.empty() ? std::string("pipeline")
                                                                         : program_.pipeline_name)},
              {"version", cpp_string_literal(options_.version)},
              {"rop_path", cpp_string_literal(rop_file_)},
              {"rop_hash",
               options_.rop_hash.empty()
                   ? std::string()
                   : "pipeline.rop_hash(" + cpp_string_literal(options_.rop_hash) + ");"},
              {"domains", [this] { emit_domains(); }},
              {"ports", [this] { emit_ports(); }},
              {"pools", [this] { emit_pools(); }},
              {"calls", [this] { emit_calls(); }},
              {"sources", [this] { emit_source(); }},
              {"sinks", [this] { emit_sinks(); }}});
    }

    void emit_domains() {
        std::vector<sema::DomainId> order(program_.domains.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [this](sema::DomainId a, sema::DomainId b) {
            return program_.domains[a].depth < program_.domains[b].depth;
        });
        for (sema::DomainId d : order) {
            const sema::Domain& domain = program_.domains[d];
            std::string parent;
            if (domain.parent) parent = ", rop_domain_" + std::to_string(*domain.parent);
            emit("domain.tmpl",
                 {{"id", d}, {"name", cpp_string_literal(domain.name)}, {"parent", parent}});
        }
    }

    void emit_ports() {
        const sema::Call& source = program_.calls[program_.source];
        for (sema::PortId p = 0; p < program_.ports.size(); ++p) {
            const sema::Port& port = program_.ports[p];
            if (port.producer == source.id) {
                emit("source_port.tmpl", {{"id", p}, {"name", cpp_string_literal(port.name)}});
            } else {
                emit("port.tmpl",
                     {{"id", p}, {"name", cpp_string_literal(port.name)}, {"domain", port.domain}});
            }
        }
    }

    // One `pipeline.call(spec, udf)` per plan Call: the CallSpec (its options written once,
    // rop::gen::PipelineBuilder derives the --help/--set entry from it) and the `.rop` UDF name.
    void emit_calls() {
        for (const sema::Call& call : program_.calls) {
            if (call.kind == sema::CallKind::Source || call.kind == sema::CallKind::Sink) continue;
            std::vector<std::string> inputs;
            for (const sema::CallInput& input : call.inputs) {
                inputs.push_back("{rop_port_" + std::to_string(input.port) +
                                 (input.optional ? ", rop::runtime::InputMode::Optional}" : "}"));
            }
            std::vector<std::string> outputs;
            for (sema::PortId port : call.outputs)
                outputs.push_back("rop_port_" + std::to_string(port));
            std::vector<Expr> fields = {
                leaf(".name = " + cpp_string_literal(call_name(call))),
                leaf(".kind = " + runtime_kind(call.kind)),
                leaf(".domain = rop_domain_" + std::to_string(call.domain)),
                list(".inputs = {", leaves(inputs), "}"),
                list(".outputs = {", leaves(outputs), "}"),
                options_expression(effective_options(call)),
            };
            const BoundCall& bc = bound_.calls[call.id];
            // A Call with run-time arguments: its factory comes from the builder, which binds
            // the table below (and again the effective values after --set).
            const std::size_t entry_column = printer_.indent() + 4;
            const std::vector<std::string> table =
                bound_.calls[call.id].binding.is_class
                    ? run_time_table(bound_.calls[call.id].arguments, entry_column)
                    : std::vector<std::string>{};
            const std::string variable = "rop_arguments_" + std::to_string(call.id);
            if (!table.empty()) {
                std::string entries;
                for (const std::string& entry : table)
                    entries += (entries.empty() ? "" : "\n") + entry;
                emit("call_arguments.tmpl", {{"call_name", cpp_comment_text(call_name(call))},
                                             {"variable", variable},
                                             {"entries", entries}});
            }
            std::string factory = ".factory = {}";
            if (needs_actor(call) && table.empty() && !bc.pool)
                factory = ".factory = rop::gen::make_actor<" + class_names_.at(call.id) + ">";
            fields.push_back(leaf(factory));
            // Every CallSpec says it (a Call without a UDF: empty), so that none is left out.
            fields.push_back(call.binding && call.binding->code
                                 ? code_expression(*call.binding->code)
                                 : leaf(".code = {}"));
            // What a class UDF says about itself for the store's keys (its static
            // cache_identity(): a library's version, a model's name; nothing without one).
            if (bc.pool) {
                // Its named arguments are part of what it computes: the store's keys hold them.
                fields.push_back(arguments_field(bc.arguments));
            }
            if (needs_actor(call) && (bc.binding.is_class || bc.pool)) {
                fields.push_back(
                    leaf(".identity = rop::gen::identity_of<" + class_names_.at(call.id) + ">"));
            }
            if (bc.pool) {
                fields.push_back(leaf(".pool = rop_pool_" + std::to_string(*bc.pool)));
                fields.push_back(leaf(".view = rop::gen::pool_view<" + class_names_.at(call.id) +
                                      ", " + pool_class(*bc.pool) + ">"));
            }
            std::vector<Expr> arguments = {list("{", std::move(fields), "}")};
            if (!op_text(call).empty() || !table.empty())
                arguments.push_back(leaf(cpp_string_literal(op_text(call))));
            if (!table.empty()) {
                arguments.push_back(
                    leaf("rop::gen::bind_arguments<" + class_names_.at(call.id) + ">"));
                arguments.push_back(leaf(variable));
            }
            // What follows `$arguments$` on its template line: `);`.
            constexpr std::size_t kAfterArguments = 2;
            emit("call.tmpl",
                 {wrapped_var("arguments", list("", std::move(arguments), ""), kAfterArguments)});
        }
    }

    // The Call's code fingerprint, for the result store (rop::runtime::CodeFingerprint).
    static Expr code_expression(const sema::CodeFingerprint& code) {
        std::vector<Expr> functions;
        for (const sema::CodeFunction& function : code.functions) {
            functions.push_back(list("{",
                                     {leaf(cpp_string_literal(function.name)),
                                      leaf(cpp_string_literal(function.location)),
                                      leaf(cpp_string_literal(function.hash))},
                                     "}"));
        }
        std::vector<Expr> fields = {
            leaf(".digest = " + cpp_string_literal(code.digest)),
            list(".functions = {", std::move(functions), "}"),
            leaf(".flags = " + cpp_string_literal(code.flags)),
            leaf(".fallback = " + cpp_string_literal(code.fallback)),
            leaf(std::string(".volatile_udf = ") + (code.volatile_udf ? "true" : "false")),
        };
        return list(".code = {", std::move(fields), "}");
    }

    // A Call without a UDF of its own runs with the defaults (one actor, batch 1).
    sema::CallOptions effective_options(const sema::Call& call) const {
        if (call.kind == sema::CallKind::Broadcast) return {};
        if (!call.pool) return call.options;
        // The pool's placement options are its PoolSpec's; the runtime copies them into the
        // CallSpec, which must leave them at their defaults.
        sema::CallOptions options = call.options;
        const sema::CallOptions defaults;
        for (const sema::OptionSpec& spec : sema::option_specs()) {
            if (sema::is_pool_option(spec.name)) {
                sema::set_option_value(options, spec, sema::option_value(defaults, spec));
            }
        }
        return options;
    }

    // `.arguments = "stage=layout dpi=144"`: named arguments as text, for the store's keys (a
    // long text as adjacent pieces, so that lines stay short).
    Expr arguments_field(const std::vector<bind::BoundArgument>& arguments) const {
        const std::string text = arguments_text(arguments);
        const std::string one = ".arguments = " + cpp_string_literal(text);
        if (printer_.indent() + 8 + one.size() + 2 <= kColumnLimit) return leaf(one);
        return list(".arguments = rop::gen::text({", leaves(literal_pieces(text, 60)), "})");
    }

    // --- pools ----------------------------------------------------------------------------------

    // One `pipeline.pool({...})` per pool some Call runs on (an unused one, W0002, is left out):
    // its placement options, the function that sets up one instance of its class, its class's
    // identity and its constructor's arguments as text.
    void emit_pools() {
        for (const sema::Pool& pool : program_.pools) {
            if (pool.calls.empty()) continue;
            const bind::BoundPool& bp = bound_.pools.at(pool.id);
            const std::string cls = pool_class(pool.id);
            const LineCol at = sources_.line_col(pool.range.file, pool.op.range.begin);
            const std::string directive =
                options_.cpp_file.empty() ? "" : line_directive(rop_file_, at.line);
            const Expr construct = list("auto instance = std::make_shared<" + cls + ">(",
                                        leaves(named_expressions(bp.arguments)), ");");
            emit("pool.tmpl",
                 {{"pool_name", cpp_comment_text(pool.name)},
                  {"rop_location", cpp_comment_text(rop_file_ + ":" + std::to_string(at.line) +
                                                    ":" + std::to_string(at.column))},
                  {"id", pool.id},
                  {"name", cpp_string_literal(pool.name)},
                  wrapped_var("options", options_expression(pool.options), 1),
                  {"construct",
                   [this, construct, directive] {
                       if (!directive.empty()) printer_.print(directive + "\n");
                       print_wrapped(construct, 0, directive);
                       printer_.print("\n");
                       if (!options_.cpp_file.empty()) {
                           printer_.print(
                               line_directive(options_.cpp_file,
                                              static_cast<std::uint32_t>(printer_.line() + 1)) +
                               "\n");
                       }
                   }},
                  {"class", cls},
                  wrapped_var("arguments", arguments_field(bp.arguments), 2)});
        }
    }

    void emit_source() {
        const sema::Call& call = program_.calls[program_.source];
        const BoundCall& bc = bound_.calls[call.id];
        if (bc.decl == nullptr) fail("the source is not bound to a class");
        const std::string cls = "::" + bc.decl->qualified_name;
        const std::string item = type_of(call.outputs[0]);
        emit("source.tmpl", {{"name", cpp_string_literal(call_name(call))},
                             {"description", cpp_string_literal(description(call, bc, item))},
                             {"default_input", cpp_string_literal(default_path(bc))},
                             {"construct",
                              [&] {
                                  print_at_rop(call,
                                               list("auto source = std::make_unique<" + cls + ">(",
                                                    leaves(ctor_arguments(bc, "input")), ");"));
                              }},
                             {"item", item}});
    }

    void emit_sinks() {
        std::map<std::string, int> taken;  // two sinks of one stream: `out`, then `out_2`
        for (sema::CallId id : program_.sinks) {
            const sema::Call& call = program_.calls[id];
            std::string sink_name = call_name(call);
            if (int n = ++taken[sink_name]; n > 1) sink_name += "_" + std::to_string(n);
            const BoundCall& bc = bound_.calls[id];
            if (bc.decl == nullptr) fail("sink '" + call_name(call) + "' is not bound to a class");
            if (call.inputs.size() != 1) fail("sink '" + call_name(call) + "' takes one stream");
            const std::string cls = "::" + bc.decl->qualified_name;
            const std::string item = type_of(call.inputs[0].port);
            emit("sink.tmpl", {{"name", cpp_string_literal(sink_name)},
                               {"description", cpp_string_literal(description(call, bc, item))},
                               {"port", call.inputs[0].port},
                               {"default_output", cpp_string_literal(default_path(bc))},
                               {"construct",
                                [&] {
                                    print_at_rop(call,
                                                 list("auto sink = std::make_shared<" + cls + ">(",
                                                      leaves(ctor_arguments(bc, "output")), ");"));
                                }},
                               {"item", item}});
        }
    }

    const bind::BoundProgram& bound_;
    const sema::CheckedProgram& program_;
    const SourceManager& sources_;
    const GenerateOptions& options_;
    std::string rop_file_;
    Printer printer_;
    IdentifierScope names_;
    std::map<sema::CallId, std::string> class_names_;
    std::vector<LineMapEntry> line_map_;
};

}  // namespace

GeneratedCode generate(const bind::BoundProgram& bound, const SourceManager& sources,
                       const GenerateOptions& options) {
    if (bound.program == nullptr) fail("the BoundProgram has no program");
    return Generator(bound, sources, options).run();
}

}  // namespace rop::codegen
