// Docling example UDFs: a one-line JSON summary per document for the JSONL sink.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <string>

namespace docling {

// map (Document, Markdown) -> JsonText: {"name", "title", "pages", "markdown_bytes"}.
inline rop::stdlib::JsonText summary(const rop::stdlib::Document& doc,
                                     const rop::stdlib::Markdown& md) {
    auto quoted = [](const std::string& text) {
        std::string out = "\"";
        for (char c : text) {
            if (c == '"' || c == '\\') out += '\\';
            if (static_cast<unsigned char>(c) >= 0x20) out += c;
        }
        return out + "\"";
    };
    return rop::stdlib::JsonText{"{\"name\": " + quoted(doc.name) +
                                 ", \"title\": " + quoted(doc.title) +
                                 ", \"pages\": " + std::to_string(doc.page_count) +
                                 ", \"markdown_bytes\": " + std::to_string(md.text.size()) + "}"};
}

}  // namespace docling
