// std.layout's ink tests: drawn_share, column_gap and spanning_rule (see ink.h).
#include "ink.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rop::stdlib::layout::detail {
namespace {

bool dark(const Image& image, int x, int y) {
    const std::uint8_t* pixel =
        image.pixels->data() + image.stride() * y + static_cast<std::size_t>(x) * image.channels;
    int sum = 0;
    for (int c = 0; c < image.channels; ++c) sum += pixel[c];
    return sum < 128 * image.channels;
}

PixelBox inside(PixelBox box, const Image& image) {
    box.x0 = std::clamp(box.x0, 0, image.width);
    box.x1 = std::clamp(box.x1, box.x0, image.width);
    box.y0 = std::clamp(box.y0, 0, image.height);
    box.y1 = std::clamp(box.y1, box.y0, image.height);
    return box;
}

}  // namespace

double drawn_share(const Image& image, const PixelBox& area, double ascent) {
    if (!image.pixels || image.channels <= 0 || ascent <= 0) return -1;
    const PixelBox box = inside(area, image);
    const int width = box.x1 - box.x0;
    const int height = box.y1 - box.y0;
    if (width <= 0 || height <= 0) return -1;
    // 0: white, 1: dark and not yet in a component, 2: in one.
    std::vector<std::uint8_t> state(static_cast<std::size_t>(width) * height, 0);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            if (dark(image, box.x0 + x, box.y0 + y))
                state[static_cast<std::size_t>(y) * width + x] = 1;
        }
    }
    long ink = 0;
    long drawn = 0;  // ink in components no glyph makes
    std::vector<int> stack;
    for (int start = 0; start < width * height; ++start) {
        if (state[start] != 1) continue;
        state[start] = 2;
        stack.assign(1, start);
        long pixels = 0;
        int x0 = width, y0 = height, x1 = -1, y1 = -1;
        while (!stack.empty()) {
            const int at = stack.back();
            stack.pop_back();
            const int x = at % width;
            const int y = at / width;
            ++pixels;
            x0 = std::min(x0, x), x1 = std::max(x1, x);
            y0 = std::min(y0, y), y1 = std::max(y1, y);
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const int nx = x + dx;
                    const int ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
                    const int next = ny * width + nx;
                    if (state[next] != 1) continue;
                    state[next] = 2;
                    stack.push_back(next);
                }
            }
        }
        const double w = x1 - x0 + 1;
        const double h = y1 - y0 + 1;
        const bool stroke = h <= 0.25 * ascent && w > 3 * ascent;
        ink += pixels;
        if (h > 2.5 * ascent || w > 8 * ascent || stroke) drawn += pixels;
    }
    return ink > 0 ? static_cast<double>(drawn) / static_cast<double>(ink) : -1;
}

bool column_gap(const Image& image, const std::vector<PixelBox>& lines, int min_gap) {
    if (!image.pixels || image.channels <= 0 || lines.empty()) return false;
    int left = image.width;
    int right = 0;
    for (const PixelBox& line : lines) {
        const PixelBox box = inside(line, image);
        left = std::min(left, box.x0);
        right = std::max(right, box.x1);
    }
    if (right <= left) return false;
    // Per x: the lines with ink on both sides of it (across), and those of them blank at x.
    std::vector<int> across(right - left, 0);
    std::vector<int> blank(right - left, 0);
    std::vector<bool> inked;
    for (const PixelBox& line : lines) {
        const PixelBox box = inside(line, image);
        inked.assign(right - left, false);
        int first = -1;
        int last = -1;
        for (int x = box.x0; x < box.x1; ++x) {
            for (int y = box.y0; y < box.y1; ++y) {
                if (!dark(image, x, y)) continue;
                inked[x - left] = true;
                if (first < 0) first = x - left;
                last = x - left;
                break;
            }
        }
        for (int x = first + 1; first >= 0 && x < last; ++x) {
            ++across[x];
            if (!inked[x]) ++blank[x];
        }
    }
    const int needed = std::max(3, static_cast<int>((2 * lines.size() + 2) / 3));
    int run = 0;
    for (int x = 0; x < right - left; ++x) {
        const bool gap = across[x] >= needed && blank[x] == across[x];
        run = gap ? run + 1 : 0;
        if (run >= min_gap) return true;
    }
    return false;
}

bool spanning_rule(const Image& image, const PixelBox& area, double share) {
    if (!image.pixels || image.channels <= 0) return false;
    const PixelBox box = inside(area, image);
    const double needed = share * (box.x1 - box.x0);
    if (needed <= 0) return false;
    for (int y = box.y0; y < box.y1; ++y) {
        int run = 0;
        for (int x = box.x0; x < box.x1; ++x) {
            run = dark(image, x, y) ? run + 1 : 0;
            if (run >= needed) return true;
        }
    }
    return false;
}

}  // namespace rop::stdlib::layout::detail
