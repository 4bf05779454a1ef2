// read_udfs: one Clang -fsyntax-only run over a generated file that #includes every header,
// then a walk over the declarations that sit directly in those headers (decl_collector.cpp).
//
// Speed: bodies of functions in system headers are skipped (DeclCollector's
// shouldSkipFunctionBody) and, with linting off, every body is. What is left is mostly parsing
// the standard headers and rop's stdlib headers, which a cached precompiled "prelude" (rop/udf.h,
// the standard headers rop's own headers include, kPreludeText, and the stdlib's operator
// headers) removes when ReadOptions::pch_cache_dir is set: `ropc check` of docling went from
// 0.7 s to 0.15 s CPU (B5 in docs/benchmarks.md).
// GCC's flow-sensitive -Wnull-dereference fires inside inlined Clang header code
// (RecursiveASTVisitor, CXXRecordDecl); SYSTEM includes cannot silence it there.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wnonnull"
#include "bind/udf_reader.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/xxhash.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "bind/clang_bridge.h"

#ifndef ROP_CLANG_RESOURCE_DIR
#define ROP_CLANG_RESOURCE_DIR ""
#endif

namespace rop::bind {

namespace detail {

SourceLoc map_location(const clang::SourceManager& sm, const HeaderNames& names,
                       clang::SourceLocation loc) {
    if (loc.isInvalid()) return {};
    clang::SourceLocation file_loc = sm.getFileLoc(loc);
    clang::PresumedLoc presumed = sm.getPresumedLoc(file_loc);
    if (presumed.isInvalid()) return {};
    SourceLoc out{presumed.getFilename(), presumed.getLine(), presumed.getColumn()};
    if (clang::OptionalFileEntryRef entry = sm.getFileEntryRefForID(sm.getFileID(file_loc))) {
        auto found = names.find(entry->getUniqueID());
        if (found != names.end()) out.file = found->second;
    }
    return out;
}

}  // namespace detail

namespace {

using namespace clang;
using detail::HeaderNames;

constexpr const char* kMainFile = "/rop-bind/udf-headers.cpp";
constexpr const char* kPreludeFile = "/rop-bind/prelude.h";
// rop/udf.h and the standard headers rop's own headers include (rop/udf.h, rop/records.h,
// rop/fields.h, rop/stdlib/*.h). Binding reads the stdlib's operator headers first in every
// pipeline, so these are included before any `use` header anyway: precompiling them changes no
// answer, only the time.
// tests/bind/test_prelude_cache.cpp checks that the list still covers those headers' includes.
constexpr const char* kPreludeText =
    "#include <rop/udf.h>\n"
    "#include <charconv>\n"
    "#include <chrono>\n"
    "#include <concepts>\n"
    "#include <cstddef>\n"
    "#include <cstdint>\n"
    "#include <limits>\n"
    "#include <map>\n"
    "#include <memory>\n"
    "#include <optional>\n"
    "#include <span>\n"
    "#include <stdexcept>\n"
    "#include <string>\n"
    "#include <string_view>\n"
    "#include <system_error>\n"
    "#include <tuple>\n"
    "#include <type_traits>\n"
    "#include <utility>\n"
    "#include <vector>\n";

// Collects errors (not warnings) with their locations; the rest of Clang's output is dropped.
// Notices when the precompiled prelude could not be used (stale, corrupt, other compiler).
// Clang's own "too many errors emitted" is not an error in a header: it only marks the last
// error collected (BindError::stopped_after), so the caller can say what was not read.
class ErrorCollector : public DiagnosticConsumer {
  public:
    ErrorCollector(const HeaderNames& names, std::vector<BindError>& errors, std::string pch)
        : names_(names), errors_(errors), pch_(std::move(pch)) {}

    void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic& info) override {
        DiagnosticConsumer::HandleDiagnostic(level, info);
        if (level < DiagnosticsEngine::Error) return;
        if (info.getID() == diag::fatal_too_many_errors) {
            if (!errors_.empty()) errors_.back().stopped_after = true;
            return;
        }
        llvm::SmallString<256> message;
        info.FormatDiagnostic(message);
        BindError error;
        error.message = message.str().str();
        if (!pch_.empty() && (error.message.find(pch_) != std::string::npos ||
                              error.message.find("precompiled header") != std::string::npos ||
                              error.message.find("AST file") != std::string::npos)) {
            pch_failed_ = true;
        }
        if (info.hasSourceManager()) {
            error.location =
                detail::map_location(info.getSourceManager(), names_, info.getLocation());
            error.header = owning_header(info.getSourceManager(), info.getLocation());
        }
        errors_.push_back(std::move(error));
    }

