#include "bind/checks/check_mpi_codecs.h"

#include <algorithm>

#include "bind/crossing.h"
#include "bind/types.h"

namespace rop::bind {

void check_mpi_codecs(BindContext& ctx, const sema::Call& call, const BoundCall& bound) {
    if (!ctx.options.every_call_crosses || !call.op) return;
    const bool isolated = call.options.isolation == sema::Isolation::Process;
    for (const CxxType& type : crossing_types(bound)) {
        const TypeCodec* codec = codec_of(ctx.out.library, type);
        if (!codec || codec->kind != CodecKind::None) continue;
        if (std::ranges::find(ctx.without_rank_codec, type.canonical) !=
            ctx.without_rank_codec.end()) {
            continue;
        }
        ctx.without_rank_codec.push_back(type.canonical);
        if (isolated) continue;  // check_isolation_codecs reported it (E0306)
        Diagnostic& d =
            ctx.diags.report(DiagId::ItemTypeCannotCrossRanks, call.op->name_range,
                             "--mpi: item type " + in_quotes(display_name(type)) + " of call " +
                                 in_quotes(call.op->name) +
                                 " cannot cross between ranks: " + codec_problem_text(*codec) +
                                 "; give it a rop::Codec specialization (docs/udfs.md)");
        if (codec->problem_location.valid()) {
            d.notes.push_back(ctx.notes.at(
                codec->problem_location,
                in_quotes(codec->problem_field.substr(codec->problem_field.rfind('.') + 1)) +
                    " is declared here"));
        }
        d.notes.push_back({std::nullopt,
                           "with --mpi the items of every Call are sent between ranks as bytes; a "
                           "type crosses with a codec"});
    }
}

}  // namespace rop::bind
