// ReportStream (report_stream.h): the run report, written root by root.
#include "report_stream.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace rop::runtime::detail {
namespace {

constexpr std::size_t kWriteEvery = std::size_t{1} << 20;  // bytes buffered between writes

// PATH.tmp.PID files of processes that are gone: a killed run's unfinished report.
void remove_leftovers(const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    const std::string prefix = target.filename().string() + ".tmp.";
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        const long pid = std::strtol(digits.c_str(), nullptr, 10);
        if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
            fs::remove(it->path(), ec);
        }
    }
}

}  // namespace

std::unique_ptr<ReportStream> ReportStream::open(const std::string& path, bool all_roots,
                                                 std::string& error) {
    remove_leftovers(path);
    std::string temp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = "cannot create '" + temp + "': " + std::strerror(errno);
        return nullptr;
    }
    return std::unique_ptr<ReportStream>(new ReportStream(path, std::move(temp), fd, all_roots));
}

ReportStream::ReportStream(std::string path, std::string temp, int fd, bool all_roots)
    : path_(std::move(path)), temp_(std::move(temp)), fd_(fd), all_roots_(all_roots) {
    buffer_ = "{\n  \"roots\": [";
}

ReportStream::~ReportStream() {
    if (fd_ >= 0) {
        ::close(fd_);
        ::unlink(temp_.c_str());
    }
}

void ReportStream::write_out() {
    std::size_t written = 0;
    while (error_.empty() && written < buffer_.size()) {
        const ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) error_ = "cannot write '" + temp_ + "': " + std::strerror(errno);
        if (n > 0) written += static_cast<std::size_t>(n);
    }
    buffer_.clear();
}

void ReportStream::add(const RootResult& root) {
    if (!all_roots_ && root.status != RootStatus::Failed && !root.partial) return;
    buffer_ += first_ ? "\n    " : ",\n    ";
    first_ = false;
    buffer_ += RunReport::root_json(root);
    if (buffer_.size() >= kWriteEvery) write_out();
}

std::string ReportStream::finish(const RunReport& report) {
    buffer_ += first_ ? "],\n" : "\n  ],\n";
    // The summary object's members follow the roots: "{\n  ..." without its "{\n".
    const std::string summary = report.summary_json();
    buffer_.append(summary, summary.find('\n') + 1, std::string::npos);
    write_out();
    if (error_.empty() && ::fsync(fd_) != 0) {
        error_ = "cannot write '" + temp_ + "': " + std::strerror(errno);
    }
    if (::close(fd_) != 0 && error_.empty()) {
        error_ = "cannot write '" + temp_ + "': " + std::strerror(errno);
    }
    fd_ = -1;
    if (error_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) {
        error_ = "cannot rename '" + temp_ + "' to '" + path_ + "': " + std::strerror(errno);
    }
    if (!error_.empty()) ::unlink(temp_.c_str());
    return error_;
}

}  // namespace rop::runtime::detail
