// Test helper shared by the OCR, layout and assemble tests: renders a test PDF from
// ROP_TEST_DATA_DIR into its pages with std.pdf.pages.
#pragma once

#include <string>
#include <vector>

#include "rop/stdlib/pdf.h"
#include "rop/udf.h"

namespace rop::stdlib::testing {

inline const std::string kData = ROP_TEST_DATA_DIR;

inline std::vector<Page> render(const std::string& relative, int dpi) {
    const Document doc = pdf::open(File{kData + "/" + relative, relative, {}});
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, dpi);
    return out.children;
}

}  // namespace rop::stdlib::testing
