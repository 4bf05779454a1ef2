// Ruled-table detection (see ruled_tables.h): runs of dark pixels make rules; rules that cross
// form a table; the distinct rule positions are the grid.
#include "ruled_tables.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

namespace rop::stdlib::layout::detail {
namespace {

struct Rule {
    int position;  // y of a horizontal rule, x of a vertical one (its middle)
    int from;      // extent along the rule
    int to;
};

struct Run {  // dark pixels [from, to) along one line
    int from;
    int to;
};

// Dark runs at least a minimum length long in every row and in every column, each line's in
// order of position.
struct Runs {
    std::vector<std::vector<Run>> rows;
    std::vector<std::vector<Run>> columns;
};

// True when none of the 8 bytes at `p` is dark: every byte has its high bit set (>= 128).
bool light8(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return (v & 0x8080808080808080ULL) == 0x8080808080808080ULL;
}

// One pass over the image, row by row (a column walk would touch a new cache line per pixel):
// a row's runs as it is read, a column's runs counted per column as the rows go by. A pixel is
// dark when its channels' mean is below 128; a gray row is read in place (dark: the high bit is
// clear), an RGB row is first turned into 0 (dark) / 255 bytes. Most of a page is white, so a
// chunk of 8 light pixels with no column run open in it is passed in one step.
Runs dark_runs(const Image& image, int row_min, int column_min) {
    const int width = image.width;
    const int height = image.height;
    Runs runs{std::vector<std::vector<Run>>(height), std::vector<std::vector<Run>>(width)};
    std::vector<std::uint8_t> converted(image.channels == 1 ? 0 : width);
    std::vector<int> column(width, 0);          // the length of the dark run ending here
    std::vector<int> open((width + 7) / 8, 0);  // columns of each 8-pixel chunk in a run
    auto close_column = [&](int x, int y) {
        if (column[x] >= column_min) runs.columns[x].push_back(Run{y - column[x], y});
        column[x] = 0;
        --open[x / 8];
    };
    for (int y = 0; y < height; ++y) {
        const std::uint8_t* row = image.pixels->data() + image.stride() * y;
        if (image.channels != 1) {
            for (int x = 0; x < width; ++x) {
                int sum = 0;
                for (int c = 0; c < image.channels; ++c) sum += row[x * image.channels + c];
                converted[x] = sum < 128 * image.channels ? 0 : 255;
            }
            row = converted.data();
        }
        std::vector<Run>& row_runs = runs.rows[y];
        int start = -1;  // the row's open run
        auto close_row = [&](int x) {
            if (x - start >= row_min) row_runs.push_back(Run{start, x});
            start = -1;
        };
        for (int x = 0; x < width;) {  // x is at the start of an 8-pixel chunk
            if (x + 8 <= width && light8(row + x)) {
                if (start >= 0) close_row(x);
                for (int i = x; i < x + 8 && open[x / 8] > 0; ++i) {
                    if (column[i] > 0) close_column(i, y);
                }
                x += 8;
                continue;
            }
            for (const int end = std::min(width, x + 8); x < end; ++x) {
                if (row[x] < 128) {
                    if (start < 0) start = x;
                    if (column[x]++ == 0) ++open[x / 8];
                } else {
                    if (start >= 0) close_row(x);
                    if (column[x] > 0) close_column(x, y);
                }
            }
        }
        if (start >= 0) close_row(width);
    }
    for (int x = 0; x < width; ++x) {
        if (column[x] > 0) close_column(x, height);
    }
    return runs;
}

// Rules along one axis from its lines' runs: runs on adjacent lines that overlap merge into one
// (thick) rule.
std::vector<Rule> find_rules(const std::vector<std::vector<Run>>& runs) {
    const int lines = static_cast<int>(runs.size());
    struct Open {
        int first, last, from, to;
    };
    std::vector<Open> open;
    std::vector<Rule> rules;
    auto close_before = [&](int line) {
        for (auto it = open.begin(); it != open.end();) {
            if (it->last < line - 1) {
                rules.push_back(Rule{(it->first + it->last) / 2, it->from, it->to});
                it = open.erase(it);
            } else {
                ++it;
            }
        }
    };
    for (int line = 0; line < lines; ++line) {
        close_before(line);
        for (const Run& r : runs[line]) {
            bool merged = false;
            for (Open& o : open) {
                if (o.last >= line - 1 && r.from < o.to && r.to > o.from) {
                    o.last = line;
                    o.from = std::min(o.from, r.from);
                    o.to = std::max(o.to, r.to);
                    merged = true;
                    break;
                }
            }
            if (!merged) open.push_back(Open{line, line, r.from, r.to});
        }
    }
    close_before(lines + 2);
    return rules;
}

// Sorted distinct positions, merging those closer than `tolerance`.
std::vector<int> distinct(std::vector<int> values, int tolerance) {
    std::sort(values.begin(), values.end());
    std::vector<int> out;
    for (int v : values) {
        if (out.empty() || v - out.back() > tolerance) out.push_back(v);
    }
    return out;
}

int find_root(std::vector<int>& parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

}  // namespace

std::vector<RuledTable> find_ruled_tables(const Image& image, int dpi) {
    std::vector<RuledTable> tables;
    if (image.empty()) return tables;
    const int tolerance = std::max(2, dpi / 24);  // ~3 points
    const Runs runs = dark_runs(image, std::max(20, dpi / 2), std::max(12, dpi / 5));
    const std::vector<Rule> hs = find_rules(runs.rows);
    const std::vector<Rule> vs = find_rules(runs.columns);
    const int n = static_cast<int>(hs.size() + vs.size());
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    for (std::size_t h = 0; h < hs.size(); ++h) {
        for (std::size_t v = 0; v < vs.size(); ++v) {
            const bool cross = vs[v].position >= hs[h].from - tolerance &&
                               vs[v].position <= hs[h].to + tolerance &&
                               hs[h].position >= vs[v].from - tolerance &&
                               hs[h].position <= vs[v].to + tolerance;
            if (cross) {
                parent[find_root(parent, static_cast<int>(h))] =
                    find_root(parent, static_cast<int>(hs.size() + v));
            }
        }
    }
    for (int root = 0; root < n; ++root) {
        if (find_root(parent, root) != root) continue;
        std::vector<int> ys, xs;
        PixelBox box{image.width, image.height, 0, 0};
        for (std::size_t h = 0; h < hs.size(); ++h) {
            if (find_root(parent, static_cast<int>(h)) != root) continue;
            ys.push_back(hs[h].position);
            box.x0 = std::min(box.x0, hs[h].from);
            box.x1 = std::max(box.x1, hs[h].to);
        }
        for (std::size_t v = 0; v < vs.size(); ++v) {
            if (find_root(parent, static_cast<int>(hs.size() + v)) != root) continue;
            xs.push_back(vs[v].position);
            box.y0 = std::min(box.y0, vs[v].from);
            box.y1 = std::max(box.y1, vs[v].to);
        }
        RuledTable table;
        table.row_edges = distinct(ys, tolerance);
        table.col_edges = distinct(xs, tolerance);
        // Two cells at least: rules that only frame one cell box a paragraph (a syntax box,
        // a note), whose text reads as text, not as a one-cell table.
        if (table.row_edges.size() < 2 || table.col_edges.size() < 2) continue;
        if ((table.row_edges.size() - 1) * (table.col_edges.size() - 1) < 2) continue;
        box.y0 = std::min(box.y0, table.row_edges.front());
        box.y1 = std::max(box.y1, table.row_edges.back() + 1);
        table.box = box;
        tables.push_back(std::move(table));
    }
    std::sort(tables.begin(), tables.end(),
              [](const RuledTable& a, const RuledTable& b) { return a.box.y0 < b.box.y0; });
    return tables;
}

}  // namespace rop::stdlib::layout::detail
