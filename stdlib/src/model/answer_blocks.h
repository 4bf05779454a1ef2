// answer_blocks.h (internal to rop_stdlib_model): a vision-language model's Markdown answer for
// a page as the typed blocks std.assemble writes, as MinerU's VLM backend has a page's blocks —
// so that a heading reaches the Markdown as a heading and the content list as a text_level.
#pragma once

#include <rop/stdlib/types.h>

#include <string_view>
#include <vector>

namespace rop::stdlib::model::detail {

// The answer's blocks in order, each with `bbox` (the model gives no positions: the page's box)
// and confidence 0:
// - an ATX heading ("## Title", closing '#'s dropped) or a setext one (a line underlined with
//   '=' or '-') is a "text" block with text_level 1..6;
// - a list (items "- ", "* ", "+ ", "1. ", "1) ", nested ones flattened) is one "list" block, its
//   items one a line, each its marker as the answer has it, a space and its text (continuation
//   lines joined with a space);
// - a fenced code block (``` or ~~~) is a "code" block, verbatim;
// - "$$ ... $$" or "\[ ... \]" on lines of its own is an "equation" block holding the LaTeX;
// - a pipe table (a header row, a delimiter row, rows) or an HTML <table> is a "table" block
//   with its grid of cells (a colspan repeats no text; short rows are padded);
// - a line that is only an image ("![alt](url)") is an "image" block;
// - other lines are paragraphs (lines joined with a space; a blockquote's '>' dropped); thematic
//   breaks and HTML comments are dropped. An answer wrapped whole in a ```markdown fence is
//   unwrapped first.
std::vector<Block> answer_blocks(std::string_view markdown, const BBox& page);

}  // namespace rop::stdlib::model::detail
