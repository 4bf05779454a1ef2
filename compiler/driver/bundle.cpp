#include "driver/bundle.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "driver/cache.h"
#include "driver/process.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

// A shared library the binary loads, as the loader resolves it.
struct SharedLibrary {
    std::string soname;  // libpoppler.so.126
    std::string path;    // /lib/x86_64-linux-gnu/libpoppler.so.126
};

std::optional<std::string> sha256_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    if (context == nullptr || EVP_DigestInit_ex(context, EVP_sha256(), nullptr) != 1) {
        EVP_MD_CTX_free(context);
        return std::nullopt;
    }
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        EVP_DigestUpdate(context, buffer, static_cast<std::size_t>(in.gcount()));
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context, digest, &length);
    EVP_MD_CTX_free(context);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < length; ++i) {
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 15];
    }
    return hex;
}

// The loader's resolution of every library the binary needs, direct and indirect: `ldd` (which
// runs the loader in trace mode on the binary, the same search the node's loader makes).
std::optional<std::vector<SharedLibrary>> shared_libraries(const std::string& binary,
                                                           std::string& error) {
    const ProcessResult result = run_process({"ldd", binary});
    if (result.exit_code != 0) {
        error = "ldd " + binary + " failed: " + result.spawn_error + result.output;
        return std::nullopt;
    }
    std::vector<SharedLibrary> out;
    std::istringstream lines(result.output);
    std::string line;
    std::vector<std::string> missing;
    while (std::getline(lines, line)) {
        // "\tlibX.so.1 => /path/libX.so.1 (0x...)", "\tlibX.so.1 => not found", or a line with
        // no "=>" (the vDSO, the loader itself).
        const std::size_t arrow = line.find(" => ");
        if (arrow == std::string::npos) continue;
        const std::string soname =
            line.substr(line.find_first_not_of(" \t"), arrow - line.find_first_not_of(" \t"));
        std::string rest = line.substr(arrow + 4);
        if (rest.starts_with("not found")) {
            missing.push_back(soname);
            continue;
        }
        rest = rest.substr(0, rest.find(" ("));
        if (!rest.empty()) out.push_back({soname, rest});
    }
    if (!missing.empty()) {
        error = "the binary needs libraries the loader cannot find here:";
        for (const std::string& soname : missing) error += " " + soname;
        return std::nullopt;
    }
    return out;
}

// Debian's package and version of each file, where dpkg knows it: one `dpkg -S` over every
// spelling of every path (merged /usr: dpkg records some under /lib, some under /usr/lib), then
// one `dpkg-query` for the versions. Missing dpkg (not Debian) leaves the map empty.
std::map<std::string, std::pair<std::string, std::string>> debian_packages(
    const std::vector<std::string>& paths) {
    std::map<std::string, std::string> spelling_of;  // a spelling dpkg may know -> our path
    std::vector<std::string> argv = {"dpkg", "-S"};
    for (const std::string& path : paths) {
        std::error_code ec;
        const std::string canonical = fs::canonical(path, ec).string();
        for (std::string candidate : {path, canonical}) {
            if (candidate.empty()) continue;
            for (const std::string& spelling :
                 {candidate,
                  candidate.starts_with("/usr/") ? candidate.substr(4) : "/usr" + candidate}) {
                if (spelling_of.emplace(spelling, path).second) argv.push_back(spelling);
            }
        }
    }
    std::map<std::string, std::string> package_of;  // our path -> package
    if (paths.empty()) return {};
    const ProcessResult owners = run_process(argv);
    std::istringstream lines(owners.output);
    std::string line;
    while (std::getline(lines, line)) {
        const std::size_t separator = line.find(": /");
        if (separator == std::string::npos || line.starts_with("diversion")) continue;
        const auto it = spelling_of.find(line.substr(separator + 2));
        if (it == spelling_of.end()) continue;
        std::string package = line.substr(0, separator);
        package = package.substr(0, package.find(','));  // "a, b: /path" (shared directories)
        package_of.emplace(it->second, package);
    }
    std::set<std::string> packages;
    for (const auto& [path, package] : package_of) packages.insert(package);
    std::map<std::string, std::string> version_of;
    if (!packages.empty()) {
        std::vector<std::string> query = {"dpkg-query", "-W", "-f=${binary:Package} ${Version}\n"};
        query.insert(query.end(), packages.begin(), packages.end());
        std::istringstream versions(run_process(query).output);
        while (std::getline(versions, line)) {
            const std::size_t space = line.find(' ');
            if (space == std::string::npos) continue;
            std::string package = line.substr(0, space);
            version_of[package] = line.substr(space + 1);
            // dpkg -S names a Multi-Arch: same package with its architecture, dpkg-query a
            // Multi-Arch: foreign one without: keep both spellings.
            version_of[package.substr(0, package.find(':'))] = line.substr(space + 1);
        }
    }
    std::map<std::string, std::pair<std::string, std::string>> out;
    for (const auto& [path, package] : package_of) {
        const auto version = version_of.find(package);
        const auto bare = version_of.find(package.substr(0, package.find(':')));
        out[path] = {package, version != version_of.end() ? version->second
                              : bare != version_of.end()  ? bare->second
                                                          : ""};
    }
    return out;
}

