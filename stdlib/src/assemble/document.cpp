// What both reduces of a document see (document.h): running headers, footers and page numbers
// typed across its pages, and heading levels set for the whole document.
#include "document.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rop::stdlib::assemble::detail {
namespace {

// Running text: header, footer and page-number detection across a document's pages.
constexpr double kBand = 0.08;           // top and bottom 8% of the page height
constexpr double kSamePlace = 0.02;      // centers within 2% of the page height match
constexpr std::size_t kMaxRunning = 80;  // longer blocks are body text, not running text
constexpr std::size_t kBandPages = 3;    // pages with running text at a place that make it a band

// The text with digits as '#', letters lowercased and runs of spaces as one: "Page 3 of 9" and
// "Page 4 of 9" are the same running text.
std::string shape_of(const std::string& text) {
    std::string out;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isdigit(u)) {
            if (out.empty() || out.back() != '#') out += '#';
        } else if (std::isspace(u)) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += static_cast<char>(std::tolower(u));
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// "7", "- 7 -", "page 7", "7 of 9", "7/9", "iv": a page number's shape (digits already '#').
bool page_number_shape(const std::string& shape) {
    static const std::vector<std::string> numbers = {
        "#", "- # -", "page #", "# of #", "#/#", "# / #", "page # of #", "[#]", "(#)"};
    if (std::find(numbers.begin(), numbers.end(), shape) != numbers.end()) return true;
    // Roman numerals up to 89 (front matter): "civil" is not one.
    static const std::regex roman("(xl|l?x{0,3})(ix|iv|v?i{0,3})");
    return !shape.empty() && shape.size() <= 8 && std::regex_match(shape, roman);
}

struct Candidate {
    std::size_t page;
    std::size_t block;
    bool top;
    double center;  // y of the block's center / page height
    std::string shape;
};

// Types as "header", "footer" or "page_number" the text blocks in the top or bottom band of a
// page whose shape (shape_of) recurs at the same place (centers within kSamePlace) on another
// page of the document: page numbers by their shape, the rest by the band.
void mark_running(std::vector<PageContent>& pages) {
    std::vector<Candidate> candidates;
    for (std::size_t p = 0; p < pages.size(); ++p) {
        const PageContent& page = pages[p];
        if (!(page.height > 0)) continue;
        for (std::size_t b = 0; b < page.blocks.size(); ++b) {
            const Block& block = page.blocks[b];
            if (block.type != "text" || block.text.empty() || block.text.size() > kMaxRunning) {
                continue;
            }
            const double top = block.bbox.y0 / page.height;
            const double bottom = block.bbox.y1 / page.height;
            const bool in_top = bottom <= kBand;
            const bool in_bottom = top >= 1.0 - kBand;
            if (!in_top && !in_bottom) continue;
            // Page numbers of any shape ("iv", "17", "Page 3 of 9") match one another.
            std::string shape = shape_of(block.text);
            if (page_number_shape(shape)) shape = "(page number)";
            candidates.push_back(Candidate{p, b, in_top, (top + bottom) / 2, shape});
        }
    }
    // Same band and shape, then by center: a candidate's matches are its neighbours within
    // kSamePlace (n log n, for documents of many thousand pages).
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        if (a.top != b.top) return a.top < b.top;
        if (a.shape != b.shape) return a.shape < b.shape;
        return a.center < b.center;
    });
    auto same = [&](const Candidate& a, const Candidate& b) {
        return a.top == b.top && a.shape == b.shape && std::abs(a.center - b.center) <= kSamePlace;
    };
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& c = candidates[i];
        bool repeated = false;
        for (std::size_t k = i; k-- > 0 && !repeated && same(candidates[k], c);) {
            repeated = candidates[k].page != c.page;
        }
        for (std::size_t k = i + 1; k < candidates.size() && !repeated && same(candidates[k], c);
             ++k) {
            repeated = candidates[k].page != c.page;
        }
        if (!repeated) continue;
        Block& block = pages[c.page].blocks[c.block];
        block.type = c.shape == "(page number)" ? "page_number" : c.top ? "header" : "footer";
        block.text_level = 0;
    }
    // A running header whose text is its page's alone (a one-page chapter's "Chapter 7 Bugs"):
    // at the place where at least kBandPages other pages have running text, it is running text
    // too.
    std::vector<const Candidate*> marked;  // by band, then center
    for (const Candidate& c : candidates) {
        if (pages[c.page].blocks[c.block].type != "text") marked.push_back(&c);
    }
    std::sort(marked.begin(), marked.end(), [](const Candidate* a, const Candidate* b) {
        return a->top != b->top ? a->top < b->top : a->center < b->center;
    });
    for (const Candidate& c : candidates) {
        Block& block = pages[c.page].blocks[c.block];
        if (block.type != "text") continue;
        auto it = std::lower_bound(
            marked.begin(), marked.end(), c, [](const Candidate* m, const Candidate& x) {
                return m->top != x.top ? m->top < x.top : m->center < x.center - kSamePlace;
            });
        std::set<std::size_t> others;
        for (; it != marked.end() && (*it)->top == c.top &&
               (*it)->center <= c.center + kSamePlace && others.size() < kBandPages;
             ++it) {
            if ((*it)->page != c.page) others.insert((*it)->page);
        }
        if (others.size() < kBandPages) continue;
        block.type = c.top ? "header" : "footer";
        block.text_level = 0;
    }
}

