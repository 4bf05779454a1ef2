#include "bind/pipeline_headers.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace rop::bind {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

}  // namespace

std::optional<std::string> find_use_header(const std::string& path, const std::string& rop_dir,
                                           const std::vector<std::string>& include_dirs) {
    const fs::path written(path);
    if (written.is_absolute()) {
        return is_file(written) ? std::optional<std::string>(written.lexically_normal().string())
                                : std::nullopt;
    }
    const fs::path beside = (fs::path(rop_dir) / written).lexically_normal();
    if (is_file(beside)) return beside.string();
    for (const std::string& dir : include_dirs) {
        const fs::path candidate = (fs::path(dir) / written).lexically_normal();
        if (is_file(candidate)) return candidate.string();
    }
    return std::nullopt;
}

std::vector<std::string> stdlib_headers(const std::vector<std::string>& include_dirs) {
    std::map<std::string, std::string> by_name;
    for (const std::string& dir : include_dirs) {
        std::error_code ec;
        const fs::path folder =
            fs::absolute(fs::path(dir) / "rop" / "stdlib", ec).lexically_normal();
        if (ec || !fs::is_directory(folder, ec)) continue;
        for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
            if (entry.path().extension() != ".h" || !is_file(entry.path())) continue;
            by_name.try_emplace(entry.path().filename().string(), entry.path().string());
        }
    }
    std::vector<std::string> out;
    out.reserve(by_name.size());
    for (auto& [name, path] : by_name) out.push_back(std::move(path));
    return out;
}

std::vector<std::string> read_link_line(const std::string& path) {
    constexpr std::string_view kMarker = "// rop-link:";
    std::vector<std::string> tokens;
    std::ifstream in(path);
    std::string line;
    for (int number = 0; number < 40 && std::getline(in, line); ++number) {
        const std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line.compare(start, kMarker.size(), kMarker) != 0) {
            continue;
        }
        std::istringstream words(line.substr(start + kMarker.size()));
        for (std::string token; words >> token;) tokens.push_back(token);
    }
    return tokens;
}

}  // namespace rop::bind
