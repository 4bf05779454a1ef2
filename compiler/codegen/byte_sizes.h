// The structs whose payload size the generated file derives, field by field (rop::DerivedByteSize,
// rop/byte_size.h), so that `--max-payload-mb` counts what an item holds rather than sizeof: every
// struct of public fields a pipeline passes between stages. Inline, over BoundProgram's plain
// values, like bind's codecs_to_generate (crossing.h).
#pragma once

#include <set>
#include <vector>

#include "bind/bind_program.h"
#include "bind/crossing.h"

namespace rop::codegen {

// The item type of every port and the structs its fields and elements hold (the entries bind's
// codec reader read fields for: CodecKind::Fields, with at least one field), each after those it
// uses, in port order. A class ropc cannot read (private state, a field without a codec) is left
// out: it counts sizeof unless its header specializes rop::ByteSize.
inline std::vector<const bind::TypeCodec*> byte_sizes_to_generate(const bind::BoundProgram& bound) {
    std::vector<const bind::TypeCodec*> out;
    std::set<const bind::TypeCodec*> seen;
    auto visit = [&](const bind::TypeCodec* codec, auto& self) -> void {
        if (!codec || !seen.insert(codec).second) return;
        for (const std::string& need : codec->needs) {
            self(bind::find_codec_entry(bound.library, need), self);
        }
        if (codec->kind == bind::CodecKind::Fields && !codec->fields.empty()) out.push_back(codec);
    };
    for (const bind::CxxType& type : bound.port_types) {
        visit(bind::codec_of(bound.library, type), visit);
    }
    return out;
}

}  // namespace rop::codegen
