// UDFs of examples/sections: Markdown-ish documents split into sections (`## ` headings) and
// paragraphs (blank-line separated), summarized per section and per document as JSON.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sections {

struct Section {
    std::string heading;  // the `## ` line without the marker; "" for text before the first one
    std::string body;
};

struct Paragraph {
    std::string text;  // lines joined by one space
};

struct Note {
    std::string title;  // the document's title (broadcast)
    std::uint32_t words = 0;
    std::string first_word;
};

struct SectionSummary {
    std::string heading;
    std::uint32_t paragraphs = 0;     // kept paragraphs
    std::vector<std::uint32_t> kept;  // their ordinals among the section's paragraphs
    std::uint32_t words = 0;
    std::string title;
};

// map: the document's `# ` title line, or "untitled".
std::string title(const std::string& text);

// streaming expand: one Section per `## ` heading (and one for text before the first heading,
// when there is any).
void split_sections(const std::string& text, rop::Emitter<Section>& out);

// expand: the section's paragraphs.
std::vector<Paragraph> split_paragraphs(const Section& section);

// filter with setup: keeps paragraphs with at least `words` words.
class Longer {
  public:
    explicit Longer(int words);
    bool operator()(const Paragraph& paragraph) const;

  private:
    int words_;
};

// batch map over two inputs: a note per paragraph, with the broadcast title.
std::vector<Note> note(std::span<const Paragraph> paragraphs, std::span<const std::string> titles);

// reduce with ordinals and the parent Section.
SectionSummary summarize(std::span<const Note> notes, rop::Ordinals ordinals,
                         const rop::Parent<Section>& section);

// map over three inputs: the document as one JSON object.
rop::stdlib::JsonText to_json(const rop::stdlib::File& file, const std::string& title,
                              const std::vector<SectionSummary>& sections);

}  // namespace sections
