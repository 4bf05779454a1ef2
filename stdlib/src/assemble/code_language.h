// code_language.h (internal to rop_stdlib_assemble): the language a code block is written in, as
// MinerU's content list names it ("guess_lang", and the fence's info string in MinerU 3).
#pragma once

#include <string>
#include <string_view>

namespace rop::stdlib::assemble::detail {

// One of the labels MinerU's guess (Google's Magika, a trained classifier of file types) gives
// code: "c", "cpp", "python", "shell", "java", "javascript", "go", "rust", "sql", "json", "xml",
// "html", "makefile", or "txt" when nothing is sure (Magika's default, and its answer for most
// snippets of a few lines). rop has no classifier: it answers from signs no prose carries
// (`#include <`, a shebang, `def f(...):`, `public static void main`) and says "txt" otherwise,
// so it names fewer languages than Magika but rarely another one.
std::string code_language(std::string_view code);

}  // namespace rop::stdlib::assemble::detail
