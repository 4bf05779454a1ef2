// How std.io's JSON readers (the record sources, the Files manifest) word a line that is not
// JSON: nlohmann's parse error, bounded and escaped where it quotes the input.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace rop::stdlib::io::detail {

// nlohmann's message from "column N" on, with the token it quotes cut and escaped as
// rop::record_io::quote_input does: "column 9: syntax error while parsing value - invalid
// string: missing closing quote; last read: '"aaaa...' (10485761 bytes)". records.cpp.
std::string json_error(const nlohmann::json::exception& error);

}  // namespace rop::stdlib::io::detail
