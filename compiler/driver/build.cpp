#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/generate.h"
#include "codegen/printer.h"
#include "driver/build_info.h"
#include "driver/bundle.h"
#include "driver/cache.h"
#include "driver/cache_admin.h"
#include "driver/cxx_errors.h"
#include "driver/driver.h"
#include "driver/front.h"
#include "driver/hash.h"
#include "driver/process.h"
#include "driver/toolchain.h"
#include "sema/plan_json.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

constexpr int kOk = 0;
constexpr int kErrors = 1;
constexpr int kUsage = 2;

// The run report's rop_hash: "sha256:<hex>" of the pipeline's text, the digest `sha256sum
// x.rop` prints (and a bundle's manifest.json records as rop_sha256).
std::string rop_sha256(std::string_view text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
        return "";
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "sha256:";
    for (unsigned int i = 0; i < length; ++i) {
        out += kHex[digest[i] >> 4];
        out += kHex[digest[i] & 15];
    }
    return out;
}

// The precompiled header the generated file is compiled with: rop/runtime/generated.h (the
// runtime and standard headers every pipeline includes first), made once per compiler, flags
// and header contents in the cache's pch/ folder and shared by every pipeline built so.
constexpr const char* kPchText = "#include \"rop/runtime/generated.h\"\n";

struct PchOutcome {
    std::string header;  // what -include names (the compiled image lies beside it); empty: none
    std::string image;   // header + ".gch" (GCC) or ".pch" (Clang)
    std::vector<std::pair<std::string, std::string>> files;  // the headers it read
    std::string log;                                         // -v lines
    std::string cache_dir;  // the cache's pch/KEY/ folder (where a seed's refusal is noted)
    bool seed = false;      // header is the seed's (Toolchain::seed_dir): never written
};

// In the cache's pch/KEY/ folder: the compiler refused the seed's image for KEY, so builds make
// their own there instead.
constexpr const char* kSeedRefused = "seed-refused";

// One C++ file to compile: the generated one (with `context`, to map its errors to the .rop
// file, and the precompiled header when there is one), a `use` header's sibling .cpp or a
// --src file.
struct CompileJob {
    std::string source;
    const CxxErrorContext* context = nullptr;
    std::shared_future<PchOutcome>* pch = nullptr;
};

// Whether a failed or noisy compile's output is about the precompiled header (stale, truncated,
// made by another compiler, or GCC crashing on a damaged one) rather than about the code.
bool mentions_pch(const std::string& output, const PchOutcome& pch) {
    return output.find(pch.image) != std::string::npos || output.find("PCH") != std::string::npos ||
           output.find("precompiled header") != std::string::npos ||
           output.find("internal compiler error") != std::string::npos;
}

// `output` without the lines that name the precompiled header (-Winvalid-pch's warnings).
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

// What compiling one file produced. Jobs run concurrently: each fills only its own outcome, and
// the outcomes are reported in job order, so the output does not depend on the schedule.
struct CompileOutcome {
    bool ok = false;
    std::string object;
    std::string object_key;                                  // the object's inputs, hashed
    std::vector<std::pair<std::string, std::string>> files;  // what it read, for the manifest
    std::string log;      // -v lines and the compiler's messages, rendered
    std::string failure;  // the summary line when !ok
};

class Builder {
  public:
    Builder(const BuildOptions& options, std::ostream& out, std::ostream& err)
        : options_(options), out_(out), err_(err) {}

