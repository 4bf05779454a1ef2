// The Language Server Protocol's base layer: messages framed by a `Content-Length: N` header and
// a blank line, N bytes of JSON after it (https://microsoft.github.io/language-server-protocol/,
// "Base Protocol"). Reads and writes raw message bodies; what they mean is server.h's.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace rop::lsp {

struct Frame {
    std::string body;   // the message's bytes (JSON, not yet parsed)
    std::string error;  // set instead when the header block had no usable Content-Length
};

// The next message on `in`, or nothing at the end of the input (or in the middle of a message:
// the client went away). Header names are case-insensitive; headers other than Content-Length
// (Content-Type) are ignored.
std::optional<Frame> read_frame(std::istream& in);

// Writes `body` with its Content-Length header and flushes.
void write_frame(std::ostream& out, const std::string& body);

}  // namespace rop::lsp
