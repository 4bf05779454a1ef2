// bind_program: reads the pipeline's headers once, then walks the Calls in source order (a
// topological order), binding each to a declaration and checking the item types that flow into
// it against what its producers produce. A Call that fails to bind leaves its outputs' types
// unknown, and what reads them is not type-checked, so one mistake is reported once.
#include "bind/bind_program.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "bind/cxx_notes.h"
#include "bind/named_arguments.h"
#include "bind/pipeline_headers.h"
#include "bind/types.h"
#include "bind/udf_reader.h"

namespace rop::bind {
namespace {

namespace fs = std::filesystem;

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

// A `.rop` spelling of a C++ name: `mineru.fix_hyphens`, `std.pdf.render`.
std::string rop_name(const std::string& qualified) {
    std::string out = qualified;
    constexpr std::string_view kStd = "rop::stdlib::";
    if (out.rfind(kStd, 0) == 0) out = "std::" + out.substr(kStd.size());
    for (std::size_t at = out.find("::"); at != std::string::npos; at = out.find("::", at + 1)) {
        out.replace(at, 2, ".");
    }
    return out;
}

ArgKind kind_of(const ast::Value& value) {
    switch (value.kind) {
        case ast::Value::Kind::String:
            return ArgKind::String;
        case ast::Value::Kind::Int:
            return ArgKind::Integer;
        case ast::Value::Kind::Float:
            return ArgKind::Float;
        case ast::Value::Kind::Bool:
            return ArgKind::Bool;
        case ast::Value::Kind::Duration:
            return ArgKind::Duration;
        case ast::Value::Kind::Ident:
            return ArgKind::Enum;
        case ast::Value::Kind::List:
            return ArgKind::List;
    }
    return ArgKind::Other;
}

// `std::vector<T>`: what a reduce without a UDF hands on. Its canonical name is not Clang's
// (which spells the allocator), so `flows` compares vectors by element.
CxxType vector_of(const CxxType& element) {
    CxxType out;
    out.name = "std::vector<" + display_name(element) + ">";
    out.spelling = out.name;
    out.canonical = "std::vector<" + element.canonical + ">";
    out.form = TypeForm::Vector;
    out.args = {element};
    return out;
}

// Can an item of type `got` be passed where `want` is expected?
bool flows(const CxxType& got, const CxxType& want) {
    if (same_type(got, want)) return true;
    return got.form == TypeForm::Vector && want.form == TypeForm::Vector && !got.args.empty() &&
           !want.args.empty() && flows(got.args[0], want.args[0]);
}

Primitive primitive_of(sema::CallKind kind) {
    switch (kind) {
        case sema::CallKind::Source:
            return Primitive::Source;
        case sema::CallKind::Filter:
            return Primitive::Filter;
        case sema::CallKind::Expand:
            return Primitive::Expand;
        case sema::CallKind::Reduce:
            return Primitive::Reduce;
        case sema::CallKind::Sink:
            return Primitive::Sink;
        case sema::CallKind::Map:
        case sema::CallKind::Broadcast:
            return Primitive::Map;
    }
    return Primitive::Map;
}

DiagId shape_error(Primitive primitive) {
    if (primitive == Primitive::Source) return DiagId::NotASource;
    if (primitive == Primitive::Sink) return DiagId::NotASink;
    return DiagId::UdfShapeMismatch;
}

// A header read for the pipeline: a `use` header or a stdlib module's.
struct Header {
    std::string path;     // as given to read_udfs (so declarations' locations name it)
    std::string include;  // as the generated file #includes it
    std::optional<std::size_t> use;
    bool used = false;  // a bound declaration comes from it
};

class ProgramBinder {
public:
    ProgramBinder(const sema::CheckedProgram& program, const std::string& rop_path,
                  const ProgramBindOptions& options, DiagnosticEngine& diags)
        : program_(program),
          options_(options),
          diags_(diags),
          notes_(options.sources),
          rop_dir_(fs::path(rop_path).parent_path().string()) {}

    std::optional<BoundProgram> run() {
        out_.program = &program_;
        read_headers();
        out_.library.aliases = {{"std", "rop::stdlib"}};
        out_.calls.resize(program_.calls.size());
        port_types_.resize(program_.ports.size());
        for (const sema::Call& call : program_.calls) bind_call(call);
        if (diags_.has_errors()) return std::nullopt;
        for (const std::optional<CxxType>& type : port_types_) {
            out_.port_types.push_back(type.value_or(CxxType{}));
        }
        collect_includes_and_link();
        return std::optional<BoundProgram>(std::move(out_));
    }

private:
    // ---- headers ----------------------------------------------------------------------------

