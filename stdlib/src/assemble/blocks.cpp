// std.assemble.from_ocr and std.assemble.page: a page's OCR or regions as PageContent blocks.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "rop/stdlib/assemble.h"
#include "structure.h"

namespace rop::stdlib::assemble {
namespace {

using detail::lower_median;
using detail::unite;

using detail::append_line;

int heading_level(double ratio) { return ratio >= 2.0 ? 1 : ratio >= 1.6 ? 2 : 3; }

// A section heading the size rule misses (under the heading ratio). `alone`: the line is its
// own paragraph; `first`: it starts its paragraph; `bold`: its words are all in a bold face (the
// text layer's fonts). Either
// - numbered: a section number ("2", "2.1", "A.1"; not "1." or "1)", which start list items)
//   and a capitalized word, at most 12 words, not ending like a sentence; and either alone at 1.1
//   times the body size or more (a scan's 12 pt over 10 pt), or bold at the body size starting
//   its paragraph (the text layer joins a run-in heading to the paragraph below it);
// - or a short title: at most 6 words, every word of 4 letters or more capitalized ("Lessons
//   Learned", "Notes on the Format"), not ending like a sentence; alone in its paragraph at 1.15
//   times the body size or more, or bold at the body size starting its paragraph ("Before You
//   Begin" run in above its text).
bool section_heading(const std::string& text, double ratio, bool alone, bool first, bool bold) {
    if (text.empty()) return false;
    const char last = text.back();
    if (last == '.' || last == ',' || last == ';' || last == ':') return false;
    const auto spaces = std::count(text.begin(), text.end(), ' ');
    static const std::regex numbering(R"(^(\d{1,3}(\.\d{1,3})*|[A-Z](\.\d{1,3})+) +[A-Z])");
    if (spaces < 12 && std::regex_search(text, numbering)) {
        return (alone && ratio >= 1.1) || (bold && first && ratio >= 0.95);
    }
    if (spaces >= 6 || !((alone && ratio >= 1.15) || (bold && first && ratio >= 0.95))) {
        return false;
    }
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view word(text.data() + start, end - start);
        const auto letters = std::count_if(word.begin(), word.end(), [](char c) {
            return std::isalpha(static_cast<unsigned char>(c)) != 0;
        });
        if (start == 0 || letters >= 4) {
            if (!std::isupper(static_cast<unsigned char>(word.front()))) return false;
        }
        start = end + 1;
    }
    return true;
}

// Lines far apart vertically, or the next one above the previous (a new column), end a run.
bool apart(const Line& previous, const Line& line, double factor) {
    const double height = std::max(previous.bbox.height(), 1.0);
    const double gap = line.bbox.y0 - previous.bbox.y1;
    return gap > factor * height || gap < -0.5 * height;
}

// The run of code lines from `first` as one "code" block: each line placed by its words' columns
// from the run's left edge (in the run's mean character width), blank lines where the gap to the
// previous line is a whole line pitch or more. A listing whose columns the text layer reads one
// after another (the options, then their descriptions) stays one block with its columns on each
// row: a run of code lines that starts back up, right of the run's left edge, on one of its rows,
// is the listing's next column, and its lines join the rows they sit on. `char_pitch`: the run's
// character pitch where OCR measured it (pitched_code; OCR's boxes are the ink, narrower than the
// cells), else 0; the lines of one such run (one pitch) are one block. Returns the line after the
// run.
std::size_t add_code(const std::vector<Line>& lines,
                     const std::vector<std::vector<const Word*>>& words,
                     const std::vector<bool>& code, const std::vector<double>& char_pitch,
                     std::size_t first, std::vector<Block>& blocks) {
    auto run_end = [&](std::size_t from) {
        std::size_t end = from + 1;
        while (end < lines.size() && code[end] &&
               (!apart(lines[end - 1], lines[end], 3.0) ||
                (char_pitch[end] > 0 && char_pitch[end] == char_pitch[end - 1]))) {
            ++end;
        }
        return end;
    };
    std::size_t end = run_end(first);
    while (end < lines.size() && code[end]) {
        const Line& next = lines[end];
        const bool back_up = next.bbox.y0 < lines[end - 1].bbox.y0 - 0.5 * next.bbox.height();
        bool on_a_row = false;
        for (std::size_t i = first; i < end && !on_a_row; ++i) {
            on_a_row =
                detail::same_row(lines[i].bbox, next.bbox) && next.bbox.x0 > lines[i].bbox.x0;
        }
        if (!back_up || !on_a_row) break;
        end = run_end(end);
    }
    // Rows top to bottom, each the words of the lines that share it, left to right.
    struct Row {
        BBox bbox;
        std::vector<const Word*> words;
    };
    std::vector<std::size_t> order;
    for (std::size_t i = first; i < end; ++i) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return lines[a].bbox.y0 < lines[b].bbox.y0;
    });
    // OCR's boxes are the ink, and punctuation is inked mid-cell ("(", "|"): there a word is
    // placed by its cells, its characters' pitch each side of its box's centre.
    const double ocr_pitch = char_pitch[first];
    std::vector<Word> cells;
    if (ocr_pitch > 0) {
        std::size_t total = 0;
        for (std::size_t i = first; i < end; ++i) total += words[i].size();
        cells.reserve(total);  // no reallocation: rows point into it
    }
    std::vector<Row> rows;
    for (std::size_t i : order) {
        if (rows.empty() || !detail::same_row(rows.back().bbox, lines[i].bbox)) {
            rows.push_back(Row{lines[i].bbox, {}});
        }
        Row& row = rows.back();
        row.bbox = unite(row.bbox, lines[i].bbox);
        if (!(ocr_pitch > 0)) {
            row.words.insert(row.words.end(), words[i].begin(), words[i].end());
            continue;
        }
        for (const Word* word : words[i]) {
            Word cell = *word;
            const double center = (word->bbox.x0 + word->bbox.x1) / 2;
            const double half =
                0.5 * ocr_pitch * static_cast<double>(detail::code_points(word->text));
            cell.bbox.x0 = center - half;
            cell.bbox.x1 = center + half;
            cells.push_back(std::move(cell));
            row.words.push_back(&cells.back());
        }
    }
    double left = ocr_pitch > 0 && !cells.empty() ? cells.front().bbox.x0 : lines[first].bbox.x0;
    double width = 0;
    double chars = 0;
    double pitch = 0;  // the smallest top-to-top distance of two rows
    for (std::size_t r = 0; r < rows.size(); ++r) {
        Row& row = rows[r];
        std::stable_sort(row.words.begin(), row.words.end(),
                         [](const Word* a, const Word* b) { return a->bbox.x0 < b->bbox.x0; });
        for (const Word* word : row.words) {
            left = std::min(left, word->bbox.x0);
            width += word->bbox.width();
            chars += static_cast<double>(detail::code_points(word->text));
        }
        const double step = r > 0 ? row.bbox.y0 - rows[r - 1].bbox.y0 : 0;
        if (step > 0 && (pitch == 0 || step < pitch)) pitch = step;
    }
    const double char_width = char_pitch[first] > 0 ? char_pitch[first]
                              : chars > 0           ? width / chars
                                                    : 0;
    Block block;
    block.type = "code";
    block.bbox = rows.front().bbox;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (r > 0) {
            block.text += '\n';
            const double step = rows[r].bbox.y0 - rows[r - 1].bbox.y0;
            if (pitch > 0) {
                const long blank = std::lround(step / pitch) - 1;
                block.text.append(static_cast<std::size_t>(std::clamp(blank, 0L, 3L)), '\n');
            }
        }
        block.text += detail::code_text(rows[r].words, left, char_width);
        block.bbox = unite(block.bbox, rows[r].bbox);
    }
    double confidence = 0;
    for (std::size_t i = first; i < end; ++i) {
        block.font_size = std::max(block.font_size, lines[i].font_size);
        confidence += lines[i].confidence;
    }
    block.confidence = static_cast<float>(confidence / static_cast<double>(end - first));
    blocks.push_back(std::move(block));
    return end;
}

