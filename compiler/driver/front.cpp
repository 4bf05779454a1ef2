#include "driver/front.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "frontend/parser.h"
#include "sema/sema.h"

namespace rop::driver {

namespace {

// How generated code calls the UDF, as the plan JSON spells it (docs/build.md).
const char* shape_name(bind::Shape shape) {
    switch (shape) {
        case bind::Shape::ElementMap: return "element_map";
        case bind::Shape::BatchMap: return "batch_map";
        case bind::Shape::ElementFilter: return "element_filter";
        case bind::Shape::BatchFilter: return "batch_filter";
        case bind::Shape::VectorExpand: return "vector_expand";
        case bind::Shape::StreamingExpand: return "streaming_expand";
        case bind::Shape::SpanReduce: return "span_reduce";
        case bind::Shape::Source: return "source";
        case bind::Shape::Sink: return "sink";
    }
    return "";
}

std::vector<std::string> type_names(const std::vector<bind::CxxType>& types) {
    std::vector<std::string> names;
    names.reserve(types.size());
    for (const bind::CxxType& type : types) names.push_back(type.name);
    return names;
}

// Fills each Call's binding seam (sema::OpBinding) from what bind decided for it.
void attach_bindings(sema::CheckedProgram& program, const bind::BoundProgram& bound) {
    for (const bind::BoundCall& call : bound.calls) {
        if (call.call >= program.calls.size()) continue;
        sema::OpBinding binding;
        binding.input_types = type_names(call.input_types);
        binding.output_types = type_names(call.output_types);
        if (call.decl != nullptr) {  // broadcast and a reduce without a UDF run none
            binding.cpp_symbol = call.decl->qualified_name;
            binding.udf_kind = call.pool ? "method" : call.decl->is_class ? "class" : "function";
            binding.shape = shape_name(call.binding.shape);
            binding.batch = call.binding.shape == bind::Shape::BatchMap ||
                            call.binding.shape == bind::Shape::BatchFilter;
        }
        program.calls[call.call].binding = std::move(binding);
    }
}

}  // namespace

bind::ProgramBindOptions bind_options(const FrontOptions& options, const Toolchain& toolchain) {
    bind::ProgramBindOptions out;
    out.stdlib_include_dirs = toolchain.stdlib_include_dirs;
    out.include_dirs = options.include_dirs;
    out.pch_cache_dir = (std::filesystem::path(cache_dir(options.cache_dir)) / "bind").string();
    if (!toolchain.seed_dir.empty()) {
        out.pch_seed_dir = (std::filesystem::path(toolchain.seed_dir) / "bind").string();
    }
    out.pch_mark_used = options.mark_cache_used;
    out.every_call_crosses = options.mpi;
    return out;
}

FrontResult run_front(FileId file, SourceManager& sources, const FrontOptions& options,
                      const Toolchain& toolchain) {
    DiagnosticEngine diags(sources);
    diags.set_warnings_as_errors(options.warnings_as_errors);
    diags.set_max_errors(options.max_errors);
    FrontResult result;
    const ast::Program syntax = parse(file, sources, diags);
    // Sema on a tree with syntax errors would only repeat them as undefined names.
    if (!diags.has_errors()) {
        if (std::optional<sema::CheckedProgram> checked = sema::check(syntax, diags)) {
            result.program = std::make_unique<sema::CheckedProgram>(std::move(*checked));
        }
    }
    if (options.bind && result.program) {
        bind::ProgramBindOptions binding = bind_options(options, toolchain);
        binding.sources = &sources;
        result.bound = bind::bind_program(*result.program, sources.name(file), binding, diags);
        if (result.bound) attach_bindings(*result.program, *result.bound);
    }
    result.has_errors = diags.has_errors();
    result.diagnostics = diags.finish();
    return result;
}

bool use_color(ColorMode mode, const char* no_color, bool is_tty) {
    switch (mode) {
        case ColorMode::Always: return true;
        case ColorMode::Never: return false;
        case ColorMode::Auto: break;
    }
    if (no_color != nullptr && no_color[0] != '\0') return false;
    return is_tty;
}

void print_text_diagnostics(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                            ColorMode mode, std::ostream& err) {
    if (diags.empty()) return;
    err << render_text(sources, diags,
                       use_color(mode, std::getenv("NO_COLOR"), isatty(STDERR_FILENO) == 1));
}

}  // namespace rop::driver
