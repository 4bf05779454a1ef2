// bind_program: reads the pipeline's headers once, then walks the Calls in source order (a
// topological order), binding each to a declaration and running the checks of bind/checks/ on
// it, one rule per file, in the order of the pass list in bind_call. A Call that fails to bind
// leaves its outputs' types unknown, and what reads them is not type-checked, so one mistake is
// reported once.
#include "bind/bind_program.h"

#include <filesystem>
#include <utility>

#include "bind/bind_context.h"
#include "bind/checks/check_batch_span.h"
#include "bind/checks/check_call_arguments.h"
#include "bind/checks/check_deterministic.h"
#include "bind/checks/check_header_errors.h"
#include "bind/checks/check_input_types.h"
#include "bind/checks/check_isolation_codecs.h"
#include "bind/checks/check_mpi_codecs.h"
#include "bind/checks/check_optional_inputs.h"
#include "bind/checks/check_output_count.h"
#include "bind/checks/check_pool_class.h"
#include "bind/checks/check_pool_method.h"
#include "bind/checks/check_record_types.h"
#include "bind/checks/check_reduce_parent.h"
#include "bind/checks/check_udf_known.h"
#include "bind/checks/check_udf_shape.h"
#include "bind/checks/check_use_headers.h"
#include "bind/collect_includes.h"
#include "bind/pipeline_headers.h"
#include "bind/types.h"
#include "bind/udf_reader.h"

