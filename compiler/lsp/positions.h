// Where things are, as the Language Server Protocol says it: 0-based lines, columns in UTF-16
// code units, files as `file://` URIs. The compiler counts 1-based lines and code points
// (support/source_manager.h); these functions convert between the two at byte offsets, so a
// diagnostic's range is exactly the SourceRange `ropc check` reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/source_manager.h"

namespace rop::lsp {

struct Position {
    std::uint32_t line = 0;       // 0-based
    std::uint32_t character = 0;  // 0-based, UTF-16 code units from the start of the line
    bool operator==(const Position&) const = default;
};

// The position of byte `offset` of `file`; lines end where SourceManager says (LF, CRLF, CR).
Position to_position(const SourceManager& sources, FileId file, std::uint32_t offset);
// The byte offset of `position`; past the end of its line: the line's end, past the last line:
// the end of the text.
std::uint32_t to_offset(const SourceManager& sources, FileId file, Position position);

// `file:///a/b%20c.rop` -> "/a/b c.rop"; nothing for a URI of another scheme.
std::optional<std::string> uri_to_path(std::string_view uri);
// "/a/b c.rop" -> `file:///a/b%20c.rop`; a relative path is made absolute first.
std::string path_to_uri(const std::string& path);

}  // namespace rop::lsp
