// std.pdf on poppler-cpp: open a document, stream its pages as images plus native text.
#include "rop/stdlib/pdf.h"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>
#include <poppler-toc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "render_size.h"
#include "text_layer.h"

namespace rop::stdlib::pdf {
namespace {

// Poppler prints syntax errors of broken files to stderr; the reasons we throw say it better.
void silence_poppler() {
    static std::once_flag once;
    std::call_once(
        once, [] { poppler::set_debug_error_function([](const std::string&, void*) {}, nullptr); });
}

std::string utf8(const poppler::ustring& text) {
    const poppler::byte_array bytes = text.to_utf8();
    std::string out(bytes.begin(), bytes.end());
    while (!out.empty() && out.back() == '\0') out.pop_back();
    return out;
}

std::string display(const std::string& name, const std::string& path) {
    return name.empty() ? path : name;
}

// Why poppler could not open a file, read from its bytes (in 64 KiB chunks: the file may be
// large). Only asked after poppler failed, so nothing here rejects a file poppler opens: poppler
// accepts a header after junk, bytes after %%EOF and a missing %%EOF, and so does rop.
std::string open_failure(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) return std::string("cannot open: ") + std::strerror(errno);
    std::string head;
    bool eof_marker = false;
    bool encrypt_key = false;
    std::string window;  // the chunk plus the previous chunk's last bytes: markers can straddle
    std::vector<char> buffer(65536);
    std::size_t got = 0;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), file)) > 0) {
        if (head.size() < 1024) head.append(buffer.data(), std::min<std::size_t>(got, 1024));
        window.append(buffer.data(), got);
        eof_marker = eof_marker || window.find("%%EOF") != std::string::npos;
        encrypt_key = encrypt_key || window.find("/Encrypt") != std::string::npos;
        window.erase(0, window.size() > 16 ? window.size() - 16 : 0);
    }
    std::fclose(file);
    if (head.empty()) return "empty file";
    if (head.find("%PDF-") == std::string::npos) return "not a PDF (no %PDF- header)";
    // load_from_file returns null both for unparsable files and for locked ones it cannot
    // decrypt; the trailer's /Encrypt key tells them apart.
    if (encrypt_key) return "encrypted PDF (needs a password)";
    if (!eof_marker) return "truncated PDF (no %%EOF at the end)";
    return "cannot parse PDF";
}

struct Opened {
    std::unique_ptr<poppler::document> doc;
    int pages = 0;
};

// Local files only: a file:// URI is its path; other schemes fail at fopen ("cannot open").
std::string local_path(const std::string& path) {
    constexpr std::string_view kFile = "file://";
    return path.rfind(kFile, 0) == 0 ? path.substr(kFile.size()) : path;
}

Opened load(const std::string& uri, const std::string& who) {
    const std::string path = local_path(uri);
    silence_poppler();
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
    if (!doc) throw rop::RecordFailure(who + ": " + open_failure(path));
    if (doc->is_locked()) throw rop::RecordFailure(who + ": encrypted PDF (needs a password)");
    Opened opened;
    opened.pages = doc->pages();
    if (opened.pages <= 0) throw rop::RecordFailure(who + ": PDF has no pages");
    opened.doc = std::move(doc);
    return opened;
}

// "612x792", "595.276x841.89": a page size in points, six significant digits.
std::string points(double width, double height) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6gx%.6g", width, height);
    return text;
}

// Renders `page` at its `dpi` and checks the image against its size: poppler answers a bitmap
// it cannot allocate with a 1x1 image, which must fail the page, never pass as a blank one.
Image render(poppler::page_renderer& renderer, poppler::page& page, const Page& size, int channels,
             const std::string& where) {
    const PixelSize expected = expected_pixels(size.width, size.height, size.dpi);
    const poppler::image image = renderer.render_page(&page, size.dpi, size.dpi);
    const std::string mismatch =
        image_mismatch(image.is_valid(), PixelSize{image.width(), image.height()}, expected);
    if (!mismatch.empty()) throw rop::RecordFailure(where + ": render failed: " + mismatch);
    auto pixels = std::make_shared<std::vector<std::uint8_t>>(
        static_cast<std::size_t>(image.width()) * image.height() * channels);
    const std::size_t row = static_cast<std::size_t>(image.width()) * channels;
    const char* data = image.const_data();
    for (int y = 0; y < image.height(); ++y) {
        std::memcpy(pixels->data() + row * y,
                    data + static_cast<std::size_t>(image.bytes_per_row()) * y, row);
    }
    Image result;
    result.width = image.width();
    result.height = image.height();
    result.channels = channels;
    result.pixels = std::move(pixels);
    return result;
}

// The page's native text layer: its text in reading order, and its words with their fonts as
// lines and paragraphs.
void read_layer(poppler::page& page, Page& result) {
    result.text = utf8(page.text(poppler::rectf(), poppler::page::non_raw_non_physical_layout));
    std::vector<LayerWord> words;
    for (const poppler::text_box& box : page.text_list(poppler::page::text_list_include_font)) {
        const poppler::rectf b = box.bbox();
        LayerWord word;
        word.word.text = utf8(box.text());
        word.word.bbox = BBox{b.left(), b.top(), b.right(), b.bottom()};
        word.word.confidence = 100;
        if (box.has_font_info()) {
            word.word.font_size = box.get_font_size();
            word.word.font = box.get_font_name();
        }
        word.space_after = box.has_space_after();
        result.words.push_back(word.word);
        words.push_back(std::move(word));
    }
    result.lines = group_lines(words);
}

