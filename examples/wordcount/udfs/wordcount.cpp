#include "wordcount.hpp"

#include <sstream>

namespace wordcount {

std::vector<Line> split_lines(const std::string& text) {
    std::vector<Line> lines;
    std::istringstream in(text);
    std::string line;
    std::uint32_t number = 0;
    while (std::getline(in, line)) lines.push_back({++number, line});
    return lines;
}

bool not_blank(const Line& line) {
    return line.text.find_first_not_of(" \t\r") != std::string::npos;
}

std::vector<std::uint32_t> count_words(std::span<const Line> lines) {
    std::vector<std::uint32_t> counts;
    counts.reserve(lines.size());
    for (const Line& line : lines) {
        std::istringstream in(line.text);
        std::string word;
        std::uint32_t n = 0;
        while (in >> word) ++n;
        counts.push_back(n);
    }
    return counts;
}

Total total(std::span<const std::uint32_t> counts, rop::Ordinals ordinals) {
    Total t;
    std::uint32_t most = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        ++t.lines;
        t.words += counts[i];
        if (counts[i] > most) {
            most = counts[i];
            t.longest = ordinals[i] + 1;  // ordinals are zero-based line indexes
        }
    }
    return t;
}

Report::Report(std::string title) : title_(std::move(title)) {}

rop::stdlib::Markdown Report::operator()(const rop::stdlib::File& file, const Total& total) const {
    std::ostringstream out;
    out << "# " << title_ << ": " << file.name << "\n\n"
        << "- lines with text: " << total.lines << "\n"
        << "- words: " << total.words << "\n"
        << "- longest line: " << total.longest << "\n";
    return {out.str()};
}

}  // namespace wordcount