    int run() {
        toolchain_ = find_toolchain();
        cxx_ = find_host_compiler(options_.cxx);
        if (options_.emit == BuildEmit::None) {
            if (options_.output.empty() && options_.bundle.empty()) {
                return usage("build needs -o OUTPUT");
            }
            cache_ = cache_dir(options_.front.cache_dir);
            std::string limit_error;
            cache_limit_ = cache_limit(&limit_error);
            if (!cache_limit_) return usage(limit_error);
            if (!compiler_identity()) return kUsage;
            // --keep-cpp wants the generated file written, --bundle what binding finds (the OCR
            // languages): take the full path (still cached).
            if (options_.keep_cpp_dir.empty() && options_.bundle.empty() && try_fast_path()) {
                return kOk;
            }
        }
        const int status = full_build();
        // A precompiled header the build did not wait for: its -v lines once it is made.
        if (pch_.valid() && !pch_log_shown_ &&
            pch_.wait_for(std::chrono::seconds(0)) != std::future_status::deferred) {
            err_ << pch_.get().log;
        }
        if (status == kOk && options_.emit == BuildEmit::None) keep_cache_limit();
        return status;
    }

    // A build that added to the cache keeps it within ROP_CACHE_MAX_SIZE: past it, the least
    // recently used entries go until 80% of it is left (so that not every build prunes). What
    // this build used is recent and stays.
    void keep_cache_limit() {
        if (!cache_limit_ || *cache_limit_ == 0) return;
        std::uintmax_t total = 0;
        for (const CacheEntry& entry : list_cache(cache_)) total += entry.bytes;
        if (total <= *cache_limit_) return;
        PruneOptions prune;
        prune.max_bytes = *cache_limit_ / 5 * 4;
        const PruneResult result = prune_cache(cache_, prune);
        verbose("cache: " + format_bytes(total) + " is over ROP_CACHE_MAX_SIZE (" +
                format_bytes(*cache_limit_) + "): removed " +
                std::to_string(result.removed.size()) + " least recently used entries (" +
                format_bytes(result.freed) + "), " + format_bytes(result.left_bytes) + " left");
        for (const std::string& error : result.errors) {
            err_ << "ropc: warning: cannot remove " << error << " from the cache\n";
        }
    }

    // `ropc warm`: generated.h's image for this compiler and -O, then binding's prelude (made
    // by binding a pipeline that reads only the stdlib, as every binding reads it first, so its
    // key is the one checks and builds look up). What is made is the target folder's own: a
    // seed is not consulted.
    int warm(const WarmOptions& warm) {
        toolchain_ = find_toolchain();
        toolchain_.seed_dir.clear();
        mark_used_ = false;  // --into may be a seed, which is never touched
        cxx_ = find_host_compiler(options_.cxx);
        cache_ = cache_dir(warm.into);  // no --into: the user's cache
        if (!compiler_identity()) return kUsage;
        int status = kOk;
        const PchOutcome pch = prepare_pch();
        err_ << pch.log;
        if (pch.header.empty()) {
            err_ << "ropc: error: could not precompile rop/runtime/generated.h with '" << cxx_
                 << "' (`ropc warm -v` shows the command; the compiler's messages come with the "
                    "first `ropc build`)\n";
            status = kErrors;
        } else {
            out_ << "precompiled rop/runtime/generated.h (" << compiler_id_ << ", -O"
                 << options_.opt_level << "): " << pch.image << (pch_making_ ? "" : " (unchanged)")
                 << "\n";
        }
        SourceManager sources;
        const FileId file = sources.add_buffer(
            (fs::path(cache_) / "warm.rop").string(),
            "pipeline warm;\nsource _files : File = std.io.Files(glob: \"*\");\n");
        FrontOptions front;
        front.cache_dir = cache_;
        front.mark_cache_used = false;
        const FrontResult result = run_front(file, sources, front, toolchain_);
        print_text_diagnostics(sources, result.diagnostics, ColorMode::Never, err_);
        const fs::path bind_dir = fs::path(cache_) / "bind";
        std::error_code ec;
        bool prelude = false;
        for (fs::directory_iterator it(bind_dir, ec), end; !ec && it != end; it.increment(ec)) {
            prelude = prelude || it->path().filename().string().starts_with("rop-bind-prelude-");
        }
        // A seed is read by every user of the installation (Clang makes bind/ private).
        if (!warm.into.empty()) {
            for (const fs::path& dir : {fs::path(cache_), bind_dir, fs::path(cache_) / "pch"}) {
                fs::permissions(dir,
                                fs::perms::group_read | fs::perms::group_exec |
                                    fs::perms::others_read | fs::perms::others_exec,
                                fs::perm_options::add, ec);
            }
        }
        if (!result.bound || !prelude) {
            err_ << "ropc: error: could not make binding's precompiled prelude in "
                 << bind_dir.string() << " (`ropc check` still works, reading every header)\n";
            status = kErrors;
        } else {
            out_ << "binding's precompiled prelude: " << bind_dir.string() << "\n";
        }
        return status;
    }

