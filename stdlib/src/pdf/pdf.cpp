// std.pdf on poppler-cpp and poppler's core API (core.h): open a document, stream its pages with
// their native text, render their images in the expand or in std.pdf.Render.
#include "rop/stdlib/pdf.h"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>
#include <poppler-toc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "core.h"
#include "render_size.h"
#include "rule_candidates.h"
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

std::string seconds(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

std::string over_budget(const std::string& where, const char* what, double max_seconds) {
    return where + ": over its time budget: " + what + " the page took more than " +
           seconds(max_seconds) + " CPU-s (max_page_seconds)";
}

// Renders page `index` at `size.dpi` and checks the image against its size: poppler answers a
// bitmap it cannot allocate with a 1x1 image, which must fail the page, never pass as a blank one.
Image render_image(CoreDocument& doc, int index, const Page& size, int channels, double max_seconds,
                   const std::string& where) {
    const PixelSize expected = expected_pixels(size.width, size.height, size.dpi);
    Rendered rendered = render_page(doc, index, size.dpi, channels, max_seconds);
    if (rendered.over_budget)
        throw rop::RecordFailure(over_budget(where, "rendering", max_seconds));
    const std::string mismatch = image_mismatch(
        rendered.valid, PixelSize{rendered.image.width, rendered.image.height}, expected);
    if (!mismatch.empty()) throw rop::RecordFailure(where + ": render failed: " + mismatch);
    return std::move(rendered.image);
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

// What poppler-cpp hands out for poppler's UTF-8 (its ustring round trip, up to a NUL). ASCII
// without a NUL comes back as it went in, so it skips the two iconv conversions (an eighth of
// the Render Call's time on born-digital pages, B4-layer).
std::string as_cpp(const std::string& text) {
    const bool ascii = std::all_of(text.begin(), text.end(), [](char c) {
        return c != '\0' && static_cast<unsigned char>(c) < 0x80;
    });
    if (ascii) return text;
    return utf8(poppler::ustring::from_utf8(text.c_str()));
}

// read_layer from the core API's single pass (core.h, read_page): the same text, words and lines.
void fill_layer(const PageRead& read, Page& result) {
    result.text = as_cpp(read.text);
    std::vector<LayerWord> words;
    words.reserve(read.words.size());
    result.words.reserve(result.words.size() + read.words.size());
    for (const LayerBox& box : read.words) {
        const poppler::rectf b(box.x, box.y, box.width, box.height);
        LayerWord word;
        word.word.text = as_cpp(box.text);
        word.word.bbox = BBox{b.left(), b.top(), b.right(), b.bottom()};
        word.word.confidence = 100;
        word.word.font_size = box.font_size;
        word.word.font = box.font;
        word.space_after = box.space_after;
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

// std.pdf.Render on a page of pages(render: needed | all). Decides what the text layer and the
// page's marks decide without its image (decide() with the image decides the same, from the
// same rules), and says why the page needs its image, if it does.
void plan(TextSource source, bool every, const PageMarks& drawn, Page& page) {
    std::vector<BBox> marks = drawn.marks;
    for (const Word& word : page.words) {
        if (rule_word(word.text)) marks.push_back(word.bbox);
    }
    std::string all;
    for (const Word& word : page.words) all += word.text;
    const CharCounts chars = count_chars(all);
    const std::string count = std::to_string(chars.total) + " characters";
    switch (source) {
        case TextSource::layer: decide(source, page); break;
        case TextSource::ocr:
            decide(source, page);
            page.image_needed = "OCR (text: ocr)";
            break;
        case TextSource::detect: {
            // check_layer's rules in their order: unreadable characters need no ink.
            const LayerCheck unreadable = check_layer(chars, InkCoverage{});
            if (!unreadable.usable) {
                page.text_source = "ocr";
                page.text_check = unreadable.why;
                page.image_needed = "OCR (" + unreadable.why + ")";
            } else if (chars.total >= kEnoughChars) {
                page.text_source = "layer";
                page.text_check = "layer: " + count + " (" + std::to_string(kEnoughChars) +
                                  " or more: the ink is not checked)";
            } else if (marks.empty()) {
                // Nothing is drawn but the text, whose ink lies in its words' boxes.
                page.text_source = "layer";
                page.text_check = "layer: " + count + ", nothing drawn besides them";
            } else {
                page.text_source.clear();  // std.pdf.Render checks the ink
                page.text_check =
                    "ink check: " + count + " and " + std::to_string(marks.size()) + " marks drawn";
                page.image_needed =
                    "ink check (" + count + ", " + std::to_string(marks.size()) + " marks drawn)";
            }
            break;
        }
    }
    if (page.image_needed.empty()) {
        const std::vector<RuleCandidate> rules = rule_candidates(marks, page.dpi);
        if (!rules.empty())
            page.image_needed = "may hold a ruled table: " + describe(rules.front());
    }
    if (page.image_needed.empty() && every) page.image_needed = "render: all";
}

const char* text_word(TextSource source) {
    switch (source) {
        case TextSource::layer: return "layer";
        case TextSource::ocr: return "ocr";
        case TextSource::detect: break;
    }
    return "detect";
}

TextSource text_of(const std::string& word) {
    return word == "layer" ? TextSource::layer
           : word == "ocr" ? TextSource::ocr
                           : TextSource::detect;
}

std::unique_ptr<CoreDocument> open_core(const std::string& uri, const std::string& who) {
    std::unique_ptr<CoreDocument> core = CoreDocument::open(local_path(uri));
    // poppler-cpp opened it a moment ago: only a file changed or removed in between gets here.
    if (!core) throw rop::RecordFailure(who + ": " + open_failure(local_path(uri)));
    return core;
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
           std::int64_t max_pixels, Rendering render, double max_page_seconds) {
    const std::string who = display(doc.name, doc.path);
    if (dpi < 36 || dpi > 1200) {
        throw rop::RecordFailure(who + ": dpi " + std::to_string(dpi) + " is outside 36..1200");
    }
    if (max_pixels < 1) {
        throw rop::RecordFailure(who + ": max_pixels " + std::to_string(max_pixels) +
                                 " is below 1");
    }
    if (!(max_page_seconds > 0)) {
        throw rop::RecordFailure(who + ": max_page_seconds " + seconds(max_page_seconds) +
                                 " is not above 0");
    }
    Opened opened = load(doc.path, who);
    std::unique_ptr<CoreDocument> core;
    if (render == Rendering::here) core = open_core(doc.path, who);
    const int channels = color == Color::gray ? 1 : 3;
    const Outline outline = outline_of(*opened.doc);
    // The page count is known before the first page is read: the progress ETA weighs this
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
        result.image_channels = channels;
        result.outline = outline;
        if (render == Rendering::here) {
            // The render is the first pass over the page's content, the one under the budget:
            // the text layer's passes come after it.
            result.image = render_image(*core, index, result, channels, max_page_seconds, where);
            read_layer(*page, result);
            decide(text, result);
        } else {
            // The page as std.pdf.Render is to read it: its text layer, its marks, its image.
            result.pending_text = text_word(text);
            result.text_check = "not read yet (std.pdf.Render reads it)";
            if (render == Rendering::all) result.image_needed = "render: all";
        }
        out.emit(std::move(result));
    }
}

// The documents an actor has open, the most recently used first.
struct Render::Documents {
    static constexpr std::size_t kKeep = 4;
    struct Open {
        std::string path;
        std::unique_ptr<CoreDocument> core;
    };
    std::list<Open> open;

    Open& get(const std::string& path, const std::string& who) {
        auto it = std::find_if(open.begin(), open.end(),
                               [&](const Open& entry) { return entry.path == path; });
        if (it != open.end()) {
            open.splice(open.begin(), open, it);
        } else {
            silence_poppler();
            open.push_front(Open{path, open_core(path, who)});
            if (open.size() > kKeep) open.pop_back();
        }
        return open.front();
    }
};

Render::Render(double max_page_seconds)
    : documents_(std::make_unique<Documents>()), max_page_seconds_(max_page_seconds) {
    if (!(max_page_seconds > 0)) {
        throw std::invalid_argument("std.pdf.Render: max_page_seconds " +
                                    seconds(max_page_seconds) + " is not above 0");
    }
}
Render::~Render() = default;
Render::Render(Render&&) noexcept = default;
Render& Render::operator=(Render&&) noexcept = default;

Page Render::operator()(const Page& page) {
    const bool unread = !page.pending_text.empty();
    if (!unread && (page.image_needed.empty() || !page.image.empty())) return page;
    const std::string who = display(page.doc_name, page.doc_path);
    const std::string where = who + ": page " + std::to_string(page.index + 1);
    Documents::Open& doc = documents_->get(page.doc_path, who);
    if (page.index < 0 || page.index >= doc.core->pages()) {
        throw rop::RecordFailure(where + ": cannot read the page");
    }
    Page result = page;
    if (unread) {
        // One pass over the page's content, under the budget, reads its text layer and marks.
        const PageRead read = read_page(*doc.core, page.index, max_page_seconds_);
        if (read.marks.over_budget) {
            throw rop::RecordFailure(over_budget(where, "reading", max_page_seconds_));
        }
        rop::count("read");
        fill_layer(read, result);
        result.pending_text.clear();
        result.image_needed.clear();
        plan(text_of(page.pending_text), page.image_needed == "render: all", read.marks, result);
    }
    if (!result.image_needed.empty() && result.image.empty()) {
        rop::count("rendered");
        result.image = render_image(*doc.core, page.index, result, page.image_channels == 3 ? 3 : 1,
                                    max_page_seconds_, where);
        if (result.text_source.empty()) decide(TextSource::detect, result);
    }
    return result;
}

int page_number(const Page& page) { return page.index; }

std::string page_text(const Page& page) { return page.text; }

}  // namespace rop::stdlib::pdf
