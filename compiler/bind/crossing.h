// What crosses a process boundary: the item types of an `isolation process` Call, their codec
// entries (UdfLibrary::codecs), and the struct codecs the generated file defines. Read by bind's
// E0306 and E0512 (--mpi) checks and by codegen; inline, over BoundProgram's plain values only, so
// codegen needs no Clang.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "bind/bind_program.h"

namespace rop::bind {

// The item types that cross for `bound` when it runs with `isolation process` (its inputs,
// outputs and a reduce's parent), each once, in that order; unknown types (a producer that did
// not bind) are left out.
inline std::vector<CxxType> crossing_types(const BoundCall& bound) {
    std::vector<CxxType> types;
    auto add = [&types](const CxxType& type) {
        if (type.canonical.empty()) return;
        for (const CxxType& seen : types) {
            if (seen.canonical == type.canonical) return;
        }
        types.push_back(type);
    };
    for (const CxxType& type : bound.input_types) add(type);
    for (const CxxType& type : bound.output_types) add(type);
    if (bound.binding.parent) add(*bound.binding.parent);
    return types;
}

// The codec entry with this canonical name; null when that type was never read.
inline const TypeCodec* find_codec_entry(const UdfLibrary& library, const std::string& canonical) {
    for (const TypeCodec& codec : library.codecs) {
        if (codec.canonical == canonical) return &codec;
    }
    return nullptr;
}

// The codec entry of `type`; null when it was never read. A vector made by a reduce without a
// UDF is not in the table (binding spells its name): its element's entry stands in.
inline const TypeCodec* codec_of(const UdfLibrary& library, const CxxType& type) {
    if (const TypeCodec* codec = find_codec_entry(library, type.canonical)) return codec;
    if (type.form == TypeForm::Vector && !type.args.empty()) {
        return codec_of(library, type.args.front());
    }
    return nullptr;
}

// Why a type without a codec (CodecKind::None) cannot cross, for a message: "it has no codec",
// "field 'cache' has type 'X', which has no codec". Shared by E0306 and E0512 (--mpi).
inline std::string codec_problem_text(const TypeCodec& codec) {
    if (codec.problem_field.empty()) return "it " + codec.problem;
    const std::string field = "field '" + codec.problem_field + "'";
    if (codec.problem_is_field) {
        return field + " (of type '" + codec.problem_type + "') " + codec.problem;
    }
    return field + " has type '" + codec.problem_type + "', which " + codec.problem;
}

// The struct codecs the generated file defines (CodecKind::Fields): those the crossing types of
// every `isolation process` Call need, each after the ones it uses (depth first; a cycle, through
// a vector, is cut anywhere: rop::FieldsCodec reads its fields' codecs only when it runs).
// With `every_call` (ropc build --mpi: every Call's items cross between ranks), every Call's.
inline std::vector<const TypeCodec*> codecs_to_generate(const BoundProgram& bound,
                                                        bool every_call = false) {
    std::vector<const TypeCodec*> out;
    std::set<const TypeCodec*> seen;
    auto visit = [&](const TypeCodec* codec, auto& self) -> void {
        if (!codec || !seen.insert(codec).second) return;
        for (const std::string& need : codec->needs) {
            self(find_codec_entry(bound.library, need), self);
        }
        if (codec->kind == CodecKind::Fields) out.push_back(codec);
    };
    for (const sema::Call& call : bound.program->calls) {
        if ((!every_call && call.options.isolation != sema::Isolation::Process) ||
            call.id >= bound.calls.size()) {
            continue;
        }
        for (const CxxType& type : crossing_types(bound.calls[call.id])) {
            visit(codec_of(bound.library, type), visit);
        }
    }
    return out;
}

}  // namespace rop::bind