void add_entries(const poppler::toc_item& item, int level, std::vector<OutlineEntry>& out) {
    for (const poppler::toc_item* child : item.children()) {
        out.push_back(OutlineEntry{utf8(child->title()), level});
        add_entries(*child, level + 1, out);
    }
}

// The document's outline (bookmarks) in order, each entry with its depth; empty when none.
Outline outline_of(poppler::document& doc) {
    auto entries = std::make_shared<std::vector<OutlineEntry>>();
    std::unique_ptr<poppler::toc> toc(doc.create_toc());
    if (toc && toc->root()) add_entries(*toc->root(), 1, *entries);
    return entries;
}

void decide(TextSource source, Page& page) {
    switch (source) {
        case TextSource::layer:
            page.text_source = "layer";
            page.text_check = "layer: forced (text: layer)";
            return;
        case TextSource::ocr:
            page.text_source = "ocr";
            page.text_check = "ocr: forced (text: ocr)";
            return;
        case TextSource::detect: break;
    }
    std::string all;
    for (const Word& word : page.words) all += word.text;
    const LayerCheck check =
        check_layer(count_chars(all), ink_coverage(page.image, page.dpi, page.words));
    page.text_source = check.usable ? "layer" : "ocr";
    page.text_check = check.why;
}

}  // namespace

Document open(const File& file) {
    const std::string who = display(file.name, file.path);
    Opened opened = load(file.path, who);
    Document doc;
    doc.path = file.path;
    doc.name = file.name.empty() ? file.path : file.name;
    doc.page_count = opened.pages;
    doc.metadata = file.metadata;
    for (const std::string& key : opened.doc->info_keys()) {
        doc.info[key] = utf8(opened.doc->info_key(key));
    }
    auto field = [&](const char* key) {
        auto it = doc.info.find(key);
        return it == doc.info.end() ? std::string() : it->second;
    };
    doc.title = field("Title");
    doc.author = field("Author");
    doc.subject = field("Subject");
    doc.keywords = field("Keywords");
    doc.creator = field("Creator");
    doc.producer = field("Producer");
    return doc;
}

std::string title(const Document& doc) {
    if (!doc.title.empty()) return doc.title;
    return std::filesystem::path(doc.name.empty() ? doc.path : doc.name).stem().string();
}

int page_count(const Document& doc) { return doc.page_count; }

void pages(const Document& doc, rop::Emitter<Page>& out, int dpi, Color color, TextSource text,
           std::int64_t max_pixels) {
    const std::string who = display(doc.name, doc.path);
    if (dpi < 36 || dpi > 1200) {
        throw rop::RecordFailure(who + ": dpi " + std::to_string(dpi) + " is outside 36..1200");
    }
    if (max_pixels < 1) {
        throw rop::RecordFailure(who + ": max_pixels " + std::to_string(max_pixels) +
                                 " is below 1");
    }
    Opened opened = load(doc.path, who);
    poppler::page_renderer renderer;
    renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
    renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
    renderer.set_image_format(color == Color::gray ? poppler::image::format_gray8
                                                   : poppler::image::format_rgb24);
    const int channels = color == Color::gray ? 1 : 3;
    const Outline outline = outline_of(*opened.doc);
    // The page count is known before the first page renders: the progress ETA weighs this
    // document by its pages from the start (docs/runtime.md "Progress").
    rop::expected_children(static_cast<std::uint64_t>(std::max(opened.pages, 0)));
    for (int index = 0; index < opened.pages; ++index) {
        // Any page that fails fails the whole document (RecordFailure on the expand's input):
        // its pages emitted so far are doomed and the document is failed(reason), never an ok
        // document with a hole.
        const std::string where = who + ": page " + std::to_string(index + 1);
        std::unique_ptr<poppler::page> page(opened.doc->create_page(index));
        if (!page) throw rop::RecordFailure(where + ": cannot read the page");
        Page result;
        result.doc_path = doc.path;
        result.doc_name = doc.name;
        result.index = index;
        result.page_count = opened.pages;
        const poppler::rectf box = page->page_rect(poppler::crop_box);
        const auto orientation = page->orientation();
        const bool sideways =
            orientation == poppler::page::landscape || orientation == poppler::page::seascape;
        result.width = sideways ? box.height() : box.width();
        result.height = sideways ? box.width() : box.height();
        result.dpi = fitting_dpi(result.width, result.height, dpi, max_pixels);
        if (result.dpi == 0) {
            throw rop::RecordFailure(where + ": a " + points(result.width, result.height) +
                                     " pt page does not fit max_pixels " +
                                     std::to_string(max_pixels) + " even at 1 dpi");
        }
        result.image = render(renderer, *page, result, channels, where);
        result.outline = outline;
        read_layer(*page, result);
        decide(text, result);
        out.emit(std::move(result));
    }
}

int page_number(const Page& page) { return page.index; }

std::string page_text(const Page& page) { return page.text; }

}  // namespace rop::stdlib::pdf