    void read_headers() {
        std::vector<std::string> paths;
        for (std::size_t u = 0; u < program_.uses.size(); ++u) {
            const std::string& written = program_.uses[u];
            std::optional<std::string> found =
                find_use_header(written, rop_dir_, options_.include_dirs);
            if (!found) {
                missing_header_ = true;
                std::string where = rop_dir_.empty() ? "the current directory"
                                                     : in_quotes(rop_dir_ + "/");
                Diagnostic& d =
                    diags_.report(DiagId::UdfHeaderNotFound, use_range(u),
                                  "cannot find UDF header " + in_quotes(written) + " (looked in " +
                                      where +
                                      (options_.include_dirs.empty() ? "" : " and the -I directories") +
                                      ")");
                d.notes.push_back({std::nullopt,
                                   "a `use` path is relative to the .rop file's directory"});
                continue;
            }
            headers_.push_back({*found, written, u, false});
            paths.push_back(*found);
        }
        // The stdlib's headers are read first: a broken `use` header (an unclosed namespace,
        // Clang's error limit) then cannot take the stdlib's declarations down with it.
        std::vector<std::string> stdlib_paths = stdlib_headers(options_.stdlib_include_dirs);
        for (const std::string& path : stdlib_paths) {
            headers_.push_back({path, "rop/stdlib/" + fs::path(path).filename().string(),
                                std::nullopt, false});
        }
        paths.insert(paths.begin(), stdlib_paths.begin(), stdlib_paths.end());

        std::vector<std::string> include_dirs;
        include_dirs.push_back(rop_dir_.empty() ? "." : rop_dir_);
        include_dirs.insert(include_dirs.end(), options_.include_dirs.begin(),
                            options_.include_dirs.end());
        include_dirs.insert(include_dirs.end(), options_.stdlib_include_dirs.begin(),
                            options_.stdlib_include_dirs.end());
        for (const std::string& dir : include_dirs) {
            std::error_code ec;
            out_.include_dirs.push_back(fs::absolute(dir, ec).lexically_normal().string());
        }

        std::vector<BindError> errors;
        ReadOptions read;
        read.lint = options_.lint;
        read.resource_dir = options_.resource_dir;
        read.pch_cache_dir = options_.pch_cache_dir;
        if (!paths.empty()) out_.library = read_udfs(paths, include_dirs, &errors, read);
        for (const BindError& error : errors) report_header_error(error);
    }

    // The `"path"` of a `use` statement (the statement's last token).
    SourceRange use_range(std::size_t use) const {
        SourceRange range = program_.use_ranges.at(use);
        const std::string_view text = diags_.sources().text(range.file);
        if (range.end <= text.size()) {
            std::size_t quote = text.find('"', range.begin);
            if (quote != std::string_view::npos && quote < range.end) {
                range.begin = static_cast<std::uint32_t>(quote);
            }
        }
        return range;
    }

    // Where a header problem is shown in the `.rop` file: its `use`, else the first `use`,
    // else the first stdlib operator, else the pipeline's first byte.
    SourceRange header_problem_range(const std::string& file) const {
        for (const Header& header : headers_) {
            if (header.path == file && header.use) return use_range(*header.use);
        }
        bool in_stdlib = std::any_of(headers_.begin(), headers_.end(), [&](const Header& h) {
            return h.path == file && !h.use;
        });
        if (!in_stdlib && !program_.use_ranges.empty()) return use_range(0);
        for (const sema::Call& call : program_.calls) {
            if (call.op && call.op->name.rfind("std.", 0) == 0) return call.op->name_range;
        }
        if (!program_.use_ranges.empty()) return use_range(0);
        return {program_.file, 0, 0};
    }

    std::string header_display(const std::string& file) const {
        for (const Header& header : headers_) {
            if (header.path == file) return header.use ? header.include : header.path;
        }
        return file;
    }

