// std.layout: Regions (Tesseract layout analysis + ruled tables), kind_name, tag.
#include "rop/stdlib/layout.h"

#include <dlfcn.h>
#include <tesseract/baseapi.h>
#include <tesseract/pageiterator.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "font_names.h"
#include "ink.h"
#include "listing.h"
#include "ruled_tables.h"
#include "text_grid.h"

namespace rop::stdlib::layout {

using detail::PixelBox;

struct Regions::Engine {
    Engine() {
        ::setenv("OMP_THREAD_LIMIT", "1", 1);
        api.InitForAnalysePage();
        api.SetPageSegMode(tesseract::PSM_AUTO);
        api.SetVariable("debug_file", "/dev/null");
    }
    ~Engine() { api.End(); }
    tesseract::TessBaseAPI api;
};

namespace {

// A text line: its box and its ascent (baseline minus top), which unlike the box's height does
// not depend on whether the line happens to have descenders.
struct TextLine {
    PixelBox box;
    int ascent = 0;
};

// A block as Tesseract's layout analysis saw it, with its text lines.
struct Block {
    tesseract::PolyBlockType type = tesseract::PT_UNKNOWN;
    PixelBox box;
    std::vector<TextLine> lines;
};

PixelBox box_at(const tesseract::PageIterator& it, tesseract::PageIteratorLevel level) {
    PixelBox box;
    it.BoundingBox(level, &box.x0, &box.y0, &box.x1, &box.y1);
    return box;
}

// As in std.ocr (engine.h): OpenMP regions this thread starts get a team of one, whatever
// OMP_THREAD_LIMIT was when the process started.
void single_threaded_openmp() {
    using SetLevels = void (*)(int);
    static const SetLevels set_max_active_levels =
        reinterpret_cast<SetLevels>(::dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"));
    if (set_max_active_levels) set_max_active_levels(0);
}

std::vector<Block> analyse(tesseract::TessBaseAPI& api, const Page& page) {
    single_threaded_openmp();
    api.SetImage(page.image.pixels->data(), page.image.width, page.image.height,
                 page.image.channels, static_cast<int>(page.image.stride()));
    api.SetSourceResolution(page.dpi);
    std::unique_ptr<tesseract::PageIterator> it(api.AnalyseLayout());
    std::vector<Block> blocks;
    if (!it) return blocks;
    do {
        if (it->Empty(tesseract::RIL_BLOCK)) continue;
        Block block;
        block.type = it->BlockType();
        block.box = box_at(*it, tesseract::RIL_BLOCK);
        if (PTIsTextType(block.type) || block.type == tesseract::PT_TABLE) {
            tesseract::PageIterator lines(*it);
            do {
                if (!lines.Empty(tesseract::RIL_TEXTLINE)) {
                    TextLine line{box_at(lines, tesseract::RIL_TEXTLINE), 0};
                    int x1 = 0, y1 = 0, x2 = 0, y2 = 0;
                    const bool has_baseline =
                        lines.Baseline(tesseract::RIL_TEXTLINE, &x1, &y1, &x2, &y2);
                    line.ascent =
                        has_baseline ? (y1 + y2) / 2 - line.box.y0 : line.box.y1 - line.box.y0;
                    if (line.ascent <= 0) line.ascent = line.box.y1 - line.box.y0;
                    block.lines.push_back(line);
                }
            } while (lines.Next(tesseract::RIL_TEXTLINE) &&
                     !lines.IsAtBeginningOf(tesseract::RIL_BLOCK));
        }
        blocks.push_back(std::move(block));
    } while (it->Next(tesseract::RIL_BLOCK));
    return blocks;
}

double median_ascent(const std::vector<Block>& blocks) {
    std::vector<int> heights;
    for (const Block& block : blocks) {
        if (block.type == tesseract::PT_TABLE) continue;
        for (const TextLine& line : block.lines) heights.push_back(line.ascent);
    }
    if (heights.empty()) return 0;
    // The lower median: on a page of one heading and one line, the line is the body size.
    std::nth_element(heights.begin(), heights.begin() + (heights.size() - 1) / 2, heights.end());
    return heights[(heights.size() - 1) / 2];
}

PixelBox unite(const PixelBox& a, const PixelBox& b) {
    return PixelBox{std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1),
                    std::max(a.y1, b.y1)};
}

bool center_inside(const PixelBox& box, const PixelBox& outer) {
    const int cx = (box.x0 + box.x1) / 2;
    const int cy = (box.y0 + box.y1) / 2;
    return cx >= outer.x0 && cx < outer.x1 && cy >= outer.y0 && cy < outer.y1;
}

RegionKind kind_of(tesseract::PolyBlockType type) {
    switch (type) {
        // PT_HEADING_TEXT means "spans several columns", not a title: size decides headings.
        case tesseract::PT_TABLE: return RegionKind::table;
        case tesseract::PT_CAPTION_TEXT: return RegionKind::caption;
        case tesseract::PT_EQUATION:
        case tesseract::PT_INLINE_EQUATION: return RegionKind::formula;
        case tesseract::PT_FLOWING_IMAGE:
        case tesseract::PT_HEADING_IMAGE:
        case tesseract::PT_PULLOUT_IMAGE: return RegionKind::figure;
        default: return RegionKind::text;
    }
}

BBox to_points(const PixelBox& box, int dpi) {
    const double scale = 72.0 / dpi;
    return BBox{box.x0 * scale, box.y0 * scale, box.x1 * scale, box.y1 * scale};
}

Image crop(const Image& image, const PixelBox& box) {
    Image out;
    out.width = box.x1 - box.x0;
    out.height = box.y1 - box.y0;
    out.channels = image.channels;
    auto pixels = std::make_shared<std::vector<std::uint8_t>>(out.stride() * out.height);
    for (int y = 0; y < out.height; ++y) {
        std::memcpy(pixels->data() + out.stride() * y,
                    image.pixels->data() + image.stride() * (box.y0 + y) +
                        static_cast<std::size_t>(box.x0) * image.channels,
                    out.stride());
    }
    out.pixels = std::move(pixels);
    return out;
}

PixelBox clamp(PixelBox box, const Image& image, int margin) {
    box.x0 = std::max(0, box.x0 - margin);
    box.y0 = std::max(0, box.y0 - margin);
    box.x1 = std::min(image.width, box.x1 + margin);
    box.y1 = std::min(image.height, box.y1 + margin);
    return box;
}

// A region before cropping: its pixel box, kind and heading level.
struct Draft {
    PixelBox box;
    RegionKind kind = RegionKind::text;
    int level = 0;
    const detail::RuledTable* table = nullptr;
};

bool holds(const BBox& box, const Word& word) {
    const double x = (word.bbox.x0 + word.bbox.x1) / 2;
    const double y = (word.bbox.y0 + word.bbox.y1) / 2;
    return x >= box.x0 && x <= box.x1 && y >= box.y0 && y <= box.y1;
}

// A one-character word in a symbol font (Symbol, ZapfDingbats, Wingdings, Webdings): at a line's
// start it is a bullet, whatever letter the layer maps it to (Wingdings' bullet is an "l").
bool symbol_bullet(const Word& word) {
    const auto chars = std::count_if(word.text.begin(), word.text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    });
    return chars == 1 && fonts::symbol(word.font);
}

// Whether `word`, read after `last`, starts a new line: it does not overlap `last` vertically by
// half the smaller height, or starts left of its start.
bool starts_line(const Word& last, const Word& word) {
    const double smaller = std::min(last.bbox.height(), word.bbox.height());
    const double overlap =
        std::min(last.bbox.y1, word.bbox.y1) - std::max(last.bbox.y0, word.bbox.y0);
    return !(overlap >= 0.5 * smaller && word.bbox.x0 >= last.bbox.x0);
}

// Words in the layer's order as text: a space between words of one line (the next word overlaps
// the previous one vertically by half the smaller height and starts right of its start), "\n"
// between lines; a symbol-font bullet at a line's start is written U+2022.
std::string layer_text(const std::vector<const Word*>& words) {
    std::string text;
    const Word* last = nullptr;
    for (const Word* word : words) {
        bool line_start = last == nullptr;
        if (last != nullptr) {
            line_start = starts_line(*last, *word);
            text += line_start ? '\n' : ' ';
        }
        text += line_start && symbol_bullet(*word) ? std::string("\u2022") : word->text;
        last = word;
    }
    return text;
}

// A listing's words (row by row, listing_rows) as text: a line per row (layer_text's rows), each
// word at the column its left edge is from the listing's, in the listing's mean character width.
std::string listing_text(const std::vector<const Word*>& words) {
    double left = words.empty() ? 0 : words.front()->bbox.x0;
    double width = 0, chars = 0;
    for (const Word* word : words) {
        left = std::min(left, word->bbox.x0);
        width += word->bbox.width();
        chars += static_cast<double>(detail::code_points(word->text));
    }
    const double char_width = chars > 0 ? width / chars : 0;
    std::string text;
    std::vector<const Word*> row;
    auto flush = [&] {
        if (row.empty()) return;
        if (!text.empty()) text += '\n';
        text += detail::code_text(row, left, char_width);
        row.clear();
    };
    for (const Word* word : words) {
        if (!row.empty() && starts_line(*row.back(), *word)) flush();
        row.push_back(word);
    }
    flush();
    return text;
}

// A listing's words (all monospace) row by row, each row left to right: the layer reads a
// listing whose columns line up (options, then their descriptions) one column after another.
// A word joins the first row it overlaps by half the smaller height.
void listing_rows(std::vector<const Word*>& words) {
    if (words.size() < 2 || !std::all_of(words.begin(), words.end(), [](const Word* word) {
            return fonts::monospace(word->font);
        })) {
        return;
    }
    std::vector<std::vector<const Word*>> rows;
    std::vector<BBox> spans;
    for (const Word* word : words) {
        std::size_t r = 0;
        for (; r < rows.size(); ++r) {
            const double overlap =
                std::min(spans[r].y1, word->bbox.y1) - std::max(spans[r].y0, word->bbox.y0);
            if (overlap >= 0.5 * std::min(spans[r].height(), word->bbox.height())) break;
        }
        if (r == rows.size()) {
            rows.emplace_back();
            spans.push_back(word->bbox);
        }
        rows[r].push_back(word);
    }
    std::vector<std::size_t> order(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) order[r] = r;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return spans[a].y0 < spans[b].y0; });
    words.clear();
    for (std::size_t r : order) {
        std::stable_sort(rows[r].begin(), rows[r].end(),
                         [](const Word* a, const Word* b) { return a->bbox.x0 < b->bbox.x0; });
        words.insert(words.end(), rows[r].begin(), rows[r].end());
    }
}