    bool pch_failed() const { return pch_failed_; }

  private:
    // The given header `loc` is in, or the one whose #includes lead to it.
    std::string owning_header(const SourceManager& sm, SourceLocation loc) const {
        if (loc.isInvalid()) return {};
        for (SourceLocation at = sm.getFileLoc(loc); at.isValid();) {
            const FileID file = sm.getFileID(at);
            if (OptionalFileEntryRef entry = sm.getFileEntryRefForID(file)) {
                auto found = names_.find(entry->getUniqueID());
                if (found != names_.end()) return found->second;
            }
            at = sm.getIncludeLoc(file);
        }
        return {};
    }

    const HeaderNames& names_;
    std::vector<BindError>& errors_;
    std::string pch_;
    bool pch_failed_ = false;
};

class ReadAction : public ASTFrontendAction {
  public:
    ReadAction(const HeaderNames& headers, bool lint, UdfLibrary& library)
        : headers_(headers), lint_(lint), library_(library) {}

    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, StringRef) override {
        ci.getFrontendOpts().SkipFunctionBodies = true;  // asks the collector, body by body
        return detail::make_decl_collector(ci, headers_, lint_, library_);
    }

  private:
    const HeaderNames& headers_;
    bool lint_;
    UdfLibrary& library_;
};

// Writes the precompiled prelude to `output` (through a temporary file, so concurrent ropc
// runs never see half a file).
class PrecompilePrelude : public GeneratePCHAction {
  public:
    explicit PrecompilePrelude(std::string output) : output_(std::move(output)) {}

  protected:
    bool BeginInvocation(CompilerInstance& ci) override {
        ci.getFrontendOpts().OutputFile = output_;
        return GeneratePCHAction::BeginInvocation(ci);
    }

  private:
    std::string output_;
};

// Runs one Clang frontend action over an in-memory main file, with `prelude` as the in-memory
// prelude file. False when Clang crashed (a crash on some odd header must not take ropc down
// with it).
bool run_clang(std::vector<std::string> args, const char* main_name, const std::string& main_text,
               const std::string& prelude, std::unique_ptr<FrontendAction> action,
               DiagnosticConsumer& diagnostics) {
    args.push_back(main_name);
    llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(
        new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
    llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory(
        new llvm::vfs::InMemoryFileSystem);
    overlay->pushOverlay(memory);
    memory->addFile(main_name, 0, llvm::MemoryBuffer::getMemBufferCopy(main_text, main_name));
    // The prelude is an input of the precompiled prelude too: Clang checks it is unchanged.
    if (std::string_view(main_name) != kPreludeFile) {
        memory->addFile(kPreludeFile, 0, llvm::MemoryBuffer::getMemBufferCopy(prelude));
    }
    llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(FileSystemOptions(), overlay));

    tooling::ToolInvocation invocation(std::move(args), std::move(action), files.get());
    invocation.setDiagnosticConsumer(&diagnostics);
    llvm::CrashRecoveryContext::Enable();
    llvm::CrashRecoveryContext recovery;
    bool finished = recovery.RunSafely([&] { invocation.run(); });
    llvm::CrashRecoveryContext::Disable();
    return finished;
}

// The precompiled `prelude`'s file name in a cache directory for these compiler arguments:
// keyed by Clang's version, the arguments and the prelude's text.
std::string prelude_pch_path(const std::vector<std::string>& args, const std::string& prelude,
                             const std::string& cache_dir) {
    std::string key = getClangFullVersion();
    for (const std::string& arg : args) key += "\n" + arg;
    key += "\n";
    key += prelude;
    char name[64];
    std::snprintf(
        name, sizeof name, "rop-bind-prelude-%016llx.pch",
        static_cast<unsigned long long>(llvm::xxh3_64bits(llvm::arrayRefFromStringRef(key))));
    llvm::SmallString<256> path(cache_dir);
    llvm::sys::path::append(path, name);
    return path.str().str();
}

