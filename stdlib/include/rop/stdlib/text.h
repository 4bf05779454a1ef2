// rop/stdlib/text.h: small text operators — read a file as UTF-8, normalize whitespace, drop
// empty texts, join a reduce's texts, wrap a string as Markdown or JSON for the sinks.
// rop-link: rop_stdlib_text
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <span>
#include <string>

namespace rop::stdlib::text {

// map File -> std::string: the file's bytes as UTF-8; invalid sequences become U+FFFD and a
// leading byte-order mark is dropped. Throws rop::RecordFailure("cannot read '<path>': ...") when
// the file cannot be read.
std::string read(const File& file);

// map std::string -> std::string: "\r\n" and "\r" become "\n"; in each line runs of spaces and
// tabs become one space and the ends are trimmed; runs of blank lines become one blank line;
// leading and trailing blank lines go.
std::string normalize_whitespace(const std::string& text);

// filter std::string: true when the text has a character other than whitespace.
bool nonempty(const std::string& text);

// reduce std::string -> std::string: the children joined with `sep`, in ordinal order.
std::string join(std::span<const std::string> parts, std::string sep = "\n\n");

// map std::string -> Markdown / JsonText: hand a plain string to std.io.MarkdownDir / Jsonl.
Markdown to_markdown(const std::string& text);
JsonText to_json_string(const std::string& text);  // the text as one JSON string value

}  // namespace rop::stdlib::text
