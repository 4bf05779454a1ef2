#include "bind/checks/check_use_headers.h"

#include "bind/pipeline_headers.h"

namespace rop::bind {

void check_use_headers(BindContext& ctx) {
    for (std::size_t u = 0; u < ctx.program.uses.size(); ++u) {
        const std::string& written = ctx.program.uses[u];
        std::optional<std::string> found =
            find_use_header(written, ctx.rop_dir, ctx.options.include_dirs);
        if (!found) {
            ctx.missing_header = true;
            std::string where =
                ctx.rop_dir.empty() ? "the current directory" : in_quotes(ctx.rop_dir + "/");
            Diagnostic& d = ctx.diags.report(
                DiagId::UdfHeaderNotFound, use_range(ctx, u),
                "cannot find UDF header " + in_quotes(written) + " (looked in " + where +
                    (ctx.options.include_dirs.empty() ? "" : " and the -I directories") + ")");
            d.notes.push_back(
                {std::nullopt, "a `use` path is relative to the .rop file's directory"});
            continue;
        }
        ctx.headers.push_back({*found, written, u, false});
    }
}

}  // namespace rop::bind
