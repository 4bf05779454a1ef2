#include "driver/pch.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "driver/cache.h"
#include "driver/cache_admin.h"
#include "driver/hash.h"
#include "driver/process.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

// What the image compiles: the header every generated file includes first.
constexpr const char* kPchText = "#include \"rop/runtime/generated.h\"\n";

// In the cache's pch/KEY/ folder: the compiler refused the seed's image for KEY, so builds make
// their own there instead.
constexpr const char* kSeedRefused = "seed-refused";

}  // namespace

// The cache's pch/KEY/ folder: rop_pch.h (kPchText), its compiled image beside it and a
// manifest of the headers it read. KEY is the compiler and the flags (never a mismatching
// image: the flags that change it change KEY); the manifest's hashes say whether the headers
// changed since (then it is made again, in the same folder). May run on its own thread while
// the front half binds: reads only `settings`.
PchOutcome prepare_pch(const PchSettings& settings, std::atomic<bool>* making) {
    PchOutcome pch;
    auto note = [&](const std::string& message) {
        if (settings.verbose) pch.log += "ropc: " + message + "\n";
    };
    Hasher h;
    h.add("pch-1").add(settings.cxx).add(settings.compiler_id).add(kPchText);
    for (const std::string& flag : settings.flags) h.add(flag);
    const fs::path dir = fs::path(settings.cache_dir) / "pch" / h.hex();
    const fs::path header = dir / "rop_pch.h";
    const bool clang = settings.compiler_id.find("clang") != std::string::npos;
    const std::string image = header.string() + (clang ? ".pch" : ".gch");
    const fs::path manifest_path = dir / "manifest";
    pch.cache_dir = dir.string();
    // The image is in its own manifest by contents: a truncated or damaged one is made
    // again like one whose headers changed (hashing it costs ~20 ms, a compile seconds).
    // The cache's own first, then the seed's (made when rop was built or installed).
    auto fresh = [&](const fs::path& in) {
        const fs::path in_header = in / "rop_pch.h";
        const std::string in_image = in_header.string() + (clang ? ".pch" : ".gch");
        std::optional<std::string> text = read_whole_file(in / "manifest");
        std::optional<Manifest> m = text ? Manifest::parse(*text) : std::nullopt;
        if (!m || !m->fresh() || !fs::exists(in_header)) return false;
        pch.header = in_header.string();
        pch.image = in_image;
        for (const auto& file : m->files) {
            if (file.first != in_image) pch.files.push_back(file);
        }
        return true;
    };
    const bool old = fs::exists(manifest_path);
    if (fresh(dir)) {
        note("cache: precompiled header " + image + " unchanged");
        if (settings.mark_used) mark_used(dir);
        return pch;
    }
    if (!settings.seed_dir.empty() && !fs::exists(dir / kSeedRefused) &&
        fresh(fs::path(settings.seed_dir) / "pch" / h.hex())) {
        note("cache: precompiled header " + pch.image + " from rop's installation");
        pch.seed = true;
        return pch;
    }
    pch.made = true;
    if (making != nullptr) *making = true;
    note(old ? "cache: precompiled header " + image + " is stale, making it again"
             : "cache: making precompiled header " + image);
    std::error_code ec;
    fs::remove(manifest_path, ec);
    if (!write_file_atomically(header, kPchText)) return pch;
    const std::string temp = image + ".tmp." + std::to_string(getpid());
    const std::string deps = temp + ".d";
    std::vector<std::string> argv = {settings.cxx};
    argv.insert(argv.end(), settings.flags.begin(), settings.flags.end());
    argv.insert(argv.end(), {"-MMD", "-MF", deps, "-x", "c++-header", header.string(), "-o", temp});
    note(command_line(argv));
    const ProcessResult result = run_process(argv);
    if (result.exit_code != 0) {
        // The generated file's own compile shows what is wrong with these headers.
        note("precompiled header not made (" + result.output.substr(0, result.output.find('\n')) +
             "); compiling without it");
        fs::remove(temp, ec);
        fs::remove(deps, ec);
        return pch;
    }
    Manifest m;
    m.value = "pch";
    // Without the list of what it read, its headers could change unnoticed: not used.
    const std::optional<std::string> dep_text = read_whole_file(deps);
    fs::remove(deps, ec);
    if (dep_text) {
        for (const std::string& dep : parse_deps(*dep_text)) {
            const std::string path = absolute(dep);
            if (path != header.string()) m.add(path);
        }
    }
    if (dep_text) fs::rename(temp, image, ec);
    if (!dep_text || ec) {
        fs::remove(temp, ec);
        return pch;
    }
    pch.files = m.files;
    if (!m.add(image)) return pch;
    write_file_atomically(manifest_path, m.text());
    pch.header = header.string();
    pch.image = image;
    return pch;
}

void forget_pch(const PchOutcome& pch) {
    std::error_code ec;
    if (pch.seed) {
        fs::create_directories(pch.cache_dir, ec);
        write_file_atomically(fs::path(pch.cache_dir) / kSeedRefused, pch.image + "\n");
        return;
    }
    fs::remove(fs::path(pch.header).parent_path() / "manifest", ec);
    fs::remove(pch.image, ec);
}

bool mentions_pch(const std::string& output, const PchOutcome& pch) {
    return output.find(pch.image) != std::string::npos || output.find("PCH") != std::string::npos ||
           output.find("precompiled header") != std::string::npos ||
           output.find("internal compiler error") != std::string::npos;
}

std::string without_pch_lines(const std::string& output, const PchOutcome& pch) {
    std::string out;
    std::size_t begin = 0;
    while (begin < output.size()) {
        std::size_t end = output.find('\n', begin);
        end = end == std::string::npos ? output.size() : end + 1;
        const std::string_view line(output.data() + begin, end - begin);
        if (line.find(pch.image) == std::string_view::npos) out += line;
        begin = end;
    }
    return out;
}

void PchJob::start(PchSettings settings, bool deferred) {
    settings_ = std::move(settings);
    outcome_ = std::async(deferred ? std::launch::deferred : std::launch::async, [this] {
                   return prepare_pch(settings_, &making_);
               }).share();
}

const PchOutcome* PchJob::for_compile(std::string& log) {
    if (!outcome_.valid()) return nullptr;
    if (making_ && outcome_.wait_for(std::chrono::seconds(0)) == std::future_status::timeout) {
        if (settings_.verbose)
            log += "ropc: precompiled header not made yet, compiling without it\n";
        return nullptr;
    }
    const PchOutcome& pch = outcome_.get();
    log += pch.log;
    log_shown_ = true;
    return pch.header.empty() ? nullptr : &pch;
}

std::string PchJob::unshown_log() {
    if (!outcome_.valid() || log_shown_ ||
        outcome_.wait_for(std::chrono::seconds(0)) == std::future_status::deferred) {
        return "";
    }
    return outcome_.get().log;
}

}  // namespace rop::driver
