// Ruled-table candidates from a page's marks (see rule_candidates.h).
#include "rule_candidates.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace rop::stdlib::pdf {
namespace {

int find_root(std::vector<int>& parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

bool near(const BBox& a, const BBox& b, double gap) {
    return a.x0 <= b.x1 + gap && b.x0 <= a.x1 + gap && a.y0 <= b.y1 + gap && b.y0 <= a.y1 + gap;
}

BBox unite(const BBox& a, const BBox& b) {
    return BBox{std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1),
                std::max(a.y1, b.y1)};
}

// How many positions lie more than `pixel` apart: at least as many as the rule finder's grid
// edges among them, which merges positions within its (larger) tolerance.
int distinct_positions(std::vector<double> positions, double pixel) {
    std::sort(positions.begin(), positions.end());
    int count = 0;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (i == 0 || positions[i] - positions[i - 1] > pixel) ++count;
    }
    return count;
}

// Whether a group of marks can hold a grid of two cells or more. Only a group of thin marks
// (strokes' segments and filled bars no thicker than the rule finder's tolerance, each one rule
// where it is drawn) is judged: its rules lie at its marks' positions, so with at most two rows
// and two columns of them it is a frame around one cell at best (a boxed paragraph, a syntax
// box), which the rule finder does not count as a table. A mark thin both ways counts in both
// directions; any thicker mark (a curve's box, a glyph rule, an image) keeps the group.
bool may_hold_cells(const std::vector<BBox>& marks, const std::vector<int>& members,
                    const RuleThresholds& t) {
    std::vector<double> rows, columns;
    for (int i : members) {
        const BBox& box = marks[static_cast<std::size_t>(i)];
        const bool flat = box.height() <= t.tolerance;
        const bool narrow = box.width() <= t.tolerance;
        if (!flat && !narrow) return true;
        if (flat) rows.push_back((box.y0 + box.y1) / 2);
        if (narrow) columns.push_back((box.x0 + box.x1) / 2);
    }
    const int r = distinct_positions(rows, t.pixel);
    const int c = distinct_positions(columns, t.pixel);
    return r >= 2 && c >= 2 && (r >= 3 || c >= 3);
}

}  // namespace

RuleThresholds rule_thresholds(int dpi) {
    // find_ruled_tables: dark_runs(image, max(20, dpi / 2), max(12, dpi / 5)), tolerance
    // max(2, dpi / 24), all in pixels.
    const double point = 72.0 / dpi;
    return RuleThresholds{std::max(20, dpi / 2) * point, std::max(12, dpi / 5) * point,
                          std::max(2, dpi / 24) * point, point};
}

std::vector<RuleCandidate> rule_candidates(const std::vector<BBox>& marks, int dpi) {
    std::vector<RuleCandidate> out;
    if (marks.empty() || dpi <= 0) return out;
    const RuleThresholds t = rule_thresholds(dpi);
    const double min_width = t.row_min - 2 * t.pixel;
    const double min_height = t.column_min - 2 * t.pixel;
    if (marks.size() > kMaxGroupedMarks) {
        RuleCandidate all{marks.front(), static_cast<int>(marks.size())};
        for (const BBox& box : marks) all.box = unite(all.box, box);
        out.push_back(all);
        return out;
    }
    const int n = static_cast<int>(marks.size());
    const double gap = t.tolerance + 2 * t.pixel;
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            if (near(marks[i], marks[j], gap)) parent[find_root(parent, i)] = find_root(parent, j);
        }
    }
    std::vector<int> group(n, -1);
    std::vector<RuleCandidate> groups;
    std::vector<std::vector<int>> members;
    for (int i = 0; i < n; ++i) {
        const int root = find_root(parent, i);
        if (group[root] < 0) {
            group[root] = static_cast<int>(groups.size());
            groups.push_back(RuleCandidate{marks[i], 0});
            members.emplace_back();
        }
        RuleCandidate& g = groups[group[root]];
        g.box = unite(g.box, marks[i]);
        ++g.marks;
        members[group[root]].push_back(i);
    }
    for (std::size_t k = 0; k < groups.size(); ++k) {
        const RuleCandidate& g = groups[k];
        if (g.box.width() < min_width || g.box.height() < min_height) continue;
        if (may_hold_cells(marks, members[k], t)) out.push_back(g);
    }
    return out;
}

bool rule_word(std::string_view utf8) {
    if (utf8.empty()) return false;
    std::size_t i = 0;
    while (i < utf8.size()) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        if (c < 0x80) {
            if (std::string_view("_-=|+").find(static_cast<char>(c)) == std::string_view::npos) {
                return false;
            }
            ++i;
            continue;
        }
        // U+2010..U+2015 (hyphens, dashes, the horizontal bar) are E2 80 90..95; box drawing
        // U+2500..U+257F is E2 94 80..E2 95 BF.
        if (i + 3 > utf8.size() || c != 0xE2) return false;
        const auto c1 = static_cast<unsigned char>(utf8[i + 1]);
        const auto c2 = static_cast<unsigned char>(utf8[i + 2]);
        const bool dash = c1 == 0x80 && c2 >= 0x90 && c2 <= 0x95;
        const bool box = (c1 == 0x94 || c1 == 0x95) && c2 >= 0x80 && c2 <= 0xBF;
        if (!dash && !box) return false;
        i += 3;
    }
    return true;
}

std::string describe(const RuleCandidate& candidate) {
    char text[160];
    std::snprintf(text, sizeof text, "a %.0fx%.0f pt group of %d mark%s at (%.0f, %.0f) pt",
                  candidate.box.width(), candidate.box.height(), candidate.marks,
                  candidate.marks == 1 ? "" : "s", candidate.box.x0, candidate.box.y0);
    return text;
}

}  // namespace rop::stdlib::pdf