// The cached precompiled `prelude` for these compiler arguments, built when missing (or when
// `rebuild`); nothing when it cannot be built (rop/udf.h not on the include path, a C++ error).
std::optional<std::string> prelude_pch(const std::vector<std::string>& args,
                                       const std::string& prelude, const std::string& cache_dir,
                                       bool rebuild, bool mark_used) {
    std::string pch = prelude_pch_path(args, prelude, cache_dir);
    if (!rebuild && llvm::sys::fs::exists(pch)) {
        // Marked used (its modification time), so that `ropc cache prune` keeps it over older
        // entries (driver/cache_admin.h); Clang does not look at the image's own time.
        if (mark_used) {
            std::error_code ec;
            std::filesystem::last_write_time(pch, std::filesystem::file_time_type::clock::now(),
                                             ec);
        }
        return pch;
    }
    if (llvm::sys::fs::create_directories(cache_dir)) return std::nullopt;

    std::vector<std::string> pch_args = args;
    for (std::string& arg : pch_args) {
        if (arg == "-xc++") arg = "-xc++-header";
    }
    std::vector<BindError> errors;
    HeaderNames none;
    ErrorCollector collector(none, errors, "");
    bool finished = run_clang(pch_args, kPreludeFile, prelude, prelude,
                              std::make_unique<PrecompilePrelude>(pch), collector);
    if (!finished || !errors.empty() || !llvm::sys::fs::exists(pch)) {
        llvm::sys::fs::remove(pch);
        return std::nullopt;
    }
    return pch;
}

BindError header_error(const std::string& header, std::string message) {
    BindError error;
    error.location.file = header;
    error.message = std::move(message);
    error.header = header;
    return error;
}

std::string absolute(const std::string& path) {
    llvm::SmallString<256> out(path);
    llvm::sys::fs::make_absolute(out);
    llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
    return out.str().str();
}

}  // namespace

std::string_view prelude_text() { return kPreludeText; }

