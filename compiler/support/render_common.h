// Helpers the three diagnostic renderers share: resolving a SourceRange to 1-based line:column
// pairs (columns in code points, SourceManager's one rule). Private to rop::support.
#pragma once

#include <cstdint>
#include <string>

#include "support/source_manager.h"

namespace rop::detail {

// A range as line:column pairs; the end is exclusive (one past the last character), as in SARIF.
struct Span {
    std::string file;
    FileId file_id = 0;
    std::uint32_t line = 1;
    std::uint32_t column = 1;
    std::uint32_t end_line = 1;
    std::uint32_t end_column = 1;
    std::uint32_t begin_offset = 0;  // the range's bytes, for the text renderer's snippet
    std::uint32_t end_offset = 0;
    bool known = false;  // false when the range names no file the SourceManager holds
};

inline Span resolve(const SourceManager& sources, const SourceRange& range) {
    Span span;
    if (range.file >= sources.file_count()) {
        span.file = "<unknown>";
        return span;
    }
    std::uint32_t end_offset = range.end < range.begin ? range.begin : range.end;
    LineCol begin = sources.line_col(range.file, range.begin);
    LineCol end = sources.line_col(range.file, end_offset);
    return {sources.name(range.file),
            range.file,
            begin.line,
            begin.column,
            end.line,
            end.column,
            range.begin,
            end_offset,
            true};
}

}  // namespace rop::detail