    // Each C++ error is shown at the `use` of the header it is in (or that #includes the file
    // it is in), with a note at the C++ line. Clang's error limit is not an error of its own: it
    // becomes a note after the last error, and names the rest of the headers would have
    // declared are not reported as unknown.
    void report_header_error(const BindError& error) {
        const std::string& header = error.header.empty() ? error.location.file : error.header;
        if (!error.location.valid()) {
            // A header that cannot be read at all, or Clang's crash report.
            diags_.report(DiagId::UdfHeaderError, header_problem_range(header), error.message);
            return;
        }
        Diagnostic& d = diags_.report(DiagId::UdfHeaderError, header_problem_range(header),
                                      "C++ error in UDF header " +
                                          in_quotes(header_display(header)) + ": " +
                                          error.message);
        d.notes.push_back(notes_.at(error.location, "Clang reports it here"));
        if (error.stopped_after) {
            headers_stopped_ = true;
            d.notes.push_back({std::nullopt,
                               "Clang stopped after this error (its error limit): the rest of "
                               "the UDF headers was not read; fix these errors and check again"});
        }
    }

    // ---- one Call ---------------------------------------------------------------------------

    void bind_call(const sema::Call& call) {
        BoundCall& bound = out_.calls[call.id];
        bound.call = call.id;
        for (const sema::CallInput& input : call.inputs) {
            bound.input_types.push_back(port_types_[input.port].value_or(CxxType{}));
        }
        if (call.kind == sema::CallKind::Broadcast) {
            set_output(call, 0, port_types_[call.inputs.front().port]);
            return;
        }
        if (call.kind == sema::CallKind::Reduce && !call.op) {
            const std::optional<CxxType>& child = port_types_[call.inputs.front().port];
            set_output(call, 0, child ? std::optional<CxxType>(vector_of(*child)) : std::nullopt);
            return;
        }
        if (!call.op) return;  // sema guarantees one on every other kind
        const Primitive primitive = primitive_of(call.kind);
        const UdfDecl* decl = nullptr;
        std::optional<Binding> binding = choose(call, primitive, decl);
        if (!binding) return;
        bound.decl = decl;
        mark_used(*decl);
        if (!check_outputs(call, *decl, *binding) || !check_optional_inputs(call, *decl, *binding)) {
            return;
        }
        check_arguments(call, *decl, *binding, bound);
        if (vector_for_span(call, *decl, *binding)) {
            // Bind it as the batch UDF it was meant to be, so what follows is checked against
            // one result per item rather than against the vector.
            if (decl->result.form == TypeForm::Vector && !decl->result.args.empty() &&
                call.kind == sema::CallKind::Map) {
                const CxxType& each = decl->result.args[0];
                binding->outputs = each.form == TypeForm::Tuple ? each.args
                                                                : std::vector<CxxType>{each};
                if (binding->outputs.size() != call.outputs.size()) return;
            }
        } else {
            check_input_types(call, *decl, *binding);
        }
        check_parent(call, *decl, *binding);
        lint(call, *decl);
        // What a Call produces follows from its declaration alone, so later Calls are still
        // type-checked when this one's arguments or inputs were wrong.
        if (call.kind == sema::CallKind::Filter) {
            const std::optional<CxxType>& first = port_types_[call.inputs.front().port];
            binding->outputs = {first ? *first : binding->outputs.front()};
        }
        bound.binding = *binding;
        for (std::size_t o = 0; o < call.outputs.size(); ++o) {
            set_output(call, o, binding->outputs[o]);
        }
    }

    void set_output(const sema::Call& call, std::size_t index, std::optional<CxxType> type) {
        if (index >= call.outputs.size()) return;
        BoundCall& bound = out_.calls[call.id];
        if (bound.output_types.size() <= index) bound.output_types.resize(index + 1);
        if (type) bound.output_types[index] = *type;
        if (!call.op) bound.binding.outputs = bound.output_types;
        port_types_[call.outputs[index]] = std::move(type);
    }

    // The declaration `call` names and how it binds: among overloads, the first whose shape
    // fits and whose inputs take the item types that arrive, else the first whose shape fits.
    std::optional<Binding> choose(const sema::Call& call, Primitive primitive,
                                  const UdfDecl*& chosen) {
        const sema::OpRef& op = *call.op;
        std::vector<const UdfDecl*> decls = out_.library.find_all(op.name);
        if (decls.empty()) {
            report_unknown(op);
            return std::nullopt;
        }
        const std::size_t inputs = primitive == Primitive::Source ? 0 : call.inputs.size();
        std::vector<Classification> results;
        std::optional<std::size_t> first_fit;
        for (std::size_t i = 0; i < decls.size(); ++i) {
            results.push_back(classify(*decls[i], primitive, inputs));
            if (!results.back().ok()) continue;
            if (!first_fit) first_fit = i;
            if (inputs_flow(call, *results.back().binding)) {
                chosen = decls[i];
                return results.back().binding;
            }
        }
        if (first_fit) {
            chosen = decls[*first_fit];
            return results[*first_fit].binding;
        }
        report_shape(call, primitive, decls, results);
        return std::nullopt;
    }

