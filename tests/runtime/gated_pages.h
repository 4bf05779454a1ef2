// A plan whose pages all become READY at once, so that a test controls what shares a batch:
// Doc(x) -> x pages (100x + i) -> `all` = reduce pages to Doc (no UDF) -> broadcast back to
// Page -> map "m" (pages, gate). A page waits for its whole Expansion, so one parent's pages
// reach m's queue in one drain and, with batch >= x, share one batch.
#pragma once

#include "runtime_test_util.h"

namespace rop::runtime::test {

struct GatedPages {
    Plan plan;
    PortId pages = 0, out = 0;
    CallId m = 0;
    GatedPages(CallOptions o, BatchFn fn) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        pages = b.add_port("pages", page);
        const PortId all = b.add_port("all", doc);
        const PortId gate = b.add_port("gate", page);
        out = b.add_port("out", page);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             opts(8, 1),
             expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
        b.add_call({"all", CallKind::Reduce, doc, {{pages}}, {all}, opts(1, 1), {}});
        b.add_call({"gate", CallKind::Broadcast, page, {{all}}, {gate}, opts(1, 1), {}});
        m = b.add_call(
            {"m", CallKind::Map, page, {{pages}, {gate}}, {out}, o, actor(std::move(fn))});
        plan = b.build();
    }
};

}  // namespace rop::runtime::test