// Where the host's Tesseract keeps its language data: TESSDATA_PREFIX as Tesseract 5 reads it
// (the folder of the .traineddata files), else Debian's folder.
std::vector<fs::path> tessdata_dirs() {
    std::vector<fs::path> dirs;
    if (const char* prefix = std::getenv("TESSDATA_PREFIX"); prefix != nullptr && *prefix) {
        dirs.emplace_back(prefix);
    }
    dirs.emplace_back("/usr/share/tesseract-ocr/5/tessdata");
    dirs.emplace_back("/usr/share/tesseract-ocr/4.00/tessdata");
    dirs.emplace_back("/usr/share/tessdata");
    return dirs;
}

std::string utc_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

bool copy_file(const fs::path& from, const fs::path& to, std::string& error) {
    std::error_code ec;
    fs::create_directories(to.parent_path(), ec);
    // The contents behind a symlink, under the name the loader asks for.
    fs::copy_file(fs::canonical(from, ec), to, fs::copy_options::overwrite_existing, ec);
    if (ec) error = "cannot copy " + from.string() + " to " + to.string() + ": " + ec.message();
    return !ec;
}

// The folder bundle: `root` is created (or a previous bundle there replaced).
std::string write_folder(const BundleRequest& request, const fs::path& root,
                         std::ostream* verbose) {
    std::error_code ec;
    if (fs::exists(root, ec)) {
        const bool empty = fs::is_directory(root, ec) && fs::is_empty(root, ec);
        if (!empty && !fs::exists(root / "manifest.json", ec)) {
            return "'" + root.string() + "' exists and is not a bundle (no manifest.json)";
        }
        fs::remove_all(root, ec);
        if (ec) return "cannot replace '" + root.string() + "': " + ec.message();
    }
    fs::create_directories(root / "bin", ec);
    if (ec) return "cannot create '" + root.string() + "': " + ec.message();

    nlohmann::json manifest;
    manifest["rop_version"] = request.rop_version;
    manifest["pipeline"] = request.name;
    manifest["built_at"] = utc_now();
    manifest["binary"] = "bin/" + request.name;
    manifest["modules"] = request.modules;
    manifest["ocr_languages"] = request.ocr_languages;
    nlohmann::json files = nlohmann::json::array();
    std::string error;
    // Every file of the bundle, with where it came from.
    auto add = [&](const fs::path& from, const std::string& relative, bool executable) {
        if (!copy_file(from, root / relative, error)) return false;
        if (executable) {
            fs::permissions(root / relative, fs::perms::owner_all | fs::perms::group_read |
                                                 fs::perms::group_exec | fs::perms::others_read |
                                                 fs::perms::others_exec);
        }
        nlohmann::json entry;
        entry["path"] = relative;
        entry["sha256"] = sha256_file(root / relative).value_or("");
        entry["size"] = fs::file_size(root / relative, ec);
        entry["source"] = fs::absolute(from, ec).string();
        files.push_back(std::move(entry));
        if (verbose != nullptr) *verbose << "ropc: bundle: " << relative << "\n";
        return true;
    };

    if (!add(request.binary, "bin/" + request.name, true)) return error;
    const std::string rop_name = fs::path(request.rop_path).filename().string();
    if (!add(request.rop_path, rop_name, false)) return error;
    manifest["rop_file"] = rop_name;
    manifest["rop_sha256"] = files.back()["sha256"];

    std::vector<SharedLibrary> libraries;
    if (!request.static_binary) {
        std::optional<std::vector<SharedLibrary>> found = shared_libraries(request.binary, error);
        if (!found) return error;
        libraries = std::move(*found);
    }
    nlohmann::json left_out = nlohmann::json::array();
    for (const SharedLibrary& library : libraries) {
        if (is_base_system_library(library.soname)) {
            left_out.push_back(library.soname);
            continue;
        }
        if (!add(library.path, "lib/" + library.soname, false)) return error;
    }
    manifest["base_system_libraries"] = left_out;
    if (!request.ocr_languages.empty()) {
        const std::vector<fs::path> dirs = tessdata_dirs();
        for (const std::string& language : request.ocr_languages) {
            const std::string file = language + ".traineddata";
            const auto dir = std::find_if(dirs.begin(), dirs.end(), [&](const fs::path& d) {
                return fs::is_regular_file(d / file, ec);
            });
            if (dir == dirs.end()) {
                std::string where;
                for (const fs::path& d : dirs) where += (where.empty() ? "" : ", ") + d.string();
                return "Tesseract language '" + language + "' (" + file + ") is in none of " +
                       where + " (install tesseract-ocr-" + language + " or set TESSDATA_PREFIX)";
            }
            if (!add(*dir / file, "share/tessdata/" + file, false)) return error;
        }
    }
    // The libraries' and language data's packages ("source" is the loader's path for a
    // library: the copy reads its target).
    std::vector<std::string> sources;
    for (const nlohmann::json& entry : files) {
        const std::string path = entry["path"];
        if (path.starts_with("lib/") || path.starts_with("share/"))
            sources.push_back(entry["source"]);
    }
    const auto packages = debian_packages(sources);
    for (nlohmann::json& entry : files) {
        const auto it = packages.find(entry["source"].get<std::string>());
        if (it == packages.end()) continue;
        entry["package"] = it->second.first;
        entry["version"] = it->second.second;
    }

    std::sort(files.begin(), files.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return a["path"] < b["path"];
    });
    manifest["files"] = files;
    if (!write_file_atomically(root / "manifest.json", manifest.dump(2) + "\n")) {
        return "cannot write " + (root / "manifest.json").string();
    }
    return {};
}

}  // namespace