// A table-of-contents line: dot leaders ("Introduction . . . . 1", "Index......7").
// Five dots in a row, each but the first after at most one space.
bool toc_line(const std::string& text) {
    int dots = 0;
    bool spaced = false;  // one space since the last dot
    for (char c : text) {
        if (c == '.') {
            if (++dots >= 5) return true;
            spaced = false;
        } else if (c == ' ' && dots > 0 && !spaced) {
            spaced = true;
        } else {
            dots = 0;
            spaced = false;
        }
    }
    return false;
}

// The UTF-8 marks a title drops without a space, as the outline and the page may spell a word
// with or without them: apostrophes (U+2018, U+2019, U+02BC) and hyphens and dashes (U+00AD soft
// hyphen, U+2010 to U+2015). "Don't", "Don’t" and "Dont" are one title, "Non-regular" and
// "Nonregular" another.
std::size_t joining_mark(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) {
        return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u;
    };
    if (text[at] == '\'' || text[at] == '-') return 1;
    if (byte(at) == 0xC2 && byte(at + 1) == 0xAD) return 2;  // U+00AD
    if (byte(at) == 0xCA && byte(at + 1) == 0xBC) return 2;  // U+02BC
    if (byte(at) == 0xE2 && byte(at + 1) == 0x80) {
        const unsigned c = byte(at + 2);
        if ((c >= 0x90 && c <= 0x95) || c == 0x98 || c == 0x99)
            return 3;  // U+2010-2015, 2018, 2019
    }
    return 0;
}

