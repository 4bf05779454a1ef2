#include "cache/store_files.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "cache/result_store.h"

namespace rop::runtime::detail {

void fail_store_file(const std::string& what, const std::filesystem::path& path, int error) {
    throw ResultStoreError("result store: cannot " + what + " '" + path.string() +
                           "': " + std::error_code(error, std::system_category()).message());
}

std::size_t read_at(int fd, char* out, std::size_t size, off_t offset) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(fd, out + done, size - done, offset + static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return done;
        if (n == 0) break;
        done += static_cast<std::size_t>(n);
    }
    return done;
}

bool write_all(int fd, std::string_view header, std::string_view payload) {
    iovec parts[2] = {{const_cast<char*>(header.data()), header.size()},
                      {const_cast<char*>(payload.data()), payload.size()}};
    iovec* part = parts;
    int left = 2;
    while (left > 0) {
        const ssize_t n = ::writev(fd, part, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) {
            errno = EIO;
            return false;
        }
        std::size_t written = static_cast<std::size_t>(n);
        while (left > 0 && written >= part->iov_len) {
            written -= part->iov_len;
            ++part;
            --left;
        }
        if (left > 0) {
            part->iov_base = static_cast<char*>(part->iov_base) + written;
            part->iov_len -= written;
        }
    }
    return true;
}

}  // namespace rop::runtime::detail