    bool inputs_flow(const sema::Call& call, const Binding& binding) const {
        for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
            const std::optional<CxxType>& got = port_types_[call.inputs[i].port];
            if (got && !flows(*got, binding.inputs[i].item)) return false;
        }
        return true;
    }

    void report_unknown(const sema::OpRef& op) {
        // Every name of a header that could not be found (or read to its end) would be
        // unknown: say it once.
        if ((missing_header_ || headers_stopped_) && op.name.rfind("std.", 0) != 0) return;
        std::vector<std::string> close = out_.library.suggestions(op.name);
        std::string message = "unknown UDF " + in_quotes(op.name);
        if (!close.empty()) message += "; did you mean " + in_quotes(close.front()) + "?";
        Diagnostic& d = diags_.report(DiagId::UnknownUdf, op.name_range, message);
        if (!close.empty()) {
            d.fixit = FixIt{op.name_range, close.front()};
            for (std::size_t i = 1; i < close.size(); ++i) {
                d.notes.push_back({std::nullopt, "or " + in_quotes(close[i]) + "?"});
            }
            return;
        }
        if (op.name.rfind("std.", 0) == 0) {
            d.notes.push_back({std::nullopt, "the standard library (rop/stdlib/*.h) declares no " +
                                                 in_quotes(op.name)});
        } else {
            d.notes.push_back({std::nullopt,
                               program_.uses.empty()
                                   ? "the pipeline has no `use` header; declare the UDF in one"
                                   : "none of the pipeline's `use` headers declares it"});
        }
    }

    void report_shape(const sema::Call& call, Primitive primitive,
                      const std::vector<const UdfDecl*>& decls,
                      const std::vector<Classification>& results) {
        const sema::OpRef& op = *call.op;
        const DiagId id = shape_error(primitive);
        if (decls.size() == 1) {
            Diagnostic& d = diags_.report(id, op.name_range, results[0].reason);
            d.notes.push_back(notes_.at(results[0].note, "declared here"));
            add_fits_note(d, *decls[0], primitive);
            return;
        }
        std::string message = "no overload of " + in_quotes(decls[0]->qualified_name) + " fits " +
                              (primitive == Primitive::Source || primitive == Primitive::Sink
                                   ? "a " + std::string(to_string(primitive))
                                   : "a " + std::string(to_string(primitive)) + " with " +
                                         std::to_string(call.inputs.size()) + " input" +
                                         (call.inputs.size() == 1 ? "" : "s"));
        Diagnostic& d = diags_.report(id, op.name_range, message);
        for (const Classification& result : results) {
            d.notes.push_back(notes_.at(result.note, "candidate: " + result.reason));
        }
    }

    // "'f' would fit a filter": the usual mistake is the wrong primitive, not the wrong UDF.
    void add_fits_note(Diagnostic& d, const UdfDecl& decl, Primitive primitive) {
        if (primitive == Primitive::Source || primitive == Primitive::Sink) {
            for (Primitive other : {Primitive::Source, Primitive::Sink}) {
                if (other != primitive && classify(decl, other, 1).ok()) {
                    d.notes.push_back({std::nullopt, in_quotes(rop_name(decl.qualified_name)) +
                                                         " is a " +
                                                         std::string(to_string(other)) + " class"});
                }
            }
            return;
        }
        std::string fits;
        for (Primitive other : candidate_primitives(decl)) {
            if (other == primitive) continue;
            fits += (fits.empty() ? "" : ", ") + std::string(to_string(other));
        }
        if (!fits.empty()) {
            d.notes.push_back({std::nullopt, in_quotes(rop_name(decl.qualified_name)) +
                                                 " has the shape of a UDF for: " + fits});
        }
    }