  private:
    int usage(const std::string& message) {
        err_ << "ropc: error: " << message << "\n";
        return kUsage;
    }

    void verbose(const std::string& message) {
        if (options_.verbose) err_ << "ropc: " << message << "\n";
    }

    // `cxx --version`'s first line, and the compiler's resolved path: part of every key.
    bool compiler_identity() {
        const ProcessResult version = run_process({cxx_, "--version"});
        if (version.exit_code != 0) {
            err_ << "ropc: error: cannot run the C++ compiler '" << cxx_ << "'"
                 << (version.spawn_error.empty() ? "" : ": " + version.spawn_error)
                 << " (set --cxx or ROP_CXX)\n";
            return false;
        }
        compiler_id_ = version.output.substr(0, version.output.find('\n'));
        return true;
    }

    std::vector<std::string> compile_flags() const {
        std::vector<std::string> flags = {"-std=c++20", "-O" + options_.opt_level,
                                          "-fdiagnostics-color=never"};
        for (const std::string& dir : toolchain_.include_dirs) flags.push_back("-I" + dir);
        return flags;
    }

    // The key of everything but the headers' and sources' contents (which the manifest holds).
    std::string fast_key() const {
        Hasher h;
        h.add("rop-build-2").add(toolchain_.ropc_path);
        std::error_code ec;
        const auto size = fs::file_size(toolchain_.ropc_path, ec);
        const auto time = fs::last_write_time(toolchain_.ropc_path, ec);
        h.add(std::to_string(size)).add(std::to_string(time.time_since_epoch().count()));
        h.add(cxx_).add(compiler_id_).add(absolute(options_.rop_path)).add(options_.opt_level);
        // Diagnostics options change what a build accepts (-Werror) and prints.
        h.add(options_.front.warnings_as_errors ? "-Werror" : "")
            .add(std::to_string(options_.front.max_errors));
        for (const std::string& dir : options_.front.include_dirs) h.add("-I").add(absolute(dir));
        for (const std::string& src : options_.sources) h.add("--src").add(absolute(src));
        for (const std::string& dir : toolchain_.include_dirs) h.add(dir);
        h.add(toolchain_.lib_dir);
        h.add(options_.bundle.empty() ? "" : "--bundle")
            .add(options_.static_link ? "--static" : "")
            .add(options_.front.mpi ? "--mpi" : "");
        return h.hex();
    }

    fs::path fast_manifest_path() const {
        return fs::path(cache_) / "pipelines" / (fast_key() + ".manifest");
    }

    // Unchanged pipeline, headers, sources, libraries and compiler: copy the cached binary.
    bool try_fast_path() {
        std::optional<std::string> text = read_whole_file(fast_manifest_path());
        if (!text) return false;
        std::optional<Manifest> manifest = Manifest::parse(*text);
        if (!manifest || !manifest->fresh()) {
            verbose("cache: pipeline changed, rebuilding");
            return false;
        }
        const fs::path binary = fs::path(cache_) / "bin" / manifest->value;
        if (!fs::exists(binary)) return false;
        if (!copy_atomically(binary, options_.output, true)) return false;
        // What the fast path needs next time: the manifest, the binary, and the generated file
        // the manifest lists (it is in the cache's gen/).
        mark_used(fast_manifest_path());
        mark_used(binary);
        const std::string gen_prefix = (fs::path(cache_) / "gen").string() + "/";
        for (const auto& file : manifest->files) {
            if (file.first.starts_with(gen_prefix)) mark_used(fs::path(file.first).parent_path());
        }
        verbose("cache: unchanged, copied " + binary.string());
        return true;
    }