// A table cell's words as one line of text.
std::string cell_text(const std::vector<const Word*>& words) {
    std::string text = layer_text(words);
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

// A table region's grid from where its words stand (detail::grid_from_pieces): false, leaving the
// region as it is, when they make none.
bool grid_from_words(const std::vector<const Word*>& words, Region& region) {
    std::vector<detail::TextPiece> pieces;
    for (const Word* word : words) pieces.push_back({word->bbox, word->text});
    if (!detail::grid_into(region, std::move(pieces))) return false;
    for (const Word* word : words) region.font_size = std::max(region.font_size, word->font_size);
    return true;
}

// A "layer" page's regions take their text from the page's words instead of OCR: each word
// belongs to the first region (tables first) whose box holds its center; a table's cells each
// get the words whose center they hold, the table's text its rows with cells joined by " | ".
// Figures take no words. Runs of words no region holds become text regions of their own (no
// crop), placed before the first region that starts below them. A region's font_size is the
// largest of its words'; a region whose words are all monospace takes them row by row.
void fill_from_layer(const Page& page, std::vector<Region>& regions) {
    std::vector<bool> taken(page.words.size(), false);
    // The words not yet taken whose center `box` holds; `take` marks them taken.
    auto claim = [&](const BBox& box, bool take = true) {
        std::vector<const Word*> words;
        for (std::size_t i = 0; i < page.words.size(); ++i) {
            if (taken[i] || !holds(box, page.words[i])) continue;
            if (take) taken[i] = true;
            words.push_back(&page.words[i]);
        }
        return words;
    };
    for (int pass = 0; pass < 2; ++pass) {
        for (Region& region : regions) {
            region.text_source = "layer";
            region.confidence = 100;
            if ((region.kind == RegionKind::table) != (pass == 0)) continue;
            if (region.kind == RegionKind::figure) continue;
            // A table without rules or whose rules give it one column (a frame and a rule under
            // the head row) takes its grid from where its words stand, when they make one.
            if (region.kind == RegionKind::table && (region.cells.empty() || region.cols == 1) &&
                grid_from_words(claim(region.bbox, false), region)) {
                claim(region.bbox);
                continue;
            }
            if (region.kind != RegionKind::table || region.cells.empty()) {
                std::vector<const Word*> words = claim(region.bbox);
                listing_rows(words);
                for (const Word* word : words) {
                    region.font_size = std::max(region.font_size, word->font_size);
                }
                // A text region all in a monospace font is a listing, and so is a heading (code
                // set large is no heading): its rows keep their columns.
                const bool listing =
                    (region.kind == RegionKind::heading || region.kind == RegionKind::text) &&
                    !words.empty() && std::all_of(words.begin(), words.end(), [](const Word* w) {
                        return fonts::monospace(w->font);
                    });
                if (listing) {
                    region.kind = RegionKind::code;
                    region.level = 0;
                    region.text = listing_text(words);
                    continue;
                }
                region.text = layer_text(words);
                // A text region of one row keeps its words: std.assemble.page checks whether it
                // is the head or last row of the table next to it that the layout left out.
                if (region.kind == RegionKind::text && !words.empty() &&
                    std::all_of(words.begin(), words.end(), [&](const Word* w) {
                        return detail::same_row(w->bbox, words.front()->bbox);
                    })) {
                    for (const Word* word : words) region.words.push_back(*word);
                }
                continue;
            }
            for (TableCell& cell : region.cells) cell.text = cell_text(claim(cell.bbox));
            region.text = detail::table_text(region.cells);
        }
    }
    // Words no region holds (the layout analysis missed them): runs of them in the layer's
    // order become text regions of their own, placed by their top edge, so no word is lost.
    std::vector<std::vector<const Word*>> runs;
    const Word* last = nullptr;
    for (std::size_t i = 0; i < page.words.size(); ++i) {
        if (taken[i]) {
            last = nullptr;
            continue;
        }
        const Word& word = page.words[i];
        const bool near = last != nullptr &&
                          word.bbox.y0 - last->bbox.y1 <= 0.6 * last->bbox.height() &&
                          word.bbox.y1 >= last->bbox.y0;
        if (!near) runs.emplace_back();
        runs.back().push_back(&word);
        last = &word;
    }
    for (const std::vector<const Word*>& run : runs) {
        Region region;
        region.doc_path = page.doc_path;
        region.doc_name = page.doc_name;
        region.page_index = page.index;
        region.kind = RegionKind::text;
        region.bbox = run.front()->bbox;
        for (const Word* word : run) {
            region.bbox = BBox{
                std::min(region.bbox.x0, word->bbox.x0), std::min(region.bbox.y0, word->bbox.y0),
                std::max(region.bbox.x1, word->bbox.x1), std::max(region.bbox.y1, word->bbox.y1)};
            region.font_size = std::max(region.font_size, word->font_size);
        }
        region.page_width = page.width;
        region.page_height = page.height;
        region.dpi = page.dpi;
        region.text = layer_text(run);
        region.confidence = 100;
        region.text_source = "layer";
        region.outline = page.outline;
        auto at = std::find_if(regions.begin(), regions.end(),
                               [&](const Region& r) { return r.bbox.y0 > region.bbox.y0; });
        regions.insert(at, std::move(region));
    }
    for (std::size_t i = 0; i < regions.size(); ++i) regions[i].order = static_cast<int>(i);
}

// Tesseract's image and table blocks, checked against what the page draws there. An image
// block whose ink is glyphs alone (at most 2% of it drawn_share's) is text: a code fragment or
// a "::=" set apart (a text-only manual gave 70 figures on 36 pages); so is one no larger than a
// glyph (2.5 x the median ascent high, 8 x wide: a quote mark's corner, no dark pixel of its
// own). A table block without rules is a table when its lines leave a column gap (a white gap of
// an em or more, 1.5 x the median ascent, at one place down the lines) and, on a layer page, its
// words are not all monospace (a listing whose columns line up is code, not a table). Else its
// ink decides: glyphs alone make text (a table of contents, prose around code), a drawing (at
// least 10% of the ink no glyph's, no rule across 80% of its width) a figure, and the rest (rules
// between rows, a displayed formula's signs) stays a table.
RegionKind checked_kind(const Page& page, const Block& block, RegionKind kind, double median) {
    if (median <= 0) return kind;
    const auto glyphs_only = [](double drawn) { return drawn >= 0 && drawn <= 0.02; };
    if (kind == RegionKind::figure) {
        const bool small = block.box.y1 - block.box.y0 <= 2.5 * median &&
                           block.box.x1 - block.box.x0 <= 8 * median;
        return small || glyphs_only(detail::drawn_share(page.image, block.box, median))
                   ? RegionKind::text
                   : kind;
    }
    if (kind != RegionKind::table) return kind;
    std::vector<PixelBox> lines;
    for (const TextLine& line : block.lines) lines.push_back(line.box);
    const int min_gap = std::max(2, static_cast<int>(std::lround(1.5 * median)));
    bool columns = detail::column_gap(page.image, lines, min_gap);
    if (columns && page.text_source == "layer") {
        const BBox box = to_points(block.box, page.dpi);
        bool any = false;
        bool monospace = true;
        for (const Word& word : page.words) {
            if (!holds(box, word)) continue;
            any = true;
            monospace = monospace && fonts::monospace(word.font);
        }
        columns = !(any && monospace);
    }
    if (columns) return kind;
    const double share = detail::drawn_share(page.image, block.box, median);
    if (glyphs_only(share)) return RegionKind::text;
    if (share >= 0.1 && !detail::spanning_rule(page.image, block.box, 0.8)) {
        return RegionKind::figure;
    }
    return kind;
}

}  // namespace

