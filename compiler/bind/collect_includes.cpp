#include "bind/collect_includes.h"

#include <algorithm>

#include "bind/pipeline_headers.h"

namespace rop::bind {

void mark_header_used(BindContext& ctx, const UdfDecl& decl) {
    for (std::size_t h = 0; h < ctx.headers.size(); ++h) {
        if (ctx.headers[h].path != decl.location.file &&
            ctx.headers[h].path != decl.template_location.file) {
            continue;
        }
        if (!ctx.headers[h].used) ctx.used_order.push_back(h);
        ctx.headers[h].used = true;
    }
}

void collect_includes_and_link(BindContext& ctx) {
    const std::vector<Header>& headers = ctx.headers;
    std::vector<std::size_t> order = ctx.used_order;
    for (std::size_t h = 0; h < headers.size(); ++h) {
        if (headers[h].use && !headers[h].used) order.push_back(h);
    }
    for (std::size_t h = 0; h < headers.size(); ++h) {
        if (headers[h].use) ctx.out.includes.push_back(headers[h].include);
    }
    for (std::size_t h : ctx.used_order) {
        if (!headers[h].use) ctx.out.includes.push_back(headers[h].include);
    }
    // Each token is kept at its LAST occurrence: a static library must follow everything that
    // needs it on the link line.
    std::vector<std::string> tokens;
    for (std::size_t h : order) {
        for (std::string& token : read_link_line(headers[h].path)) tokens.push_back(token);
    }
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (std::find(tokens.begin() + static_cast<std::ptrdiff_t>(i) + 1, tokens.end(),
                      tokens[i]) == tokens.end()) {
            ctx.out.link.push_back(tokens[i]);
        }
    }
}

}  // namespace rop::bind
