// std.assemble.from_page: from_ocr plus the ruled tables of the page's image and the tables its
// text sets without rules (see assemble.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rop/stdlib/assemble.h"
#include "ruled_tables.h"
#include "structure.h"
#include "text_grid.h"

namespace rop::stdlib::assemble {
namespace {

bool center_in(const BBox& box, const BBox& outer) {
    const double x = (box.x0 + box.x1) / 2;
    const double y = (box.y0 + box.y1) / 2;
    return x >= outer.x0 && x <= outer.x1 && y >= outer.y0 && y <= outer.y1;
}

BBox to_points(double x0, double y0, double x1, double y1, int dpi) {
    const double scale = 72.0 / dpi;
    return BBox{x0 * scale, y0 * scale, x1 * scale, y1 * scale};
}

// A ruled table as a "table" block with its grid; cells are filled by add_text.
Block table_block(const layout::detail::RuledTable& table, int dpi) {
    Block block;
    block.type = "table";
    block.bbox = to_points(table.box.x0, table.box.y0, table.box.x1, table.box.y1, dpi);
    block.rows = static_cast<int>(table.row_edges.size()) - 1;
    block.cols = static_cast<int>(table.col_edges.size()) - 1;
    for (int r = 0; r < block.rows; ++r) {
        for (int c = 0; c < block.cols; ++c) {
            block.cells.push_back(
                TableCell{r, c,
                          to_points(table.col_edges[c], table.row_edges[r], table.col_edges[c + 1],
                                    table.row_edges[r + 1], dpi),
                          ""});
        }
    }
    return block;
}

// Adds a piece of text (a word, or a line when there are no words) to the cell holding its
// center; false when no cell does.
bool add_text(Block& table, const BBox& box, const std::string& text) {
    for (TableCell& cell : table.cells) {
        if (!center_in(box, cell.bbox)) continue;
        if (!cell.text.empty()) cell.text += ' ';
        cell.text += text;
        return true;
    }
    return false;
}

using layout::detail::kColumnGap;
using Piece = layout::detail::TextPiece;

// A table the rules give no inner column (a frame and a rule under the head row: 2 rows by 1
// column), or one set without rules, has its columns and rows from its text instead
// (layout::detail::grid_from_pieces). True when that made a grid; otherwise the table is as it was.
bool grid_from_text(Block& table, std::vector<Piece> pieces) {
    std::optional<layout::detail::TextGrid> grid =
        layout::detail::grid_from_pieces(table.bbox, std::move(pieces));
    if (!grid) return false;
    table.rows = grid->rows;
    table.cols = grid->cols;
    table.cells = std::move(grid->cells);
    return true;
}

// A table set without rules, found from where its text stands (MinerU's layout model finds these;
// the rule finder cannot): rows of two or more pieces of text (a line split where its words are a
// column gap apart) whose pieces fall into the same columns, three rows or more, one under the
// other. Lines that cannot be cells keep a row from being one: code (a monospace font), list items
// (a marker and its text at a hanging indent are two pieces), lines of a heading's size and a table
// of contents' lines (dot leaders). Rejected: two columns or more whose pieces hold 5 words or more
// (prose: a page set in two columns), rows further apart than 1.5 line heights (paragraphs beside
// each other), a column that half the rows leave empty, two pieces of one row in one column, a last
// column of equation numbers ("(2.7)": displayed formulas), and on an OCR'd page rows whose words
// together fit one character pitch (a listing). A cell that wraps onto a line of its own (one
// piece under a piece of the row above, starting where it starts and ending before the next
// column's piece, at most a row gap below) continues that cell: in the first column only when
// another row follows (a footnote mark under a table is no wrapped name).
struct TextTable {
    BBox box;
    std::vector<std::size_t> lines;  // the lines that are its cells
    // A line that continues a cell of the row above, and that cell's box before any line did.
    struct Continuation {
        std::size_t line;
        BBox onto;
    };
    std::vector<Continuation> continued;
};

constexpr double kTextTableRowGap = 1.5;  // line heights between two rows of one table
constexpr int kProseWords = 5;            // a column piece's median words: prose, not a cell

using detail::unite;

// A table of contents' line: dot leaders ("Naming . . . . 3", "syntax......2").
bool leaders(const std::vector<const Word*>& words) {
    int dots = 0;  // words of dots alone in a row
    for (const Word* word : words) {
        if (word->text.find("...") != std::string::npos) return true;
        const bool all_dots = word->text.find_first_not_of('.') == std::string::npos;
        dots = all_dots ? dots + 1 : 0;
        if (dots >= 3) return true;
    }
    return false;
}

// "(2.7)", "(3.14a)": a displayed formula's number.
bool equation_number(const std::string& text) {
    if (text.size() < 3 || text.front() != '(' || text.back() != ')') return false;
    const std::string_view body(text.data() + 1, text.size() - 2);
    if (body.empty() || !std::isdigit(static_cast<unsigned char>(body.front()))) return false;
    return std::all_of(body.begin(), body.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || (c >= 'a' && c <= 'z');
    });
}

// The words of a line that can fill a cell: on an OCR'd page, not the marks Tesseract reads from
// rules and specks ("__", "|", ".") that hold no letter or digit (layout::detail::
// holds_letter_or_digit, as std.ocr.RegionText keeps them).
std::vector<const Word*> cell_words(const std::vector<const Word*>& words, bool ocr) {
    if (!ocr) return words;
    std::vector<const Word*> kept;
    for (const Word* word : words) {
        if (layout::detail::holds_letter_or_digit(word->text)) kept.push_back(word);
    }
    return kept;
}

std::vector<TextTable> text_tables(const OcrResult& page,
                                   const std::vector<std::vector<const Word*>>& words,
                                   const std::vector<bool>& skip, double heading_ratio) {
    const std::size_t count = page.lines.size();
    if (count < 3) return {};
    const bool ocr = page.text_source != "layer";
    std::vector<double> heights;
    std::vector<double> sizes;
    for (const Line& line : page.lines) {
        heights.push_back(line.bbox.height());
        sizes.push_back(line.font_size > 0 ? line.font_size : line.bbox.height());
    }
    const double height = std::max(detail::lower_median(heights), 1.0);
    const double size = detail::lower_median(sizes);
    // Wider than any space a justified line stretches to.
    const double gap = std::max(kColumnGap, height);
    struct Segment {
        BBox box;
        std::size_t line;
        int words;
        bool cell;  // its line can be a table's cell
        std::string text;
        std::vector<TextTable::Continuation> continued;  // lines that wrapped this cell
    };
    std::vector<Segment> segments;
    for (std::size_t i = 0; i < count; ++i) {
        if (skip[i]) continue;
        const Line& line = page.lines[i];
        const std::vector<const Word*>& in = words[i];
        bool cell = line.font_size <= 0 || line.font_size < heading_ratio * size;
        if (!ocr) cell = cell && !detail::code_line(in);  // OCR: by pitch, in table() below
        cell = cell && !detail::list_start(line, in, ocr).found && !leaders(in);
        if (in.empty()) {
            segments.push_back({line.bbox, i, 1, cell, line.text, {}});
            continue;
        }
        const std::vector<const Word*> kept = cell_words(in, ocr);
        for (std::size_t w = 0; w < kept.size(); ++w) {
            if (w == 0 || kept[w]->bbox.x0 - kept[w - 1]->bbox.x1 >= gap) {
                segments.push_back({kept[w]->bbox, i, 0, cell, "", {}});
            }
            if (!segments.back().text.empty()) segments.back().text += ' ';
            segments.back().text += kept[w]->text;
            segments.back().box = unite(segments.back().box, kept[w]->bbox);
            ++segments.back().words;
        }
    }
    // Rows top to bottom, as grid_from_text makes them.
    std::sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) {
        return a.box.y0 + a.box.y1 < b.box.y0 + b.box.y1;
    });
    std::vector<std::vector<Segment>> rows;
    BBox span{};
    for (const Segment& segment : segments) {
        if (rows.empty() || !detail::same_row(span, segment.box)) {
            rows.emplace_back();
            span = segment.box;
        } else {
            span = unite(span, segment.box);
        }
        rows.back().push_back(segment);
    }
    auto tabular = [](std::vector<Segment>& row) {
        if (row.size() < 2) return false;
        std::sort(row.begin(), row.end(),
                  [](const Segment& a, const Segment& b) { return a.box.x0 < b.box.x0; });
        for (std::size_t k = 0; k < row.size(); ++k) {
            if (!row[k].cell || (k > 0 && row[k].box.x0 < row[k - 1].box.x1)) return false;
        }
        return true;
    };
    auto bottom = [](const std::vector<Segment>& row) {
        double y = row.front().box.y1;
        for (const Segment& segment : row) y = std::max(y, segment.box.y1);
        return y;
    };
    auto top = [](const std::vector<Segment>& row) {
        double y = row.front().box.y0;
        for (const Segment& segment : row) y = std::min(y, segment.box.y0);
        return y;
    };
    // Whether rows [first, end) make a table: columns from the gaps no segment covers, every row's
    // segments in columns of their own, every column in half the rows, at most one of prose.
    auto table = [&](std::size_t first, std::size_t end) {
        // OCR gives no fonts: rows whose words all fit one pitch are a listing (as from_ocr's
        // pitched code tells one: detail::kCodeEvidence words and gaps), not a table. One line
        // alone ("Code  Meaning") can fit a pitch by chance.
        if (ocr) {
            std::vector<std::size_t> lines;
            std::vector<const Word*> all;
            for (std::size_t r = first; r < end; ++r) {
                for (const Segment& segment : rows[r]) lines.push_back(segment.line);
            }
            std::sort(lines.begin(), lines.end());
            lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
            for (std::size_t line : lines)
                all.insert(all.end(), words[line].begin(), words[line].end());
            const double pitch = detail::line_pitch(all);
            detail::PitchFit fit;
            for (std::size_t line : lines) {
                const detail::PitchFit one =
                    pitch > 0 ? detail::pitch_fit(words[line], pitch) : detail::PitchFit{0, 1};
                fit.fits += one.fits;
                fit.misfits += one.misfits;
            }
            if (fit.misfits == 0 && fit.fits >= detail::kCodeEvidence) return false;
        }
        std::vector<std::pair<double, double>> runs;
        for (std::size_t r = first; r < end; ++r) {
            for (const Segment& segment : rows[r]) {
                runs.emplace_back(segment.box.x0, segment.box.x1);
            }
        }
        if (runs.empty()) return false;
        std::sort(runs.begin(), runs.end());
        std::vector<double> edges;
        double reach = runs.front().second;
        for (std::size_t k = 1; k < runs.size(); ++k) {
            if (runs[k].first - reach >= kColumnGap) edges.push_back((reach + runs[k].first) / 2);
            reach = std::max(reach, runs[k].second);
        }
        if (edges.empty()) return false;
        const std::size_t columns = edges.size() + 1;
        std::vector<std::size_t> used(columns, 0);
        std::vector<std::vector<double>> column_words(columns);
        std::vector<std::vector<std::string>> column_text(columns);
        for (std::size_t r = first; r < end; ++r) {
            std::vector<bool> taken(columns, false);
            for (const Segment& segment : rows[r]) {
                const auto column = static_cast<std::size_t>(
                    std::upper_bound(edges.begin(), edges.end(), segment.box.x0) - edges.begin());
                if (taken[column]) return false;
                taken[column] = true;
                ++used[column];
                column_words[column].push_back(segment.words);
                column_text[column].push_back(segment.text);
            }
        }
        // A column of equation numbers beside formulas: "(2.7)", "(3.14a)".
        if (std::all_of(column_text.back().begin(), column_text.back().end(), equation_number)) {
            return false;
        }
        int prose = 0;
        for (std::size_t c = 0; c < columns; ++c) {
            if (2 * used[c] < end - first) return false;
            if (detail::lower_median(column_words[c]) >= kProseWords) ++prose;
        }
        return prose <= 1;
    };
    // The segment of `above` (a table's row) that row `at` continues, a cell wrapped onto a line
    // of its own: one segment that starts where that one starts (within half a line height) and
    // ends a column gap before the next one starts, at most a row gap below; in the first column
    // only when a table row follows it. None: above.size().
    auto continues = [&](const std::vector<Segment>& above, std::size_t at) {
        const std::vector<Segment>& row = rows[at];
        if (row.size() != 1 || !row.front().cell ||
            top(row) - bottom(above) > kTextTableRowGap * height) {
            return above.size();
        }
        const BBox& box = row.front().box;
        for (std::size_t k = 0; k < above.size(); ++k) {
            if (std::abs(box.x0 - above[k].box.x0) > 0.5 * height) continue;
            if (k + 1 < above.size() && box.x1 > above[k + 1].box.x0 - kColumnGap) break;
            if (k == 0 && !(at + 1 < rows.size() && tabular(rows[at + 1]))) break;
            return k;
        }
        return above.size();
    };
    std::vector<TextTable> tables;
    // Rows [first, end) as a table: its box, its lines and its wrapped cells' lines.
    auto add = [&](std::size_t first, std::size_t end) {
        TextTable found{rows[first].front().box, {}, {}};
        for (std::size_t k = first; k < end; ++k) {
            for (const Segment& segment : rows[k]) {
                found.box = unite(found.box, segment.box);
                found.lines.push_back(segment.line);
                for (const TextTable::Continuation& c : segment.continued) {
                    found.lines.push_back(c.line);
                    found.continued.push_back(c);
                }
            }
        }
        std::sort(found.lines.begin(), found.lines.end());
        found.lines.erase(std::unique(found.lines.begin(), found.lines.end()), found.lines.end());
        tables.push_back(std::move(found));
    };
    std::size_t r = 0;
    while (r < rows.size()) {
        if (!tabular(rows[r])) {
            ++r;
            continue;
        }
        std::size_t end = r + 1;
        while (end < rows.size()) {
            if (tabular(rows[end]) &&
                top(rows[end]) - bottom(rows[end - 1]) <= kTextTableRowGap * height) {
                ++end;
                continue;
            }
            std::vector<Segment>& above = rows[end - 1];
            const std::size_t k = continues(above, end);
            if (k == above.size()) break;
            Segment& cell = above[k];
            const Segment& wrapped = rows[end].front();
            const BBox onto = cell.continued.empty() ? cell.box : cell.continued.front().onto;
            cell.continued.push_back({wrapped.line, onto});
            cell.text += ' ' + wrapped.text;
            cell.words += wrapped.words;
            cell.box = unite(cell.box, wrapped.box);
            rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(end));
        }
        if (end - r >= 3 && table(r, end)) {
            add(r, end);
        } else {
            // The wrapped cells joined what used to be tables of their own, and one row of the
            // whole (two cells a gap too close) can keep it from being one: each part up to a
            // row with a wrapped cell is then taken as it would have been on its own.
            std::size_t first = r;
            for (std::size_t k = r; k < end; ++k) {
                const bool wrapped =
                    std::any_of(rows[k].begin(), rows[k].end(),
                                [](const Segment& s) { return !s.continued.empty(); });
                if (!wrapped && k + 1 < end) continue;
                if (k + 1 - first >= 3 && (first != r || k + 1 != end) && table(first, k + 1)) {
                    add(first, k + 1);
                }
                first = k + 1;
            }
        }
        r = end;
    }
    return tables;
}

}  // namespace

