#include "bind/checks/check_header_errors.h"

#include <algorithm>

namespace rop::bind {
namespace {

// Where a header problem is shown in the `.rop` file: its `use`, else the first `use`, else the
// first stdlib operator, else the pipeline's first byte.
SourceRange header_problem_range(const BindContext& ctx, const std::string& file) {
    for (const Header& header : ctx.headers) {
        if (header.path == file && header.use) return use_range(ctx, *header.use);
    }
    bool in_stdlib = std::any_of(ctx.headers.begin(), ctx.headers.end(),
                                 [&](const Header& h) { return h.path == file && !h.use; });
    if (!in_stdlib && !ctx.program.use_ranges.empty()) return use_range(ctx, 0);
    for (const sema::Call& call : ctx.program.calls) {
        if (call.op && call.op->name.rfind("std.", 0) == 0) return call.op->name_range;
    }
    if (!ctx.program.use_ranges.empty()) return use_range(ctx, 0);
    return {ctx.program.file, 0, 0};
}

std::string header_display(const BindContext& ctx, const std::string& file) {
    for (const Header& header : ctx.headers) {
        if (header.path == file) return header.use ? header.include : header.path;
    }
    return file;
}

void report_header_error(BindContext& ctx, const BindError& error) {
    const std::string& header = error.header.empty() ? error.location.file : error.header;
    if (!error.location.valid()) {
        // A header that cannot be read at all, or Clang's crash report.
        ctx.diags.report(DiagId::UdfHeaderError, header_problem_range(ctx, header), error.message);
        return;
    }
    Diagnostic& d = ctx.diags.report(
        DiagId::UdfHeaderError, header_problem_range(ctx, header),
        "C++ error in UDF header " + in_quotes(header_display(ctx, header)) + ": " + error.message);
    d.notes.push_back(ctx.notes.at(error.location, "Clang reports it here"));
    if (error.stopped_after) {
        ctx.headers_stopped = true;
        d.notes.push_back({std::nullopt,
                           "Clang stopped after this error (its error limit): the rest of "
                           "the UDF headers was not read; fix these errors and check again"});
    }
}

}  // namespace

void check_header_errors(BindContext& ctx, const std::vector<BindError>& errors) {
    for (const BindError& error : errors) report_header_error(ctx, error);
}

}  // namespace rop::bind