// Code on an OCR'd page (no font names): runs of lines at one fixed character pitch
// (detail::line_pitch, detail::pitch_fit). A run starts at a line whose words fit its own
// pitch and takes in the lines below (and then above) it that fit the run's pitch and are no
// farther apart than add_code joins; lines with nothing to measure ("}", "{\"id\": 7},") join it,
// and so does one line OCR misread between two that fit (a box that took in its neighbour's
// characters: one word or gap off, two or more on; a prose line between two commands is off more),
// but a run does not end with a line that has letters and nothing measured ("Example", under a
// listing), nor start or end with a line `tall` (a heading's size or form: "4.5 Auxiliary
// functions" above a listing) or one word of letters (a label: "Synopsis"). It is code with two or
// more measured lines and at least kCodeEvidence words and gaps that fit: one short line (a table's
// row of numbers, a title in a wide font) is not enough. Marks its lines in `code`, its pitch in
// `pitch`.
using detail::kCodeEvidence;
void pitched_code(const std::vector<Line>& lines,
                  const std::vector<std::vector<const Word*>>& words, const std::vector<bool>& tall,
                  std::vector<bool>& code, std::vector<double>& pitch) {
    const std::size_t count = lines.size();
    // As add_code's apart, in the taller line's height: OCR's boxes are the ink, and a row of
    // lowercase letters and "=" is short.
    auto near = [&](std::size_t above, std::size_t below) {
        const double height =
            std::max({lines[above].bbox.height(), lines[below].bbox.height(), 1.0});
        const double gap = lines[below].bbox.y0 - lines[above].bbox.y1;
        return gap <= 3.0 * height && gap >= -0.5 * height;
    };
    auto has_letters = [&](std::size_t i) {
        return std::any_of(lines[i].text.begin(), lines[i].text.end(),
                           [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    };
    // One word of letters alone ("Synopsis", "Description"): a label beside a listing, whose
    // one width can fit the pitch by chance; it neither starts nor ends a run.
    auto label = [&](std::size_t i) {
        return words[i].size() == 1 &&
               std::all_of(words[i].front()->text.begin(), words[i].front()->text.end(),
                           [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    };
    auto edge = [&](std::size_t i) { return tall[i] || label(i); };
    // A line's evidence for a pitch: the words and gaps that fit it, -1 when one does not.
    auto fitting = [&](std::size_t line, double at) {
        const detail::PitchFit fit = detail::pitch_fit(words[line], at);
        return fit.misfits > 0 ? -1 : fit.fits;
    };
    std::size_t i = 0;
    while (i < count) {
        double run_pitch = edge(i) ? 0 : detail::line_pitch(words[i]);
        int evidence = run_pitch > 0 ? fitting(i, run_pitch) : -1;
        if (evidence < 1) {
            ++i;
            continue;
        }
        std::vector<const Word*> measured = words[i];  // the run's measured words: its pitch
        int measured_lines = 1;
        auto take = [&](std::size_t line, int fits) {
            evidence += fits;
            if (detail::line_pitch(words[line]) > 0) {
                ++measured_lines;
                measured.insert(measured.end(), words[line].begin(), words[line].end());
                run_pitch = detail::line_pitch(measured);
            }
        };
        std::size_t end = i + 1;  // the run is [first, end)
        while (end < count && near(end - 1, end)) {
            const int fits = fitting(end, run_pitch);
            if (fits >= 0) {
                take(end, fits);
                ++end;
                continue;
            }
            // One misread line between two that fit: one word or gap off, two or more on.
            const detail::PitchFit misread = detail::pitch_fit(words[end], run_pitch);
            if (misread.misfits > 1 || misread.fits < 2) break;
            const int after =
                end + 1 < count && near(end, end + 1) ? fitting(end + 1, run_pitch) : -1;
            if (after < 1) break;
            take(end + 1, after);
            end += 2;
        }
        while (end > i + 1 &&
               (edge(end - 1) || (fitting(end - 1, run_pitch) == 0 && has_letters(end - 1)))) {
            --end;
        }
        std::size_t first = i;
        while (first > 0 && near(first - 1, first) && !code[first - 1] && !edge(first - 1)) {
            const int fits = fitting(first - 1, run_pitch);
            if (fits < 1) break;
            take(first - 1, fits);
            --first;
        }
        if (measured_lines < 2 || evidence < kCodeEvidence) {
            ++i;
            continue;
        }
        for (std::size_t k = first; k < end; ++k) {
            code[k] = true;
            pitch[k] = run_pitch;
        }
        i = end;
    }
}

// The list from the item starting at `first`: items (a line with a list start at the first
// item's marker position) and their continuation lines (starting where the item's text starts, the
// hanging indent), up to the first other line, a code line, a heading or a gap of 1.5 line heights.
// Markers that can be ordinary text ("1.", OCR's "e") make a list only as two or more items whose
// texts start at one indent (an item at another indent ends the list). Sets `list` to a "list"
// block (its text the items, one a line, each its marker as read and its text) and returns the line
// after it, or returns `first` when the lines are no list.
constexpr double kContinuation = 0.6;  // of a marker's tolerance
std::size_t find_list(const std::vector<Line>& lines, const std::vector<bool>& code,
                      const std::vector<bool>& tall, const std::vector<detail::ListStart>& starts,
                      std::size_t first, Block& list) {
    struct Item {
        const detail::ListStart* start;
        std::string text;
    };
    std::vector<Item> items{{&starts[first], starts[first].text}};
    auto tolerance = [](const Line& line) { return std::max(3.0, 0.5 * line.bbox.height()); };
    std::size_t end = first + 1;
    for (; end < lines.size(); ++end) {
        const Line& line = lines[end];
        if (code[end] || tall[end] || apart(lines[end - 1], line, 1.5)) break;
        const detail::ListStart& head = *items.front().start;
        if (starts[end].found) {
            if (std::abs(starts[end].marker_x - head.marker_x) > tolerance(line)) break;
            // Items of a marker that can be ordinary text start their texts at one indent.
            if ((!head.sure || !starts[end].sure) &&
                std::abs(starts[end].text_x - head.text_x) > tolerance(line)) {
                break;
            }
            items.push_back({&starts[end], starts[end].text});
            continue;
        }
        // A continuation line starts where its item's text does: closer than a marker's place
        // may wander, since a paragraph's first line indented an en more is no continuation.
        const double indent = items.back().start->text_x;
        if (indent < 0 || std::abs(line.bbox.x0 - indent) > kContinuation * tolerance(line)) break;
        append_line(items.back().text, line.text);
    }
    const bool sure =
        std::all_of(items.begin(), items.end(), [](const Item& item) { return item.start->sure; });
    if (!sure && items.size() < 2) return first;
    Block block;
    block.type = "list";
    block.bbox = lines[first].bbox;
    double confidence = 0;
    for (std::size_t i = first; i < end; ++i) {
        block.bbox = unite(block.bbox, lines[i].bbox);
        block.font_size = std::max(block.font_size, lines[i].font_size);
        confidence += lines[i].confidence;
    }
    for (const Item& item : items) {
        if (!block.text.empty()) block.text += '\n';
        block.text += item.start->read + " " + item.text;
    }
    block.confidence = static_cast<float>(confidence / static_cast<double>(end - first));
    list = std::move(block);
    return end;
}

// A line of region text (no words, no box) as a list start.
detail::ListStart start_of(const std::string& text, bool ocr) {
    Line line;
    line.text = text;
    return detail::list_start(line, {}, ocr);
}

// Where a region's lines (no boxes: region text) end in a list: the first line of a run of
// items and continuations that goes to the region's end, starts with an item, and holds only sure
// items or two or more; lines.size() when there is none. Lines before it stay the paragraph.
std::size_t region_list(const std::vector<std::string>& lines, bool ocr) {
    for (std::size_t first = 0; first < lines.size(); ++first) {
        const detail::ListStart head = start_of(lines[first], ocr);
        if (!head.found) continue;
        std::size_t items = 0;
        bool sure = true;
        for (std::size_t i = first; i < lines.size(); ++i) {
            const detail::ListStart item = start_of(lines[i], ocr);
            if (!item.found) continue;
            ++items;
            sure = sure && item.sure;
        }
        return sure || items >= 2 ? first : lines.size();
    }
    return lines.size();
}

// A code block's lines, blank ones kept (a listing's blank lines are its own).
std::vector<std::string> code_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// A code block's character width: its box's width over its longest line (0: no characters).
double code_char_width(const Block& block, const std::vector<std::string>& lines) {
    std::size_t longest = 0;
    for (const std::string& line : lines) longest = std::max(longest, detail::code_points(line));
    return longest > 0 ? block.bbox.width() / static_cast<double>(longest) : 0.0;
}

// Writes `piece` into `row` from column `at` (code points), padding the row with spaces; false,
// leaving the row as it was, when a character other than a space is in the way. ASCII rows only
// (a column is a byte there).
bool write_at(std::string& row, std::size_t at, const std::string& piece) {
    if (detail::code_points(row) != row.size() || detail::code_points(piece) != piece.size()) {
        return false;
    }
    if (row.size() < at + piece.size()) row.resize(at + piece.size(), ' ');
    for (std::size_t k = 0; k < piece.size(); ++k) {
        if (row[at + k] != ' ' && piece[k] != ' ' && row[at + k] != piece[k]) return false;
    }
    for (std::size_t k = 0; k < piece.size(); ++k) {
        if (piece[k] != ' ') row[at + k] = piece[k];
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    return true;
}

// A piece of a listing the layout cut out of it sideways (the column of `=` of a grammar, a
// `==` inside a line, the `')' ;` that ends its last row): a code block that starts inside
// another code block's box (from its left edge, less half a character, to its right edge) and
// whose middle lies between its top and bottom goes back into it, each of its lines into the
// row whose middle is nearest, at its column in the larger block's character width; not when a
// character of the larger block is in the way.
void insert_code_pieces(std::vector<Block>& blocks) {
    for (std::size_t p = 0; p < blocks.size(); ++p) {
        Block& piece = blocks[p];
        if (piece.type != "code") continue;
        const std::vector<std::string> parts = code_lines(piece.text);
        const double middle = (piece.bbox.y0 + piece.bbox.y1) / 2;
        for (std::size_t h = 0; h < blocks.size(); ++h) {
            Block& host = blocks[h];
            if (h == p || host.type != "code") continue;
            std::vector<std::string> rows = code_lines(host.text);
            const double width = code_char_width(host, rows);
            if (!(width > 0) || !(host.bbox.height() > 0) || rows.size() <= parts.size() ||
                middle < host.bbox.y0 || middle > host.bbox.y1 ||
                piece.bbox.x0 < host.bbox.x0 - 0.5 * width || piece.bbox.x0 > host.bbox.x1) {
                continue;
            }
            const double row_height = host.bbox.height() / static_cast<double>(rows.size());
            const double part_height = piece.bbox.height() / static_cast<double>(parts.size());
            const auto column = static_cast<std::size_t>(
                std::max(0L, std::lround((piece.bbox.x0 - host.bbox.x0) / width)));
            bool fits = true;
            for (std::size_t j = 0; j < parts.size() && fits; ++j) {
                const double y = piece.bbox.y0 + (static_cast<double>(j) + 0.5) * part_height;
                const auto i = static_cast<std::size_t>(
                    std::clamp(static_cast<long>((y - host.bbox.y0) / row_height), 0L,
                               static_cast<long>(rows.size()) - 1));
                fits = write_at(rows[i], column, parts[j]);
            }
            if (!fits) continue;
            std::string text;
            for (std::size_t i = 0; i < rows.size(); ++i) text += (i > 0 ? "\n" : "") + rows[i];
            host.text = std::move(text);
            host.bbox = unite(host.bbox, piece.bbox);
            host.confidence = std::min(host.confidence, piece.confidence);
            blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(p));
            --p;
            break;
        }
    }
}

// A listing the layout cut into code regions one under the other (at a blank line, before a
// function's last line): consecutive code blocks that overlap horizontally and are at most 2.5 of
// their lines apart are one block, a blank line kept where the gap is a line or more, and each
// part's lines indented by how far right of the block's left edge it starts, in the listing's
// character width (a region's width over its longest line). Pieces cut out sideways go back
// first (insert_code_pieces).
void join_code(std::vector<Block>& blocks) {
    insert_code_pieces(blocks);
    std::vector<Block> joined;
    for (Block& block : blocks) {
        if (joined.empty() || block.type != "code" || joined.back().type != "code") {
            joined.push_back(std::move(block));
            continue;
        }
        Block& above = joined.back();
        std::vector<std::string> top = code_lines(above.text);
        std::vector<std::string> bottom = code_lines(block.text);
        const double line = std::max(above.bbox.height() / static_cast<double>(top.size()), 1.0);
        const double gap = block.bbox.y0 - above.bbox.y1;
        const bool overlap = block.bbox.x0 < above.bbox.x1 && above.bbox.x0 < block.bbox.x1;
        if (!overlap || gap < -0.5 * line || gap > 2.5 * line) {
            joined.push_back(std::move(block));
            continue;
        }
        const double widths[] = {code_char_width(above, top), code_char_width(block, bottom)};
        const double width =
            std::min(widths[0] > 0 ? widths[0] : widths[1], widths[1] > 0 ? widths[1] : widths[0]);
        auto indent = [&](std::vector<std::string>& lines, double by) {
            const auto spaces = width > 0 ? static_cast<std::size_t>(std::lround(by / width)) : 0;
            for (std::string& text : lines) {
                if (!text.empty()) text.insert(0, spaces, ' ');
            }
        };
        const double left = std::min(above.bbox.x0, block.bbox.x0);
        indent(top, above.bbox.x0 - left);
        indent(bottom, block.bbox.x0 - left);
        std::string text;
        for (const std::string& part : top) text += (text.empty() ? "" : "\n") + part;
        if (gap >= line) text += '\n';
        for (const std::string& part : bottom) text += '\n' + part;
        above.text = std::move(text);
        above.bbox = unite(above.bbox, block.bbox);
        above.confidence = std::min(above.confidence, block.confidence);
    }
    blocks = std::move(joined);
}

}  // namespace

PageContent from_ocr(const OcrResult& page, double heading_ratio) {
    PageContent content;
    content.doc_path = page.doc_path;
    content.doc_name = page.doc_name;
    content.page_index = page.page_index;
    content.width = page.width;
    content.height = page.height;
    content.text_source = page.text_source;
    content.outline = page.outline;
    const auto size_of = detail::line_size;
    std::vector<double> heights;
    for (const Line& line : page.lines) heights.push_back(size_of(line));
    // The lower median: on a page of one heading and one line, the line is the body size.
    const double median = lower_median(std::move(heights));
    const std::vector<std::vector<const Word*>> words =
        detail::words_of_lines(page.lines, page.words);
    const std::size_t count = page.lines.size();
    std::vector<bool> code(count, false);
    std::vector<double> pitch(count, 0);
    std::vector<bool> tall(count, false);
    std::vector<detail::ListStart> starts(count);
    const bool ocr = page.text_source != "layer";
    for (std::size_t i = 0; i < count; ++i) {
        const double ratio = median > 0 ? size_of(page.lines[i]) / median : 0;
        const int paragraph = page.lines[i].paragraph;
        const bool first = i == 0 || page.lines[i - 1].paragraph != paragraph;
        const bool alone = first && (i + 1 == count || page.lines[i + 1].paragraph != paragraph);
        tall[i] = median > 0 &&
                  (ratio >= heading_ratio || section_heading(page.lines[i].text, ratio, alone,
                                                             first, detail::bold_line(words[i])));
    }
    // OCR gives no fonts: code is what is set at one fixed pitch.
    if (ocr) pitched_code(page.lines, words, tall, code, pitch);
    for (std::size_t i = 0; i < count; ++i) {
        // Code first: a code line is never a heading, whatever its size.
        code[i] = code[i] || detail::code_line(words[i]);
        if (code[i]) {
            tall[i] = false;
            continue;
        }
        if (!tall[i]) {
            starts[i] = detail::list_start(page.lines[i], words[i], ocr);
        }
    }
    // A lone monospace line inside a prose paragraph (a URL or a command that ends or splits a
    // sentence) is part of the paragraph, not a code block of one line.
    for (std::size_t i = 0; i < count; ++i) {
        if (!code[i]) continue;
        const int paragraph = page.lines[i].paragraph;
        const bool before = i > 0 && page.lines[i - 1].paragraph == paragraph;
        const bool after = i + 1 < count && page.lines[i + 1].paragraph == paragraph;
        if ((before && code[i - 1]) || (after && code[i + 1])) continue;  // a code run
        if (before || after) code[i] = false;
    }
    // Lines in order: runs of code lines and list items become code and list blocks; the rest a
    // text block per paragraph, a new one where heading-ness switches.
    bool open = false;  // a text block is being filled
    int paragraph = -1;
    bool heading = false;
    double largest = 0;
    double confidence = 0;  // the block's lines' sum, until close()
    int lines = 0;
    auto close = [&] {
        if (!open) return;
        if (heading) content.blocks.back().text_level = heading_level(largest);
        content.blocks.back().confidence = lines > 0 ? static_cast<float>(confidence / lines) : 0;
        open = false;
    };
    std::size_t i = 0;
    while (i < count) {
        if (code[i]) {
            close();
            i = add_code(page.lines, words, code, pitch, i, content.blocks);
            continue;
        }
        if (starts[i].found) {
            Block list;
            const std::size_t end = find_list(page.lines, code, tall, starts, i, list);
            if (end > i) {
                close();
                content.blocks.push_back(std::move(list));
                i = end;
                continue;
            }
        }
        const Line& line = page.lines[i];
        const double ratio = median > 0 ? size_of(line) / median : 1.0;
        if (!open || line.paragraph != paragraph || tall[i] != heading) {
            close();
            Block block;
            block.bbox = line.bbox;
            content.blocks.push_back(block);
            open = true;
            paragraph = line.paragraph;
            heading = tall[i];
            largest = 0;
            confidence = 0;
            lines = 0;
        }
        confidence += line.confidence;
        ++lines;
        Block& block = content.blocks.back();
        // OCR: the line's ascent, so that the document's headings rank by size (document.h).
        block.font_size = std::max(block.font_size, ocr ? size_of(line) : line.font_size);
        append_line(block.text, line.text);
        block.bbox = unite(block.bbox, line.bbox);
        largest = std::max(largest, ratio);
        ++i;
    }
    close();
    return content;
}

namespace {

// A region's lines that are one list item whose marker makes no list alone (region_list): an
// OCR'd bullet read as a sign OCR also reads elsewhere ("+", an em dash), or an enumerator ("3.",
// "b)"), as a list block holds the item; "" when they are not.
std::string lone_item_of(const std::vector<std::string>& lines, bool ocr) {
    if (lines.empty()) return "";
    const detail::ListStart head = start_of(lines[0], ocr);
    if (!head.found || head.sure) return "";
    std::string item = head.read + " " + head.text;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (start_of(lines[i], ocr).found) return "";
        item += ' ' + lines[i];  // continues the item
    }
    return item;
}

// Whether list item `next` can come right after item `last` (as a list block holds them): a
// bullet after a bullet (whichever glyph OCR read: "+" is held as a bullet); a number or a letter
// only after the one before it, with the same marks ("2." then "3.", "(a)" then "(b)").
bool follows(std::string_view last, std::string_view next) {
    struct Marker {
        bool open = false;
        std::string body;  // "" for a bullet
        char close = 0;
    };
    auto marker = [](std::string_view item) {
        Marker m;
        const std::string token(item.substr(0, item.find(' ')));
        if (detail::enumerator(token).empty()) return m;
        m.open = token.front() == '(';
        m.close = token.back();
        m.body = token.substr(m.open ? 1 : 0, token.size() - (m.open ? 2 : 1));
        return m;
    };
    const Marker a = marker(last), b = marker(next);
    if (a.body.empty() || b.body.empty()) return a.body.empty() && b.body.empty();
    if (a.open != b.open || a.close != b.close) return false;
    const auto digits = [](const std::string& s) {
        return s.find_first_not_of("0123456789") == std::string::npos;
    };
    if (digits(a.body) && digits(b.body)) return std::stoi(b.body) == std::stoi(a.body) + 1;
    const auto letter = [](const std::string& s) {
        return s.size() == 1 && std::isalpha(static_cast<unsigned char>(s[0])) != 0;
    };
    return letter(a.body) && letter(b.body) && b.body[0] == a.body[0] + 1;
}

// A list block's first and last items.
std::string_view first_item(const std::string& list) {
    return std::string_view(list).substr(0, list.find('\n'));
}
std::string_view last_item(const std::string& list) {
    const std::size_t at = list.rfind('\n');
    return std::string_view(list).substr(at == std::string::npos ? 0 : at + 1);
}

// Whether `lower` follows `upper` in one list: their left edges within half a line and at most a
// line and a half between them.
bool same_list(const BBox& upper, const BBox& lower, double line) {
    const double gap = lower.y0 - upper.y1;
    return std::abs(upper.x0 - lower.x0) <= 0.5 * line && gap >= -0.5 * line && gap <= 1.5 * line;
}

// Whether a region is an OCR'd text region with its lines (std.ocr.RegionText's).
bool ocr_text(const Region& region) {
    return region.kind == RegionKind::text && region.text_source != "layer" &&
           !region.lines.empty();
}

// Where the column of OCR'd text regions that starts at `first` ends: each next one starts
// within a line of the one above's left edge and at most three lines below it (add_code's gap),
// a line being the taller of their first lines.
std::size_t ocr_column(std::span<const Region> regions, std::size_t first) {
    if (!ocr_text(regions[first])) return first;
    std::size_t end = first + 1;
    while (end < regions.size() && ocr_text(regions[end])) {
        const Region& above = regions[end - 1];
        const Region& below = regions[end];
        const double line =
            std::max({above.lines.back().bbox.height(), below.lines.front().bbox.height(), 1.0});
        const double gap = below.bbox.y0 - above.bbox.y1;
        if (std::abs(below.bbox.x0 - above.bbox.x0) > line || gap > 3 * line || gap < -0.5 * line)
            break;
        ++end;
    }
    return end;
}

// The lines and words of regions [first, end) as one OCR'd page, each region's paragraphs its own.
OcrResult column_lines(std::span<const Region> regions, std::size_t first, std::size_t end) {
    OcrResult read;
    read.text_source = regions[first].text_source;
    int base = 0;
    for (std::size_t r = first; r < end; ++r) {
        int last = base;
        for (Line line : regions[r].lines) {
            line.paragraph += base;
            last = std::max(last, line.paragraph);
            read.lines.push_back(std::move(line));
        }
        read.words.insert(read.words.end(), regions[r].words.begin(), regions[r].words.end());
        base = last + 1;
    }
    return read;
}

// Whether one of `content`'s code blocks reaches into two or more of regions [first, end).
bool code_across(const PageContent& content, std::span<const Region> regions, std::size_t first,
                 std::size_t end) {
    return std::any_of(content.blocks.begin(), content.blocks.end(), [&](const Block& block) {
        if (block.type != "code") return false;
        const auto reached = std::count_if(regions.begin() + static_cast<std::ptrdiff_t>(first),
                                           regions.begin() + static_cast<std::ptrdiff_t>(end),
                                           [&](const Region& region) {
                                               return std::min(block.bbox.y1, region.bbox.y1) >
                                                      std::max(block.bbox.y0, region.bbox.y0);
                                           });
        return reached >= 2;
    });
}

// A table row that the layout left outside its table (a head row above it, the last row below):
// a text region of one row of words (an OCR'd one's line, or a text-layer one's words, which
// std.layout keeps for such a region) that fall into the table's columns, two or more of them
// and at most one left empty, with a column gap (a line height) wherever the words change column
// and at most a line and a half from the table. A caption over the columns has plain spaces
// where it crosses from one to the next. The row's cells, one per column, or none.
std::vector<TableCell> table_row(const Region& table, const Region& row) {
    if (row.kind != RegionKind::text || row.words.empty() || row.lines.size() > 1 ||
        table.cols < 2 || table.cells.size() != static_cast<std::size_t>(table.rows) * table.cols) {
        return {};
    }
    double line = 1;
    for (const Word& word : row.words) {
        if (!detail::same_row(word.bbox, row.words.front().bbox)) return {};
        line = std::max(line, word.bbox.height());
    }
    const double gap = std::max(row.bbox.y0 - table.bbox.y1, table.bbox.y0 - row.bbox.y1);
    if (gap > 1.5 * line) return {};
    // Each column's span over its cells' boxes.
    std::vector<double> left(static_cast<std::size_t>(table.cols), 1e300);
    std::vector<double> right(static_cast<std::size_t>(table.cols), -1e300);
    for (const TableCell& cell : table.cells) {
        if (cell.text.empty()) continue;
        const auto c = static_cast<std::size_t>(cell.col);
        left[c] = std::min(left[c], cell.bbox.x0);
        right[c] = std::max(right[c], cell.bbox.x1);
    }
    std::vector<TableCell> cells(static_cast<std::size_t>(table.cols));
    int previous = -1;
    double previous_end = 0;
    for (const Word& word : row.words) {
        const double middle = (word.bbox.x0 + word.bbox.x1) / 2;
        int column = -1;
        double nearest = 1e300;
        for (std::size_t c = 0; c < left.size(); ++c) {
            if (left[c] > right[c]) continue;
            const double away =
                middle < left[c] ? left[c] - middle : std::max(0.0, middle - right[c]);
            if (away < nearest) nearest = away, column = static_cast<int>(c);
        }
        if (column < 0 || column < previous || nearest > line) return {};
        if (column != previous && previous >= 0 && word.bbox.x0 - previous_end < line) return {};
        TableCell& cell = cells[static_cast<std::size_t>(column)];
        cell.bbox = cell.text.empty() ? word.bbox : unite(cell.bbox, word.bbox);
        cell.text += (cell.text.empty() ? "" : " ") + word.text;
        previous = column;
        previous_end = word.bbox.x1;
    }
    const auto filled = std::count_if(cells.begin(), cells.end(),
                                      [](const TableCell& cell) { return !cell.text.empty(); });
    if (filled < 2 || filled + 1 < table.cols) return {};
    for (std::size_t c = 0; c < cells.size(); ++c) cells[c].col = static_cast<int>(c);
    return cells;
}

// The regions with the rows the layout left outside their tables (table_row) put back; nothing
// when there are none.
std::optional<std::vector<Region>> with_table_rows(std::span<const Region> regions) {
    std::vector<bool> taken(regions.size(), false);      // a row one table took
    std::vector<std::pair<std::size_t, Region>> mended;  // the tables that took rows, in order
    for (std::size_t t = 0; t < regions.size(); ++t) {
        if (regions[t].kind != RegionKind::table) continue;
        const std::vector<TableCell> above = t > 0 && !taken[t - 1]
                                                 ? table_row(regions[t], regions[t - 1])
                                                 : std::vector<TableCell>{};
        const std::vector<TableCell> below = t + 1 < regions.size()
                                                 ? table_row(regions[t], regions[t + 1])
                                                 : std::vector<TableCell>{};
        if (above.empty() && below.empty()) continue;
        Region table = regions[t];
        if (!below.empty()) {
            taken[t + 1] = true;
            for (TableCell cell : below) {
                cell.row = table.rows;
                table.cells.push_back(std::move(cell));
            }
            table.bbox = unite(table.bbox, regions[t + 1].bbox);
            ++table.rows;
        }
        if (!above.empty()) {
            taken[t - 1] = true;
            for (TableCell& cell : table.cells) ++cell.row;
            table.cells.insert(table.cells.begin(), above.begin(), above.end());
            table.bbox = unite(table.bbox, regions[t - 1].bbox);
            ++table.rows;
        }
        table.text = layout::detail::table_text(table.cells);
        mended.emplace_back(t, std::move(table));
    }
    if (mended.empty()) return std::nullopt;
    std::vector<Region> out;
    auto next = mended.begin();
    for (std::size_t i = 0; i < regions.size(); ++i) {
        if (taken[i]) continue;
        if (next != mended.end() && next->first == i) {
            out.push_back(std::move(next->second));
            ++next;
        } else {
            out.push_back(regions[i]);
        }
    }
    return out;
}

// A region's size: its words' largest layer font size; on an OCR'd page, which has no fonts, its
// OCR lines' largest size (detail::line_size), so that its headings rank across the document as
// from_ocr's do (document.h).
double region_size(const Region& region) {
    if (region.font_size > 0 || region.text_source == "layer") return region.font_size;
    double largest = 0;
    for (const Line& line : region.lines) largest = std::max(largest, detail::line_size(line));
    return largest;
}

}  // namespace

PageContent page(std::span<const Region> given) {
    // OCR's layout may leave a table's head row or last row outside it: they go back first.
    const std::optional<std::vector<Region>> mended = with_table_rows(given);
    const std::span<const Region> regions = mended ? std::span<const Region>(*mended) : given;
    PageContent content;
    content.page_index = -1;
    if (!regions.empty()) {
        content.doc_path = regions.front().doc_path;
        content.doc_name = regions.front().doc_name;
        content.page_index = regions.front().page_index;
        content.width = regions.front().page_width;
        content.height = regions.front().page_height;
        content.text_source = regions.front().text_source;
        content.outline = regions.front().outline;
    }
    // The body size: the lower median of the text regions' sizes (0: none known).
    std::vector<double> sizes;
    for (const Region& region : regions) {
        const double size = region.kind == RegionKind::text ? region_size(region) : 0;
        if (size > 0) sizes.push_back(size);
    }
    const double body = lower_median(std::move(sizes));
    // The last block when it is a lone list item (lone_item_of) that no list above took:
    // a list right below it in line takes it.
    struct LoneItem {
        std::size_t block;
        std::string item;
        double line;
    };
    std::optional<LoneItem> lone;
    std::size_t column_end = 0;  // the end of the last column of OCR'd text regions read whole
    for (std::size_t r = 0; r < regions.size(); ++r) {
        const Region& region = regions[r];
        // A listing the layout cut into regions one under the other (a config file's [input] and
        // [output], a decorator's lines between two code regions) holds in each too few measured
        // words for from_ocr's pitch rule: a column of OCR'd text regions is read as one page,
        // and when a code block of it reaches into two regions or more, the column becomes
        // from_ocr's blocks.
        // Read once from the column's first region (not again from each region in it).
        if (const std::size_t end = r >= column_end ? ocr_column(regions, r) : r; end > r + 1) {
            column_end = end;
            PageContent column = from_ocr(column_lines(regions, r, end));
            if (code_across(column, regions, r, end)) {
                for (Block& block : column.blocks) content.blocks.push_back(std::move(block));
                r = end - 1;
                continue;
            }
        }
        // OCR gives no fonts: a region's lines set at one pitch are code (from_ocr's rule, which
        // the layout's text and heading regions do not tell apart); its lines as from_ocr makes
        // them blocks then, the code kept with its columns.
        if ((region.kind == RegionKind::text || region.kind == RegionKind::heading) &&
            region.text_source != "layer" && region.lines.size() >= 2) {
            OcrResult read;
            read.lines = region.lines;
            read.words = region.words;
            read.text_source = region.text_source;
            PageContent lines = from_ocr(read);
            if (std::any_of(lines.blocks.begin(), lines.blocks.end(),
                            [](const Block& b) { return b.type == "code"; })) {
                for (Block& block : lines.blocks) content.blocks.push_back(std::move(block));
                continue;
            }
        }
        Block block;
        block.bbox = region.bbox;
        block.confidence = region.confidence;
        block.font_size = region_size(region);
        switch (region.kind) {
            case RegionKind::heading: block.text_level = std::max(1, region.level); break;
            case RegionKind::table:
                block.type = "table";
                block.cells = region.cells;
                block.rows = region.rows;
                block.cols = region.cols;
                break;
            case RegionKind::figure: block.type = "image"; break;
            case RegionKind::formula: block.type = "equation"; break;
            case RegionKind::code: block.type = "code"; break;
            default: break;
        }
        if (block.type == "table" || block.type == "code") {  // a listing keeps its rows
            block.text = region.text;
        } else {
            // Region OCR keeps the lines; a block is one paragraph of text, or a paragraph and
            // the list its lines end with.
            std::vector<std::string> lines;
            std::size_t start = 0;
            while (start <= region.text.size()) {
                std::size_t end = region.text.find('\n', start);
                if (end == std::string::npos) end = region.text.size();
                std::string line = region.text.substr(start, end - start);
                if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
                start = end + 1;
            }
            // A line alone in its region that the layout's size rule missed, as from_ocr
            // takes it: a numbered section heading at 1.1 times the body or a short title at
            // 1.15 (section_heading), when the sizes are known.
            if (block.type == "text" && block.text_level == 0 && lines.size() == 1 && body > 0 &&
                section_heading(lines[0], block.font_size / body, true, true, false)) {
                block.text_level = 3;
            }
            // The same line first in a region of several (the layout joined a heading under the
            // size rule to its paragraph) becomes a heading block of its own. Its size: on a
            // text-layer page the region's largest (the heading's when that line is the section
            // heading); on an OCR'd one the first OCR line's, when it is that line.
            const double first = region.text_source == "layer" ? region.font_size
                                 : !region.lines.empty() && region.lines.front().text == lines[0]
                                     ? detail::line_size(region.lines.front())
                                     : 0;
            if (block.type == "text" && block.text_level == 0 && lines.size() > 1 && body > 0 &&
                section_heading(lines[0], first / body, true, true, false)) {
                Block heading = block;
                heading.text = lines[0];
                heading.text_level = 3;
                heading.font_size = first;
                content.blocks.push_back(std::move(heading));
                lines.erase(lines.begin());
                block.font_size = body;
            }
            // The layout may cut a list into regions, leaving an item alone in its region whose
            // marker makes no list alone (an enumerator, or a bullet OCR misread): next to a
            // list, in line with it and in its sequence, it is one of its items.
            std::string lone_item;
            const double line =
                lines.empty() ? 0 : region.bbox.height() / static_cast<double>(lines.size());
            if (block.type == "text" && block.text_level == 0) {
                lone_item = lone_item_of(lines, region.text_source != "layer");
            }
            if (!lone_item.empty() && !content.blocks.empty() &&
                content.blocks.back().type == "list" &&
                same_list(content.blocks.back().bbox, region.bbox, line) &&
                follows(last_item(content.blocks.back().text), lone_item)) {
                Block& list = content.blocks.back();
                list.text += '\n' + lone_item;
                list.bbox = unite(list.bbox, region.bbox);
                continue;
            }
            const std::size_t items = block.type == "text" && block.text_level == 0
                                          ? region_list(lines, region.text_source != "layer")
                                          : lines.size();
            for (std::size_t i = 0; i < items; ++i) append_line(block.text, lines[i]);
            if (items < lines.size()) {
                Block list = block;
                list.type = "list";
                list.text.clear();
                for (std::size_t i = items; i < lines.size(); ++i) {
                    const detail::ListStart item =
                        start_of(lines[i], region.text_source != "layer");
                    if (item.found) {
                        if (!list.text.empty()) list.text += '\n';
                        list.text += item.read + " " + item.text;
                    } else {
                        list.text += ' ' + lines[i];  // continues the item
                    }
                }
                if (!block.text.empty()) {
                    content.blocks.push_back(block);
                } else if (lone && lone->block + 1 == content.blocks.size() &&
                           same_list(content.blocks.back().bbox, list.bbox, lone->line) &&
                           follows(lone->item, first_item(list.text))) {
                    list.text = lone->item + '\n' + list.text;
                    list.bbox = unite(list.bbox, content.blocks.back().bbox);
                    content.blocks.pop_back();
                    lone.reset();  // taken: the list now stands where the item did
                }
                content.blocks.push_back(std::move(list));
                continue;
            }
            if (!lone_item.empty()) lone = LoneItem{content.blocks.size(), lone_item, line};
        }
        if (block.type != "image" && block.text.empty() && block.cells.empty()) continue;
        content.blocks.push_back(std::move(block));
    }
    join_code(content.blocks);
    return content;
}

}  // namespace rop::stdlib::assemble
