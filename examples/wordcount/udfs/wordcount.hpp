// UDFs of examples/wordcount: split a text into lines, count words in batches, fold the counts
// per file and format a Markdown report. Bodies live in wordcount.cpp (compiled by ropc build).
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace wordcount {

struct Line {
    std::uint32_t number = 0;  // 1-based line number in the file
    std::string text;
};

struct Total {
    std::uint32_t lines = 0;  // non-blank lines
    std::uint32_t words = 0;
    std::uint32_t longest = 0;  // the line number of the line with the most words (first wins)
};

// expand: one Line per line of the text.
std::vector<Line> split_lines(const std::string& text);

// filter: keeps lines with something other than blanks.
bool not_blank(const Line& line);

// batch map: the number of words of each line.
std::vector<std::uint32_t> count_words(std::span<const Line> lines);

// reduce: the counts of one file's kept lines; `ordinals` tells which line each count is from.
Total total(std::span<const std::uint32_t> counts, rop::Ordinals ordinals);

// map over two inputs, a class whose constructor takes the named argument.
class Report {
  public:
    explicit Report(std::string title);
    rop::stdlib::Markdown operator()(const rop::stdlib::File& file, const Total& total) const;

  private:
    std::string title_;
};

}  // namespace wordcount
