#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "codegen/generate.h"
#include "codegen/printer.h"
#include "driver/cxx_errors.h"
#include "driver/driver.h"
#include "driver/hash.h"
#include "frontend/parser.h"
#include "sema/sema.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

constexpr int kOk = 0;
constexpr int kErrors = 1;
constexpr int kUsage = 2;

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

std::string command_line(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& arg : argv) {
        if (!out.empty()) out += ' ';
        out += shell_quote(arg);
    }
    return out;
}

struct ProcessResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

ProcessResult run_process(const std::vector<std::string>& argv) {
    ProcessResult result;
    const std::string command = command_line(argv) + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    return result;
}

bool write_file_atomically(const fs::path& path, const std::string& content) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path temp = path.string() + ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) return false;
        out << content;
        if (!out.flush()) return false;
    }
    fs::rename(temp, path, ec);
    return !ec;
}

bool copy_atomically(const fs::path& from, const fs::path& to, bool executable) {
    std::error_code ec;
    if (!to.parent_path().empty()) fs::create_directories(to.parent_path(), ec);
    const fs::path temp = to.string() + ".tmp." + std::to_string(getpid());
    fs::copy_file(from, temp, fs::copy_options::overwrite_existing, ec);
    if (ec) return false;
    if (executable) {
        fs::permissions(temp,
                        fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec,
                        ec);
    }
    fs::rename(temp, to, ec);
    if (ec) {
        fs::remove(temp, ec);
        return false;
    }
    return true;
}

std::string self_path() {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : self.string();
}

// The files a make-style dependency file (-MMD) lists after the target.
std::vector<std::string> parse_deps(const std::string& text) {
    std::vector<std::string> files;
    const std::size_t colon = text.find(": ");
    if (colon == std::string::npos) return files;
    std::string current;
    for (std::size_t i = colon + 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            continue;
        }
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
            current += ' ';
            ++i;
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\t') {
            if (!current.empty()) files.push_back(current);
            current.clear();
            if (c == '\n' && i + 1 < text.size() && text[i + 1] != ' ') break;
            continue;
        }
        current += c;
    }
    if (!current.empty()) files.push_back(current);
    return files;
}

// A manifest: the files a cached result depends on, each with its content hash, and a value.
struct Manifest {
    std::vector<std::pair<std::string, std::string>> files;  // path, hash
    std::string value;

    std::string text() const {
        std::string out = "value " + value + "\n";
        for (const auto& [path, hash] : files) out += hash + " " + path + "\n";
        return out;
    }
    static std::optional<Manifest> parse(const std::string& text) {
        Manifest m;
        std::istringstream in(text);
        std::string line;
        if (!std::getline(in, line) || line.rfind("value ", 0) != 0) return std::nullopt;
        m.value = line.substr(6);
        while (std::getline(in, line)) {
            if (line.size() < 34) return std::nullopt;
            m.files.emplace_back(line.substr(33), line.substr(0, 32));
        }
        return m;
    }
    // True when every file still has the recorded contents.
    bool fresh() const {
        for (const auto& [path, hash] : files) {
            std::optional<std::string> now = identity(path, hash.starts_with("s"));
            if (!now || *now != hash) return false;
        }
        return true;
    }
    // Sources and headers by contents; the (large) libraries by size and modification time.
    bool add(const std::string& path) {
        std::optional<std::string> hash = identity(path, path.ends_with(".a"));
        if (!hash) return false;
        files.emplace_back(path, *hash);
        return true;
    }
    static std::optional<std::string> identity(const std::string& path, bool by_stat) {
        if (!by_stat) return hash_file(path);
        std::error_code ec;
        const auto size = fs::file_size(path, ec);
        if (ec) return std::nullopt;
        const auto time = fs::last_write_time(path, ec);
        if (ec) return std::nullopt;
        // 32 characters like a content hash, starting with 's' (hex digits never do).
        char buffer[40];
        std::snprintf(buffer, sizeof buffer, "s%015llx%016llx",
                      static_cast<unsigned long long>(size) & 0xfffffffffffffffull,
                      static_cast<unsigned long long>(time.time_since_epoch().count()));
        return std::string(buffer);
    }
};

