// --selfcheck (selfcheck.h). What only the build knows — the stdlib modules linked and the
// Tesseract languages the Calls load — comes from two weak symbols ropc build defines in every
// binary (appended to its generated C++); a binary linked another way has neither and says so.
#include "selfcheck.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

extern "C" {
extern const char rop_build_modules[] __attribute__((weak));
extern const char rop_build_ocr_languages[] __attribute__((weak));
}

namespace rop::runtime::detail {

namespace fs = std::filesystem;

namespace {

fs::path executable_dir() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : self.parent_path();
}

std::vector<std::string> words(const char* text) {
    std::vector<std::string> out;
    if (text == nullptr) return out;
    std::istringstream in(text);
    for (std::string word; in >> word;) out.push_back(word);
    return out;
}

struct Loaded {
    std::vector<std::string> paths;  // every shared object but the executable itself
};

int collect_loaded(dl_phdr_info* info, std::size_t, void* data) {
    const char* name = info->dlpi_name;
    if (name != nullptr && *name != '\0') static_cast<Loaded*>(data)->paths.emplace_back(name);
    return 0;
}

// The libraries: the binary started, so the loader found every one it needs; say which and
// from where (a bundle's lib/ or the system).
bool check_libraries(std::ostream& out) {
    Loaded loaded;
    dl_iterate_phdr(collect_loaded, &loaded);
    std::error_code ec;
    const fs::path bundle_lib = fs::weakly_canonical(executable_dir() / ".." / "lib", ec);
    std::size_t from_bundle = 0;
    for (const std::string& path : loaded.paths) {
        const fs::path real = fs::weakly_canonical(path, ec);
        from_bundle += real.parent_path() == bundle_lib;
    }
    out << "selfcheck: libraries: ok (" << loaded.paths.size() << " shared libraries loaded, "
        << from_bundle << " from " << bundle_lib.string() << ")\n";
    // The system's (the bundle's own are listed in its manifest.json).
    for (const std::string& path : loaded.paths) {
        // (The kernel's vDSO has no path.)
        if (path.find('/') != std::string::npos &&
            fs::weakly_canonical(path, ec).parent_path() != bundle_lib) {
            out << "  from the system: " << path << "\n";
        }
    }
    out << "  stdlib libraries linked: "
        << (rop_build_modules == nullptr ? "unknown (not built by ropc build)"
            : *rop_build_modules == '\0' ? "none"
                                         : rop_build_modules)
        << "\n";
    return true;
}

// Tesseract's language data: each language the pipeline's OCR Calls load, loaded here through
// Tesseract's C API (found in the process: the binary links libtesseract when it runs OCR).
bool check_language_data(std::ostream& out) {
    const std::vector<std::string> languages = words(rop_build_ocr_languages);
    if (languages.empty()) {
        out << "selfcheck: language data: ok (the pipeline runs no OCR)\n";
        return true;
    }
    using Create = void* (*)();
    using Init = int (*)(void*, const char*, const char*);
    using Datapath = const char* (*)(void*);
    using Delete = void (*)(void*);
    const auto create = reinterpret_cast<Create>(::dlsym(RTLD_DEFAULT, "TessBaseAPICreate"));
    const auto init = reinterpret_cast<Init>(::dlsym(RTLD_DEFAULT, "TessBaseAPIInit3"));
    const auto datapath =
        reinterpret_cast<Datapath>(::dlsym(RTLD_DEFAULT, "TessBaseAPIGetDatapath"));
    const auto destroy = reinterpret_cast<Delete>(::dlsym(RTLD_DEFAULT, "TessBaseAPIDelete"));
    if (!create || !init || !datapath || !destroy) {
        out << "selfcheck: language data: FAILED (the pipeline uses OCR but Tesseract's C API is "
               "not in the process)\n";
        return false;
    }
    bool ok = true;
    std::string found;
    for (const std::string& language : languages) {
        void* api = create();
        if (init(api, nullptr, language.c_str()) == 0) {
            found += (found.empty() ? "" : ", ") + language + " in " + datapath(api);
        } else {
            const char* prefix = std::getenv("TESSDATA_PREFIX");
            out << "selfcheck: language data: FAILED (Tesseract cannot load '" << language
                << "'; TESSDATA_PREFIX=" << (prefix ? prefix : "(unset)")
                << "; install tesseract-ocr-" << language << ")\n";
            ok = false;
        }
        destroy(api);
    }
    if (ok) out << "selfcheck: language data: ok (" << found << ")\n";
    return ok;
}

// GPUs: this build has no CUDA code (the model Calls talk to servers), so the driver is only
// reported: a node without one passes.
bool check_gpus(std::ostream& out) {
    std::ifstream version("/proc/driver/nvidia/version");
    std::string line;
    std::getline(version, line);
    std::size_t devices = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/dev", ec)) {
        const std::string name = entry.path().filename().string();
        devices += name.size() > 6 && name.starts_with("nvidia") &&
                   name.find_first_not_of("0123456789", 6) == std::string::npos;
    }
    out << "selfcheck: gpus: ok (no CUDA in this build; NVIDIA driver: "
        << (line.empty() ? "not visible" : line) << "; " << devices << " /dev/nvidiaN)\n";
    return true;
}