    int full_build() {
        // The precompiled header does not depend on the pipeline: it is found (or made) while
        // the front half parses and binds, on another core. With -j 1, when the generated file
        // needs it. The process waits for one being made before it exits.
        if (options_.emit == BuildEmit::None) {
            pch_ =
                std::async(options_.jobs == 1 ? std::launch::deferred : std::launch::async, [this] {
                    return prepare_pch();
                }).share();
        }
        SourceManager sources;
        std::string error;
        const std::optional<FileId> file = sources.add_file(options_.rop_path, &error);
        if (!file) return usage(error);
        FrontOptions front_options = options_.front;
        front_options.bind = true;
        if (!cache_.empty()) front_options.cache_dir = cache_;
        const FrontResult front = run_front(*file, sources, front_options, toolchain_);
        print_text_diagnostics(sources, front.diagnostics, options_.front.color, err_);
        // -Werror: a warning stops the build like an error.
        if (front.has_errors || !front.bound) return kErrors;
        const bind::BoundProgram& bound = *front.bound;
        if (options_.emit == BuildEmit::Plan) {
            out_ << sema::plan_json(*front.program, sources);
            return kOk;
        }

        const std::string stem = fs::path(options_.rop_path).stem().string();
        const std::string generated_name = stem + ".generated.cpp";
        codegen::GenerateOptions gen_options;
        gen_options.cpp_file = generated_name;
        gen_options.rop_file = options_.rop_path;
        gen_options.version = std::string("built by ropc ") + ROP_VERSION;
        gen_options.every_call_crosses = options_.front.mpi;
        gen_options.rop_hash = rop_sha256(sources.text(*file));
        codegen::GeneratedCode generated = codegen::generate(bound, sources, gen_options);

        // --keep-cpp and --emit=cpp give the same file: the generated code alone.
        if (!options_.keep_cpp_dir.empty()) {
            const fs::path kept = fs::path(options_.keep_cpp_dir) / generated_name;
            if (!write_file_atomically(kept, generated.code)) {
                return usage("cannot write " + kept.string());
            }
        }
        if (options_.emit == BuildEmit::Cpp) {
            out_ << generated.code;
            return kOk;
        }
        // What the binary's --selfcheck needs from the build, after the generated code (its line
        // map is unchanged).
        generated.code += build_info_source(stdlib_modules(bound), ocr_languages(bound));

        // The generated file, named by its contents so that identical code compiles once.
        const fs::path gen_dir = fs::path(cache_) / "gen" / hash_bytes(generated.code);
        const fs::path gen_path = gen_dir / generated_name;
        if (fs::exists(gen_path)) {
            mark_used(gen_dir);
        } else if (!write_file_atomically(gen_path, generated.code)) {
            return usage("cannot write " + gen_path.string());
        }

        std::vector<std::string> flags = compile_flags();
        for (const std::string& dir : bound.include_dirs) flags.push_back("-I" + absolute(dir));
        for (const std::string& dir : options_.front.include_dirs) {
            flags.push_back("-I" + absolute(dir));
        }

        CxxErrorContext context;
        context.generated_name = generated_name;
        context.rop_file = options_.rop_path;
        context.line_map = &generated.line_map;
        context.sources = &sources;
        context.rop_id = *file;
        std::vector<CompileJob> jobs = {{gen_path.string(), &context, &pch_}};
        for (const std::string& source : user_sources(*front.program, bound)) {
            jobs.push_back({source, nullptr});
        }
        return compile_and_link(jobs, flags, bound);
    }

