// The build cache's bookkeeping: manifests (the files a cached result depends on, each with
// its content hash), atomic writes, and the dependency files (-MMD) the compiler writes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rop::driver {

// A manifest: the files a cached result depends on, each with its content hash, and a value.
struct Manifest {
    std::vector<std::pair<std::string, std::string>> files;  // path, hash
    std::string value;

    std::string text() const;
    static std::optional<Manifest> parse(const std::string& text);
    // True when every file still has the recorded contents.
    bool fresh() const;
    // Sources and headers by contents; the (large) libraries by size and modification time.
    bool add(const std::string& path);
    static std::optional<std::string> identity(const std::string& path, bool by_stat);
};

// The files a make-style dependency file (-MMD) lists after the target.
std::vector<std::string> parse_deps(const std::string& text);

// Writes through a temporary file and a rename, so a reader never sees half a file.
bool write_file_atomically(const std::filesystem::path& path, const std::string& content);
bool copy_atomically(const std::filesystem::path& from, const std::filesystem::path& to,
                     bool executable);

// `path` made absolute and normal (unchanged when that fails).
std::string absolute(const std::string& path);

}  // namespace rop::driver
