// A table's grid from where its words stand (see text_grid.h).
#include "text_grid.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace rop::stdlib::layout::detail {

bool same_row(const BBox& a, const BBox& b) {
    const double overlap = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
    return overlap >= 0.5 * std::min(a.height(), b.height());
}

bool holds_letter_or_digit(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (std::isalnum(c)) return true;
            ++i;
            continue;
        }
        // One UTF-8 sequence: its length from the lead byte, then its continuation bytes.
        const std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        if (length == 0 || i + length > text.size()) return true;
        char32_t point = c & (0xFF >> (length + 1));
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80) return true;
            point = (point << 6) | (next & 0x3F);
        }
        i += length;
        const bool mark =
            point < 0xC0 || point == 0xD7 || point == 0xF7 ||
            (point >= 0x2000 && point <= 0x2BFF) || (point >= 0x3000 && point <= 0x303F) ||
            (point >= 0xFF00 && point <= 0xFF0F) || (point >= 0xFFF0 && point <= 0xFFFF);
        if (!mark) return true;
    }
    return false;
}

std::optional<TextGrid> grid_from_pieces(const BBox& table, std::vector<TextPiece> pieces) {
    if (pieces.size() < 4) return std::nullopt;
    // Rows: pieces top to bottom, a new row where one does not share the current row.
    std::sort(pieces.begin(), pieces.end(),
              [](const TextPiece& a, const TextPiece& b) { return a.box.y0 < b.box.y0; });
    std::vector<std::vector<TextPiece>> rows;
    BBox span{};
    for (TextPiece& piece : pieces) {
        if (rows.empty() || !same_row(span, piece.box)) {
            rows.emplace_back();
            span = piece.box;
        } else {
            span.y0 = std::min(span.y0, piece.box.y0);
            span.y1 = std::max(span.y1, piece.box.y1);
        }
        rows.back().push_back(std::move(piece));
    }
    if (rows.size() < 3) return std::nullopt;
    // Columns: the pieces' x extents merged; a gap between merged runs is a column edge.
    std::vector<std::pair<double, double>> runs;
    for (const auto& row : rows) {
        for (const TextPiece& piece : row) runs.emplace_back(piece.box.x0, piece.box.x1);
    }
    std::sort(runs.begin(), runs.end());
    std::vector<double> edges = {table.x0};
    double reach = runs.front().second;
    for (std::size_t i = 1; i < runs.size(); ++i) {
        if (runs[i].first - reach >= kColumnGap) edges.push_back((reach + runs[i].first) / 2);
        reach = std::max(reach, runs[i].second);
    }
    edges.push_back(table.x1);
    if (edges.size() < 3) return std::nullopt;
    // The cells: each row from halfway to the row above to halfway to the row below.
    std::vector<double> tops = {table.y0};
    for (std::size_t r = 1; r < rows.size(); ++r) {
        double above = 0, below = rows[r].front().box.y0;
        for (const TextPiece& piece : rows[r - 1]) above = std::max(above, piece.box.y1);
        for (const TextPiece& piece : rows[r]) below = std::min(below, piece.box.y0);
        tops.push_back((above + below) / 2);
    }
    tops.push_back(table.y1);
    TextGrid grid;
    grid.rows = static_cast<int>(rows.size());
    grid.cols = static_cast<int>(edges.size()) - 1;
    for (int r = 0; r < grid.rows; ++r) {
        std::vector<TextPiece>& row = rows[static_cast<std::size_t>(r)];
        std::sort(row.begin(), row.end(),
                  [](const TextPiece& a, const TextPiece& b) { return a.box.x0 < b.box.x0; });
        for (int c = 0; c < grid.cols; ++c) {
            TableCell cell{r, c, BBox{edges[c], tops[r], edges[c + 1], tops[r + 1]}, ""};
            for (const TextPiece& piece : row) {
                const double x = (piece.box.x0 + piece.box.x1) / 2;
                if (x < edges[c] || x >= edges[c + 1]) continue;
                if (!cell.text.empty()) cell.text += ' ';
                cell.text += piece.text;
            }
            grid.cells.push_back(std::move(cell));
        }
    }
    return grid;
}

std::string table_text(const std::vector<TableCell>& cells) {
    std::string text;
    int row = -1;
    for (const TableCell& cell : cells) {
        if (row >= 0) text += cell.row == row ? " | " : "\n";
        row = cell.row;
        text += cell.text;
    }
    return text;
}

bool grid_into(Region& region, std::vector<TextPiece> pieces) {
    std::optional<TextGrid> grid = grid_from_pieces(region.bbox, std::move(pieces));
    if (!grid) return false;
    region.rows = grid->rows;
    region.cols = grid->cols;
    region.cells = std::move(grid->cells);
    region.text = table_text(region.cells);
    return true;
}

}  // namespace rop::stdlib::layout::detail
