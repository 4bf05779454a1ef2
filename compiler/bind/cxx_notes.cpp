#include "bind/cxx_notes.h"

#include <utility>

namespace rop::bind {
namespace {

bool identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::optional<SourceRange> CxxNotes::range_of(const SourceLoc& loc) {
    if (!sources_ || !loc.valid() || loc.file.empty()) return std::nullopt;
    auto [cached, inserted] = files_.try_emplace(loc.file);
    if (inserted) cached->second = sources_->add_file(loc.file, nullptr);
    if (!cached->second) return std::nullopt;
    const FileId file = *cached->second;
    const std::string_view text = sources_->text(file);
    const std::string_view line = sources_->line_text(file, loc.line);
    if (line.data() < text.data() || line.data() > text.data() + text.size()) return std::nullopt;
    std::size_t column = loc.column == 0 ? 0 : loc.column - 1;
    if (column > line.size()) column = line.size();
    std::size_t end = column;
    // The whole name there (`fix_hyphens`, `std::string`), so the underline covers it.
    while (end < line.size() &&
           (identifier_char(line[end]) ||
            (line[end] == ':' && end + 1 < line.size() && line[end + 1] == ':' &&
             end + 2 < line.size() && identifier_char(line[end + 2])))) {
        end += line[end] == ':' ? 2 : 1;
    }
    const auto begin = static_cast<std::uint32_t>(line.data() - text.data() + column);
    return SourceRange{file, begin, static_cast<std::uint32_t>(begin + (end - column))};
}

Note CxxNotes::at(const SourceLoc& loc, std::string message) {
    Note note;
    note.range = range_of(loc);
    if (!note.range && loc.valid()) message = to_string(loc) + ": " + message;
    note.message = std::move(message);
    return note;
}

}  // namespace rop::bind