std::vector<std::string> bundle_link_flags() {
    return {"-Wl,--disable-new-dtags", "-Wl,-rpath,$ORIGIN/../lib"};
}

bool is_base_system_library(const std::string& soname) {
    static const char* const kBase[] = {
        // glibc (package libc6)
        "libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "libresolv.so", "libutil.so",
        "libanl.so", "libmvec.so", "libBrokenLocale.so", "libnsl.so", "libnss_", "libthread_db.so",
        "ld-linux", "linux-vdso", "linux-gate",
        // libgcc-s1
        "libgcc_s.so",
        // the GPU driver
        "libcuda.so", "libcudadebugger.so", "libnvidia-", "libnvcuvid.so", "libnvoptix.so"};
    return std::any_of(std::begin(kBase), std::end(kBase),
                       [&](const char* prefix) { return soname.starts_with(prefix); });
}

std::vector<std::string> missing_static_archives(const std::string& cxx,
                                                 const std::vector<std::string>& tokens) {
    std::vector<std::string> missing;
    for (const std::string& token : tokens) {
        const std::string archive = "lib" + token + ".a";
        // Prints the archive's path when the compiler's search finds it, else the bare name.
        const ProcessResult found = run_process({cxx, "-print-file-name=" + archive});
        std::string path = found.output.substr(0, found.output.find('\n'));
        if (found.exit_code != 0 || path == archive || !fs::exists(path)) {
            missing.push_back(archive);
        }
    }
    return missing;
}

std::string write_bundle(const BundleRequest& request, std::ostream* verbose) {
    const std::string& destination = request.destination;
    if (!destination.ends_with(".tar.gz")) return write_folder(request, destination, verbose);
    // A tarball: the folder is built next to it, packed as NAME/..., and removed.
    const fs::path tarball = fs::absolute(destination);
    const fs::path staging = tarball.parent_path() / (".rop-bundle." + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(staging, ec);
    const fs::path folder = staging / request.name;
    std::string error = write_folder(request, folder, verbose);
    if (error.empty()) {
        const std::string temp = tarball.string() + ".tmp." + std::to_string(::getpid());
        const ProcessResult packed =
            run_process({"tar", "-czf", temp, "-C", staging.string(), request.name});
        if (packed.exit_code != 0) {
            error = "tar failed: " + packed.spawn_error + packed.output;
            fs::remove(temp, ec);
        } else {
            fs::rename(temp, tarball, ec);
            if (ec) error = "cannot write '" + tarball.string() + "': " + ec.message();
        }
    }
    fs::remove_all(staging, ec);
    return error;
}

}  // namespace rop::driver
