// std.io.Files: lists the input roots from a glob, a folder or a JSONL manifest (see io.h).
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "json_error.h"
#include "rop/stdlib/io.h"

namespace rop::stdlib::io {
namespace {

namespace fs = std::filesystem;

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_uri(std::string_view path) { return path.find("://") != std::string_view::npos; }

bool has_wildcard(std::string_view text) {
    return text.find_first_of("*?[") != std::string_view::npos;
}

File plain_file(std::string path) {
    File file;
    file.name = path;
    file.path = std::move(path);
    return file;
}

std::vector<File> list_directory(const std::string& dir, const std::string& suffix,
                                 bool recursive) {
    std::vector<std::string> paths;
    std::error_code error;
    auto add = [&](const fs::directory_entry& entry) {
        std::error_code status_error;
        if (!entry.is_regular_file(status_error)) return;
        const std::string path = entry.path().string();
        if (suffix.empty() || ends_with(path, suffix)) paths.push_back(path);
    };
    if (recursive) {
        for (fs::recursive_directory_iterator it(dir, error), end; !error && it != end;
             it.increment(error)) {
            add(*it);
        }
    } else {
        for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
            add(*it);
        }
    }
    if (error) throw std::runtime_error("cannot list folder '" + dir + "': " + error.message());
    std::sort(paths.begin(), paths.end());
    std::vector<File> files;
    for (std::string& path : paths) files.push_back(plain_file(std::move(path)));
    return files;
}

std::vector<File> expand_glob(const std::string& pattern, const std::string& suffix) {
    // The folder before the first wildcard must exist: a typo there is an error, not "no input".
    const std::string_view literal =
        std::string_view(pattern).substr(0, pattern.find_first_of("*?["));
    const std::size_t slash = literal.rfind('/');
    if (slash != std::string_view::npos && slash > 0) {
        const std::string folder(literal.substr(0, slash));
        if (!fs::is_directory(folder)) {
            throw std::runtime_error("cannot read input '" + pattern + "': no folder '" + folder +
                                     "'");
        }
    }
    glob_t matches{};
    const int status = ::glob(pattern.c_str(), 0, nullptr, &matches);
    std::vector<std::string> paths;
    if (status == 0) {
        for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
            const std::string path = matches.gl_pathv[i];
            if (!suffix.empty() && !ends_with(path, suffix)) continue;
            std::error_code error;
            if (fs::is_regular_file(path, error)) {
                paths.push_back(path);
                continue;
            }
            // Skipped, but said: a folder named like the inputs is easily taken for one.
            std::cerr << "warning: std.io.Files: skipped '" << path << "', which matches '"
                      << pattern << "' but "
                      << (fs::is_directory(path, error)
                              ? "is a folder (to read the files in it, name the folder as the "
                                "input)"
                              : "is not a regular file")
                      << "\n";
        }
    }
    ::globfree(&matches);
    if (status != 0 && status != GLOB_NOMATCH) {
        throw std::runtime_error("cannot expand input pattern '" + pattern + "'");
    }
    std::sort(paths.begin(), paths.end());
    std::vector<File> files;
    for (std::string& path : paths) files.push_back(plain_file(std::move(path)));
    return files;
}

std::string metadata_text(const nlohmann::json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
}

std::vector<File> read_manifest(const std::string& manifest) {
    std::ifstream in(manifest);
    if (!in) throw std::runtime_error("cannot read manifest '" + manifest + "'");
    const fs::path base = fs::path(manifest).parent_path();
    std::vector<File> files;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = manifest + ":" + std::to_string(number) + ": ";
        nlohmann::json value;
        try {
            value = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& error) {
            throw std::runtime_error(where + "not JSON: " + detail::json_error(error));
        }
        File file;
        if (value.is_string()) {
            file.path = value.get<std::string>();
        } else if (value.is_object()) {
            for (const auto& [key, field] : value.items()) {
                if ((key == "path" || key == "uri" || key == "url") && file.path.empty()) {
                    if (!field.is_string())
                        throw std::runtime_error(where + key + " is not a string");
                    file.path = field.get<std::string>();
                } else if (key == "name" && field.is_string()) {
                    file.name = field.get<std::string>();
                } else {
                    file.metadata[key] = metadata_text(field);
                }
            }
        } else {
            throw std::runtime_error(where + "expected an object with \"path\" or a string");
        }
        if (file.path.empty()) throw std::runtime_error(where + "no \"path\", \"uri\" or \"url\"");
        if (file.name.empty()) file.name = file.path;
        if (!is_uri(file.path) && fs::path(file.path).is_relative() && !base.empty()) {
            file.path = (base / file.path).string();
        }
        files.push_back(std::move(file));
    }
    return files;
}

}  // namespace

Files::Files(std::string glob, std::string suffix, bool recursive) {
    if (glob.empty()) throw std::runtime_error("std.io.Files: empty input");
    std::error_code error;
    if (fs::is_directory(glob, error)) {
        files_ = list_directory(glob, suffix, recursive);
    } else if (ends_with(glob, ".jsonl") && !has_wildcard(glob)) {
        files_ = read_manifest(glob);
    } else if (has_wildcard(glob)) {
        files_ = expand_glob(glob, suffix);
    } else if (fs::exists(glob, error)) {
        files_.push_back(plain_file(glob));
    } else {
        throw std::runtime_error("cannot read input '" + glob + "': no such file or folder");
    }
}

std::optional<File> Files::next() {
    if (next_ >= files_.size()) return std::nullopt;
    return files_[next_++];
}

std::optional<std::size_t> Files::size_hint() const { return files_.size(); }

std::string Files::name_of(const File& item) const { return item.name; }

}  // namespace rop::stdlib::io
