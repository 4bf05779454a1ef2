#include "bind/checks/check_isolation_codecs.h"

#include "bind/crossing.h"
#include "bind/types.h"

namespace rop::bind {
namespace {

// Why `type` cannot cross, as an entry in the codec table; none when it can (or is not known).
const TypeCodec* failing_codec(const UdfLibrary& library, const CxxType& type) {
    const TypeCodec* codec = codec_of(library, type);
    return codec && codec->kind == CodecKind::None ? codec : nullptr;
}

// A Call on a pool runs in processes because its pool does: point at the pool's option.
void pool_note(const sema::Pool& pool, Diagnostic& d) {
    for (const ast::Option& option : pool.written) {
        if (option.name.name != "isolation") continue;
        d.notes.push_back({option.range, "it runs on pool '" + pool.name +
                                             "', whose actors are worker processes"});
    }
}

}  // namespace

void check_isolation_codecs(BindContext& ctx, const sema::Call& call, const BoundCall& bound) {
    if (call.options.isolation != sema::Isolation::Process || !call.op) return;
    const ast::Option* isolation = nullptr;
    for (const ast::Option& option : call.written) {
        if (option.name.name == "isolation") isolation = &option;
    }
    const SourceRange at = isolation ? isolation->range : call.op->name_range;
    for (const CxxType& type : crossing_types(bound)) {
        const TypeCodec* codec = failing_codec(ctx.out.library, type);
        if (!codec) continue;
        const std::string name = display_name(type);  // as the headers write it
        Diagnostic& d =
            ctx.diags.report(DiagId::ItemTypeWithoutCodec, at,
                             "isolation process: item type " + in_quotes(name) +
                                 " cannot cross a process boundary: " + codec_problem_text(*codec) +
                                 "; give it a rop::Codec specialization (docs/udfs.md)");
        if (codec->problem_location.valid()) {
            d.notes.push_back(ctx.notes.at(
                codec->problem_location,
                in_quotes(codec->problem_field.substr(codec->problem_field.rfind('.') + 1)) +
                    " is declared here"));
        }
        d.notes.push_back({std::nullopt, "the items of " + in_quotes(call.op->name) +
                                             " are sent to and from its actor processes as bytes; "
                                             "a type crosses with a codec"});
        if (call.pool) pool_note(ctx.program.pools[*call.pool], d);
    }
}

}  // namespace rop::bind