// How a sink uses its output: a folder it fills or a file it writes, and whether it makes the
// missing folders above that.
struct SinkUse {
    enum class Shape { Folder, File, Unknown } shape = Shape::Unknown;
    bool makes_folders = false;
};

// Opens the sink on `probe` and closes it again: what it made there (nothing when it throws).
SinkUse::Shape made_at(const SinkDefinition& sink, const fs::path& probe, bool trailing_slash) {
    try {
        sink.open(probe.string() + (trailing_slash ? "/" : ""));
    } catch (const std::exception&) {
        return SinkUse::Shape::Unknown;
    }
    std::error_code ec;
    return fs::is_directory(probe, ec) ? SinkUse::Shape::Folder
           : fs::exists(probe, ec)     ? SinkUse::Shape::File
                                       : SinkUse::Shape::Unknown;
}

// Asked of the sink itself, without touching its real output: it is opened on the same name in
// a fresh folder under $TMPDIR, first one folder down that does not exist yet, then (when that
// made nothing) directly in it; what it made there tells.
SinkUse sink_use(const SinkDefinition& sink, const std::string& output) {
    SinkUse use;
    if (!sink.open) return use;
    std::error_code ec;
    std::string scratch = (fs::temp_directory_path(ec) / "rop-selfcheck-XXXXXX").string();
    if (ec || ::mkdtemp(scratch.data()) == nullptr) return use;
    fs::path name = fs::path(output).filename();
    if (name.empty()) name = fs::path(output).parent_path().filename();  // "out/"
    if (name.empty() || name == "." || name == "..") name = "output";
    // (A trailing '/' is kept: a file sink refuses it as it would in the run.)
    const bool slash = output.ends_with('/');
    use.shape = made_at(sink, fs::path(scratch) / "missing" / name, slash);
    use.makes_folders = use.shape != SinkUse::Shape::Unknown;
    if (!use.makes_folders) {
        fs::remove_all(fs::path(scratch) / "missing", ec);
        use.shape = made_at(sink, fs::path(scratch) / name, slash);
    }
    fs::remove_all(scratch, ec);
    return use;
}

// The nearest folder that exists on `target`'s path, or the first thing in the way that is not
// a folder.
fs::path nearest_existing(const fs::path& target) {
    std::error_code ec;
    fs::path dir = target;
    while (!fs::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path()) {
        dir = dir.parent_path();
    }
    return dir;
}

// "" when `dir` is a folder this process may make files in, else why not.
std::string writable_folder_problem(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return dir.string() + (fs::exists(dir, ec) ? " is not a folder" : " does not exist");
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) return dir.string() + " is not writable";
    return {};
}

void print_check(std::ostream& out, const std::string& what, const std::string& path,
                 const std::string& problem, const fs::path& dir) {
    out << "selfcheck: output " << what << " " << path << ": "
        << (problem.empty() ? "ok (" + dir.string() + " is writable)" : "FAILED (" + problem + ")")
        << "\n";
}

// A sink's output, as the sink will use it: a folder sink fills the folder there or makes it,
// a file sink writes the file (not a folder) or makes it; either may make the folders above.
// Of a sink that made nothing when asked, the nearest folder that exists must be writable.
bool check_sink_output(const std::string& what, const std::string& path, SinkUse use,
                       std::ostream& out) {
    using Shape = SinkUse::Shape;
    std::error_code ec;
    const fs::path target = fs::absolute(path, ec);
    fs::path dir;
    std::string problem;
    const bool exists = fs::exists(target, ec);
    const bool is_folder = fs::is_directory(target, ec);
    if (use.shape == Shape::Folder && exists && !is_folder) {
        problem = target.string() + " is not a folder";
    } else if (use.shape == Shape::File && is_folder) {
        problem = target.string() + " is a folder";
    } else if (use.shape == Shape::File && exists && ::access(target.c_str(), W_OK) != 0) {
        problem = target.string() + " is not writable";
    } else {
        // The folder written in: the output's own (filled), the file's (replaced or appended
        // to), or the nearest one above that exists, when the missing ones are made.
        const bool walk_up = use.makes_folders || use.shape == Shape::Unknown;
        dir = exists && is_folder  ? target
              : exists || !walk_up ? target.parent_path()
                                   : nearest_existing(target);
        problem = writable_folder_problem(dir);
    }
    print_check(out, what, path, problem, dir);
    return problem.empty();
}

// A file of the run's own (--journal, --report, --trace, --metrics-file), checked as the run
// checks it before it starts. Only the journal's folder may be missing here: the run checks it
// after the sinks are open, and one of them may make it (`made_by_sinks`).
bool check_output_file(const std::string& what, const std::string& path, FileWrite how,
                       bool made_by_sinks, std::ostream& out) {
    std::error_code ec;
    fs::path dir = fs::absolute(path, ec).parent_path();
    std::string problem;
    if (made_by_sinks && !fs::exists(dir, ec)) {
        dir = nearest_existing(dir);
        problem = writable_folder_problem(dir);
    } else {
        problem = output_file_problem(path, how);
    }
    print_check(out, what, path, problem, dir);
    return problem.empty();
}

