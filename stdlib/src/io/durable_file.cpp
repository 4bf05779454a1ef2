// Durable writes for the sinks (see durable_file.h).
#include "durable_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace rop::stdlib::io::detail {

std::string errno_message(const std::string& what, const std::string& path) {
    return what + " '" + path + "': " + std::strerror(errno);
}

void ensure_directory(const std::string& dir) {
    if (dir.empty()) return;
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error || !std::filesystem::is_directory(dir)) {
        throw std::runtime_error("cannot create folder '" + dir +
                                 "': " + (error ? error.message() : "not a folder"));
    }
}

void append_all(int fd, std::string_view content, const std::string& path) {
    while (!content.empty()) {
        const ssize_t written = ::write(fd, content.data(), content.size());
        if (written < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(errno_message("cannot write", path));
        }
        content.remove_prefix(static_cast<std::size_t>(written));
    }
}

void append_durably(int fd, std::string_view content, const std::string& path) {
    append_all(fd, content, path);
    if (::fsync(fd) != 0) throw std::runtime_error(errno_message("cannot fsync", path));
}

void sync_parent_directory(const std::string& path) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) parent = ".";
    const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // best effort: some file systems do not allow opening folders
    ::fsync(fd);
    ::close(fd);
}

void remove_stale_temp_files(const std::string& dir) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        const std::size_t tag = name.rfind(".tmp-");
        if (name.empty() || name[0] != '.' || tag == std::string::npos) continue;
        const std::string pid_text = name.substr(tag + 5);
        if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
        const bool running =
            pid == ::getpid() ||
            (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH));
        if (!running) std::filesystem::remove(entry.path(), error);
    }
}

void write_file_atomically(const std::string& path, std::string_view content) {
    const std::filesystem::path target(path);
    const std::string temp = (target.parent_path() / ("." + target.filename().string() + ".tmp-" +
                                                      std::to_string(::getpid())))
                                 .string();
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(errno_message("cannot create", temp));
    try {
        append_durably(fd, content, temp);
    } catch (...) {
        ::close(fd);
        ::unlink(temp.c_str());
        throw;
    }
    ::close(fd);
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string message = errno_message("cannot rename onto", path);
        ::unlink(temp.c_str());
        throw std::runtime_error(message);
    }
    sync_parent_directory(path);
}

}  // namespace rop::stdlib::io::detail
