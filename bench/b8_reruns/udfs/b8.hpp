// UDF of bench/b8_reruns (docs/benchmarks.md, "B8"): the B8 pipeline's `md` Call, the stdlib's
// Markdown assembly plus a footer. run_b8.sh edits the footer between runs (a changed assembly
// UDF): the store must re-run `md` only, OCR and everything before it answered from the store.
#pragma once

#include <rop/stdlib/assemble.h>
#include <rop/stdlib/types.h>

#include <span>

namespace b8 {

inline constexpr const char* kFooter = "\n\n<!-- b8 footer: v1 -->\n";

// reduce PageContent -> Markdown: std.assemble.markdown, then the footer.
inline rop::stdlib::Markdown markdown(std::span<const rop::stdlib::PageContent> pages) {
    rop::stdlib::Markdown md = rop::stdlib::assemble::markdown(pages);
    md.text += kFooter;
    return md;
}

}  // namespace b8