// Whether opening the sink on `output` makes the folder `dir`: its own folder, or one above
// it or above its file when it makes the missing folders.
bool makes_folder(const std::string& output, SinkUse use, const fs::path& dir) {
    std::error_code ec;
    const fs::path target = fs::absolute(output, ec).lexically_normal();
    const fs::path own = target.has_filename() ? target : target.parent_path();  // "out/"
    if (use.shape == SinkUse::Shape::Folder && own == dir) return true;
    if (!use.makes_folders) return false;
    const fs::path rel = (use.shape == SinkUse::Shape::Folder ? own : own.parent_path())
                             .lexically_relative(dir);  // dir is it or above it
    return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

bool take_selfcheck_flag(std::vector<const char*>& arguments) {
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        if (std::string_view(arguments[i]) == "--selfcheck") {
            arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i));
            return true;
        }
    }
    return false;
}

int run_selfcheck(const PipelineDefinition& def, std::vector<const char*> arguments,
                  std::ostream& out) {
    use_bundled_tessdata();  // as a run would
    // The check reads no input: parsed as for --help, a missing --input is not an error.
    arguments.push_back("--help");
    const ParseOutcome parsed =
        parse_pipeline_args(static_cast<int>(arguments.size()), arguments.data(), def);
    if (!parsed.args) {
        out << "selfcheck: FAILED: " << parsed.error << "\n";
        return 1;
    }
    const ParsedArgs& args = *parsed.args;
    std::vector<std::string> failed;
    if (!check_libraries(out)) failed.emplace_back("libraries");
    if (!check_language_data(out)) failed.emplace_back("language data");
    if (!check_gpus(out)) failed.emplace_back("gpus");
    std::vector<std::pair<std::string, SinkUse>> sinks;  // output, use
    for (const SinkDefinition& sink : def.sinks) {
        const auto it = args.outputs.find(sink.name);
        if (it == args.outputs.end()) continue;
        const std::string what = "'" + sink.name + "'";
        sinks.emplace_back(it->second, sink_use(sink, it->second));
        if (!check_sink_output(what, it->second, sinks.back().second, out)) {
            failed.push_back("output " + what);
        }
    }
    const std::string journal =
        args.journal_path.empty() ? default_journal_path(def, args) : args.journal_path;
    std::error_code ec;
    const fs::path journal_dir = fs::absolute(journal, ec).lexically_normal().parent_path();
    const bool journal_dir_made = std::any_of(sinks.begin(), sinks.end(), [&](const auto& s) {
        return makes_folder(s.first, s.second, journal_dir);
    });
    const struct {
        const char* what;
        const std::string& path;
        FileWrite how;
        bool made_by_sinks;
    } files[] = {{"--journal", journal, FileWrite::InPlace, journal_dir_made},
                 {"--report", args.report_path, FileWrite::Replace, false},
                 {"--report-html", args.report_html_path, FileWrite::Replace, false},
                 {"--trace", args.trace_path, FileWrite::InPlace, false},
                 {"--metrics-file", args.metrics_file, FileWrite::Replace, false}};
    for (const auto& f : files) {
        if (!f.path.empty() && !check_output_file(f.what, f.path, f.how, f.made_by_sinks, out)) {
            failed.push_back(std::string("output ") + f.what);
        }
    }
    if (failed.empty()) {
        out << "selfcheck: passed\n";
        return 0;
    }
    std::string list;
    for (const std::string& f : failed) list += (list.empty() ? "" : ", ") + f;
    out << "selfcheck: FAILED: " << list << "\n";
    return 1;
}

std::string output_file_problem(const std::string& path, FileWrite how) {
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return fs::exists(dir, ec) ? "'" + dir.string() + "' is not a directory"
                                   : "directory '" + dir.string() + "' does not exist";
    }
    if (fs::is_directory(path, ec)) return "'" + path + "' is a directory";
    if (how == FileWrite::InPlace && fs::exists(path, ec)) {
        if (::access(path.c_str(), W_OK) != 0) {
            return "'" + path + "' is not writable: " + std::strerror(errno);
        }
        return {};
    }
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) {
        return "cannot create '" + temp + "': " + std::strerror(errno);
    }
    if (fd >= 0) {
        ::close(fd);
        ::unlink(temp.c_str());
    }
    return {};
}

void use_bundled_tessdata() {
    if (const char* prefix = std::getenv("TESSDATA_PREFIX"); prefix != nullptr && *prefix) return;
    const fs::path root = executable_dir().parent_path();
    std::error_code ec;
    if (!fs::is_regular_file(root / "manifest.json", ec)) return;  // not a bundle
    const fs::path tessdata = root / "share" / "tessdata";
    if (fs::is_directory(tessdata, ec))
        ::setenv("TESSDATA_PREFIX", (tessdata.string() + "/").c_str(), 0);
}

}  // namespace rop::runtime::detail
