// UDFs of examples/pages: documents split into pages, read one by one (a page can be
// unreadable) and assembled fail-open: the pages that failed are listed, not fatal.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace pages {

struct Page {
    std::string text;
};

// expand: the document's pages, separated by blank lines.
std::vector<Page> split_pages(const std::string& text);

// map: the page's text; throws rop::RecordFailure for a page marked UNREADABLE.
std::string read_page(const Page& page);

// reduce (run with `on_failure skip`): the document as JSON (its readable pages, each with its
// ordinal, and the skipped ones with their reasons), and its page stats as JSON.
std::tuple<rop::stdlib::JsonText, rop::stdlib::JsonText> assemble(
    std::span<const std::string> texts, rop::Ordinals ordinals, rop::Skipped skipped);

}  // namespace pages