// A heading's text as the outline would have it: lowercase letters and digits, single spaces, no
// leading section number ("2.1 Simple parsing" and "Simple Parsing" are "simple parsing"), no
// apostrophes, hyphens or dashes (joining_mark).
std::string title_key(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        if (const std::size_t mark = joining_mark(text, i)) {
            i += mark;
            continue;
        }
        const auto u = static_cast<unsigned char>(text[i++]);
        if (std::isalnum(u) || u >= 0x80) {
            out += static_cast<char>(std::tolower(u));
        } else if (!out.empty() && out.back() != ' ') {
            out += ' ';
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    // Leading numbering: numbers, "chapter", "appendix", "part", "section", a single letter
    // ("Appendix A Copying" and "A.1 GNU ..." are "copying" and "gnu ..."), while words follow.
    static const std::set<std::string> numbering = {"chapter", "appendix", "part", "section"};
    std::size_t start = 0;
    while (start < out.size()) {
        const std::size_t end = out.find(' ', start);
        if (end == std::string::npos) break;  // the last word stays
        const std::string token = out.substr(start, end - start);
        const bool number = token.find_first_not_of("0123456789") == std::string::npos;
        if (!number && token.size() != 1 && numbering.count(token) == 0) break;
        start = end + 1;
    }
    return out.substr(start);
}

// Levels by size: sizes within 10% share one, the largest is level 1.
void rank_by_size(const std::vector<Block*>& headings) {
    std::vector<double> sizes;
    for (const Block* block : headings) sizes.push_back(block->font_size);
    std::sort(sizes.rbegin(), sizes.rend());
    std::vector<double> tops;  // the largest size of each rank
    for (double size : sizes) {
        if (tops.empty() || size < 0.9 * tops.back()) tops.push_back(size);
    }
    for (Block* block : headings) {
        int rank = 0;
        while (rank + 1 < static_cast<int>(tops.size()) && block->font_size < 0.9 * tops[rank]) {
            ++rank;
        }
        block->text_level = std::min(rank + 1, 6);
    }
}

// A heading's section number's depth: "2" is 1, "2.1" 2, "A.1.3" 3; 0 without one.
int numbering_depth(const std::string& text) {
    static const std::regex numbering(R"(^(\d{1,3}|[A-Z](?=\.\d))((\.\d{1,3})*)\.? +\S)");
    std::smatch match;
    if (!std::regex_search(text, match, numbering)) return 0;
    const std::string rest = match[2].str();
    return 1 + static_cast<int>(std::count(rest.begin(), rest.end(), '.'));
}

// Section numbers settle the levels that OCR's measured sizes leave unsure: the numbered headings
// of the shallowest numbering depth take the level most of them have (the smaller on a tie), and
// each depth below is one level deeper ("2" at level 2 puts "2.1" at 3 and "2.1.3" at 4).
void level_by_numbering(const std::vector<Block*>& headings) {
    std::map<int, std::map<int, int>> votes;  // depth -> level -> headings
    for (const Block* block : headings) {
        if (const int depth = numbering_depth(block->text); depth > 0) {
            ++votes[depth][block->text_level];
        }
    }
    if (votes.empty()) return;
    const auto& [top_depth, levels] = *votes.begin();
    int top_level = 0;
    int most = 0;
    for (const auto& [level, count] : levels) {
        if (count > most) top_level = level, most = count;
    }
    for (Block* block : headings) {
        if (const int depth = numbering_depth(block->text); depth > 0) {
            block->text_level = std::min(top_level + depth - top_depth, 6);
        }
    }
}

// Heading levels for the whole document. Table-of-contents lines are never headings. With an
// outline, a text block whose title_key is an outline entry's gets that entry's depth; other
// headings become body text when the outline names at least half the document's headings or at
// least half its entries are headings, else they go one level below the outline's deepest. Without
// one, when every heading has a size and all come from one kind of page (the text layer's font
// sizes, or OCR's line ascents: the two do not compare), the sizes rank the levels (sizes within
// 10% share one; largest = 1); on OCR'd pages section numbers then settle them
// (level_by_numbering). Levels stop at 6 (Markdown's deepest).
void heading_levels(std::vector<PageContent>& pages) {
    std::vector<Block*> headings;
    Outline outline;
    bool layer = false;  // some heading is on a text-layer page
    bool ocr = false;    // some heading is on an OCR'd one
    for (PageContent& page : pages) {
        if (!outline && page.outline && !page.outline->empty()) outline = page.outline;
        for (Block& block : page.blocks) {
            if (block.type != "text") continue;
            if (block.text_level > 0 && toc_line(block.text)) block.text_level = 0;
            if (block.text_level > 0) {
                headings.push_back(&block);
                (page.text_source == "layer" ? layer : ocr) = true;
            }
        }
    }
    if (outline) {
        std::map<std::string, int> levels;
        int deepest = 1;
        for (const OutlineEntry& entry : *outline) {
            levels.emplace(title_key(entry.title), entry.level);
            deepest = std::max(deepest, entry.level);
        }
        levels.erase("");
        std::set<std::string> found;  // the entries some heading names
        for (const Block* heading : headings) {
            if (const std::string key = title_key(heading->text); levels.count(key) > 0) {
                found.insert(key);
            }
        }
        const auto named = std::count_if(headings.begin(), headings.end(), [&](const Block* b) {
            return found.count(title_key(b->text)) > 0;
        });
        // Trusted when it names at least half the headings, or when at least half its entries
        // are headings here: OCR may take many body lines for headings (a bold line, a short
        // one), and an outline the document follows says they are not.
        const bool trusted = 2 * static_cast<std::size_t>(named) >= headings.size() ||
                             (levels.size() >= 2 && 2 * found.size() >= levels.size());
        for (PageContent& page : pages) {
            for (Block& block : page.blocks) {
                if (block.type != "text" || toc_line(block.text)) continue;
                const auto it = levels.find(title_key(block.text));
                if (it != levels.end()) {
                    block.text_level = std::min(it->second, 6);
                } else if (block.text_level > 0) {
                    block.text_level = trusted ? 0 : std::min(deepest + 1, 6);
                }
            }
        }
        return;
    }
    if (headings.empty() || (layer && ocr) ||
        std::any_of(headings.begin(), headings.end(),
                    [](const Block* b) { return !(b->font_size > 0); })) {
        return;
    }
    rank_by_size(headings);
    if (ocr) level_by_numbering(headings);
}

}  // namespace

bool is_running(const Block& block) {
    return block.type == "header" || block.type == "footer" || block.type == "page_number";
}

std::vector<PageContent> prepared(std::span<const PageContent> pages) {
    std::vector<PageContent> out(pages.begin(), pages.end());
    mark_running(out);
    heading_levels(out);
    return out;
}

}  // namespace rop::stdlib::assemble::detail
