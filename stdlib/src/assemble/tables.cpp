// std.assemble.from_page: from_ocr plus the ruled tables of the page's image (see assemble.h).
#include <algorithm>
#include <string>
#include <vector>

#include "rop/stdlib/assemble.h"
#include "ruled_tables.h"
#include "structure.h"

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

// A piece of text inside a table: a word, or a line when there are no words.
struct Piece {
    BBox box;
    std::string text;
};

// A table the rules give no inner column (a frame and a rule under the head row: 2 rows by 1
// column) has its columns and rows from its text instead: a row per text line (pieces that share
// a row, detail::same_row), a column edge in each vertical band that no
// piece covers, at least kColumnGap wide, across the table. True when it made a grid of 3 rows
// or more and 2 columns or more; otherwise the table keeps the rules' grid.
constexpr double kColumnGap = 8;  // points: wider than a space between words of one cell
bool grid_from_text(Block& table, std::vector<Piece> pieces) {
    if (table.cols != 1 || pieces.size() < 4) return false;
    // Rows: pieces top to bottom, a new row where one does not share the current row.
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece& a, const Piece& b) { return a.box.y0 < b.box.y0; });
    std::vector<std::vector<Piece>> rows;
    BBox span{};
    for (Piece& piece : pieces) {
        if (rows.empty() || !detail::same_row(span, piece.box)) {
            rows.emplace_back();
            span = piece.box;
        } else {
            span.y0 = std::min(span.y0, piece.box.y0);
            span.y1 = std::max(span.y1, piece.box.y1);
        }
        rows.back().push_back(std::move(piece));
    }
    if (rows.size() < 3) return false;
    // Columns: the pieces' x extents merged; a gap between merged runs is a column edge.
    std::vector<std::pair<double, double>> runs;
    for (const auto& row : rows) {
        for (const Piece& piece : row) runs.emplace_back(piece.box.x0, piece.box.x1);
    }
    std::sort(runs.begin(), runs.end());
    std::vector<double> edges = {table.bbox.x0};
    double reach = runs.front().second;
    for (std::size_t i = 1; i < runs.size(); ++i) {
        if (runs[i].first - reach >= kColumnGap) edges.push_back((reach + runs[i].first) / 2);
        reach = std::max(reach, runs[i].second);
    }
    edges.push_back(table.bbox.x1);
    if (edges.size() < 3) return false;
    // The cells: each row from halfway to the row above to halfway to the row below.
    std::vector<double> tops = {table.bbox.y0};
    for (std::size_t r = 1; r < rows.size(); ++r) {
        double above = 0, below = rows[r].front().box.y0;
        for (const Piece& piece : rows[r - 1]) above = std::max(above, piece.box.y1);
        for (const Piece& piece : rows[r]) below = std::min(below, piece.box.y0);
        tops.push_back((above + below) / 2);
    }
    tops.push_back(table.bbox.y1);
    table.rows = static_cast<int>(rows.size());
    table.cols = static_cast<int>(edges.size()) - 1;
    table.cells.clear();
    for (int r = 0; r < table.rows; ++r) {
        std::vector<Piece>& row = rows[static_cast<std::size_t>(r)];
        std::sort(row.begin(), row.end(),
                  [](const Piece& a, const Piece& b) { return a.box.x0 < b.box.x0; });
        for (int c = 0; c < table.cols; ++c) {
            TableCell cell{r, c, BBox{edges[c], tops[r], edges[c + 1], tops[r + 1]}, ""};
            for (const Piece& piece : row) {
                const double x = (piece.box.x0 + piece.box.x1) / 2;
                if (x < edges[c] || x >= edges[c + 1]) continue;
                if (!cell.text.empty()) cell.text += ' ';
                cell.text += piece.text;
            }
            table.cells.push_back(std::move(cell));
        }
    }
    return true;
}

}  // namespace

PageContent from_page(const OcrResult& result, const Page& page, double heading_ratio) {
    if (page.image.empty() || page.dpi <= 0) return from_ocr(result, heading_ratio);
    std::vector<Block> tables;
    for (const layout::detail::RuledTable& table :
         layout::detail::find_ruled_tables(page.image, page.dpi)) {
        tables.push_back(table_block(table, page.dpi));
    }
    if (tables.empty()) return from_ocr(result, heading_ratio);
    // Lines whose center lies in a table go to its cells (word by word where the words are
    // known); the others, with their words, are assembled as from_ocr does.
    const std::vector<std::vector<const Word*>> words =
        detail::words_of_lines(result.lines, result.words);
    OcrResult rest = result;
    rest.lines.clear();
    rest.words.clear();
    std::vector<double> confidence(tables.size(), 0);
    std::vector<int> counted(tables.size(), 0);
    std::vector<std::vector<Piece>> pieces(tables.size());
    for (std::size_t i = 0; i < result.lines.size(); ++i) {
        const Line& line = result.lines[i];
        const auto table = std::find_if(tables.begin(), tables.end(), [&](const Block& t) {
            return center_in(line.bbox, t.bbox);
        });
        if (table == tables.end()) {
            rest.lines.push_back(line);
            for (const Word* word : words[i]) rest.words.push_back(*word);
            continue;
        }
        const auto index = static_cast<std::size_t>(table - tables.begin());
        confidence[index] += line.confidence;
        ++counted[index];
        if (words[i].empty()) {
            pieces[index].push_back({line.bbox, line.text});
            continue;
        }
        for (const Word* word : words[i]) pieces[index].push_back({word->bbox, word->text});
    }
    PageContent content = from_ocr(rest, heading_ratio);
    for (std::size_t t = 0; t < tables.size(); ++t) {
        Block& table = tables[t];
        if (!grid_from_text(table, pieces[t])) {
            for (const Piece& piece : pieces[t]) add_text(table, piece.box, piece.text);
        }
        table.confidence = counted[t] > 0 ? static_cast<float>(confidence[t] / counted[t]) : 0;
        int row = -1;
        for (const TableCell& cell : table.cells) {
            if (row >= 0) table.text += cell.row == row ? " | " : "\n";
            row = cell.row;
            table.text += cell.text;
        }
        // Before the first block that starts below the table's top edge.
        auto at = std::find_if(content.blocks.begin(), content.blocks.end(),
                               [&](const Block& b) { return b.bbox.y0 > table.bbox.y0; });
        content.blocks.insert(at, std::move(table));
    }
    return content;
}

}  // namespace rop::stdlib::assemble