    bool check_outputs(const sema::Call& call, const UdfDecl& decl, const Binding& binding) {
        if (call.kind == sema::CallKind::Sink || call.kind == sema::CallKind::Filter) return true;
        if (binding.outputs.size() == call.outputs.size()) return true;
        std::string message =
            call.outputs.size() > 1
                ? "the Call defines " + std::to_string(call.outputs.size()) + " outputs but " +
                      in_quotes(decl.qualified_name) + " returns " +
                      (binding.multi_output ? "a std::tuple of " +
                                                  std::to_string(binding.outputs.size()) +
                                                  " values"
                                            : "one value") +
                      "; a multi-output Call returns a std::tuple with one element per output"
                : in_quotes(decl.qualified_name) + " returns a std::tuple of " +
                      std::to_string(binding.outputs.size()) +
                      " values, one per output port, but the Call defines one output; name "
                      "them: (a, b) = ...";
        Diagnostic& d = diags_.report(DiagId::UdfShapeMismatch, call.op->name_range, message);
        d.notes.push_back(notes_.at(decl.result_location, "declared here"));
        return false;
    }

    // The C++ parameter input `index` binds to (a sink's is its write()'s).
    const UdfParam* input_param(const UdfDecl& decl, const Binding& binding,
                                std::size_t index) const {
        if (index >= binding.inputs.size()) return nullptr;
        const std::size_t at = binding.inputs[index].param_index;
        if (binding.shape == Shape::Sink) {
            return decl.write_methods.empty() || at >= decl.write_methods[0].params.size()
                       ? nullptr
                       : &decl.write_methods[0].params[at];
        }
        return at < decl.params.size() ? &decl.params[at] : nullptr;
    }

    bool check_optional_inputs(const sema::Call& call, const UdfDecl& decl,
                               const Binding& binding) {
        bool ok = true;
        for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
            if (!call.inputs[i].optional || binding.inputs[i].missing != Missing::NotAccepted) {
                continue;
            }
            const UdfParam* param = input_param(decl, binding, i);
            const std::string& name = program_.ports[call.inputs[i].port].name;
            Diagnostic& d = diags_.report(
                DiagId::UdfShapeMismatch, call.inputs[i].range,
                "input " + in_quotes(name + "?") + " is optional but " +
                    in_quotes(decl.qualified_name) + " takes it as " +
                    in_quotes(param ? param->type.spelling : display_name(binding.inputs[i].item)) +
                    ", which cannot be missing; take 'std::optional<T>' or 'const T*'");
            if (param) d.notes.push_back(notes_.at(param->location, "declared here"));
            ok = false;
        }
        return ok;
    }

    void check_arguments(const sema::Call& call, const UdfDecl& decl, const Binding& binding,
                         BoundCall& bound) {
        const sema::OpRef& op = *call.op;
        std::vector<NamedArgument> arguments;
        for (const ast::Argument& arg : op.args) {
            arguments.push_back({arg.name.name, kind_of(arg.value),
                                 arg.value.kind == ast::Value::Kind::Ident ? arg.value.text : ""});
        }
        const std::vector<ArgumentProblem> problems =
            check_named_arguments(decl, binding, arguments);
        for (const ArgumentProblem& problem : problems) report_argument(op, decl, problem);
        for (const UdfParam& param : binding.named) {
            BoundArgument argument{param, std::nullopt};
            for (const ast::Argument& arg : op.args) {
                if (arg.name.name == param.name) argument.value = arg;
            }
            bound.arguments.push_back(std::move(argument));
        }
    }

    void report_argument(const sema::OpRef& op, const UdfDecl& decl,
                         const ArgumentProblem& problem) {
        switch (problem.kind) {
            case ArgumentProblem::Kind::Unknown: {
                const ast::Argument& arg = op.args[problem.argument];
                Diagnostic& d =
                    diags_.report(DiagId::UnknownNamedArgument, arg.name.range, problem.message);
                constexpr std::string_view kMean = "; did you mean '";
                const std::size_t at = problem.message.find(kMean);
                if (at != std::string::npos) {
                    const std::size_t begin = at + kMean.size();
                    const std::size_t end = problem.message.find('\'', begin);
                    d.fixit = FixIt{arg.name.range, problem.message.substr(begin, end - begin)};
                }
                d.notes.push_back(notes_.at(problem.note, in_quotes(decl.qualified_name) +
                                                              " is declared here"));
                return;
            }
            case ArgumentProblem::Kind::Missing: {
                Diagnostic& d =
                    diags_.report(DiagId::MissingNamedArgument, op.name_range, problem.message);
                d.notes.push_back(notes_.at(problem.note, "the parameter is declared here"));
                return;
            }
            case ArgumentProblem::Kind::WrongKind: {
                const ast::Argument& arg = op.args[problem.argument];
                const bool enumerator = arg.value.kind == ast::Value::Kind::Ident &&
                                        problem.message.find(" is not a value of ") !=
                                            std::string::npos;
                Diagnostic& d = diags_.report(
                    enumerator ? DiagId::UnknownEnumerator : DiagId::NamedArgumentKind,
                    arg.value.range, problem.message);
                d.notes.push_back(notes_.at(problem.note, "the parameter is declared here"));
                return;
            }
        }
    }