Regions::Regions(bool tables, double heading_ratio)
    : engine_(std::make_unique<Engine>()), tables_(tables), heading_ratio_(heading_ratio) {}
Regions::~Regions() = default;
Regions::Regions(Regions&&) noexcept = default;
Regions& Regions::operator=(Regions&&) noexcept = default;

std::vector<Region> Regions::operator()(const Page& page) {
    if (page.image.empty() || page.dpi <= 0) {
        throw rop::RecordFailure(page.doc_name + ": page " + std::to_string(page.index + 1) +
                                 ": page has no image");
    }
    const std::vector<Block> blocks = analyse(engine_->api, page);
    const std::vector<detail::RuledTable> tables =
        tables_ ? detail::find_ruled_tables(page.image, page.dpi)
                : std::vector<detail::RuledTable>{};
    const double median = median_ascent(blocks);

    // Tesseract's blocks in its order, split where line heights switch between heading size and
    // body size; blocks inside a ruled table belong to the table.
    std::vector<Draft> drafts;
    const auto in_table = [&](const PixelBox& box) {
        return std::any_of(tables.begin(), tables.end(),
                           [&](const auto& table) { return center_inside(box, table.box); });
    };
    for (const Block& block : blocks) {
        if (tesseract::PTIsLineType(block.type) || block.type == tesseract::PT_NOISE) continue;
        if (in_table(block.box)) continue;
        RegionKind kind = kind_of(block.type);
        // A table block of Tesseract's that reaches into a ruled table (it may span the text
        // around it too) is text: the ruled table is the table, and its lines are the table's.
        const bool overlaps = std::any_of(tables.begin(), tables.end(), [&](const auto& table) {
            return block.box.x0 < table.box.x1 && table.box.x0 < block.box.x1 &&
                   block.box.y0 < table.box.y1 && table.box.y0 < block.box.y1;
        });
        if (kind == RegionKind::table && overlaps) kind = RegionKind::text;
        kind = checked_kind(page, block, kind, median);
        std::vector<TextLine> lines;
        for (const TextLine& line : block.lines) {
            if (!in_table(line.box)) lines.push_back(line);
        }
        if (kind != RegionKind::text || block.lines.empty() || median <= 0) {
            drafts.push_back(Draft{block.box, kind, 0, nullptr});
            continue;
        }
        for (std::size_t i = 0; i < lines.size();) {
            const auto ratio = [&](std::size_t k) { return lines[k].ascent / median; };
            const bool heading = ratio(i) >= heading_ratio_;
            Draft draft{lines[i].box, heading ? RegionKind::heading : RegionKind::text, 0, nullptr};
            double largest = ratio(i);
            std::size_t k = i + 1;
            while (k < lines.size() && (ratio(k) >= heading_ratio_) == heading) {
                draft.box = unite(draft.box, lines[k].box);
                largest = std::max(largest, ratio(k));
                ++k;
            }
            if (heading) draft.level = largest >= 2.0 ? 1 : largest >= 1.6 ? 2 : 3;
            drafts.push_back(draft);
            i = k;
        }
    }
    // Tables go before the first region that starts below their top edge.
    for (const detail::RuledTable& table : tables) {
        Draft draft{table.box, RegionKind::table, 0, &table};
        auto at = std::find_if(drafts.begin(), drafts.end(),
                               [&](const Draft& d) { return d.box.y0 > table.box.y0; });
        drafts.insert(at, draft);
    }

    std::vector<Region> regions;
    const int margin = std::max(2, page.dpi / 36);
    for (const Draft& draft : drafts) {
        const PixelBox box = clamp(draft.box, page.image, draft.table ? 1 : margin);
        if (box.x1 - box.x0 < 2 || box.y1 - box.y0 < 2) continue;
        Region region;
        region.doc_path = page.doc_path;
        region.doc_name = page.doc_name;
        region.page_index = page.index;
        region.order = static_cast<int>(regions.size());
        region.kind = draft.kind;
        region.level = draft.level;
        region.bbox = to_points(box, page.dpi);
        region.page_width = page.width;
        region.page_height = page.height;
        region.dpi = page.dpi;
        region.image = crop(page.image, box);
        region.outline = page.outline;
        if (draft.table) {
            const auto& rows = draft.table->row_edges;
            const auto& cols = draft.table->col_edges;
            region.rows = static_cast<int>(rows.size()) - 1;
            region.cols = static_cast<int>(cols.size()) - 1;
            for (int r = 0; r < region.rows; ++r) {
                for (int c = 0; c < region.cols; ++c) {
                    region.cells.push_back(TableCell{
                        r, c,
                        to_points(PixelBox{cols[c], rows[r], cols[c + 1], rows[r + 1]}, page.dpi),
                        ""});
                }
            }
        }
        regions.push_back(std::move(region));
    }
    if (page.text_source == "layer") fill_from_layer(page, regions);
    return regions;
}

std::string kind_name(const Region& region) {
    switch (region.kind) {
        case RegionKind::text: return "text";
        case RegionKind::heading: return "heading";
        case RegionKind::table: return "table";
        case RegionKind::figure: return "figure";
        case RegionKind::caption: return "caption";
        case RegionKind::list: return "list";
        case RegionKind::formula: return "formula";
        case RegionKind::code: return "code";
    }
    return "text";
}

Region tag(const Region& region, const Document& doc) {
    Region out = region;
    for (const auto& [key, value] : doc.metadata) out.metadata[key] = value;
    if (!doc.title.empty()) out.metadata["title"] = doc.title;
    if (!doc.author.empty()) out.metadata["author"] = doc.author;
    out.metadata["page_count"] = std::to_string(doc.page_count);
    return out;
}

}  // namespace rop::stdlib::layout