PageContent from_page(const OcrResult& result, const Page& page, double heading_ratio) {
    std::vector<Block> tables;
    if (!page.image.empty() && page.dpi > 0) {
        for (const layout::detail::RuledTable& table :
             layout::detail::find_ruled_tables(page.image, page.dpi)) {
            tables.push_back(table_block(table, page.dpi));
        }
    }
    const std::size_t ruled = tables.size();
    const std::vector<std::vector<const Word*>> words =
        detail::words_of_lines(result.lines, result.words);
    // Lines whose center lies in a ruled table go to its cells (word by word where the words are
    // known).
    std::vector<bool> taken(result.lines.size(), false);
    std::vector<double> confidence(tables.size(), 0);
    std::vector<int> counted(tables.size(), 0);
    std::vector<std::vector<Piece>> pieces(tables.size());
    for (std::size_t i = 0; i < result.lines.size(); ++i) {
        const Line& line = result.lines[i];
        const auto table = std::find_if(tables.begin(), tables.end(), [&](const Block& t) {
            return center_in(line.bbox, t.bbox);
        });
        if (table == tables.end()) continue;
        const auto index = static_cast<std::size_t>(table - tables.begin());
        taken[i] = true;
        confidence[index] += line.confidence;
        ++counted[index];
        if (words[i].empty()) {
            pieces[index].push_back({line.bbox, line.text});
            continue;
        }
        for (const Word* word : words[i]) pieces[index].push_back({word->bbox, word->text});
    }
    // Then the tables set without rules, among the lines left: kept when their words make a grid.
    for (const TextTable& found : text_tables(result, words, taken, heading_ratio)) {
        Block table;
        table.type = "table";
        table.bbox = found.box;
        table.rows = 1;
        table.cols = 1;
        const bool ocr = result.text_source != "layer";
        // A line's pieces: its words that can fill a cell, or the line itself without words.
        auto pieces_of = [&](std::size_t i) {
            std::vector<Piece> line;
            for (const Word* word : cell_words(words[i], ocr)) {
                line.push_back({word->bbox, word->text});
            }
            if (words[i].empty()) line.push_back({result.lines[i].bbox, result.lines[i].text});
            return line;
        };
        std::vector<Piece> cells;
        for (std::size_t i : found.lines) {
            const bool wrapped =
                std::any_of(found.continued.begin(), found.continued.end(),
                            [&](const TextTable::Continuation& c) { return c.line == i; });
            if (wrapped) continue;
            std::vector<Piece> line = pieces_of(i);
            cells.insert(cells.end(), line.begin(), line.end());
        }
        // A wrapped cell's lines, top to bottom, join the text of the cell's last piece as a
        // paragraph's lines join (a word hyphenated at the wrap is one word again), so the grid
        // reads them after the cell's own words and no column moves.
        for (const TextTable::Continuation& c : found.continued) {
            std::string text;
            for (const Piece& piece : pieces_of(c.line)) {
                text += (text.empty() ? "" : " ") + piece.text;
            }
            if (text.empty()) continue;
            Piece* last = nullptr;
            for (Piece& piece : cells) {
                if (piece.box.x0 >= c.onto.x0 - 1e-9 && piece.box.x0 <= c.onto.x1 &&
                    layout::detail::same_row(piece.box, c.onto) &&
                    (last == nullptr || piece.box.x0 >= last->box.x0)) {
                    last = &piece;
                }
            }
            if (last == nullptr) {
                cells.push_back({c.onto, text});  // a cell whose own words were all specks
            } else {
                detail::append_line(last->text, text);
            }
        }
        if (!grid_from_text(table, cells)) continue;
        tables.push_back(std::move(table));
        confidence.push_back(0);
        counted.push_back(0);
        pieces.emplace_back();
        for (std::size_t i : found.lines) {
            taken[i] = true;
            confidence.back() += result.lines[i].confidence;
            ++counted.back();
        }
    }
    // The page as most are: no table, from_ocr's alone (no copy of its lines and words).
    if (tables.empty()) return from_ocr(result, heading_ratio);
    // The other lines, with their words, are assembled as from_ocr does.
    OcrResult rest = result;
    rest.lines.clear();
    rest.words.clear();
    for (std::size_t i = 0; i < result.lines.size(); ++i) {
        if (taken[i]) continue;
        rest.lines.push_back(result.lines[i]);
        for (const Word* word : words[i]) rest.words.push_back(*word);
    }
    PageContent content = from_ocr(rest, heading_ratio);
    for (std::size_t t = 0; t < tables.size(); ++t) {
        Block& table = tables[t];
        if (t < ruled && !(table.cols == 1 && grid_from_text(table, pieces[t]))) {
            for (const Piece& piece : pieces[t]) add_text(table, piece.box, piece.text);
        }
        table.confidence = counted[t] > 0 ? static_cast<float>(confidence[t] / counted[t]) : 0;
        table.text = layout::detail::table_text(table.cells);
        // Before the first block that starts below the table's top edge.
        auto at = std::find_if(content.blocks.begin(), content.blocks.end(),
                               [&](const Block& b) { return b.bbox.y0 > table.bbox.y0; });
        content.blocks.insert(at, std::move(table));
    }
    return content;
}

}  // namespace rop::stdlib::assemble
