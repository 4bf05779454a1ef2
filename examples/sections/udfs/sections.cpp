#include "sections.hpp"

#include <sstream>

namespace sections {
namespace {

std::uint32_t count_words(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    std::uint32_t n = 0;
    while (in >> word) ++n;
    return n;
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace

std::string title(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0) return line.substr(2);
    }
    return "untitled";
}

void split_sections(const std::string& text, rop::Emitter<Section>& out) {
    std::istringstream in(text);
    std::string line;
    Section current;
    bool open = false;
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0) continue;  // the title
        if (line.rfind("## ", 0) == 0) {
            if (open || current.body.find_first_not_of(" \n") != std::string::npos) {
                out.emit(std::move(current));
            }
            current = Section{line.substr(3), ""};
            open = true;
            continue;
        }
        current.body += line + "\n";
    }
    if (open || current.body.find_first_not_of(" \n") != std::string::npos) {
        out.emit(std::move(current));
    }
}

std::vector<Paragraph> split_paragraphs(const Section& section) {
    std::vector<Paragraph> paragraphs;
    std::istringstream in(section.body);
    std::string line;
    std::string text;
    auto flush = [&] {
        if (!text.empty()) paragraphs.push_back({text});
        text.clear();
    };
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t") == std::string::npos) {
            flush();
        } else {
            text += (text.empty() ? "" : " ") + line;
        }
    }
    flush();
    return paragraphs;
}

Longer::Longer(int words) : words_(words) {}

bool Longer::operator()(const Paragraph& paragraph) const {
    return count_words(paragraph.text) >= static_cast<std::uint32_t>(words_);
}

std::vector<Note> note(std::span<const Paragraph> paragraphs, std::span<const std::string> titles) {
    std::vector<Note> notes;
    for (std::size_t i = 0; i < paragraphs.size(); ++i) {
        std::istringstream in(paragraphs[i].text);
        std::string first;
        in >> first;
        notes.push_back({titles[i], count_words(paragraphs[i].text), first});
    }
    return notes;
}

SectionSummary summarize(std::span<const Note> notes, rop::Ordinals ordinals,
                         const rop::Parent<Section>& section) {
    SectionSummary summary;
    summary.heading = section->heading;
    for (std::size_t i = 0; i < notes.size(); ++i) {
        ++summary.paragraphs;
        summary.kept.push_back(ordinals[i]);
        summary.words += notes[i].words;
        summary.title = notes[i].title;
    }
    return summary;
}

rop::stdlib::JsonText to_json(const rop::stdlib::File& file, const std::string& title,
                              const std::vector<SectionSummary>& sections) {
    std::ostringstream out;
    out << "{\"file\": " << json_string(file.name) << ", \"title\": " << json_string(title)
        << ", \"sections\": [";
    for (std::size_t i = 0; i < sections.size(); ++i) {
        const SectionSummary& s = sections[i];
        out << (i ? ", " : "") << "{\"heading\": " << json_string(s.heading)
            << ", \"paragraphs\": " << s.paragraphs << ", \"kept\": [";
        for (std::size_t k = 0; k < s.kept.size(); ++k) out << (k ? ", " : "") << s.kept[k];
        out << "], \"words\": " << s.words << "}";
    }
    out << "]}";
    return {out.str()};
}

}  // namespace sections
