#include "pools.hpp"

#include <cctype>
#include <sstream>

namespace pools {
namespace {

std::string lower(std::string word) {
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return word;
}

// The word without the punctuation around it.
std::string bare(const std::string& word) {
    std::size_t begin = 0;
    std::size_t end = word.size();
    while (begin < end && !std::isalnum(static_cast<unsigned char>(word[begin]))) ++begin;
    while (end > begin && !std::isalnum(static_cast<unsigned char>(word[end - 1]))) --end;
    return word.substr(begin, end - begin);
}

std::size_t word_count(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    std::size_t n = 0;
    while (in >> word) ++n;
    return n;
}

}  // namespace

Model::Model(std::string keywords) {
    std::istringstream in(keywords);
    std::string word;
    while (std::getline(in, word, ',')) {
        if (!word.empty()) keywords_.insert(lower(word));
    }
}

std::vector<Sentence> Model::sentences(const std::string& text, int min_words) {
    std::vector<Sentence> out;
    std::string current;
    std::uint32_t number = 0;
    auto finish = [&] {
        const std::size_t first = current.find_first_not_of(" \t\r\n");
        if (first != std::string::npos) {
            current = current.substr(first);
            for (char& c : current) c = c == '\n' ? ' ' : c;
            ++number;
            if (word_count(current) >= static_cast<std::size_t>(min_words)) {
                out.push_back({number, current});
            }
        }
        current.clear();
    };
    for (char c : text) {
        current += c;
        if (c == '.' || c == '!' || c == '?') finish();
    }
    finish();
    return out;
}

std::vector<Label> Model::label(std::span<const Sentence> sentences) {
    std::vector<Label> out;
    out.reserve(sentences.size());
    for (const Sentence& sentence : sentences) {
        Label label{sentence.number, {}};
        std::istringstream in(sentence.text);
        std::string word;
        while (in >> word) {
            const std::string key = lower(bare(word));
            if (keywords_.count(key) != 0) label.keywords.push_back(key);
        }
        out.push_back(std::move(label));
    }
    return out;
}

rop::stdlib::Markdown report(const rop::stdlib::File& file, const std::vector<Label>& labels,
                             std::string title) {
    std::ostringstream out;
    out << "# " << title << ": " << file.name << "\n\n";
    for (const Label& label : labels) {
        out << "- sentence " << label.number << ":";
        if (label.keywords.empty()) out << " (none)";
        for (const std::string& keyword : label.keywords) out << " " << keyword;
        out << "\n";
    }
    return {out.str()};
}

}  // namespace pools
