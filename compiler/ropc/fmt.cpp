// `ropc fmt FILE...`: prints each file's canonical layout (format/format.h), or with --check
// says which files differ and where, or with -i rewrites the ones that differ; `-` is stdin. A file
// that does not parse is never rewritten: its diagnostics are printed as `ropc check` prints them.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "driver/front.h"
#include "format/format.h"
#include "ropc/commands.h"
#include "support/diagnostics.h"

namespace rop::cli {

namespace {

namespace fs = std::filesystem;

// Replaces `path` (a symbolic link's target) by `content` through a temporary file beside it
// and a rename, keeping the file's permissions: a reader sees the old file or the new one,
// never half of one. On failure the file is untouched and `error` says why.
bool replace_file(const std::string& path, const std::string& content, std::string& error) {
    std::error_code ec;
    const fs::path target = fs::canonical(path, ec);
    if (ec) {
        error = ec.message();
        return false;
    }
    const fs::perms perms = fs::status(target, ec).permissions();
    const fs::path temp = target.string() + ".ropc-fmt." + std::to_string(getpid());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << content;
        out.flush();
        if (!out) {
            error = "cannot write '" + temp.string() + "'";
            fs::remove(temp, ec);
            return false;
        }
    }
    fs::permissions(temp, perms, ec);
    fs::rename(temp, target, ec);
    if (ec) {
        error = ec.message();
        fs::remove(temp, ec);
        return false;
    }
    return true;
}

// `x.rop:3:1: error: ...` and the two versions of the first line that differs.
void report_difference(const std::string& path, std::string_view original,
                       std::string_view formatted, std::size_t line) {
    auto line_of = [line](std::string_view text) -> std::string {
        for (std::size_t i = 1; i < line; ++i) {
            const std::size_t end = text.find('\n');
            if (end == text.npos) return "(no such line)";
            text.remove_prefix(end + 1);
        }
        if (text.empty()) return "(end of file)";
        return std::string(text.substr(0, text.find('\n')));
    };
    const bool stdin_text = path == "-";
    std::cerr << (stdin_text ? "<stdin>" : path) << ":" << line
              << ":1: error: not formatted as `ropc fmt` writes it (first difference on this line)"
              << (stdin_text ? "" : "; run `ropc fmt -i " + path + "`") << "\n"
              << "  is:        " << line_of(original) << "\n"
              << "  should be: " << line_of(formatted) << "\n";
}

}  // namespace

int run_fmt(const Request& request) {
    SourceManager sources;
    bool unreadable = false;
    bool failed = false;  // a file that does not parse, or (--check) one that would change
    for (const std::string& path : request.files) {
        std::string error;
        std::optional<FileId> file;
        if (path == "-") {  // an editor's buffer: read stdin, write stdout
            std::ostringstream text;
            text << std::cin.rdbuf();
            file = sources.add_buffer("<stdin>", text.str());
        } else {
            file = sources.add_file(path, &error);
        }
        if (!file) {
            std::cerr << render_text(RunFailure{path, error});
            unreadable = true;
            continue;
        }
        DiagnosticEngine diags(sources);
        diags.set_warnings_as_errors(request.front.warnings_as_errors);
        diags.set_max_errors(request.front.max_errors);
        const std::optional<std::string> formatted = format::format_file(*file, sources, diags);
        driver::print_text_diagnostics(sources, diags.finish(), request.front.color, std::cerr);
        if (!formatted) {
            failed = true;
            continue;
        }
        const std::string_view original = sources.text(*file);
        const std::optional<std::size_t> line = format::first_different_line(original, *formatted);
        if (request.fmt_check) {
            if (line) {
                report_difference(path, original, *formatted, *line);
                failed = true;
            }
        } else if (request.fmt_in_place) {
            if (line && !replace_file(path, *formatted, error)) {
                std::cerr << "ropc: error: cannot rewrite '" << path << "': " << error << "\n";
                unreadable = true;
            }
        } else {
            std::cout << *formatted;
        }
    }
    if (unreadable) return 2;
    return failed ? 1 : 0;
}

}  // namespace rop::cli
