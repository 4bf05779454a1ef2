// The record types of std.io's record sources and sinks (JsonlSource<T>, CsvSource<T>,
// JsonlSink<T>, CsvSink<T>, named by an alias in a `use` header): the structs whose rop::Fields
// table the generated file defines, and why a type cannot be a record. Read by bind's E0511
// check and by codegen; inline, over BoundProgram's plain values only, so codegen needs no Clang.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "bind/crossing.h"

namespace rop::bind {

// Why one struct reachable from a record type cannot be read or written as a record.
struct RecordProblem {
    std::string type;   // the struct, "demo::Order"
    std::string field;  // its field at fault; empty when the struct itself is
    std::string text;   // "is private", "has type 'std::map<...>', which a record cannot hold ..."
    SourceLoc location;
};

// The problems of the record type `entry` (and of the structs its fields hold) for a source or
// sink; `csv`: every field must fit one cell. Empty when it maps, or when the headers write its
// rop::Fields by hand (the C++ compiler checks those).
inline std::vector<RecordProblem> record_problems(const UdfLibrary& library, const TypeCodec& entry,
                                                  bool csv) {
    std::vector<RecordProblem> out;
    std::set<const TypeCodec*> seen;
    auto visit = [&](const TypeCodec& codec, auto& self) -> void {
        if (codec.user_fields || !seen.insert(&codec).second) return;
        if (codec.kind == CodecKind::User) {
            out.push_back({codec.name,
                           "",
                           "has a rop::Codec of its own, so ropc does not read its fields; "
                           "write its rop::Fields by hand (rop/fields.h)",
                           {}});
            return;
        }
        if (codec.kind == CodecKind::None) {
            const std::string field = codec.problem_field.substr(0, codec.problem_field.find('.'));
            out.push_back({codec.name, codec.problem_field.empty() ? "" : field,
                           codec_problem_text(codec), codec.problem_location});
            return;
        }
        if (codec.kind != CodecKind::Fields) return;
        for (std::size_t i = 0; i < codec.fields.size() && i < codec.record_fields.size(); ++i) {
            const RecordField& field = codec.record_fields[i];
            if (!field.problem.empty()) {
                out.push_back({codec.name, codec.fields[i], field.problem, field.location});
            } else if (csv && !field.scalar) {
                out.push_back({codec.name, codec.fields[i],
                               "is not one CSV cell: a CSV record holds text, numbers, bool or "
                               "std::optional of one (read it from JSONL instead)",
                               field.location});
            }
        }
        for (const std::string& need : codec.needs) {
            if (const TypeCodec* nested = find_codec_entry(library, need)) self(*nested, self);
        }
    };
    visit(entry, visit);
    return out;
}

// The field tables the generated file defines: the record type of every record source and sink
// and the structs its fields hold, each after those it uses; none for a type whose table the
// headers write.
inline std::vector<const TypeCodec*> records_to_generate(const BoundProgram& bound) {
    std::vector<const TypeCodec*> out;
    std::set<const TypeCodec*> seen;
    auto visit = [&](const TypeCodec* codec, auto& self) -> void {
        if (!codec || !seen.insert(codec).second || codec->kind != CodecKind::Fields) return;
        for (const std::string& need : codec->needs) {
            self(find_codec_entry(bound.library, need), self);
        }
        if (!codec->user_fields) out.push_back(codec);
    };
    for (const BoundCall& call : bound.calls) {
        if (call.decl == nullptr || !call.decl->record_type) continue;
        visit(find_codec_entry(bound.library, call.decl->record_type->canonical), visit);
    }
    return out;
}

}  // namespace rop::bind
