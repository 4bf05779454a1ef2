// std.pdf on poppler-cpp: open a document, stream its pages as images plus native text.
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "rop/stdlib/pdf.h"

namespace rop::stdlib::pdf {
namespace {

// Poppler prints syntax errors of broken files to stderr; the reasons we throw say it better.
void silence_poppler() {
    static std::once_flag once;
    std::call_once(once, [] {
        poppler::set_debug_error_function([](const std::string&, void*) {}, nullptr);
    });
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

// Reads the file's first and last KiB: poppler repairs a lot silently, but a file without a
// header is not a PDF and one without %%EOF near its end was cut short.
void check_envelope(const std::string& path, const std::string& who) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) throw rop::RecordFailure(who + ": cannot open: " + std::strerror(errno));
    std::fseek(file, 0, SEEK_END);
    const long size = std::ftell(file);
    std::string head(1024, '\0');
    std::string tail(1024, '\0');
    std::fseek(file, 0, SEEK_SET);
    head.resize(std::fread(head.data(), 1, head.size(), file));
    std::fseek(file, size > 1024 ? size - 1024 : 0, SEEK_SET);
    tail.resize(std::fread(tail.data(), 1, tail.size(), file));
    std::fclose(file);
    if (size <= 0) throw rop::RecordFailure(who + ": empty file");
    if (head.find("%PDF-") == std::string::npos) {
        throw rop::RecordFailure(who + ": not a PDF (no %PDF- header)");
    }
    if (tail.find("%%EOF") == std::string::npos) {
        throw rop::RecordFailure(who + ": truncated PDF (no %%EOF at the end)");
    }
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
    check_envelope(path, who);
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
    if (!doc) {
        // load_from_file returns null both for unparsable files and for locked ones it cannot
        // decrypt; tell them apart by the trailer's /Encrypt key.
        std::FILE* file = std::fopen(path.c_str(), "rb");
        std::string bytes;
        if (file) {
            char buffer[65536];
            std::size_t got = 0;
            while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) bytes.append(buffer, got);
            std::fclose(file);
        }
        if (bytes.find("/Encrypt") != std::string::npos) {
            throw rop::RecordFailure(who + ": encrypted PDF (needs a password)");
        }
        throw rop::RecordFailure(who + ": cannot parse PDF");
    }
    if (doc->is_locked()) throw rop::RecordFailure(who + ": encrypted PDF (needs a password)");
    Opened opened;
    opened.pages = doc->pages();
    if (opened.pages <= 0) throw rop::RecordFailure(who + ": PDF has no pages");
    opened.doc = std::move(doc);
    return opened;
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

void pages(const Document& doc, rop::Emitter<Page>& out, int dpi, Color color, bool text,
           bool words) {
    const std::string who = display(doc.name, doc.path);
    if (dpi < 36 || dpi > 1200) {
        throw rop::RecordFailure(who + ": dpi " + std::to_string(dpi) + " is outside 36..1200");
    }
    Opened opened = load(doc.path, who);
    poppler::page_renderer renderer;
    renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
    renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
    renderer.set_image_format(color == Color::gray ? poppler::image::format_gray8
                                                   : poppler::image::format_rgb24);
    const int channels = color == Color::gray ? 1 : 3;
    for (int index = 0; index < opened.pages; ++index) {
        const std::string where = who + ": page " + std::to_string(index + 1);
        std::unique_ptr<poppler::page> page(opened.doc->create_page(index));
        if (!page) throw rop::RecordFailure(where + ": cannot read the page");
        Page result;
        result.doc_path = doc.path;
        result.doc_name = doc.name;
        result.index = index;
        result.page_count = opened.pages;
        result.dpi = dpi;
        const poppler::rectf box = page->page_rect(poppler::crop_box);
        const auto orientation = page->orientation();
        const bool sideways = orientation == poppler::page::landscape ||
                              orientation == poppler::page::seascape;
        result.width = sideways ? box.height() : box.width();
        result.height = sideways ? box.width() : box.height();

        const poppler::image image = renderer.render_page(page.get(), dpi, dpi);
        if (!image.is_valid() || image.width() <= 0 || image.height() <= 0) {
            throw rop::RecordFailure(where + ": cannot render");
        }
        auto pixels = std::make_shared<std::vector<std::uint8_t>>(
            static_cast<std::size_t>(image.width()) * image.height() * channels);
        const std::size_t row = static_cast<std::size_t>(image.width()) * channels;
        const char* data = image.const_data();
        for (int y = 0; y < image.height(); ++y) {
            std::memcpy(pixels->data() + row * y, data + static_cast<std::size_t>(image.bytes_per_row()) * y,
                        row);
        }
        result.image.width = image.width();
        result.image.height = image.height();
        result.image.channels = channels;
        result.image.pixels = std::move(pixels);
        if (text) {
            result.text = utf8(page->text(poppler::rectf(), poppler::page::non_raw_non_physical_layout));
            if (words) {
                for (const poppler::text_box& box_text : page->text_list()) {
                    const poppler::rectf b = box_text.bbox();
                    result.words.push_back(Word{utf8(box_text.text()),
                                                BBox{b.left(), b.top(), b.right(), b.bottom()}, 100});
                }
            }
        }
        out.emit(std::move(result));
    }
}

int page_number(const Page& page) { return page.index; }

std::string page_text(const Page& page) { return page.text; }

}  // namespace rop::stdlib::pdf
