// What a pipeline binary's --selfcheck needs to know that only the build knows: the stdlib
// modules it links and the Tesseract languages its std.ocr Calls load. `ropc build` appends
// build_info_source() to the generated C++; runtime/src/main/selfcheck.cpp reads its two symbols.
#pragma once

#include <string>
#include <vector>

#include "bind/bind_program.h"

namespace rop::driver {

// The stdlib libraries linked ("io", "pdf", "ocr", ...: the `rop_stdlib_*` link tokens), in order.
std::vector<std::string> stdlib_modules(const bind::BoundProgram& bound);

// The languages of every std.ocr Call (`lang: "eng+deu"` -> eng, deu; the C++ default when the
// .rop gives none), each once, in order. Only names of [A-Za-z0-9_-] (Tesseract's) are kept, so
// nothing else from the .rop reaches the C++.
std::vector<std::string> ocr_languages(const bind::BoundProgram& bound);

// `extern "C" const char rop_build_modules[] = "io pdf";` and rop_build_ocr_languages.
std::string build_info_source(const std::vector<std::string>& modules,
                              const std::vector<std::string>& languages);

}  // namespace rop::driver
