#include <openssl/evp.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/generate.h"
#include "codegen/printer.h"
#include "driver/build_info.h"
#include "driver/bundle.h"
#include "driver/cache.h"
#include "driver/cache_admin.h"
#include "driver/compile.h"
#include "driver/cxx_errors.h"
#include "driver/driver.h"
#include "driver/fingerprint.h"
#include "driver/front.h"
#include "driver/hash.h"
#include "driver/link.h"
#include "driver/pch.h"
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
        err_ << pch_.unshown_log();
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
        const PchOutcome pch = prepare_pch(pch_settings());
        err_ << pch.log;
        if (pch.header.empty()) {
            err_ << "ropc: error: could not precompile rop/runtime/generated.h with '" << cxx_
                 << "' (`ropc warm -v` shows the command; the compiler's messages come with the "
                    "first `ropc build`)\n";
            status = kErrors;
        } else {
            out_ << "precompiled rop/runtime/generated.h (" << compiler_id_ << ", -O"
                 << options_.opt_level << "): " << pch.image << (pch.made ? "" : " (unchanged)")
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

    // What generated.h's image is found or made with: the generated file's own flags.
    PchSettings pch_settings() const {
        PchSettings settings;
        settings.cxx = cxx_;
        settings.compiler_id = compiler_id_;
        settings.flags = compile_flags();
        settings.cache_dir = cache_;
        settings.seed_dir = toolchain_.seed_dir;
        settings.mark_used = mark_used_;
        settings.verbose = options_.verbose;
        return settings;
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
        if (options_.emit == BuildEmit::None) pch_.start(pch_settings(), options_.jobs == 1);
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
        const std::vector<std::string> user_files =
            pipeline_sources(*front.program, bound, options_.rop_path, options_.front.include_dirs,
                             options_.sources);
        FingerprintInputs fingerprint;
        fingerprint.rop_path = options_.rop_path;
        fingerprint.sources = user_files;
        fingerprint.include_dirs = bound.include_dirs;
        fingerprint.include_dirs.insert(fingerprint.include_dirs.end(),
                                        options_.front.include_dirs.begin(),
                                        options_.front.include_dirs.end());
        fingerprint.flags = compile_flags();
        attach_fingerprints(*front.program, bound, toolchain_, fingerprint);
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
        for (const std::string& source : user_files) {
            jobs.push_back({source, nullptr});
        }
        return compile_and_link(jobs, flags, bound);
    }

    // Every file compiles at once (at most -j at a time); the link waits for all of them.
    int compile_and_link(const std::vector<CompileJob>& jobs, const std::vector<std::string>& flags,
                         const bind::BoundProgram& bound) {
        std::vector<CompileOutcome> outcomes(jobs.size());
        const CompileSettings settings{cxx_, compiler_id_, cache_, options_.rop_path,
                                       options_.verbose};
        run_parallel(jobs.size(), options_.jobs, [&](std::size_t i) {
            outcomes[i] = compile_object(jobs[i], flags, settings);
        });
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

    // The binary, from the link cache (bin/) or linked now, copied to -o; the fast path's
    // manifest for next time; the bundle.
    int link(const bind::BoundProgram& bound, const std::vector<std::string>& objects,
             const std::vector<std::string>& object_keys, Manifest& pipeline) {
        LinkSettings settings;
        settings.cxx = cxx_;
        settings.lib_dir = toolchain_.lib_dir;
        settings.mpi = options_.front.mpi;
        settings.static_link = options_.static_link;
        settings.bundle = !options_.bundle.empty();
        const LinkLine line = link_line(bound.link, settings);
        if (!line.error.empty()) {
            err_ << "ropc: error: " << line.error << "\n";
            return kErrors;
        }
        for (const std::string& archive : line.archives) pipeline.add(archive);

        Hasher h;
        h.add("binary").add(cxx_).add(compiler_id_);
        for (const std::string& key : object_keys) h.add(key);
        for (const std::string& lib : line.libs) {
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
            const ProcessResult result =
                run_link(cxx_, objects, line.libs, temp,
                         [this](const std::string& message) { verbose(message); });
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
    PchJob pch_;  // generated.h's image, found or made while the front half binds
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
