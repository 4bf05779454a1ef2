// The text half of the std.io record sources and sinks (rop/stdlib/io.h): JSONL lines and CSV
// rows (RFC 4180) as rop::record_io::Value, JSON strings out, and the record line file (unordered,
// or in source order with a pending file). The typed half is header templates (rop/records.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "durable_file.h"
#include "json_error.h"
#include "rop/stdlib/io.h"

namespace rop::record_io {

void append_json_string(std::string& out, std::string_view text) {
    out += nlohmann::json(std::string(text))
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// Length (1-4) of the well-formed UTF-8 sequence at text[at], 0 when none starts there (a stray
// continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short: Unicode's Table
// 3-7), as ropc's diagnostics read it (compiler/support/utf8.cpp; the stdlib has its own copy,
// since it does not depend on the compiler).
std::size_t sequence_length(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    const auto follows = [&](std::size_t i, unsigned char low, unsigned char high) {
        return at + i < text.size() && byte(i) >= low && byte(i) <= high;
    };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return follows(1, 0x80, 0xBF) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        const unsigned char low = lead == 0xE0 ? 0xA0 : 0x80;
        const unsigned char high = lead == 0xED ? 0x9F : 0xBF;
        return follows(1, low, high) && follows(2, 0x80, 0xBF) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const unsigned char low = lead == 0xF0 ? 0x90 : 0x80;
        const unsigned char high = lead == 0xF4 ? 0x8F : 0xBF;
        return follows(1, low, high) && follows(2, 0x80, 0xBF) && follows(3, 0x80, 0xBF) ? 4 : 0;
    }
    return 0;
}

}  // namespace

std::string quote_input(std::string_view text, std::string_view quote, std::size_t limit) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out(quote);
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t length = sequence_length(text, at);
        if (at + std::max<std::size_t>(length, 1) > limit) break;
        const auto byte = static_cast<unsigned char>(text[at]);
        if (length == 0 || byte < 0x20 || byte == 0x7F) {
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 0xF];
            ++at;
        } else {
            out.append(text.substr(at, length));
            at += length;
        }
    }
    if (at == text.size()) return out.append(quote);
    return out.append("...").append(quote) + " (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace rop::record_io

namespace rop::stdlib::io::detail {

constexpr std::size_t npos = std::string_view::npos;

std::string json_error(const nlohmann::json::exception& error) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ...": from "column" on;
    // "[json.exception.out_of_range.406] number overflow parsing '...'": after the id.
    std::string what = error.what();
    if (const std::size_t column = what.find("column "); column != std::string::npos) {
        what.erase(0, column);
    } else if (const std::size_t id = what.find("] "); what.starts_with('[') && id != npos) {
        what.erase(0, id + 2);
    }
    // nlohmann quotes the input it stopped at whole and raw, between single quotes: "...; last
    // read: 'TOKEN'", maybe with "; expected <a token's name>" after it, or "number overflow
    // parsing 'TOKEN'". Its own words around it are short ASCII; they go through quote_input too
    // (with room to spare), in case a version words them otherwise.
    constexpr std::size_t kOwnWords = 300;
    constexpr std::string_view kLastRead = "last read: '";
    const std::string_view text = what;
    std::size_t open = text.find(kLastRead);
    open = open == npos ? text.find('\'') : open + kLastRead.size() - 1;
    if (open == npos) return rop::record_io::quote_input(text, "", kOwnWords);
    std::size_t close = text.rfind("'; expected ");
    if (close == npos || close <= open || text.size() - close > 64) {
        close = text.back() == '\'' && text.size() - 1 > open ? text.size() - 1 : text.size();
    }
    return rop::record_io::quote_input(text.substr(0, open), "", kOwnWords) +
           rop::record_io::quote_input(text.substr(open + 1, close - open - 1), "'") +
           rop::record_io::quote_input(text.substr(std::min(close + 1, text.size())), "",
                                       kOwnWords);
}

namespace {

using rop::record_io::Value;

// Builds a Value from nlohmann's SAX events, keeping a float's text as written.
class ValueBuilder {
  public:
    using number_integer_t = nlohmann::json::number_integer_t;
    using number_unsigned_t = nlohmann::json::number_unsigned_t;
    using number_float_t = nlohmann::json::number_float_t;
    using string_t = nlohmann::json::string_t;
    using binary_t = nlohmann::json::binary_t;

