#include "ropc/commands.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "frontend/dump.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "sema/graph_dot.h"
#include "sema/plan_json.h"
#include "sema/sema.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::cli {

namespace {

constexpr int kClean = 0;
constexpr int kErrors = 1;
constexpr int kUsage = 2;

const char* version_string() { return ROP_VERSION; }

// One file through the front end and, when it parsed cleanly, the checks.
struct Checked {
    std::vector<Diagnostic> diagnostics;
    bool has_errors = false;
    std::optional<sema::CheckedProgram> program;
};

// Where <rop/udf.h> and <rop/stdlib/*.h> are: an install's include/ beside ropc's bin/, else
// the source tree ropc was built from.
std::vector<std::string> stdlib_include_dirs() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path ropc = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = ropc.parent_path().parent_path() / "include";
        if (fs::is_regular_file(installed / "rop" / "udf.h", ec)) return {installed.string()};
    }
    return {ROP_SOURCE_STDLIB_INCLUDE};
}

// The precompiled-prelude cache: $ROP_CACHE_DIR, else $XDG_CACHE_HOME/rop, else ~/.cache/rop.
std::string bind_cache_dir() {
    const auto env = [](const char* name) -> std::string {
        const char* value = std::getenv(name);
        return value ? value : "";
    };
    std::string root = env("ROP_CACHE_DIR");
    if (root.empty() && !env("XDG_CACHE_HOME").empty()) root = env("XDG_CACHE_HOME") + "/rop";
    if (root.empty() && !env("HOME").empty()) root = env("HOME") + "/.cache/rop";
    return root.empty() ? "" : root + "/bind";
}

// `bind`: after sema, bind every operator to its C++ declaration (ropc check).
Checked check_file(FileId file, SourceManager& sources, const Request& request,
                   bool bind = false) {
    DiagnosticEngine diags(sources);
    diags.set_warnings_as_errors(request.warnings_as_errors);
    diags.set_max_errors(request.max_errors);
    const ast::Program program = parse(file, sources, diags);
    Checked out;
    // Sema on a tree with syntax errors would only repeat them as undefined names.
    if (!diags.has_errors()) out.program = sema::check(program, diags);
    if (bind && out.program) {
        bind::ProgramBindOptions options;
        options.stdlib_include_dirs = stdlib_include_dirs();
        options.include_dirs = request.include_dirs;
        options.pch_cache_dir = bind_cache_dir();
        options.sources = &sources;
        bind::bind_program(*out.program, sources.name(file), options, diags);
    }
    out.has_errors = diags.has_errors();
    out.diagnostics = diags.finish();
    return out;
}

// Adds `path`, or says on stderr why it cannot be read (F0002) and records that in `failure`.
std::optional<FileId> load(SourceManager& sources, const std::string& path,
                           RunFailure* failure = nullptr) {
    std::string error;
    const std::optional<FileId> file = sources.add_file(path, &error);
    if (!file) {
        RunFailure unreadable{path, error};
        std::cerr << render_text(unreadable);
        if (failure) *failure = std::move(unreadable);
    }
    return file;
}

void print_text(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                ColorMode color) {
    if (diags.empty()) return;
    std::cerr << render_text(sources, diags,
                             use_color(color, std::getenv("NO_COLOR"), isatty(STDERR_FILENO) == 1));
}

}  // namespace

int run_check(const Request& request) {
    SourceManager sources;
    std::vector<Diagnostic> all;
    // Also in JSON and SARIF, so a reader of either never takes a failed run for a clean one.
    std::vector<RunFailure> unreadable;
    bool errors = false;
    for (const std::string& path : request.files) {
        RunFailure failure;
        const std::optional<FileId> file = load(sources, path, &failure);
        if (!file) {
            unreadable.push_back(std::move(failure));
            continue;
        }
        Checked checked = check_file(*file, sources, request, request.bind);
        errors = errors || checked.has_errors;
        all.insert(all.end(), std::make_move_iterator(checked.diagnostics.begin()),
                   std::make_move_iterator(checked.diagnostics.end()));
    }
    switch (request.format) {
        case Format::Text:
            print_text(sources, all, request.color);
            break;
        case Format::Json:
            std::cout << render_json(sources, all, unreadable);
            break;
        case Format::Sarif:
            std::cout << render_sarif(sources, all, version_string(), unreadable);
            break;
    }
    if (!unreadable.empty()) return kUsage;
    return errors ? kErrors : kClean;
}

int run_emit(const Request& request) {
    SourceManager sources;
    const std::optional<FileId> file = load(sources, request.files.front());
    if (!file) return kUsage;
    if (request.emit == EmitStage::Tokens) {
        DiagnosticEngine diags(sources);
        const std::vector<Token> tokens = lex(*file, sources, diags);
        std::cout << dump_tokens(tokens, sources);
        print_text(sources, diags.finish(), request.color);
        return diags.has_errors() ? kErrors : kClean;
    }
    if (request.emit == EmitStage::Ast) {
        DiagnosticEngine diags(sources);
        const ast::Program program = parse(*file, sources, diags);
        std::cout << dump_ast_json(program, sources);
        print_text(sources, diags.finish(), request.color);
        return diags.has_errors() ? kErrors : kClean;
    }
    const Checked checked = check_file(*file, sources, request);
    print_text(sources, checked.diagnostics, request.color);
    if (!checked.program) return kErrors;
    std::cout << sema::plan_json(*checked.program, sources);
    return kClean;
}

int run_graph(const Request& request) {
    SourceManager sources;
    const std::optional<FileId> file = load(sources, request.files.front());
    if (!file) return kUsage;
    const Checked checked = check_file(*file, sources, request);
    print_text(sources, checked.diagnostics, request.color);
    if (!checked.program) return kErrors;
    std::cout << sema::graph_dot(*checked.program);
    return kClean;
}

}  // namespace rop::cli
