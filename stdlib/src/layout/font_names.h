// font_names.h (internal to the stdlib, header-only): what a PDF font's name says about it, for
// std.layout's text-layer regions and std.assemble's lists and code. A font name as poppler gives
// it ("ABCDEF+CourierNewPSMT") is compared case-insensitively; poppler-cpp reports no
// fixed-pitch or symbolic flag, so the name is all there is.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace rop::stdlib::fonts {

// `parts` are lower case; the name's ASCII letters are compared as lower case, without a copy
// (this runs for every word of every page).
inline bool name_holds(std::string_view font, std::initializer_list<std::string_view> parts) {
    auto same = [](char c, char lower) { return (c >= 'A' && c <= 'Z' ? c + 32 : c) == lower; };
    return std::any_of(parts.begin(), parts.end(), [&](std::string_view part) {
        return std::search(font.begin(), font.end(), part.begin(), part.end(), same) != font.end();
    });
}

// Monospace: the name holds Mono, Courier, Code or Consol, or names a common monospace family
// whose name says none of these (NimbusMon, TeX's CMTT/CMSLTT/SFTT, TeX Gyre Cursor, Typewriter,
// Menlo, Monaco).
inline bool monospace(std::string_view font) {
    return name_holds(font, {"mono", "courier", "code", "consol", "nimbusmon", "cmtt", "cmsltt",
                             "sftt", "cursor", "typewriter", "menlo", "monaco"});
}

// A bold face: the name holds Bold, Black, Heavy or Demi (Times-Bold, NimbusRoman-Bold,
// DejaVuSans-BoldOblique, SourceSansPro-Semibold, Futura-Heavy).
inline bool bold(std::string_view font) {
    return name_holds(font, {"bold", "black", "heavy", "demi"});
}

// A symbol font (Symbol, ZapfDingbats, Wingdings, Webdings): its glyphs may reach the text layer
// as letters (Wingdings' bullet is an "l").
inline bool symbol(std::string_view font) {
    return name_holds(font, {"symbol", "dingbat", "wingding", "webding"});
}

}  // namespace rop::stdlib::fonts
