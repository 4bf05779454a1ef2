#include "codegen/wrap.h"

#include <algorithm>
#include <utility>

namespace rop::codegen {
namespace {

// A list whose first item cannot follow its opening this far right breaks after the opening
// instead and continues a fixed step in from the indentation.
constexpr std::size_t kContinuation = 4;
// Shorter openings (`{`, `.options = {`) keep their items beside them.
constexpr std::size_t kLongOpening = 16;

class Layout {
  public:
    explicit Layout(const Placement& at) : at_(at) {}

    std::string run(const Expr& expr) {
        column_ = at_.column;
        put(expr, at_.trail);
        return std::move(out_);
    }

  private:
    bool fits(std::size_t width, std::size_t trail) const {
        return column_ + width + trail <= kColumnLimit;
    }

    void text(const std::string& s) {
        out_ += s;
        column_ += s.size();
    }

    void newline(std::size_t column) {
        out_ += '\n';
        if (!at_.continuation_line.empty()) out_ += at_.continuation_line + '\n';
        out_.append(column > at_.indent ? column - at_.indent : 0, ' ');
        column_ = std::max(column, at_.indent);
    }

    // `expr` from the current column; `trail` characters follow it.
    void put(const Expr& expr, std::size_t trail) {
        const std::string one_line = flat(expr);
        if (!expr.is_list || fits(one_line.size(), trail)) {
            text(one_line);
            return;
        }
        const std::size_t start = column_;
        text(expr.open);
        std::size_t align = column_;
        const std::size_t n = expr.items.size();
        auto item_trail = [&](std::size_t i) {
            return i + 1 < n ? std::size_t{1} : expr.close.size() + trail;
        };
        // Break after a long opening when an item would not fit beside it.
        bool crowded = false;
        for (std::size_t i = 0; i < n; ++i) {
            crowded = crowded || align + flat(expr.items[i]).size() + item_trail(i) > kColumnLimit;
        }
        const std::size_t fallback = std::min(start, at_.indent) + kContinuation;
        if (crowded && expr.open.size() > kLongOpening && fallback < align) {
            align = fallback;
            newline(align);
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0) {
                const std::size_t width = flat(expr.items[i]).size();
                if (fits(1 + width, item_trail(i))) {
                    text(" ");
                } else {
                    newline(align);
                }
            }
            put(expr.items[i], item_trail(i));
            if (i + 1 < n) text(",");
        }
        text(expr.close);
    }

    const Placement& at_;
    std::string out_;
    std::size_t column_ = 0;
};

}  // namespace

Expr leaf(std::string text) {
    Expr expr;
    expr.open = std::move(text);
    return expr;
}

Expr list(std::string open, std::vector<Expr> items, std::string close) {
    Expr expr;
    expr.open = std::move(open);
    expr.items = std::move(items);
    expr.close = std::move(close);
    expr.is_list = true;
    return expr;
}

std::string flat(const Expr& expr) {
    if (!expr.is_list) return expr.open;
    std::string out = expr.open;
    for (std::size_t i = 0; i < expr.items.size(); ++i) {
        if (i > 0) out += ", ";
        out += flat(expr.items[i]);
    }
    return out + expr.close;
}

std::string layout(const Expr& expr, const Placement& at) { return Layout(at).run(expr); }

}  // namespace rop::codegen
