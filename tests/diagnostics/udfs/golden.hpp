// UDFs for the E05xx/W0500 golden diagnostics (tests/diagnostics/E05*.rop, W0500*.rop). The
// goldens quote lines of this file: append, do not insert.
#pragma once

#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <rop/udf.h>

namespace golden {

struct Doc { std::string path; };
struct Page { int number = 0; std::string text; };
enum class Mode { fast, accurate };

class Files {
public:
    explicit Files(std::string glob);
    std::optional<Doc> next();
};

class Jsonl {
public:
    explicit Jsonl(std::string path);
    void write(const rop::RootKey& root, std::span<const std::string> items);
};

std::vector<Page> split(const Doc& doc, int dpi = 144);
std::string tidy_margins(const Page& page);
int word_count(const Page& page);
std::string join(std::span<const std::string> parts, std::string sep);
std::string render(const Page& page, Mode mode = Mode::fast);
std::string title(const Doc& doc);
inline std::string stamp(const Doc& doc) { return doc.path + std::to_string(std::rand()); }

}  // namespace golden

// Appended for E0501_batch_vector.rop and E0501_ordinals_after_parent.rop.
namespace golden {
std::vector<std::string> shout_all(const std::vector<std::string>& texts);
std::string join_in_order(std::span<const std::string> parts, const rop::Parent<Doc>& doc,
                          rop::Ordinals ordinals);
}  // namespace golden

// Appended for the pool goldens (E0501_pool_method_*, E0513_*, E0514_*, W0002_*).
namespace golden {
class Model {
public:
    explicit Model(std::string name, int threads = 1);
    std::string tidy(const Page& page, Mode mode = Mode::fast);
    std::string shout(const std::string& text);
    std::string shout(const std::string& text, int times);
    int words(const Page& page);
};
class TwoWays {
public:
    explicit TwoWays(int size);
    explicit TwoWays(std::string name);
    std::string tidy(const Page& page);
};
}  // namespace golden
