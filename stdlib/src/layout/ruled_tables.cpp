// Ruled-table detection (see ruled_tables.h): runs of dark pixels make rules; rules that cross
// form a table; the distinct rule positions are the grid.
#include "ruled_tables.h"

#include <algorithm>
#include <cstdint>
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

bool dark(const Image& image, int x, int y) {
    const std::uint8_t* p =
        image.pixels->data() + image.stride() * y + static_cast<std::size_t>(x) * image.channels;
    int sum = 0;
    for (int c = 0; c < image.channels; ++c) sum += p[c];
    return sum < 128 * image.channels;
}

// Runs of dark pixels at least `min_length` long in every line (row for horizontal, column
// for vertical), each line's in order. Both scan the image row by row (a column walk would touch
// a new cache line per pixel): a vertical run is counted per column as the rows go by.
std::vector<std::vector<Run>> dark_runs(const Image& image, bool horizontal, int min_length) {
    std::vector<std::vector<Run>> runs(horizontal ? image.height : image.width);
    if (horizontal) {
        for (int y = 0; y < image.height; ++y) {
            int run = 0;
            for (int x = 0; x <= image.width; ++x) {
                if (x < image.width && dark(image, x, y)) {
                    ++run;
                    continue;
                }
                if (run >= min_length) runs[y].push_back(Run{x - run, x});
                run = 0;
            }
        }
        return runs;
    }
    std::vector<int> run(image.width, 0);
    for (int y = 0; y <= image.height; ++y) {
        for (int x = 0; x < image.width; ++x) {
            if (y < image.height && dark(image, x, y)) {
                ++run[x];
                continue;
            }
            if (run[x] >= min_length) runs[x].push_back(Run{y - run[x], y});
            run[x] = 0;
        }
    }
    return runs;
}

// Rules along one axis: the runs of dark_runs; runs on adjacent lines that overlap merge into
// one (thick) rule.
std::vector<Rule> find_rules(const Image& image, bool horizontal, int min_length) {
    const std::vector<std::vector<Run>> runs = dark_runs(image, horizontal, min_length);
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
    const std::vector<Rule> hs = find_rules(image, true, std::max(20, dpi / 2));
    const std::vector<Rule> vs = find_rules(image, false, std::max(12, dpi / 5));
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
        if (table.row_edges.size() < 2 || table.col_edges.size() < 2) continue;
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