namespace rop::bind {
namespace {

namespace fs = std::filesystem;

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

Primitive primitive_of(sema::CallKind kind) {
    switch (kind) {
        case sema::CallKind::Source: return Primitive::Source;
        case sema::CallKind::Filter: return Primitive::Filter;
        case sema::CallKind::Expand: return Primitive::Expand;
        case sema::CallKind::Reduce: return Primitive::Reduce;
        case sema::CallKind::Sink: return Primitive::Sink;
        case sema::CallKind::Map:
        case sema::CallKind::Broadcast: return Primitive::Map;
    }
    return Primitive::Map;
}

// The headers: the `use` headers (E0507 for a missing one) and every stdlib operator header,
// read as one Clang translation unit into ctx.out.library; its C++ errors are E0508.
void read_headers(BindContext& ctx) {
    check_use_headers(ctx);
    std::vector<std::string> paths;
    for (const Header& header : ctx.headers) paths.push_back(header.path);
    // The stdlib's headers are read first: a broken `use` header (an unclosed namespace, Clang's
    // error limit) then cannot take the stdlib's declarations down with it.
    std::vector<std::string> stdlib_paths = stdlib_headers(ctx.options.stdlib_include_dirs);
    for (const std::string& path : stdlib_paths) {
        ctx.headers.push_back(
            {path, "rop/stdlib/" + fs::path(path).filename().string(), std::nullopt, false});
    }
    paths.insert(paths.begin(), stdlib_paths.begin(), stdlib_paths.end());

    std::vector<std::string> include_dirs;
    include_dirs.push_back(ctx.rop_dir.empty() ? "." : ctx.rop_dir);
    include_dirs.insert(include_dirs.end(), ctx.options.include_dirs.begin(),
                        ctx.options.include_dirs.end());
    include_dirs.insert(include_dirs.end(), ctx.options.stdlib_include_dirs.begin(),
                        ctx.options.stdlib_include_dirs.end());
    for (const std::string& dir : include_dirs) {
        std::error_code ec;
        ctx.out.include_dirs.push_back(fs::absolute(dir, ec).lexically_normal().string());
    }

    std::vector<BindError> errors;
    ReadOptions read;
    read.lint = ctx.options.lint;
    read.resource_dir = ctx.options.resource_dir;
    read.pch_cache_dir = ctx.options.pch_cache_dir;
    read.pch_seed_dir = ctx.options.pch_seed_dir;
    read.pch_mark_used = ctx.options.pch_mark_used;
    if (!paths.empty()) ctx.out.library = read_udfs(paths, include_dirs, &errors, read);
    check_header_errors(ctx, errors);
}

void set_output(BindContext& ctx, const sema::Call& call, std::size_t index,
                std::optional<CxxType> type) {
    if (index >= call.outputs.size()) return;
    BoundCall& bound = ctx.out.calls[call.id];
    if (bound.output_types.size() <= index) bound.output_types.resize(index + 1);
    if (type) bound.output_types[index] = *type;
    if (!call.op) bound.binding.outputs = bound.output_types;
    ctx.port_types[call.outputs[index]] = std::move(type);
}

// The operator's named arguments in C++ parameter order; a parameter not written takes its
// default.
std::vector<BoundArgument> bound_arguments(const sema::OpRef& op, const Binding& binding) {
    std::vector<BoundArgument> out;
    for (const UdfParam& param : binding.named) {
        BoundArgument argument{param, std::nullopt};
        for (const ast::Argument& arg : op.args) {
            if (arg.name.name == param.name) argument.value = arg;
        }
        out.push_back(std::move(argument));
    }
    return out;
}

// A pool: its class and its constructor's arguments, which the Calls that run on it need first.
void bind_pool(BindContext& ctx, const sema::Pool& pool) {
    const UdfDecl* decl = nullptr;
    const std::optional<Binding> binding = check_pool_class(ctx, pool, decl);
    if (!binding) return;
    mark_header_used(ctx, *decl);
    ctx.out.pools[pool.id] = {decl, bound_arguments(pool.op, *binding)};
}

// The pass list for one Call. A check that returns false leaves the Call unbound: what follows
// it would only repeat the problem.
void bind_call(BindContext& ctx, const sema::Call& call) {
    BoundCall& bound = ctx.out.calls[call.id];
    bound.call = call.id;
    for (const sema::CallInput& input : call.inputs) {
        bound.input_types.push_back(ctx.port_types[input.port].value_or(CxxType{}));
    }
    if (call.kind == sema::CallKind::Broadcast) {
        set_output(ctx, call, 0, ctx.port_types[call.inputs.front().port]);
        return;
    }
    if (call.kind == sema::CallKind::Reduce && !call.op) {
        const std::optional<CxxType>& child = ctx.port_types[call.inputs.front().port];
        set_output(ctx, call, 0, child ? std::optional<CxxType>(vector_of(*child)) : std::nullopt);
        return;
    }
    if (!call.op) return;  // sema guarantees one on every other kind

    // 1. The declaration: a known name (E0500), or a method of its pool's class (E0514), whose
    //    shape fits the primitive (E0501/9/10).
    std::vector<const UdfDecl*> decls;
    if (call.pool) {
        const UdfDecl* method = check_pool_method(ctx, call);
        if (method == nullptr) return;
        decls.push_back(method);
        bound.pool = call.pool;
    } else {
        decls = ctx.out.library.find_all(call.op->name);
        if (!check_udf_known(ctx, *call.op, decls)) return;
    }
    const UdfDecl* decl = nullptr;
    std::optional<Binding> binding =
        check_udf_shape(ctx, call, primitive_of(call.kind), decls, decl);
    if (!binding) return;
    bound.decl = decl;
    mark_header_used(ctx, *decl);

    // 2. The Call against it: outputs and optional inputs (E0501), named arguments (E0503-6).
    if (!check_output_count(ctx, call, *decl, *binding) ||
        !check_optional_inputs(ctx, call, *decl, *binding)) {
        return;
    }
    check_call_arguments(ctx, call, *decl, *binding);
    bound.arguments = bound_arguments(*call.op, *binding);

    // 3. Type flow: a batch UDF written with a vector (E0501), else the inputs' item types
    //    (E0502); a reduce's parent type (E0502).
    if (!check_batch_span(ctx, call, *decl, *binding)) {
        // Bind it as the batch UDF it was meant to be, so what follows is checked against one
        // result per item rather than against the vector.
        if (decl->result.form == TypeForm::Vector && !decl->result.args.empty() &&
            call.kind == sema::CallKind::Map) {
            const CxxType& each = decl->result.args[0];
            binding->outputs =
                each.form == TypeForm::Tuple ? each.args : std::vector<CxxType>{each};
            if (binding->outputs.size() != call.outputs.size()) return;
        }
    } else {
        check_input_types(ctx, call, *decl, *binding);
    }
    check_reduce_parent(ctx, call, *decl, *binding);

    // 4. Lint (W0500).
    check_deterministic(ctx, call, *decl);

    // What a Call produces follows from its declaration alone, so later Calls are still
    // type-checked when this one's arguments or inputs were wrong.
    if (call.kind == sema::CallKind::Filter) {
        const std::optional<CxxType>& first = ctx.port_types[call.inputs.front().port];
        binding->outputs = {first ? *first : binding->outputs.front()};
    }
    bound.binding = *binding;
    for (std::size_t o = 0; o < call.outputs.size(); ++o) {
        set_output(ctx, call, o, binding->outputs[o]);
    }

    // 5. Process isolation, and every Call under --mpi: what crosses has a codec (E0306, E0512);
    //    a record source or sink's type maps onto records (E0511).
    check_isolation_codecs(ctx, call, bound);
    check_mpi_codecs(ctx, call, bound);
    check_record_types(ctx, call, bound);
}

}  // namespace

std::optional<BoundProgram> bind_program(const sema::CheckedProgram& program,
                                         const std::string& rop_path,
                                         const ProgramBindOptions& options,
                                         DiagnosticEngine& diags) {
    BindContext ctx(program, rop_path, options, diags);
    ctx.out.program = &program;
    read_headers(ctx);
    ctx.out.library.aliases = {{"std", "rop::stdlib"}};
    ctx.out.calls.resize(program.calls.size());
    ctx.out.pools.resize(program.pools.size());
    ctx.port_types.resize(program.ports.size());
    for (const sema::Pool& pool : program.pools) bind_pool(ctx, pool);
    for (const sema::Call& call : program.calls) bind_call(ctx, call);
    if (diags.has_errors()) return std::nullopt;
    for (const std::optional<CxxType>& type : ctx.port_types) {
        ctx.out.port_types.push_back(type.value_or(CxxType{}));
    }
    collect_includes_and_link(ctx);
    return std::optional<BoundProgram>(std::move(ctx.out));
}

}  // namespace rop::bind