    bool null() { return add(Value{}); }
    bool boolean(bool b) {
        Value v;
        v.kind = Value::Kind::Bool;
        v.boolean = b;
        return add(std::move(v));
    }
    bool number_integer(number_integer_t n) { return number(std::to_string(n)); }
    bool number_unsigned(number_unsigned_t n) { return number(std::to_string(n)); }
    bool number_float(number_float_t /*n*/, const string_t& text) { return number(text); }
    bool string(string_t& s) {
        Value v;
        v.kind = Value::Kind::String;
        v.text = std::move(s);
        return add(std::move(v));
    }
    bool binary(binary_t& /*b*/) { return add(Value{}); }
    bool start_object(std::size_t /*size*/) { return open(Value::Kind::Object); }
    bool key(string_t& k) {
        key_ = std::move(k);
        return true;
    }
    bool end_object() { return close(); }
    bool start_array(std::size_t /*size*/) { return open(Value::Kind::Array); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                     const nlohmann::json::exception& e) {
        error_ = "not JSON: " + json_error(e);
        return false;
    }

    Value take() { return std::move(root_); }
    const std::string& error() const { return error_; }

  private:
    bool number(std::string text) {
        Value v;
        v.kind = Value::Kind::Number;
        v.text = std::move(text);
        return add(std::move(v));
    }
    bool add(Value v) {
        if (stack_.empty()) {
            root_ = std::move(v);
            return true;
        }
        Value& parent = *stack_.back();
        if (parent.kind == Value::Kind::Object) parent.keys.push_back(std::move(key_));
        parent.items.push_back(std::move(v));
        return true;
    }
    bool open(Value::Kind kind) {
        Value v;
        v.kind = kind;
        if (stack_.empty()) {
            root_ = std::move(v);
            stack_.push_back(&root_);
        } else {
            add(std::move(v));
            stack_.push_back(&stack_.back()->items.back());
        }
        return true;
    }
    bool close() {
        stack_.pop_back();
        return true;
    }

    Value root_;
    std::vector<Value*> stack_;  // the open arrays and objects; pointers stay valid (see open)
    std::string key_;
    std::string error_;
};

Value parse_json_record(std::string_view line) {
    ValueBuilder builder;
    if (!nlohmann::json::sax_parse(line, &builder)) throw std::runtime_error(builder.error());
    Value value = builder.take();
    if (value.kind != Value::Kind::Object) {
        throw std::runtime_error("expected a JSON object, got " + rop::record_io::describe(value));
    }
    return value;
}

}  // namespace

struct RecordReader::State {
    std::string path;
    RecordFormat format = RecordFormat::Jsonl;
    std::ifstream in;
    std::size_t next_line = 1;  // the line the next getline reads
    std::size_t line = 0;       // where the last record started
    std::vector<std::string> header;

    bool read_line(std::string& text) {
        if (!std::getline(in, text)) return false;
        ++next_line;
        if (!text.empty() && text.back() == '\r') text.pop_back();
        return true;
    }

