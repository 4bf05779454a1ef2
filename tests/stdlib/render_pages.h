// Test helper shared by the OCR, layout and assemble tests: renders a test PDF from
// ROP_TEST_DATA_DIR into its pages with std.pdf.pages, every page OCR'd unless `text` says
// otherwise (these tests are about the OCR and layout engines).
#pragma once

#include <string>
#include <vector>

#include "rop/stdlib/pdf.h"
#include "rop/udf.h"

namespace rop::stdlib::testing {

inline const std::string kData = ROP_TEST_DATA_DIR;

inline std::vector<Page> render(const std::string& relative, int dpi,
                                pdf::TextSource text = pdf::TextSource::ocr) {
    const Document doc = pdf::open(File{kData + "/" + relative, relative, {}});
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, dpi, pdf::Color::gray, text);
    return out.children;
}

}  // namespace rop::stdlib::testing
