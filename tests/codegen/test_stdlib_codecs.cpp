// The stdlib's item types cross a process boundary: ropc (the real binary, over the real stdlib
// headers) checks a mineru-like pipeline whose OCR Calls run with `isolation process` clean,
// emits codecs for Page (with its Image, Words, Lines and outline), OcrResult and PageContent,
// and those codecs, compiled into a program of their own, round-trip every field.
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "host_compiler.h"

namespace rop::codegen {
namespace {

namespace t = rop::codegen::test;

constexpr const char* kRoundTrip = R"cpp(
#include <cstdio>

    namespace sl = rop::stdlib;

    template <class T>
    T round_trip(const T& value, bool& ok) {
        std::string bytes;
        rop::Codec<T>::encode(value, bytes);
        for (std::size_t n = 0; n < bytes.size(); ++n) {  // every strict prefix is rejected
            std::string_view prefix(bytes.data(), n);
            try {
                (void)rop::Codec<T>::decode(prefix);
                ok = false;
            } catch (const rop::CodecError&) {
            }
        }
        std::string_view in = bytes;
        T back = rop::Codec<T>::decode(in);
        ok = ok && in.empty();
        return back;
    }

    bool same(const sl::BBox& a, const sl::BBox& b) {
        return a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1;
    }

    int main() {
        bool ok = true;
        sl::Page page;
        page.doc_path = "in/a.pdf";
        page.doc_name = "a.pdf";
        page.index = 2;
        page.page_count = 5;
        page.width = 612;
        page.height = 792;
        page.dpi = 150;
        page.image.width = 2;
        page.image.height = 1;
        page.image.channels = 3;
        page.image.pixels = std::make_shared<const std::vector<std::uint8_t>>(
            std::vector<std::uint8_t>{1, 2, 3, 250, 251, 252});
        page.text = "Hello";
        page.words = {{"Hello", {1, 2, 3, 4}, 99.5F, 12, "Times"}};
        page.lines = {{"Hello", {1, 2, 30, 4}, 98, 3.5, 1, 2, 12}};
        page.text_source = "layer";
        page.text_check = "43 words";
        page.outline = std::make_shared<const std::vector<sl::OutlineEntry>>(
            std::vector<sl::OutlineEntry>{{"Intro", 1}, {"Part", 2}});
        const sl::Page p = round_trip(page, ok);
        ok = ok && p.doc_path == page.doc_path && p.doc_name == page.doc_name && p.index == 2 &&
             p.page_count == 5 && p.width == 612 && p.height == 792 && p.dpi == 150 &&
             p.image.width == 2 && p.image.height == 1 && p.image.channels == 3 && p.image.pixels &&
             *p.image.pixels == *page.image.pixels && p.text == "Hello" && p.words.size() == 1 &&
             p.words[0].text == "Hello" && same(p.words[0].bbox, page.words[0].bbox) &&
             p.words[0].confidence == 99.5F && p.words[0].font == "Times" && p.lines.size() == 1 &&
             p.lines[0].baseline == 3.5 && p.lines[0].paragraph == 2 && p.text_source == "layer" &&
             p.text_check == "43 words" && p.outline && p.outline->size() == 2 &&
             (*p.outline)[1].title == "Part" && (*p.outline)[1].level == 2;

        sl::OcrResult ocr;
        ocr.doc_name = "a.pdf";
        ocr.text = "read";
        ocr.confidence = 80;
        ocr.words = {{"read", {5, 6, 7, 8}, 80, 0, ""}};
        const sl::OcrResult o = round_trip(ocr, ok);
        ok = ok && o.text == "read" && o.confidence == 80 && o.words.size() == 1 &&
             same(o.words[0].bbox, ocr.words[0].bbox) && o.text_source == "ocr" && !o.outline;

        sl::PageContent content;
        content.page_index = 1;
        sl::Block table;
        table.type = "table";
        table.text = "|a|";
        table.cells = {{0, 1, {1, 1, 2, 2}, "a"}};
        table.rows = 1;
        table.cols = 2;
        content.blocks = {table, sl::Block{}};
        const sl::PageContent c = round_trip(content, ok);
        ok = ok && c.page_index == 1 && c.blocks.size() == 2 && c.blocks[0].type == "table" &&
             c.blocks[0].cells.size() == 1 && c.blocks[0].cells[0].col == 1 &&
             c.blocks[0].cells[0].text == "a" && c.blocks[0].cols == 2 &&
             c.blocks[1].type == "text";
        std::printf("%s\n", ok ? "stdlib round-trip ok" : "stdlib round-trip MISMATCH");
        return ok ? 0 : 1;
    }
)cpp";

TEST_CASE("codecs: a mineru-like pipeline isolates its OCR Calls; stdlib types round-trip",
          "[codegen][host][codec][stdlib]") {
    const auto dir = t::work_dir("stdlib_codecs");
    const std::string rop = std::string(ROP_CODEGEN_FIXTURES) + "/isolated_ocr.rop";
    const std::string env = "ROP_CACHE_DIR=" + t::shell_quote((dir / "cache").string()) + " ";
    const t::CommandResult check = t::run_command(
        env + t::shell_quote(ROP_ROPC) + " check " + t::shell_quote(rop), dir / "check.log");
    INFO(check.output);
    REQUIRE(check.exit_code == 0);

    const std::filesystem::path generated = dir / "generated.cpp";
    const t::CommandResult emit =
        t::run_command("(" + env + t::shell_quote(ROP_ROPC) + " build " + t::shell_quote(rop) +
                           " --emit=cpp >" + t::shell_quote(generated.string()) + ")",
                       dir / "emit.log");
    INFO(emit.output);
    REQUIRE(emit.exit_code == 0);
    const std::string cpp = t::read_file(generated);
    const auto begin = cpp.find("// How the structs the Calls pass become bytes and back");
    const auto end = cpp.find("\nnamespace {");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    const std::string block = cpp.substr(begin, end - begin);
    INFO(block);
    for (const char* type : {"Page", "Image", "Word", "Line", "BBox", "OutlineEntry", "OcrResult",
                             "PageContent", "Block", "TableCell"}) {
        CHECK(block.find(std::string("struct rop::Codec<rop::stdlib::") + type + ">") !=
              std::string::npos);
    }
    CHECK(block.find("struct rop::Codec<rop::stdlib::Page>") >
          block.find("struct rop::Codec<rop::stdlib::Image>"));  // Page's codec uses Image's

    const std::string flags = " -std=c++20 -Wall -Wextra -Werror" + t::rop_include_flags();
    const t::CommandResult syntax = t::run_command(
        t::host_cxx() + " -fsyntax-only" + flags + " " + t::shell_quote(generated.string()),
        dir / "syntax.log");
    INFO(syntax.output);
    CHECK(syntax.exit_code == 0);

    t::write_file(
        dir / "round_trip.cpp",
        "#include <rop/byte_size.h>\n#include <rop/codec.h>\n#include <rop/stdlib/types.h>\n" +
            block + kRoundTrip);
    const t::CommandResult built = t::run_command(
        t::host_cxx() + flags + " -o " + t::shell_quote((dir / "round_trip").string()) + " " +
            t::shell_quote((dir / "round_trip.cpp").string()),
        dir / "round_trip_compile.log");
    INFO(built.output);
    REQUIRE(built.exit_code == 0);
    const t::CommandResult ran =
        t::run_command(t::shell_quote((dir / "round_trip").string()), dir / "round_trip.log");
    INFO(ran.output);
    CHECK(ran.exit_code == 0);
    CHECK(ran.output.find("stdlib round-trip ok") != std::string::npos);
}

}  // namespace
}  // namespace rop::codegen
