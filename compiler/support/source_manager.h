// SourceManager: owns the text of every input file, hands out FileIds, and maps byte offsets to
// 1-based line:column. Files are read once; diagnostics never re-read them.
//
// One rule for lines and columns, used by every output (text, JSON, SARIF, fix-its, dumps, the
// plan): a line ends at LF, CRLF or a lone CR; a column counts characters (Unicode code points)
// from the start of its line, each byte that is not part of well-formed UTF-8 counting as one.
// A UTF-8 byte order mark at the start of a file is dropped when the file is added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rop {

using FileId = std::uint32_t;

// A half-open byte range [begin, end) in one file. An empty range (begin == end) marks a point.
struct SourceRange {
    FileId file = 0;
    std::uint32_t begin = 0;
    std::uint32_t end = 0;

    static SourceRange join(SourceRange a, SourceRange b) {
        return {a.file, a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
    }
    bool operator==(const SourceRange&) const = default;
};

struct LineCol {
    std::uint32_t line = 1;    // 1-based
    std::uint32_t column = 1;  // 1-based, in characters (code points), see above
};

class SourceManager {
  public:
    // Adds a file whose text is already in memory (tests, stdin). Returns its id. A leading UTF-8
    // byte order mark is dropped: offsets count from the first byte after it.
    FileId add_buffer(std::string name, std::string text);
    // Reads a file from disk; nullopt (and `error` set to "cannot read 'p': why") when it is
    // missing, unreadable, a directory, or too large for 32-bit offsets.
    std::optional<FileId> add_file(const std::string& path, std::string* error);

    const std::string& name(FileId file) const;
    std::string_view text(FileId file) const;  // valid as long as the SourceManager
    LineCol line_col(FileId file, std::uint32_t offset) const;
    // The text of one line (1-based), without its line end (LF, CRLF or CR).
    std::string_view line_text(FileId file, std::uint32_t line) const;
    // The byte offset where a line (1-based) begins; the end of the text past the last line.
    std::uint32_t line_start(FileId file, std::uint32_t line) const;
    std::size_t line_count(FileId file) const;
    std::size_t file_count() const;

  private:
    struct File {
        std::string name;
        std::string text;
        std::vector<std::uint32_t> line_starts;  // byte offset where each line begins
        // Trailing bytes of multi-byte UTF-8 characters (the bytes a column does not count)
        // before each 64-byte block of the text; empty when the text is all ASCII. Turns a
        // column into a count over at most one block, so a diagnostic on a long line costs no
        // more than one on a short one.
        std::vector<std::uint32_t> trailing_before_block;
    };
    // Trailing bytes in [0, offset).
    static std::uint32_t trailing_before(const File& file, std::uint32_t offset);
    // A deque keeps every File (and so every string_view into its text, e.g. in tokens) at a
    // stable address while more files are added.
    std::deque<File> files_;
};

}  // namespace rop
