// SourceManager: file text kept in memory, line tables built once per file.
#include "support/source_manager.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace rop {

namespace {

// Offsets are 32-bit; a larger file cannot be addressed, so it is refused rather than misread.
constexpr std::uintmax_t kMaxFileSize = std::numeric_limits<std::uint32_t>::max() - 1;

std::vector<std::uint32_t> compute_line_starts(std::string_view text) {
    std::vector<std::uint32_t> starts{0};
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') starts.push_back(static_cast<std::uint32_t>(i + 1));
    }
    return starts;
}

}  // namespace

FileId SourceManager::add_buffer(std::string name, std::string text) {
    if (text.size() > kMaxFileSize) text.resize(kMaxFileSize);
    auto starts = compute_line_starts(text);
    files_.push_back(File{std::move(name), std::move(text), std::move(starts)});
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

LineCol SourceManager::line_col(FileId file, std::uint32_t offset) const {
    const File& f = files_.at(file);
    offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(f.text.size()));
    auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
    auto line = static_cast<std::uint32_t>(it - f.line_starts.begin());  // >= 1: starts[0] == 0
    return {line, offset - f.line_starts[line - 1] + 1};
}

std::string_view SourceManager::line_text(FileId file, std::uint32_t line) const {
    const File& f = files_.at(file);
    if (line == 0 || line > f.line_starts.size()) return {};
    std::uint32_t begin = f.line_starts[line - 1];
    std::uint32_t end = line < f.line_starts.size() ? f.line_starts[line] - 1
                                                    : static_cast<std::uint32_t>(f.text.size());
    std::string_view text = std::string_view(f.text).substr(begin, end - begin);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);  // CRLF files
    return text;
}

std::size_t SourceManager::file_count() const { return files_.size(); }

}  // namespace rop
