#include "ropc/commands.h"

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "driver/fingerprint.h"
#include "driver/front.h"
#include "driver/toolchain.h"
#include "frontend/dump.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "sema/graph_dot.h"
#include "sema/plan_json.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::cli {

namespace {

constexpr int kClean = 0;
constexpr int kErrors = 1;
constexpr int kUsage = 2;

const char* version_string() { return ROP_VERSION; }

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
    driver::print_text_diagnostics(sources, diags, color, std::cerr);
}

}  // namespace

int run_check(const Request& request) {
    const driver::Toolchain toolchain = driver::find_toolchain();
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
        driver::FrontResult checked = driver::run_front(*file, sources, request.front, toolchain);
        errors = errors || checked.has_errors;
        all.insert(all.end(), std::make_move_iterator(checked.diagnostics.begin()),
                   std::make_move_iterator(checked.diagnostics.end()));
    }
    switch (request.front.format) {
        case Format::Text: print_text(sources, all, request.front.color); break;
        case Format::Json: std::cout << render_json(sources, all, unreadable); break;
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
        print_text(sources, diags.finish(), request.front.color);
        return diags.has_errors() ? kErrors : kClean;
    }
    if (request.emit == EmitStage::Ast) {
        DiagnosticEngine diags(sources);
        const ast::Program program = parse(*file, sources, diags);
        std::cout << dump_ast_json(program, sources);
        print_text(sources, diags.finish(), request.front.color);
        return diags.has_errors() ? kErrors : kClean;
    }
    // The plan after binding (each Call's `binding` filled in), or after sema with --no-bind.
    const driver::FrontResult checked =
        driver::run_front(*file, sources, request.front, driver::find_toolchain());
    print_text(sources, checked.diagnostics, request.front.color);
    if (!checked.program || checked.has_errors) return kErrors;
    if (request.front.bind && !checked.bound) return kErrors;
    if (checked.bound) {
        // What `ropc build` would compile: the `use` headers' sibling .cpp files (emit has no
        // --src), with build's flags at its default -O.
        driver::FingerprintInputs fingerprint;
        fingerprint.rop_path = request.files.front();
        fingerprint.include_dirs = checked.bound->include_dirs;
        fingerprint.include_dirs.insert(fingerprint.include_dirs.end(),
                                        request.front.include_dirs.begin(),
                                        request.front.include_dirs.end());
        fingerprint.sources = driver::pipeline_sources(
            *checked.program, *checked.bound, fingerprint.rop_path, request.front.include_dirs, {});
        fingerprint.flags = {"-std=c++20"};
        driver::attach_fingerprints(*checked.program, *checked.bound, driver::find_toolchain(),
                                    fingerprint);
    }
    std::cout << sema::plan_json(*checked.program, sources);
    return kClean;
}

int run_graph(const Request& request) {
    SourceManager sources;
    const std::optional<FileId> file = load(sources, request.files.front());
    if (!file) return kUsage;
    driver::FrontOptions options = request.front;
    options.bind = false;  // the Domain graph needs no C++ types
    const driver::FrontResult checked =
        driver::run_front(*file, sources, options, driver::find_toolchain());
    print_text(sources, checked.diagnostics, request.front.color);
    if (!checked.program) return kErrors;
    std::cout << sema::graph_dot(*checked.program);
    return kClean;
}

int run_build(const Request& request) { return driver::build(request.build, std::cout, std::cerr); }

}  // namespace rop::cli
