// document.h (internal to rop_stdlib_assemble): a document's pages as both reduces see them —
// markdown() and content_list() write the same blocks, typed and levelled for the whole document.
#pragma once

#include <rop/stdlib/types.h>

#include <span>
#include <vector>

namespace rop::stdlib::assemble::detail {

// The pages with running text typed and heading levels set across the document:
// - a text block of at most 80 bytes in the top or bottom 8% of its page whose text (digits as
//   '#', lowercase, single spaces) recurs at the same place (centers within 2% of the page
//   height) on another page becomes "page_number" when it reads as one, else "header" or
//   "footer", with no level;
// - heading levels come from the PDF's outline when it has one, else from the text layer's font
//   sizes when every heading has one; table-of-contents lines are never headings; levels stop at
//   6 (docs/stdlib.md, "Heading levels").
std::vector<PageContent> prepared(std::span<const PageContent> pages);

// A header, footer or page number (prepared() typed it so, or the page came so).
bool is_running(const Block& block);

// A table block with a whole grid of cells (rows x cols of them).
inline bool has_grid(const Block& block) {
    return block.rows > 0 && block.cols > 0 &&
           block.cells.size() == static_cast<std::size_t>(block.rows) * block.cols;
}

}  // namespace rop::stdlib::assemble::detail