    // Every file compiles at once (at most -j at a time); the link waits for all of them.
    int compile_and_link(const std::vector<CompileJob>& jobs, const std::vector<std::string>& flags,
                         const bind::BoundProgram& bound) {
        std::vector<CompileOutcome> outcomes(jobs.size());
        run_parallel(jobs.size(), options_.jobs,
                     [&](std::size_t i) { outcomes[i] = compile(jobs[i], flags); });
        Manifest pipeline;  // what the fast path checks next time
        pipeline.add(absolute(options_.rop_path));
        std::vector<std::string> objects;
        std::vector<std::string> object_keys;
        bool failed = false;
        for (const CompileOutcome& outcome : outcomes) {
            err_ << outcome.log;
            if (!outcome.ok) {
                err_ << outcome.failure;
                failed = true;
                continue;
            }
            pipeline.files.insert(pipeline.files.end(), outcome.files.begin(), outcome.files.end());
            objects.push_back(outcome.object);
            object_keys.push_back(outcome.object_key);
        }
        if (failed) return kErrors;
        return link(bound, objects, object_keys, pipeline);
    }

    // Each `use "X.hpp"`'s sibling X.cpp (when it exists), then the --src files; each file once.
    std::vector<std::string> user_sources(const sema::CheckedProgram& program,
                                          const bind::BoundProgram& bound) const {
        std::vector<std::string> out;
        std::set<std::string> seen;
        auto add = [&](const std::string& path) {
            if (seen.insert(path).second) out.push_back(path);
        };
        std::vector<std::string> dirs = {
            fs::path(absolute(options_.rop_path)).parent_path().string()};
        for (const std::string& dir : bound.include_dirs) dirs.push_back(absolute(dir));
        for (const std::string& dir : options_.front.include_dirs) dirs.push_back(absolute(dir));
        for (const std::string& use : program.uses) {
            for (const std::string& dir : dirs) {
                const fs::path header = fs::path(dir) / use;
                if (!fs::exists(header)) continue;
                fs::path source = header;
                source.replace_extension(".cpp");
                if (fs::exists(source)) add(source.lexically_normal().string());
                break;
            }
        }
        for (const std::string& src : options_.sources) add(absolute(src));
        return out;
    }

