// fonts::monospace, bold and symbol: what a PDF font's name says about it, for std.layout's
// text-layer regions and std.assemble's lists and code. A full table over each family the rules
// name, with subset prefixes, any case, and names that hold none of them.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "font_names.h"

namespace fonts = rop::stdlib::fonts;

TEST_CASE("a font's name says monospace, bold or symbol in any case") {
    struct Case {
        std::string name;
        bool monospace, bold, symbol;
    };
    const std::vector<Case> cases = {
        {"", false, false, false},
        {"Times-Roman", false, false, false},
        {"Helvetica", false, false, false},
        {"ABCDEF+CourierNewPSMT", true, false, false},
        {"Courier-Bold", true, true, false},
        {"DejaVuSansMono", true, false, false},
        {"SourceCodePro-Regular", true, false, false},
        {"Consolas", true, false, false},
        {"NimbusMonL-Regu", true, false, false},
        {"NimbusMonoPS-Regular", true, false, false},
        {"CMTT10", true, false, false},
        {"XYZABC+cmsltt10", true, false, false},
        {"SFTT1000", true, false, false},
        {"TeXGyreCursor-Regular", true, false, false},
        {"LMTypewriter10-Regular", true, false, false},
        {"MENLO-REGULAR", true, false, false},
        {"Monaco", true, false, false},
        {"NimbusRoman-Bold", false, true, false},
        {"DejaVuSans-BoldOblique", false, true, false},
        {"SourceSansPro-Semibold", false, true, false},
        {"Arial-BLACK", false, true, false},
        {"Futura-Heavy", false, true, false},
        {"AvantGarde-Demi", false, true, false},
        {"Symbol", false, false, true},
        {"ZapfDingbats", false, false, true},
        {"Wingdings-Regular", false, false, true},
        {"WEBDINGS", false, false, true},
        {"Mon", false, false, false},              // a part's prefix is not the part
        {"Cour ier", false, false, false},         // nor its letters apart
        {"\xc3\x89lan-Bold", false, true, false},  // a letter beyond ASCII before it
    };
    for (const Case& c : cases) {
        INFO(c.name);
        CHECK(fonts::monospace(c.name) == c.monospace);
        CHECK(fonts::bold(c.name) == c.bold);
        CHECK(fonts::symbol(c.name) == c.symbol);
    }
}
