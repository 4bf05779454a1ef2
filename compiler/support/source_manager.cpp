// SourceManager: file text kept in memory, line tables built once per file.
#include "support/source_manager.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "support/utf8.h"

namespace rop {

namespace {

// Offsets are 32-bit; a larger file cannot be addressed, so it is refused rather than misread.
constexpr std::uintmax_t kMaxFileSize = std::numeric_limits<std::uint32_t>::max() - 1;

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
constexpr unsigned kBlockBits = 6;  // 64-byte blocks for the column table

// A line ends after LF, after CRLF, or after a CR that no LF follows.
std::vector<std::uint32_t> compute_line_starts(std::string_view text) {
    std::vector<std::uint32_t> starts{0};
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
            starts.push_back(static_cast<std::uint32_t>(i + 1));
        }
    }
    return starts;
}

// Whether text[at] is the second, third or fourth byte of a well-formed UTF-8 character: the
// nearest byte before it that is not a continuation byte starts a sequence that reaches it.
bool is_trailing_byte(std::string_view text, std::size_t at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80) return false;
    for (std::size_t back = 1; back <= 3 && back <= at; ++back) {
        std::size_t lead = at - back;
        if ((static_cast<unsigned char>(text[lead]) & 0xC0) != 0x80) {
            return utf8::sequence_length(text, lead) > back;
        }
    }
    return false;
}

std::vector<std::uint32_t> compute_trailing_table(std::string_view text) {
    bool ascii = std::all_of(text.begin(), text.end(),
                             [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (ascii) return {};
    std::vector<std::uint32_t> table;
    table.reserve((text.size() >> kBlockBits) + 1);
    std::uint32_t count = 0;
    std::size_t sequence_end = 0;  // one past the character being read
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((i & ((1u << kBlockBits) - 1)) == 0) table.push_back(count);
        if (i < sequence_end) {
            ++count;
            continue;
        }
        std::size_t length = utf8::sequence_length(text, i);
        if (length > 1) sequence_end = i + length;
    }
    if ((text.size() & ((1u << kBlockBits) - 1)) == 0) table.push_back(count);
    return table;
}

}  // namespace

FileId SourceManager::add_buffer(std::string name, std::string text) {
    if (text.starts_with(kByteOrderMark)) text.erase(0, kByteOrderMark.size());
    if (text.size() > kMaxFileSize) text.resize(kMaxFileSize);
    auto starts = compute_line_starts(text);
    auto trailing = compute_trailing_table(text);
    files_.push_back(
        File{std::move(name), std::move(text), std::move(starts), std::move(trailing)});
    return static_cast<FileId>(files_.size() - 1);
}

std::optional<FileId> SourceManager::add_file(const std::string& path, std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<FileId> {
        if (error) *error = "cannot read '" + path + "': " + why;
        return std::nullopt;
    };
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec) return fail(ec.message());
    if (std::filesystem::is_directory(status)) return fail("is a directory");
    if (!std::filesystem::is_regular_file(status)) return fail("not a regular file");
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return fail(ec.message());
    if (size > kMaxFileSize) return fail("file is larger than 4 GiB");

    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return fail("read error");
    return add_buffer(path, std::move(text).str());
}

const std::string& SourceManager::name(FileId file) const { return files_.at(file).name; }

std::string_view SourceManager::text(FileId file) const { return files_.at(file).text; }

std::uint32_t SourceManager::trailing_before(const File& file, std::uint32_t offset) {
    if (file.trailing_before_block.empty()) return 0;
    std::size_t block = offset >> kBlockBits;
    std::uint32_t count = file.trailing_before_block[block];
    for (std::size_t i = block << kBlockBits; i < offset; ++i) {
        if (is_trailing_byte(file.text, i)) ++count;
    }
    return count;
}

LineCol SourceManager::line_col(FileId file, std::uint32_t offset) const {
    const File& f = files_.at(file);
    offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(f.text.size()));
    auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
    auto line = static_cast<std::uint32_t>(it - f.line_starts.begin());  // >= 1: starts[0] == 0
    std::uint32_t start = f.line_starts[line - 1];
    std::uint32_t bytes = offset - start;
    return {line, bytes - (trailing_before(f, offset) - trailing_before(f, start)) + 1};
}

std::string_view SourceManager::line_text(FileId file, std::uint32_t line) const {
    const File& f = files_.at(file);
    if (line == 0 || line > f.line_starts.size()) return {};
    std::uint32_t begin = f.line_starts[line - 1];
    std::uint32_t end = line < f.line_starts.size() ? f.line_starts[line]
                                                    : static_cast<std::uint32_t>(f.text.size());
    std::string_view text = std::string_view(f.text).substr(begin, end - begin);
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);  // CRLF, or a lone CR
    return text;
}

std::uint32_t SourceManager::line_start(FileId file, std::uint32_t line) const {
    const File& f = files_.at(file);
    if (line == 0) return 0;
    if (line > f.line_starts.size()) return static_cast<std::uint32_t>(f.text.size());
    return f.line_starts[line - 1];
}

std::size_t SourceManager::line_count(FileId file) const {
    return files_.at(file).line_starts.size();
}

std::size_t SourceManager::file_count() const { return files_.size(); }

}  // namespace rop