UdfLibrary read_udfs(const std::vector<std::string>& headers,
                     const std::vector<std::string>& include_dirs, std::vector<BindError>* errors,
                     const ReadOptions& options) {
    std::vector<BindError> local_errors;
    std::vector<BindError>& out_errors = errors ? *errors : local_errors;

    HeaderNames names;
    std::vector<std::string> includes;  // the headers' #include lines, in order, each once
    for (const std::string& header : headers) {
        std::string path = absolute(header);
        llvm::sys::fs::UniqueID id;
        if (!llvm::sys::fs::is_regular_file(path) || llvm::sys::fs::getUniqueID(path, id)) {
            out_errors.push_back(header_error(header, "cannot read UDF header '" + header + "'"));
            continue;
        }
        if (path.find_first_of("\"\n\\") != std::string::npos) {
            out_errors.push_back(header_error(
                header, "UDF header path '" + header +
                            "' cannot be #included (a quote, backslash or newline in it)"));
            continue;
        }
        if (names.emplace(id, header).second) includes.push_back("#include \"" + path + "\"\n");
    }
    UdfLibrary library;
    if (names.empty()) return library;

    std::vector<std::string> args = {
        "rop-bind", "-fsyntax-only",          "-xc++",           "-std=c++20",
        "-w",       "-fno-caret-diagnostics", "-ferror-limit=20"};
    std::string resource_dir =
        options.resource_dir.empty() ? ROP_CLANG_RESOURCE_DIR : options.resource_dir;
    if (!resource_dir.empty()) {
        args.push_back("-resource-dir");
        args.push_back(resource_dir);
    }
    for (const std::string& dir : include_dirs) args.push_back("-I" + absolute(dir));
    args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());

    // The prelude needs only rop's own directories: those that hold <rop/udf.h> or a
    // rop/stdlib/ (an install's one include/; api/include and stdlib/include in the source
    // tree). Keyed on every -I directory it would be rebuilt for each pipeline directory; Clang
    // accepts a precompiled header built with fewer search paths than the file that uses it.
    std::vector<std::string> prelude_args;
    std::vector<std::string> stdlib_dirs;  // <dir>/rop/stdlib/ of those directories
    for (const std::string& arg : args) {
        if (arg.rfind("-I", 0) == 0) {
            const std::string dir = arg.substr(2);
            const bool has_stdlib = llvm::sys::fs::is_directory(dir + "/rop/stdlib");
            if (!has_stdlib && !llvm::sys::fs::exists(dir + "/rop/udf.h")) continue;
            if (has_stdlib) stdlib_dirs.push_back(dir + "/rop/stdlib/");
        }
        prelude_args.push_back(arg);
    }
    // The leading headers from rop's stdlib (every pipeline's binding reads them first, and they
    // are the same for every pipeline) join the prelude too: the main file then only holds the
    // `use` headers. Clang keeps the order (the prelude comes first), checks that every header
    // the prelude read is unchanged, and the collector finds their declarations in the
    // precompiled AST as it would in a parsed one. When that prelude cannot be made (a C++ error
    // in one of them), the plain prelude is tried, then none.
    std::size_t stdlib_count = 0;
    for (; stdlib_count < includes.size(); ++stdlib_count) {
        const std::string& line = includes[stdlib_count];
        bool in_stdlib = false;
        for (const std::string& dir : stdlib_dirs) {
            in_stdlib = in_stdlib || line.compare(10, dir.size(), dir) == 0;  // #include "
        }
        if (!in_stdlib) break;
    }
    auto joined = [&](std::size_t from, std::size_t to) {
        std::string out;
        for (std::size_t i = from; i < to; ++i) out += includes[i];
        return out;
    };
    struct Prelude {
        std::string text;       // the prelude file
        std::size_t first = 0;  // the first header left to the main file
    };
    std::vector<Prelude> preludes;
    if (stdlib_count > 0) {
        preludes.push_back({kPreludeText + joined(0, stdlib_count), stdlib_count});
    }
    preludes.push_back({kPreludeText, 0});

    // The first of preludes[next...] that is cached or can be made (the first one made again
    // when `rebuild`); nothing without a cache or when none can. The cache's own copy first,
    // then the seed's (made when rop was installed; never written), then one made now.
    // A seed's copy Clang refuses is handled like a stale cached one: made again, in the cache.
    std::size_t next = 0;
    auto find_pch = [&](bool rebuild) -> std::optional<std::string> {
        for (; !options.pch_cache_dir.empty() && next < preludes.size(); ++next, rebuild = false) {
            const std::string& text = preludes[next].text;
            if (!rebuild && !options.pch_seed_dir.empty() &&
                !llvm::sys::fs::exists(
                    prelude_pch_path(prelude_args, text, options.pch_cache_dir))) {
                std::string seed = prelude_pch_path(prelude_args, text, options.pch_seed_dir);
                if (llvm::sys::fs::exists(seed)) return seed;
            }
            if (auto made = prelude_pch(prelude_args, text, options.pch_cache_dir, rebuild,
                                        options.pch_mark_used)) {
                return made;
            }
        }
        return std::nullopt;
    };
    std::optional<std::string> pch = find_pch(false);
    for (bool rebuilt = false;;) {
        const Prelude& prelude = preludes[pch ? next : preludes.size() - 1];
        std::vector<std::string> run_args = args;
        if (pch) {
            run_args.push_back("-include-pch");
            run_args.push_back(*pch);
        }
        const std::string main_text = joined(pch ? prelude.first : 0, includes.size());
        std::size_t errors_before = out_errors.size();
        library = UdfLibrary();
        ErrorCollector collector(names, out_errors, pch.value_or(""));
        bool finished =
            run_clang(run_args, kMainFile, main_text, prelude.text,
                      std::make_unique<ReadAction>(names, options.lint, library), collector);
        if (pch && collector.pch_failed()) {
            // A stale or foreign cached prelude: made again once; rejected again, the next one
            // (then none) is used.
            out_errors.resize(errors_before);
            if (rebuilt) ++next;
            pch = find_pch(!rebuilt);
            rebuilt = true;
            continue;
        }
        if (!finished) {
            BindError crash;
            crash.message =
                "internal error: Clang crashed while reading the UDF headers; please report it "
                "with the headers attached";
            out_errors.push_back(std::move(crash));
        }
        return library;
    }
}

}  // namespace rop::bind
