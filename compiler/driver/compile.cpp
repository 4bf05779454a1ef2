#include "driver/compile.h"

#include <unistd.h>

#include <filesystem>
#include <optional>

#include "driver/cache.h"
#include "driver/cache_admin.h"
#include "driver/hash.h"
#include "driver/process.h"

namespace rop::driver {
namespace fs = std::filesystem;

CompileOutcome compile_object(const CompileJob& job, const std::vector<std::string>& flags,
                              const CompileSettings& settings) {
    CompileOutcome outcome;
    const std::string& source = job.source;
    const std::string& cxx = settings.cxx;
    outcome.failure = job.context != nullptr
                          ? "ropc: error: the generated C++ of '" + settings.rop_path +
                                "' does not compile (see above; --keep-cpp DIR keeps it)\n"
                          : "ropc: error: " + source + " does not compile\n";
    auto note = [&](const std::string& message) {
        if (settings.verbose) outcome.log += "ropc: " + message + "\n";
    };
    std::optional<std::string> content = hash_file(source);
    if (!content) {
        outcome.log += "ropc: error: cannot read '" + source + "'\n";
        return outcome;
    }
    Hasher h;
    h.add("object").add(cxx).add(settings.compiler_id).add(source).add(*content);
    for (const std::string& flag : flags) h.add(flag);
    const std::string key = h.hex();
    const fs::path object = fs::path(settings.cache_dir) / "obj" / (key + ".o");
    const fs::path manifest_path = fs::path(settings.cache_dir) / "obj" / (key + ".manifest");
    if (std::optional<std::string> text = read_whole_file(manifest_path)) {
        std::optional<Manifest> m = Manifest::parse(*text);
        if (m && m->fresh() && fs::exists(object)) {
            note("cache: " + source + " unchanged");
            mark_used(object);
            mark_used(manifest_path);
            outcome.ok = true;
            outcome.object = object.string();
            outcome.object_key = m->value;
            outcome.files = m->files;
            return outcome;
        }
    }
    std::error_code ec;
    fs::create_directories(object.parent_path(), ec);
    const std::string temp_object = object.string() + ".tmp." + std::to_string(getpid());
    const std::string deps = temp_object + ".d";
    // The generated file with the precompiled header when there is one; without it when the
    // compiler cannot use it (it says so: -Winvalid-pch), which never fails the build.
    const PchOutcome* pch = job.pch != nullptr ? job.pch->for_compile(outcome.log) : nullptr;
    auto run = [&](bool with_pch) {
        std::vector<std::string> argv = {cxx};
        argv.insert(argv.end(), flags.begin(), flags.end());
        if (with_pch) argv.insert(argv.end(), {"-include", pch->header, "-Winvalid-pch"});
        argv.insert(argv.end(), {"-MMD", "-MF", deps, "-c", source, "-o", temp_object});
        note(command_line(argv));
        return run_process(argv);
    };
    ProcessResult result = run(pch != nullptr);
    // A compile error exits with 1; anything else (a crash reading a damaged image) or a
    // message about the image is the image's fault.
    if (pch != nullptr &&
        (mentions_pch(result.output, *pch) || (result.exit_code != 0 && result.exit_code != 1))) {
        const std::string why = result.output.substr(0, result.output.find('\n'));
        forget_pch(*pch);
        if (result.exit_code != 0) {
            note("precompiled header " + pch->image + " unusable (" + why +
                 "); compiling without it");
            pch = nullptr;
            result = run(false);
        } else {
            note("precompiled header " + pch->image + " not used (" + why +
                 "); it is made again next time");
            result.output = without_pch_lines(result.output, *pch);
        }
    }
    if (!result.spawn_error.empty()) {
        outcome.log += "ropc: error: cannot run '" + cxx + "': " + result.spawn_error + "\n";
    }
    if (!result.output.empty()) {
        outcome.log +=
            job.context != nullptr ? render_cxx_errors(result.output, *job.context) : result.output;
    }
    if (result.exit_code != 0) {
        fs::remove(deps, ec);
        fs::remove(temp_object, ec);
        return outcome;
    }
    Manifest m;
    m.files.emplace_back(source, *content);
    // What the precompiled header read is not in -MMD's list, yet the object depends on it.
    if (pch != nullptr) m.files.insert(m.files.end(), pch->files.begin(), pch->files.end());
    if (std::optional<std::string> dep_text = read_whole_file(deps)) {
        for (const std::string& dep : parse_deps(*dep_text)) {
            const std::string path = absolute(dep);
            if (path != source) m.add(path);
        }
    }
    fs::remove(deps, ec);
    // The object's identity for the link key: its inputs' contents.
    Hasher id;
    id.add(key);
    for (const auto& [path, hash] : m.files) id.add(path).add(hash);
    m.value = id.hex();
    fs::rename(temp_object, object, ec);
    if (ec) {
        outcome.log += "ropc: error: cannot write " + object.string() + "\n";
        return outcome;
    }
    write_file_atomically(manifest_path, m.text());
    outcome.ok = true;
    outcome.object = object.string();
    outcome.object_key = m.value;
    outcome.files = std::move(m.files);
    return outcome;
}

}  // namespace rop::driver
