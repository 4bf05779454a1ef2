// The file I/O the result store's entry files (result_store.cpp) and packs
// (result_store_packs.cpp) share: whole reads and writes over short counts and EINTR, and the
// error a store throws when a file cannot be made, read or written.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace rop::runtime::detail {

// Throws ResultStoreError: "result store: cannot WHAT 'PATH': <errno's text>".
[[noreturn]] void fail_store_file(const std::string& what, const std::filesystem::path& path,
                                  int error);

// Reads exactly `size` bytes at `offset`; fewer only at the end of the file, or on a read error
// (a short file to the caller: corrupt, recomputed).
std::size_t read_at(int fd, char* out, std::size_t size, off_t offset);

// Writes `header` then `payload` whole (one writev while it takes them all); false on an error,
// with errno set.
bool write_all(int fd, std::string_view header, std::string_view payload);

}  // namespace rop::runtime::detail