std::string absolute(const std::string& path) {
    std::error_code ec;
    fs::path p = fs::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

class Builder {
  public:
    Builder(const BuildOptions& options, std::ostream& out, std::ostream& err)
        : options_(options), out_(out), err_(err) {}

    int run() {
        toolchain_ = find_toolchain();
        cxx_ = options_.cxx;
        if (cxx_.empty()) {
            const char* env = std::getenv("ROP_CXX");
            cxx_ = env != nullptr && *env != '\0' ? env : "c++";
        }
        if (!options_.emit_cpp) {
            if (options_.output.empty()) return usage("build needs -o OUTPUT");
            cache_ = cache_dir(options_);
            if (!compiler_identity()) return kUsage;
            // --keep-cpp wants the generated file written: take the full path (still cached).
            if (options_.keep_cpp_dir.empty() && try_fast_path()) return kOk;
        }
        return full_build();
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
        ProcessResult version = run_process({cxx_, "--version"});
        if (version.exit_code != 0) {
            err_ << "ropc: error: cannot run the C++ compiler '" << cxx_
                 << "' (set --cxx or ROP_CXX)\n";
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
        h.add("rop-build-1").add(toolchain_.ropc_path);
        std::error_code ec;
        const auto size = fs::file_size(toolchain_.ropc_path, ec);
        const auto time = fs::last_write_time(toolchain_.ropc_path, ec);
        h.add(std::to_string(size)).add(std::to_string(time.time_since_epoch().count()));
        h.add(cxx_).add(compiler_id_).add(absolute(options_.rop_path)).add(options_.opt_level);
        for (const std::string& dir : options_.include_dirs) h.add("-I").add(absolute(dir));
        for (const std::string& src : options_.sources) h.add("--src").add(absolute(src));
        for (const std::string& dir : toolchain_.include_dirs) h.add(dir);
        h.add(toolchain_.lib_dir);
        return h.hex();
    }

    fs::path fast_manifest_path() const { return fs::path(cache_) / "pipelines" / (fast_key() + ".manifest"); }

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
        verbose("cache: unchanged, copied " + binary.string());
        return true;
    }

    int full_build() {
        SourceManager sources;
        std::string error;
        const std::optional<FileId> file = sources.add_file(options_.rop_path, &error);
        if (!file) return usage(error);
        DiagnosticEngine diags(sources);
        const ast::Program syntax = parse(*file, sources, diags);
        std::optional<sema::CheckedProgram> checked;
        if (!diags.has_errors()) checked = sema::check(syntax, diags);
        std::optional<bind::BoundProgram> bound;
        if (checked) {
            bind::ProgramBindOptions bind_options;
            bind_options.stdlib_include_dirs = {toolchain_.stdlib_include_dir};
            bind_options.include_dirs = options_.include_dirs;
            bind_options.sources = &sources;
            if (!cache_.empty()) bind_options.pch_cache_dir = (fs::path(cache_) / "bind").string();
            bound = bind::bind_program(*checked, options_.rop_path, bind_options, diags);
        }
        const std::vector<Diagnostic> found = diags.finish();
        if (!found.empty()) err_ << render_text(sources, found, options_.color);
        if (!bound) return kErrors;

        const std::string stem = fs::path(options_.rop_path).stem().string();
        const std::string generated_name = stem + ".generated.cpp";
        codegen::GenerateOptions gen_options;
        gen_options.cpp_file = generated_name;
        gen_options.rop_file = options_.rop_path;
        gen_options.version = std::string("built by ropc ") + ROP_VERSION;
        codegen::GeneratedCode generated = codegen::generate(*bound, sources, gen_options);

        if (!options_.keep_cpp_dir.empty()) {
            const fs::path kept = fs::path(options_.keep_cpp_dir) / generated_name;
            if (!write_file_atomically(kept, generated.code)) {
                return usage("cannot write " + kept.string());
            }
        }
        if (options_.emit_cpp) {
            out_ << generated.code;
            return kOk;
        }

        // The generated file, named by its contents so that identical code compiles once.
        const fs::path gen_dir = fs::path(cache_) / "gen" / hash_bytes(generated.code);
        const fs::path gen_path = gen_dir / generated_name;
        if (!fs::exists(gen_path) && !write_file_atomically(gen_path, generated.code)) {
            return usage("cannot write " + gen_path.string());
        }

        std::vector<std::string> flags = compile_flags();
        for (const std::string& dir : bound->include_dirs) flags.push_back("-I" + absolute(dir));
        for (const std::string& dir : options_.include_dirs) flags.push_back("-I" + absolute(dir));

        Manifest pipeline;  // what the fast path checks next time
        pipeline.add(absolute(options_.rop_path));
        std::vector<std::string> objects;
        std::vector<std::string> object_keys;

        CxxErrorContext context;
        context.generated_name = generated_name;
        context.rop_file = options_.rop_path;
        context.line_map = &generated.line_map;
        context.sources = &sources;
        context.rop_id = *file;
        if (!compile(gen_path.string(), flags, &context, pipeline, objects, object_keys)) {
            err_ << "ropc: error: the generated C++ of '" << options_.rop_path
                 << "' does not compile (see above; --keep-cpp DIR keeps it)\n";
            return kErrors;
        }
        for (const std::string& source : user_sources(*checked, *bound)) {
            if (!compile(source, flags, nullptr, pipeline, objects, object_keys)) {
                err_ << "ropc: error: " << source << " does not compile\n";
                return kErrors;
            }
        }
        return link(*bound, objects, object_keys, pipeline);
    }

    // Each `use "X.hpp"`'s sibling X.cpp (when it exists), then the --src files.
    std::vector<std::string> user_sources(const sema::CheckedProgram& program,
                                          const bind::BoundProgram& bound) const {
        std::vector<std::string> out;
        std::vector<std::string> dirs = {fs::path(absolute(options_.rop_path)).parent_path().string()};
        for (const std::string& dir : bound.include_dirs) dirs.push_back(absolute(dir));
        for (const std::string& dir : options_.include_dirs) dirs.push_back(absolute(dir));
        for (const std::string& use : program.uses) {
            for (const std::string& dir : dirs) {
                const fs::path header = fs::path(dir) / use;
                if (!fs::exists(header)) continue;
                fs::path source = header;
                source.replace_extension(".cpp");
                if (fs::exists(source)) out.push_back(source.lexically_normal().string());
                break;
            }
        }
        for (const std::string& src : options_.sources) out.push_back(absolute(src));
        return out;
    }

    // Compiles one file into the object cache (or finds it there) and records its inputs.
    bool compile(const std::string& source, const std::vector<std::string>& flags,
                 const CxxErrorContext* context, Manifest& pipeline,
                 std::vector<std::string>& objects, std::vector<std::string>& object_keys) {
        std::optional<std::string> content = hash_file(source);
        if (!content) {
            err_ << "ropc: error: cannot read '" << source << "'\n";
            return false;
        }
        Hasher h;
        h.add("object").add(cxx_).add(compiler_id_).add(source).add(*content);
        for (const std::string& flag : flags) h.add(flag);
        const std::string key = h.hex();
        const fs::path object = fs::path(cache_) / "obj" / (key + ".o");
        const fs::path manifest_path = fs::path(cache_) / "obj" / (key + ".manifest");
        if (std::optional<std::string> text = read_whole_file(manifest_path)) {
            if (std::optional<Manifest> m = Manifest::parse(*text); m && m->fresh() && fs::exists(object)) {
                verbose("cache: " + source + " unchanged");
                pipeline.files.insert(pipeline.files.end(), m->files.begin(), m->files.end());
                objects.push_back(object.string());
                object_keys.push_back(m->value);
                return true;
            }
        }
        std::error_code ec;
        fs::create_directories(object.parent_path(), ec);
        const std::string temp_object = object.string() + ".tmp." + std::to_string(getpid());
        const std::string deps = temp_object + ".d";
        std::vector<std::string> argv = {cxx_};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"-MMD", "-MF", deps, "-c", source, "-o", temp_object});
        verbose(command_line(argv));
        ProcessResult result = run_process(argv);
        if (result.exit_code != 0) {
            err_ << (context ? render_cxx_errors(result.output, *context) : result.output);
            fs::remove(deps, ec);
            return false;
        }
        if (!result.output.empty()) {
            err_ << (context ? render_cxx_errors(result.output, *context) : result.output);
        }
        Manifest m;
        m.files.emplace_back(source, *content);
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
            err_ << "ropc: error: cannot write " << object.string() << "\n";
            return false;
        }
        write_file_atomically(manifest_path, m.text());
        pipeline.files.insert(pipeline.files.end(), m.files.begin(), m.files.end());
        objects.push_back(object.string());
        object_keys.push_back(m.value);
        return true;
    }

    int link(const bind::BoundProgram& bound, const std::vector<std::string>& objects,
             const std::vector<std::string>& object_keys, Manifest& pipeline) {
        std::vector<std::string> libs;
        for (const std::string& token : bound.link) {
            if (token.rfind("rop_", 0) == 0) {
                const std::string archive = (fs::path(toolchain_.lib_dir) / ("lib" + token + ".a")).string();
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
        libs.push_back(runtime);
        pipeline.add(runtime);
        libs.push_back("-pthread");

        Hasher h;
        h.add("binary").add(cxx_).add(compiler_id_);
        for (const std::string& key : object_keys) h.add(key);
        for (const std::string& lib : libs) {
            h.add(lib);
            if (lib.ends_with(".a")) h.add(Manifest::identity(lib, true).value_or(""));
        }
        const std::string key = h.hex();
        const fs::path binary = fs::path(cache_) / "bin" / key;
        if (!fs::exists(binary)) {
            std::error_code ec;
            fs::create_directories(binary.parent_path(), ec);
            const std::string temp = binary.string() + ".tmp." + std::to_string(getpid());
            std::vector<std::string> argv = {cxx_};
            argv.insert(argv.end(), objects.begin(), objects.end());
            argv.insert(argv.end(), libs.begin(), libs.end());
            argv.insert(argv.end(), {"-o", temp});
            verbose(command_line(argv));
            ProcessResult result = run_process(argv);
            if (result.exit_code != 0) {
                err_ << result.output << "ropc: error: linking '" << options_.output << "' failed\n";
                fs::remove(temp, ec);
                return kErrors;
            }
            fs::rename(temp, binary, ec);
            if (ec) return usage("cannot write " + binary.string());
        }
        if (!copy_atomically(binary, options_.output, true)) {
            return usage("cannot write '" + options_.output + "'");
        }
        pipeline.value = key;
        write_file_atomically(fast_manifest_path(), pipeline.text());
        return kOk;
    }

    const BuildOptions& options_;
    std::ostream& out_;
    std::ostream& err_;
    Toolchain toolchain_;
    std::string cxx_;
    std::string compiler_id_;
    std::string cache_;
};

}  // namespace

Toolchain find_toolchain() {
    Toolchain t;
    t.ropc_path = self_path();
    const fs::path prefix = fs::path(t.ropc_path).parent_path().parent_path();
    t.lib_dir = (prefix / "lib").string();
    if (fs::exists(prefix / "include" / "rop" / "runtime" / "pipeline_main.h")) {
        t.include_dirs = {(prefix / "include").string()};
        t.stdlib_include_dir = t.include_dirs.front();
    } else {
        const fs::path source = ROP_SOURCE_DIR;
        t.include_dirs = {(source / "runtime" / "include").string(),
                          (source / "stdlib" / "include").string()};
        t.stdlib_include_dir = t.include_dirs.back();
    }
    return t;
}

std::string cache_dir(const BuildOptions& options) {
    fs::path dir;
    if (!options.cache_dir.empty()) {
        dir = options.cache_dir;
    } else if (const char* env = std::getenv("ROP_CACHE_DIR"); env != nullptr && *env != '\0') {
        dir = env;
    } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
        dir = fs::path(xdg) / "rop";
    } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        dir = fs::path(home) / ".cache" / "rop";
    } else {
        dir = fs::temp_directory_path() / "rop-cache";
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    return absolute(dir.string());
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
