// SourceManager: owns the text of every input file, hands out FileIds, and maps byte offsets to
// 1-based line:column. Files are read once; diagnostics never re-read them.
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
    std::uint32_t column = 1;  // 1-based, in bytes
};

class SourceManager {
  public:
    // Adds a file whose text is already in memory (tests, stdin). Returns its id.
    FileId add_buffer(std::string name, std::string text);
    // Reads a file from disk; nullopt (and `error` set to "cannot read 'p': why") when it is
    // missing, unreadable, a directory, or too large for 32-bit offsets.
    std::optional<FileId> add_file(const std::string& path, std::string* error);

    const std::string& name(FileId file) const;
    std::string_view text(FileId file) const;  // valid as long as the SourceManager
    LineCol line_col(FileId file, std::uint32_t offset) const;
    // The text of one line (1-based), without its newline.
    std::string_view line_text(FileId file, std::uint32_t line) const;
    std::size_t file_count() const;

  private:
    struct File {
        std::string name;
        std::string text;
        std::vector<std::uint32_t> line_starts;  // byte offset where each line begins
    };
    // A deque keeps every File (and so every string_view into its text, e.g. in tokens) at a
    // stable address while more files are added.
    std::deque<File> files_;
};

}  // namespace rop