    // Compiles one file into the object cache (or finds it there). Runs on a worker thread:
    // reads only the builder's settings and writes only its result.
    CompileOutcome compile(const CompileJob& job, const std::vector<std::string>& flags) const {
        CompileOutcome outcome;
        const std::string& source = job.source;
        outcome.failure = job.context != nullptr
                              ? "ropc: error: the generated C++ of '" + options_.rop_path +
                                    "' does not compile (see above; --keep-cpp DIR keeps it)\n"
                              : "ropc: error: " + source + " does not compile\n";
        auto note = [&](const std::string& message) {
            if (options_.verbose) outcome.log += "ropc: " + message + "\n";
        };
        std::optional<std::string> content = hash_file(source);
        if (!content) {
            outcome.log += "ropc: error: cannot read '" + source + "'\n";
            return outcome;
        }
        Hasher h;
        h.add("object").add(cxx_).add(compiler_id_).add(source).add(*content);
        for (const std::string& flag : flags) h.add(flag);
        const std::string key = h.hex();
        const fs::path object = fs::path(cache_) / "obj" / (key + ".o");
        const fs::path manifest_path = fs::path(cache_) / "obj" / (key + ".manifest");
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
        // One being made is not waited for: that would cost more than it saves (made while the
        // front half binds, it is ready for the next build).
        const PchOutcome* pch = nullptr;
        if (job.pch != nullptr && job.pch->valid()) {
            if (pch_making_ &&
                job.pch->wait_for(std::chrono::seconds(0)) == std::future_status::timeout) {
                note("precompiled header not made yet, compiling without it");
            } else {
                pch = &job.pch->get();
                outcome.log += pch->log;
                pch_log_shown_ = true;
                if (pch->header.empty()) pch = nullptr;
            }
        }
        auto run = [&](bool with_pch) {
            std::vector<std::string> argv = {cxx_};
            argv.insert(argv.end(), flags.begin(), flags.end());
            if (with_pch) argv.insert(argv.end(), {"-include", pch->header, "-Winvalid-pch"});
            argv.insert(argv.end(), {"-MMD", "-MF", deps, "-c", source, "-o", temp_object});
            note(command_line(argv));
            return run_process(argv);
        };
        ProcessResult result = run(pch != nullptr);
        // A compile error exits with 1; anything else (a crash reading a damaged image) or a
        // message about the image is the image's fault.
        if (pch != nullptr && (mentions_pch(result.output, *pch) ||
                               (result.exit_code != 0 && result.exit_code != 1))) {
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
            outcome.log += "ropc: error: cannot run '" + cxx_ + "': " + result.spawn_error + "\n";
        }
        if (!result.output.empty()) {
            outcome.log += job.context != nullptr ? render_cxx_errors(result.output, *job.context)
                                                  : result.output;
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

    // The cache's pch/KEY/ folder: rop_pch.h (kPchText), its compiled image beside it and a
    // manifest of the headers it read. KEY is the compiler and the flags (never a mismatching
    // image: the flags that change it change KEY); the manifest's hashes say whether the headers
    // changed since (then it is made again, in the same folder). Runs on its own thread while
    // the front half binds: reads only the builder's settings. Nothing when it cannot be made.
    PchOutcome prepare_pch() const {
        PchOutcome pch;
        auto note = [&](const std::string& message) {
            if (options_.verbose) pch.log += "ropc: " + message + "\n";
        };
        const std::vector<std::string> flags = compile_flags();
        Hasher h;
        h.add("pch-1").add(cxx_).add(compiler_id_).add(kPchText);
        for (const std::string& flag : flags) h.add(flag);
        const fs::path dir = fs::path(cache_) / "pch" / h.hex();
        const fs::path header = dir / "rop_pch.h";
        const bool clang = compiler_id_.find("clang") != std::string::npos;
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
            if (mark_used_) mark_used(dir);
            return pch;
        }
        if (!toolchain_.seed_dir.empty() && !fs::exists(dir / kSeedRefused) &&
            fresh(fs::path(toolchain_.seed_dir) / "pch" / h.hex())) {
            note("cache: precompiled header " + pch.image + " from rop's installation");
            pch.seed = true;
            return pch;
        }
        pch_making_ = true;
        note(old ? "cache: precompiled header " + image + " is stale, making it again"
                 : "cache: making precompiled header " + image);
        std::error_code ec;
        fs::remove(manifest_path, ec);
        if (!write_file_atomically(header, kPchText)) return pch;
        const std::string temp = image + ".tmp." + std::to_string(getpid());
        const std::string deps = temp + ".d";
        std::vector<std::string> argv = {cxx_};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(),
                    {"-MMD", "-MF", deps, "-x", "c++-header", header.string(), "-o", temp});
        note(command_line(argv));
        const ProcessResult result = run_process(argv);
        if (result.exit_code != 0) {
            // The generated file's own compile shows what is wrong with these headers.
            note("precompiled header not made (" +
                 result.output.substr(0, result.output.find('\n')) + "); compiling without it");
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

    // An image the compiler would not use: dropped, so the next build makes it again. The
    // seed's is left as it is (it may be read-only, and shared): the cache notes the refusal
    // and makes its own from then on.
    static void forget_pch(const PchOutcome& pch) {
        std::error_code ec;
        if (pch.seed) {
            fs::create_directories(pch.cache_dir, ec);
            write_file_atomically(fs::path(pch.cache_dir) / kSeedRefused, pch.image + "\n");
            return;
        }
        fs::remove(fs::path(pch.header).parent_path() / "manifest", ec);
        fs::remove(pch.image, ec);
    }

    int link(const bind::BoundProgram& bound, const std::vector<std::string>& objects,
             const std::vector<std::string>& object_keys, Manifest& pipeline) {
        std::vector<std::string> libs;
        for (const std::string& token : bound.link) {
            if (token.rfind("rop_", 0) == 0) {
                const std::string archive =
                    (fs::path(toolchain_.lib_dir) / ("lib" + token + ".a")).string();
                if (!fs::exists(archive)) {
                    err_ << "ropc: error: library '" << archive << "' (rop-link: " << token
                         << ") does not exist\n";
                    return kErrors;
                }
                libs.push_back(archive);
                pipeline.add(archive);
            } else {
                libs.push_back("-l" + token);
            }
        }
        const std::string runtime = (fs::path(toolchain_.lib_dir) / "librop_runtime.a").string();
        if (!fs::exists(runtime)) {
            err_ << "ropc: error: the runtime library '" << runtime << "' does not exist\n";
            return kErrors;
        }
        if (options_.front.mpi) {  // before the runtime, whose weak reference it satisfies
            const std::string mpi =
                (fs::path(toolchain_.lib_dir) / "librop_runtime_mpi.a").string();
            if (!fs::exists(mpi)) {
                err_ << "ropc: error: --mpi: the MPI executor '" << mpi
                     << "' was not built (rop was configured without Open MPI: install "
                        "libopenmpi-dev and rebuild rop)\n";
                return kErrors;
            }
            libs.push_back(mpi);
            pipeline.add(mpi);
            libs.push_back("-Wl,--undefined=rop_mpi_runtime");
        }
        libs.push_back(runtime);
        pipeline.add(runtime);
        if (options_.front.mpi) {
            // Open MPI's own wrapper knows where its library is (Debian: a private lib folder).
            const ProcessResult flags = run_process({"mpicc", "--showme:link"});
            if (flags.exit_code != 0) {
                err_ << "ropc: error: --mpi: cannot ask Open MPI for its link flags (`mpicc "
                        "--showme:link`"
                     << (flags.spawn_error.empty() ? "" : ": " + flags.spawn_error)
                     << "); install libopenmpi-dev\n";
                return kErrors;
            }
            std::istringstream words(flags.output);
            for (std::string word; words >> word;) libs.push_back(word);
        }
        libs.push_back("-pthread");
        if (!options_.bundle.empty()) {
            for (const std::string& flag : bundle_link_flags()) libs.push_back(flag);
        }
        if (options_.static_link) {
            std::vector<std::string> system;
            for (const std::string& token : bound.link) {
                if (!token.starts_with("rop_")) system.push_back(token);
            }
            const std::vector<std::string> missing = missing_static_archives(cxx_, system);
            if (!missing.empty()) {
                err_ << "ropc: error: --static: no static archive for";
                for (const std::string& archive : missing) err_ << " " << archive;
                err_ << " (the `// rop-link:` libraries of the stdlib modules used; Debian ships "
                        "these only as shared libraries): use --bundle DIR instead "
                        "(docs/shipping.md)\n";
                return kErrors;
            }
            libs.push_back("-static");
        }

        // LLVM's linker when there is one: the link is on every build's critical path and
        // lld does it in half GNU ld's time (B5 in docs/benchmarks.md).
        if (on_path("ld.lld")) libs.push_back("-fuse-ld=lld");

        Hasher h;
        h.add("binary").add(cxx_).add(compiler_id_);
        for (const std::string& key : object_keys) h.add(key);
        for (const std::string& lib : libs) {
            h.add(lib);
            if (lib.ends_with(".a")) h.add(Manifest::identity(lib, true).value_or(""));
        }
        const std::string key = h.hex();
        const fs::path binary = fs::path(cache_) / "bin" / key;
        if (fs::exists(binary)) {
            mark_used(binary);
        } else {
            std::error_code ec;
            fs::create_directories(binary.parent_path(), ec);
            const std::string temp = binary.string() + ".tmp." + std::to_string(getpid());
            std::vector<std::string> argv = {cxx_};
            argv.insert(argv.end(), objects.begin(), objects.end());
            argv.insert(argv.end(), libs.begin(), libs.end());
            argv.insert(argv.end(), {"-o", temp});
            verbose(command_line(argv));
            ProcessResult result = run_process(argv);
            // A compiler that does not know -fuse-ld=lld links with its own linker.
            if (result.exit_code != 0 && libs.back() == "-fuse-ld=lld" &&
                result.output.find("-fuse-ld") != std::string::npos) {
                argv.erase(std::find(argv.begin(), argv.end(), "-fuse-ld=lld"));
                verbose("the C++ compiler does not take -fuse-ld=lld: " + command_line(argv));
                result = run_process(argv);
            }
            if (result.exit_code != 0) {
                err_ << result.output
                     << (result.spawn_error.empty() ? ""
                                                    : "ropc: error: cannot run '" + cxx_ +
                                                          "': " + result.spawn_error + "\n")
                     << "ropc: error: linking '" << options_.output << "' failed\n";
                fs::remove(temp, ec);
                return kErrors;
            }
            fs::rename(temp, binary, ec);
            if (ec) return usage("cannot write " + binary.string());
        }
        if (!options_.output.empty() && !copy_atomically(binary, options_.output, true)) {
            return usage("cannot write '" + options_.output + "'");
        }
        pipeline.value = key;
        write_file_atomically(fast_manifest_path(), pipeline.text());
        return options_.bundle.empty() ? kOk : bundle(bound, binary);
    }

    int bundle(const bind::BoundProgram& bound, const fs::path& binary) {
        BundleRequest request;
        request.destination = options_.bundle;
        request.binary = binary.string();
        request.name = options_.output.empty() ? fs::path(options_.rop_path).stem().string()
                                               : fs::path(options_.output).filename().string();
        request.rop_path = options_.rop_path;
        request.rop_version = ROP_VERSION;
        request.ocr_languages = ocr_languages(bound);
        request.modules = stdlib_modules(bound);
        request.static_binary = options_.static_link;
        const std::string error = write_bundle(request, options_.verbose ? &err_ : nullptr);
        if (!error.empty()) {
            err_ << "ropc: error: --bundle " << options_.bundle << ": " << error << "\n";
            return kErrors;
        }
        return kOk;
    }

    const BuildOptions& options_;
    std::ostream& out_;
    std::ostream& err_;
    Toolchain toolchain_;
    std::string cxx_;
    std::string compiler_id_;
    std::string cache_;
    std::optional<std::uintmax_t> cache_limit_;  // ROP_CACHE_MAX_SIZE (0: none)
    bool mark_used_ = true;                      // mark the cache entries a build reuses
    std::shared_future<PchOutcome> pch_;
    mutable std::atomic<bool> pch_making_{false};     // pch_ is being made, not just found
    mutable std::atomic<bool> pch_log_shown_{false};  // its -v lines are printed
};

}  // namespace

int warm(const WarmOptions& options, std::ostream& out, std::ostream& err) {
    BuildOptions build;
    build.cxx = options.cxx;
    build.opt_level = options.opt_level;
    build.verbose = options.verbose;
    return Builder(build, out, err).warm(options);
}

int build(const BuildOptions& options, std::ostream& out, std::ostream& err) {
    try {
        return Builder(options, out, err).run();
    } catch (const codegen::CodegenError& e) {
        err << "ropc: internal compiler error: " << e.what() << "\n";
        return 3;
    }
}

}  // namespace rop::driver
