// A listing's row as text (see listing.h).
#include "listing.h"

#include <algorithm>
#include <cmath>

namespace rop::stdlib::layout::detail {

std::size_t code_points(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::string code_text(const std::vector<const Word*>& words, double left, double char_width) {
    std::string text;
    std::size_t column = 0;  // characters written so far
    double last_x1 = 0;
    for (const Word* word : words) {
        const double offset = char_width > 0 ? (word->bbox.x0 - left) / char_width : 0;
        const auto at = static_cast<std::size_t>(std::max(0.0, std::round(offset)));
        if (at > column) {
            text.append(at - column, ' ');
            column = at;
        } else if (column > 0 && word->bbox.x0 - last_x1 > 0.3 * char_width) {
            text += ' ';
            ++column;
        }
        text += word->text;
        column += code_points(word->text);
        last_x1 = word->bbox.x1;
    }
    return text;
}

}  // namespace rop::stdlib::layout::detail