    // One CSV record's cells (RFC 4180); nullopt at the end. A quoted cell may hold line breaks.
    std::optional<std::vector<std::string>> read_row() {
        std::string text;
        do {
            if (!read_line(text)) return std::nullopt;
        } while (text.empty());
        line = next_line - 1;
        std::vector<std::string> cells(1);
        bool quoted = false;      // inside a quoted cell
        bool was_quoted = false;  // the current cell was quoted (only a separator may follow)
        for (std::size_t i = 0;; ++i) {
            if (i == text.size()) {
                if (!quoted) break;
                std::string more;
                if (!read_line(more)) throw std::runtime_error("unterminated quoted cell");
                cells.back() += '\n';
                text = std::move(more);
                i = static_cast<std::size_t>(-1);
                continue;
            }
            const char c = text[i];
            if (quoted) {
                if (c != '"') {
                    cells.back() += c;
                } else if (i + 1 < text.size() && text[i + 1] == '"') {
                    cells.back() += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else if (c == ',') {
                cells.emplace_back();
                was_quoted = false;
            } else if (c == '"' && cells.back().empty() && !was_quoted) {
                quoted = true;
                was_quoted = true;
            } else if (was_quoted) {
                throw std::runtime_error("cell " + std::to_string(cells.size()) +
                                         ": text after a closing quote");
            } else if (c == '"') {
                throw std::runtime_error("cell " + std::to_string(cells.size()) +
                                         ": a quote inside an unquoted cell (quote the cell and "
                                         "double the quote)");
            } else {
                cells.back() += c;
            }
        }
        return cells;
    }
};

RecordReader::RecordReader(std::string path, RecordFormat format)
    : state_(std::make_unique<State>()) {
    state_->path = std::move(path);
    state_->format = format;
    state_->in.open(state_->path, std::ios::binary);
    if (!state_->in) throw std::runtime_error(errno_message("cannot read", state_->path));
    if (format == RecordFormat::Csv) {
        std::optional<std::vector<std::string>> header;
        try {
            header = state_->read_row();
        } catch (const std::exception& e) {
            throw std::runtime_error(state_->path + ":" + std::to_string(state_->line) +
                                     ": header: " + e.what());
        }
        if (!header) throw std::runtime_error(state_->path + ": no header row (an empty file)");
        // A UTF-8 byte order mark before the first column name is not part of it.
        if (std::string& first = header->front(); first.starts_with("\xEF\xBB\xBF")) {
            first.erase(0, 3);
        }
        state_->header = std::move(*header);
    }
}

RecordReader::~RecordReader() = default;
RecordReader::RecordReader(RecordReader&&) noexcept = default;
RecordReader& RecordReader::operator=(RecordReader&&) noexcept = default;

std::optional<Value> RecordReader::next() {
    State& s = *state_;
    if (s.format == RecordFormat::Jsonl) {
        std::string text;
        for (;;) {
            if (!s.read_line(text)) return std::nullopt;
            if (text.find_first_not_of(" \t") != std::string::npos) break;
        }
        s.line = s.next_line - 1;
        return parse_json_record(text);
    }
    std::optional<std::vector<std::string>> cells = s.read_row();
    if (!cells) return std::nullopt;
    if (cells->size() != s.header.size()) {
        throw std::runtime_error(std::to_string(cells->size()) + " cells, the header has " +
                                 std::to_string(s.header.size()));
    }
    Value record;
    record.kind = Value::Kind::Object;
    record.keys = s.header;
    for (std::string& cell : *cells) {
        Value v;
        v.kind = Value::Kind::Cell;
        v.text = std::move(cell);
        record.items.push_back(std::move(v));
    }
    return record;
}

std::size_t RecordReader::line() const { return state_->line; }
const std::string& RecordReader::path() const { return state_->path; }

std::string bad_records_message(const std::string& path, const std::vector<std::string>& errors,
                                std::size_t total) {
    std::string out =
        std::to_string(total) + (total == 1 ? " bad record in " : " bad records in ") + path + ":";
    for (const std::string& error : errors) out += "\n  " + error;
    if (total > errors.size())
        out += "\n  ... and " + std::to_string(total - errors.size()) + " more";
    return out;
}

// ---- the record line file ----------------------------------------------------------------

namespace {

int open_append(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(errno_message("cannot open output", path));
    return fd;
}

void truncate_to(int fd, off_t size, const std::string& path) {
    struct stat info{};
    if (::fstat(fd, &info) != 0) throw std::runtime_error(errno_message("cannot stat", path));
    if (info.st_size < size) {
        throw std::runtime_error("'" + path + "' is shorter (" + std::to_string(info.st_size) +
                                 " bytes) than its checkpoint (" + std::to_string(size) + ")");
    }
    if (::ftruncate(fd, size) != 0) {
        throw std::runtime_error(errno_message("cannot truncate", path));
    }
    if (::fsync(fd) != 0) throw std::runtime_error(errno_message("cannot fsync", path));
}

off_t size_of(int fd, const std::string& path) {
    struct stat info{};
    if (::fstat(fd, &info) != 0) throw std::runtime_error(errno_message("cannot stat", path));
    return info.st_size;
}

// A checkpoint number; throws on anything else.
std::uint64_t token_number(std::string_view text, const std::string& token,
                           const std::string& path) {
    std::uint64_t n = 0;
    auto [at, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || at != text.data() + text.size() || text.empty()) {
        throw std::runtime_error("bad checkpoint '" + token + "' for '" + path + "'");
    }
    return n;
}

}  // namespace

RecordLineFile::RecordLineFile(std::string path, bool ordered)
    : path_(std::move(path)), ordered_(ordered) {
    if (path_.empty()) throw std::runtime_error("empty output path");
    ensure_directory(std::filesystem::path(path_).parent_path().string());
    fd_ = open_append(path_);
    if (ordered_) pending_fd_ = open_append(path_ + ".pending");
}

RecordLineFile::~RecordLineFile() {
    if (fd_ >= 0) ::close(fd_);
    if (pending_fd_ >= 0) ::close(pending_fd_);
}

void RecordLineFile::append(std::string_view lines) {
    if (!lines.empty()) append_all(fd_, lines, path_);
}

void RecordLineFile::write(std::uint32_t ordinal, std::string lines) {
    if (!ordered_ || ordinal < next_) {
        append(lines);
        return;
    }
    if (ordinal == next_) {
        append(lines);
        ++next_;
        drain();
        return;
    }
    // Pending entry: "ORDINAL SIZE\n" then the lines.
    append_all(pending_fd_,
               std::to_string(ordinal) + " " + std::to_string(lines.size()) + "\n" + lines,
               path_ + ".pending");
    held_[ordinal] = std::move(lines);
}

void RecordLineFile::skip(std::uint32_t ordinal) {
    if (!ordered_ || ordinal < next_) return;
    if (ordinal == next_) {
        ++next_;
        drain();
        return;
    }
    append_all(pending_fd_, std::to_string(ordinal) + " 0\n", path_ + ".pending");
    held_[ordinal];
}

// Writes what waited for the roots now written, in ordinal order, as one append.
void RecordLineFile::drain() {
    std::string lines;
    for (auto it = held_.begin(); it != held_.end() && it->first == next_;) {
        lines += it->second;
        it = held_.erase(it);
        ++next_;
    }
    append(lines);
}

void RecordLineFile::sync() {
    if (::fsync(fd_) != 0) throw std::runtime_error(errno_message("cannot fsync", path_));
    if (pending_fd_ >= 0 && ::fsync(pending_fd_) != 0) {
        throw std::runtime_error(errno_message("cannot fsync", path_ + ".pending"));
    }
}

std::string RecordLineFile::checkpoint() {
    const std::string size = std::to_string(size_of(fd_, path_));
    if (!ordered_) return size;
    return size + "/" + std::to_string(next_) + "/" +
           std::to_string(size_of(pending_fd_, path_ + ".pending"));
}

void RecordLineFile::restore(const std::string& token, std::string_view preamble) {
    const std::string pending_path = path_ + ".pending";
    held_.clear();
    next_ = 0;
    if (token.empty()) {
        truncate_to(fd_, 0, path_);
        if (ordered_) truncate_to(pending_fd_, 0, pending_path);
        if (!preamble.empty()) append_durably(fd_, preamble, path_);
        return;
    }
    std::vector<std::string_view> parts;
    std::string_view rest = token;
    for (std::size_t slash; (slash = rest.find('/')) != std::string_view::npos;) {
        parts.push_back(rest.substr(0, slash));
        rest.remove_prefix(slash + 1);
    }
    parts.push_back(rest);
    if (parts.size() != (ordered_ ? 3u : 1u)) {
        throw std::runtime_error("bad checkpoint '" + token + "' for '" + path_ + "'" +
                                 (ordered_ ? " (an ordered file's is SIZE/NEXT/PENDING)" : ""));
    }
    truncate_to(fd_, static_cast<off_t>(token_number(parts[0], token, path_)), path_);
    if (!ordered_) return;
    next_ = static_cast<std::uint32_t>(token_number(parts[1], token, path_));
    const auto pending_size = static_cast<off_t>(token_number(parts[2], token, path_));
    truncate_to(pending_fd_, pending_size, pending_path);
    // Reload the roots that were waiting at the checkpoint: the entries not written since.
    std::ifstream in(pending_path, std::ios::binary);
    std::string header;
    while (std::getline(in, header)) {
        const std::size_t space = header.find(' ');
        if (space == std::string::npos) {
            throw std::runtime_error("'" + pending_path + "': a damaged entry");
        }
        const std::uint64_t ordinal =
            token_number(std::string_view(header).substr(0, space), token, pending_path);
        const std::uint64_t size =
            token_number(std::string_view(header).substr(space + 1), token, pending_path);
        std::string lines(size, '\0');
        if (size > 0 && !in.read(lines.data(), static_cast<std::streamsize>(size))) {
            throw std::runtime_error("'" + pending_path + "': a damaged entry");
        }
        if (ordinal >= next_) held_[static_cast<std::uint32_t>(ordinal)] = std::move(lines);
    }
}

}  // namespace rop::stdlib::io::detail