    // The range to point at for "produced here": the producing Call's operator, or the whole
    // statement for broadcast and a reduce without one.
    SourceRange producer_range(sema::PortId port) const {
        const sema::Call& producer = program_.calls[program_.ports[port].producer];
        return producer.op ? producer.op->name_range : producer.range;
    }

    // A map or filter whose input parameter is `std::vector<T>` where items of type T arrive:
    // a batch UDF written with a vector instead of a span. One E0501 that says so, instead of
    // a type mismatch here and another wherever its result (a vector per item) flows.
    bool vector_for_span(const sema::Call& call, const UdfDecl& decl, const Binding& binding) {
        if (binding.shape != Shape::ElementMap && binding.shape != Shape::ElementFilter) {
            return false;
        }
        for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
            const std::optional<CxxType>& got = port_types_[call.inputs[i].port];
            const CxxType& want = binding.inputs[i].item;
            if (!got || flows(*got, want) || want.form != TypeForm::Vector || want.args.empty() ||
                !flows(*got, want.args[0])) {
                continue;
            }
            const UdfParam* param = input_param(decl, binding, i);
            const std::string span = "std::span<const " + display_name(want.args[0]) + ">";
            const std::string& name = program_.ports[call.inputs[i].port].name;
            Diagnostic& d = diags_.report(
                DiagId::UdfShapeMismatch, call.op->name_range,
                "batch UDFs take std::span<const T>, not a vector: " +
                    in_quotes(rop_name(decl.qualified_name)) + " takes " +
                    in_quotes(param ? param->type.spelling : display_name(want)) +
                    " but the items of " + in_quotes(name) + " are " +
                    in_quotes(display_name(*got)) + "; take " + in_quotes(span));
            if (param) {
                d.notes.push_back(
                    notes_.at(param->location, "take " + in_quotes(span) + " here"));
            }
            return true;
        }
        return false;
    }

    void check_input_types(const sema::Call& call, const UdfDecl& decl, const Binding& binding) {
        for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
            const sema::PortId port = call.inputs[i].port;
            const std::optional<CxxType>& got = port_types_[port];
            const CxxType& want = binding.inputs[i].item;
            if (!got || flows(*got, want)) continue;
            const std::string& name = program_.ports[port].name;
            Diagnostic& d = diags_.report(
                DiagId::ItemTypeMismatch, call.inputs[i].range,
                "input " + in_quotes(name) + " of " + in_quotes(rop_name(decl.qualified_name)) +
                    " has the wrong item type: " + describe_mismatch(want, *got));
            d.notes.push_back({producer_range(port), in_quotes(name) + " is produced here, as " +
                                                         in_quotes(display_name(*got))});
            if (const UdfParam* param = input_param(decl, binding, i)) {
                d.notes.push_back(notes_.at(param->location, in_quotes(decl.qualified_name) +
                                                                 " takes " +
                                                                 in_quotes(param->type.spelling) +
                                                                 " here"));
            }
        }
    }

    // A reduce's rop::Parent<P>: P is the type of what the matching expand split (its input
    // stream), not "the Domain's" type: one Domain can have streams of several item types.
    void check_parent(const sema::Call& call, const UdfDecl& decl, const Binding& binding) {
        if (call.kind != sema::CallKind::Reduce || !binding.parent || !binding.parent_param) {
            return;
        }
        const sema::Call* expand = nullptr;
        for (const sema::ExpandReducePair& pair : program_.expand_reduce) {
            if (std::find(pair.reduces.begin(), pair.reduces.end(), call.id) != pair.reduces.end()) {
                expand = &program_.calls[pair.expand];
            }
        }
        if (!expand || expand->inputs.empty()) return;
        const sema::PortId port = expand->inputs.front().port;
        const std::optional<CxxType>& parent = port_types_[port];
        if (!parent || flows(*parent, *binding.parent)) return;
        const UdfParam& param = decl.params[*binding.parent_param];
        Diagnostic& d = diags_.report(
            DiagId::ItemTypeMismatch, call.op->name_range,
            "the parent of " + in_quotes(rop_name(decl.qualified_name)) + " has the wrong type: " +
                describe_mismatch(*binding.parent, *parent) + " (a parent is an item of " +
                in_quotes(program_.ports[port].name) + ", the stream its children were split from)");
        d.notes.push_back({expand->op ? expand->op->name_range : expand->range,
                           "the expand that opens the children's Domain splits " +
                               in_quotes(program_.ports[port].name) + ", of type " +
                               in_quotes(display_name(*parent))});
        d.notes.push_back(notes_.at(param.location, in_quotes(decl.qualified_name) + " takes " +
                                                        in_quotes(param.type.spelling) + " here"));
    }

    // The nondeterminism lint: one warning per finding, at the first Call using the UDF.
    void lint(const sema::Call& call, const UdfDecl& decl) {
        if (!options_.lint || decl.nondeterminism.empty()) return;
        if (std::find(linted_.begin(), linted_.end(), &decl) != linted_.end()) return;
        linted_.push_back(&decl);
        for (const NondeterminismFinding& finding : decl.nondeterminism) {
            std::string message = "UDF " + in_quotes(rop_name(decl.qualified_name)) +
                                  " may be nondeterministic: it uses " + finding.what;
            if (!finding.via.empty()) message += " (in " + in_quotes(finding.via) + ", which it calls)";
            Diagnostic& d = diags_.report(DiagId::NondeterministicUdf, call.op->name_range, message);
            d.notes.push_back(notes_.at(finding.location, "used here"));
            d.notes.push_back({std::nullopt,
                               "rop's output is reproducible only when UDFs are deterministic; "
                               "seed random engines, pass times in as items, sort before iterating"});
        }
    }

    // ---- includes and link ------------------------------------------------------------------

    void mark_used(const UdfDecl& decl) {
        for (std::size_t h = 0; h < headers_.size(); ++h) {
            if (headers_[h].path != decl.location.file) continue;
            if (!headers_[h].used) used_order_.push_back(h);
            headers_[h].used = true;
        }
    }

    void collect_includes_and_link() {
        std::vector<std::size_t> order = used_order_;
        for (std::size_t h = 0; h < headers_.size(); ++h) {
            if (headers_[h].use && !headers_[h].used) order.push_back(h);
        }
        for (std::size_t h = 0; h < headers_.size(); ++h) {
            if (headers_[h].use) out_.includes.push_back(headers_[h].include);
        }
        for (std::size_t h : used_order_) {
            if (!headers_[h].use) out_.includes.push_back(headers_[h].include);
        }
        // Each token is kept at its LAST occurrence: a static library must follow everything
        // that needs it on the link line.
        std::vector<std::string> tokens;
        for (std::size_t h : order) {
            for (std::string& token : read_link_line(headers_[h].path)) tokens.push_back(token);
        }
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            if (std::find(tokens.begin() + static_cast<std::ptrdiff_t>(i) + 1, tokens.end(),
                          tokens[i]) == tokens.end()) {
                out_.link.push_back(tokens[i]);
            }
        }
    }

    const sema::CheckedProgram& program_;
    const ProgramBindOptions& options_;
    DiagnosticEngine& diags_;
    CxxNotes notes_;
    std::string rop_dir_;
    BoundProgram out_;
    std::vector<Header> headers_;
    std::vector<std::size_t> used_order_;  // indices into headers_, first use first
    std::vector<std::optional<CxxType>> port_types_;
    std::vector<const UdfDecl*> linted_;
    bool missing_header_ = false;
    bool headers_stopped_ = false;  // Clang gave up at its error limit
};

}  // namespace

std::optional<BoundProgram> bind_program(const sema::CheckedProgram& program,
                                         const std::string& rop_path,
                                         const ProgramBindOptions& options,
                                         DiagnosticEngine& diags) {
    return ProgramBinder(program, rop_path, options, diags).run();
}

}  // namespace rop::bind
