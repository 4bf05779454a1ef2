// --selfcheck (selfcheck.h). What only the build knows — the stdlib modules linked and the
// Tesseract languages the Calls load — comes from two weak symbols ropc build defines in every
// binary (appended to its generated C++); a binary linked another way has neither and says so.
#include "selfcheck.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
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

// A sink's output (a folder it creates, or a file) or a --report/--trace/--journal file: the
// nearest folder that exists on its path must be writable (a file in the way fails).
bool check_writable(const std::string& what, const std::string& path, std::ostream& out) {
    std::error_code ec;
    const fs::path target = fs::absolute(path, ec);
    fs::path dir = target;
    while (!fs::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path()) {
        dir = dir.parent_path();
    }
    std::string problem;
    if (!fs::is_directory(dir, ec)) {
        if (dir != target) problem = dir.string() + " is not a folder";
        dir = dir.parent_path();  // an existing output file: replaced in its folder
    }
    if (problem.empty() && ::access(dir.c_str(), W_OK | X_OK) != 0) {
        problem = dir.string() + " is not writable";
    }
    out << "selfcheck: output " << what << " " << path << ": "
        << (problem.empty() ? "ok (" + dir.string() + " is writable)" : "FAILED (" + problem + ")")
        << "\n";
    return problem.empty();
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
    for (const SinkDefinition& sink : def.sinks) {
        const auto it = args.outputs.find(sink.name);
        const std::string what = "'" + sink.name + "'";
        if (it != args.outputs.end() && !check_writable(what, it->second, out)) {
            failed.push_back("output " + what);
        }
    }
    const std::string journal =
        args.journal_path.empty() ? default_journal_path(def, args) : args.journal_path;
    for (const auto& [what, path] : {std::pair<std::string, std::string>{"--journal", journal},
                                     {"--report", args.report_path},
                                     {"--trace", args.trace_path}}) {
        if (!path.empty() && !check_writable(what, path, out)) failed.push_back("output " + what);
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
