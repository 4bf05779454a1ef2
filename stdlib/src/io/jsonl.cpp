// std.io.Jsonl: one appended chunk of lines per root, fsynced per commit group (sync());
// checkpoint = file size.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "durable_file.h"
#include "rop/stdlib/io.h"

namespace rop::stdlib::io {
namespace {

// The item as one line: valid JSON compacted (no raw newline survives), anything else as a
// JSON string.
std::string one_line(const JsonText& item) {
    nlohmann::json value = nlohmann::json::parse(item.text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = item.text;
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Jsonl::Jsonl(std::string path) : path_(std::move(path)) {
    if (path_.empty()) throw std::runtime_error("std.io.Jsonl: empty output path");
    detail::ensure_directory(std::filesystem::path(path_).parent_path().string());
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error(detail::errno_message("cannot open output", path_));
}

Jsonl::~Jsonl() {
    if (fd_ >= 0) ::close(fd_);
}

Jsonl::Jsonl(Jsonl&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

Jsonl& Jsonl::operator=(Jsonl&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        path_ = std::move(other.path_);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

void Jsonl::write(const rop::RootKey& /*root*/, std::span<const JsonText> items) {
    std::string chunk;
    for (const JsonText& item : items) {
        chunk += one_line(item);
        chunk += '\n';
    }
    detail::append_all(fd_, chunk, path_);
}

void Jsonl::sync() {
    if (::fsync(fd_) != 0) throw std::runtime_error(detail::errno_message("cannot fsync", path_));
}

std::string Jsonl::checkpoint() {
    struct stat info{};
    if (::fstat(fd_, &info) != 0) {
        throw std::runtime_error(detail::errno_message("cannot stat", path_));
    }
    return std::to_string(info.st_size);
}

void Jsonl::restore(const std::string& token) {
    off_t size = 0;
    if (!token.empty()) {
        std::size_t used = 0;
        unsigned long long parsed = 0;
        try {
            parsed = std::stoull(token, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != token.size()) {
            throw std::runtime_error("std.io.Jsonl: bad checkpoint '" + token + "' for '" + path_ +
                                     "'");
        }
        size = static_cast<off_t>(parsed);
        struct stat info{};
        if (::fstat(fd_, &info) == 0 && info.st_size < size) {
            throw std::runtime_error("std.io.Jsonl: '" + path_ + "' is shorter (" +
                                     std::to_string(info.st_size) +
                                     " bytes) than its checkpoint (" + token + ")");
        }
    }
    if (::ftruncate(fd_, size) != 0) {
        throw std::runtime_error(detail::errno_message("cannot truncate", path_));
    }
    if (::fsync(fd_) != 0) throw std::runtime_error(detail::errno_message("cannot fsync", path_));
}

}  // namespace rop::stdlib::io
