// Finds tables drawn with rules in a page image: long dark horizontal and vertical strokes that
// cross each other, and the grid of cells between them.
#pragma once

#include <vector>

#include "rop/stdlib/types.h"

namespace rop::stdlib::layout::detail {

struct PixelBox {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // half-open: [x0, x1) x [y0, y1)
};

struct RuledTable {
    PixelBox box;
    std::vector<int> row_edges;  // y of each horizontal rule, top to bottom (rows + 1 of them)
    std::vector<int> col_edges;  // x of each vertical rule, left to right (cols + 1 of them)
};

// Tables in `image` (gray or RGB) rendered at `dpi`: each needs horizontal and vertical rules
// that cross and make two cells at least (a frame around one cell is not a table). Sorted by top
// edge.
std::vector<RuledTable> find_ruled_tables(const Image& image, int dpi);

}  // namespace rop::stdlib::layout::detail
