// rop/stdlib/types.h: the item types the stdlib operators pass between stages (files, documents,
// pages, OCR results, layout regions, page contents, Markdown and JSON text), as plain structs.
//
// Slim on purpose (standard headers only): ropc reads it with every pipeline that uses the stdlib.
// Coordinates: every bounding box is in PDF points (1/72 inch), origin at the page's top-left
// corner, x to the right and y down, whatever dpi the page was rendered at. Page images are
// shared (a std::shared_ptr to immutable pixels) so copying a Page or Region is cheap.
#pragma once

#include <rop/content_key.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rop::stdlib {

// String-valued metadata, ordered by key so that every output that prints it is deterministic.
// A manifest's non-string JSON values are kept as their compact JSON text.
using Metadata = std::map<std::string, std::string>;

// One input root: a local path (or a URI as a manifest gave it) and its display name.
struct File {
    std::string path;   // what to open: a local file path, or a URI from a manifest
    std::string name;   // display name (the path as listed, or the manifest's "name")
    Metadata metadata;  // the manifest line's other fields; empty for globs and directories
};

// An opened PDF (std.pdf.open): what the document says about itself.
struct Document {
    std::string path;
    std::string name;
    int page_count = 0;
    std::string title;  // from the info dictionary; may be empty
    std::string author;
    std::string subject;
    std::string keywords;
    std::string creator;
    std::string producer;
    Metadata info;      // every info-dictionary key (Title, Author, ...) with its text
    Metadata metadata;  // the File's metadata, carried along
};

// A page image: 8-bit samples, row-major, rows packed (stride = width * channels), no padding.
struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;  // 1: gray, 3: RGB
    std::shared_ptr<const std::vector<std::uint8_t>> pixels;

    bool empty() const { return !pixels || width <= 0 || height <= 0; }
    std::size_t stride() const { return static_cast<std::size_t>(width) * channels; }
};

// An axis-aligned box in PDF points, origin top-left (see the header comment).
struct BBox {
    double x0 = 0;
    double y0 = 0;
    double x1 = 0;
    double y1 = 0;

    double width() const { return x1 - x0; }
    double height() const { return y1 - y0; }
};

// A word with its box: from the PDF's native text layer (confidence 100, with its font) or from
// OCR (no font).
struct Word {
    std::string text;
    BBox bbox;
    float confidence = 0;  // 0..100
    double font_size = 0;  // points; 0 when unknown (OCR)
    std::string font;      // the font's name as the PDF gives it (text layer only)
};

// A text line from OCR, with the block and paragraph it belongs to (Tesseract's numbering, in
// reading order).
struct Line {
    std::string text;
    BBox bbox;
    float confidence = 0;  // mean word confidence, 0..100
    double baseline = 0;   // y of the baseline (points); baseline - bbox.y0 is the line's ascent
    int block = 0;
    int paragraph = 0;     // counts across the page, not restarted per block
    double font_size = 0;  // the text layer's largest font size on the line (points); 0 for OCR
};

// An entry of a PDF's outline (its bookmarks, poppler's TOC): a title and its depth (1 = top).
struct OutlineEntry {
    std::string title;
    int level = 1;
};
// A document's outline in order, shared by all its pages (null or empty: the PDF has none).
using Outline = std::shared_ptr<const std::vector<OutlineEntry>>;

// One page of a document (std.pdf.pages): its rendered image, its native text layer, and which
// of the two its text is to come from. With std.pdf.pages(render: needed | all) std.pdf.Render
// reads the page (its text layer and what it draws) and draws its image only if it needs one.
struct Page {
    std::string doc_path;
    std::string doc_name;
    int index = 0;       // zero-based page index in the document
    int page_count = 0;  // pages in the document
    double width = 0;    // page size in points (after the page's rotation)
    double height = 0;
    int dpi = 0;  // resolution the image was (or is to be) rendered at
    Image image;
    std::string text;         // the native text layer (empty for scanned pages)
    std::vector<Word> words;  // the native text layer's words with boxes and fonts
    std::vector<Line> lines;  // those words as lines and paragraphs, in reading order
    // "layer": read the text layer; "ocr": OCR the image; "" until std.pdf.Render has read the
    // page.
    std::string text_source;
    std::string text_check;    // why (std.pdf.pages' check of the layer, one line)
    Outline outline;           // the document's outline
    std::string image_needed;  // why std.pdf.Render drew the image; "" when the page needs none
    int image_channels = 0;    // the image pages was asked for: 1 gray, 3 RGB
    // std.pdf.pages(render: needed | all) leaves reading the page to std.pdf.Render: the text
    // source asked for ("detect", "layer", "ocr") until it has read it, "" after.
    std::string pending_text;
};

// What OCR read on one page (std.ocr.Tesseract).
struct OcrResult {
    std::string doc_path;
    std::string doc_name;
    int page_index = 0;
    double width = 0;  // page size in points
    double height = 0;
    std::string text;  // the page's text, Tesseract's reading order, paragraphs "\n\n"
    std::vector<Word> words;
    std::vector<Line> lines;
    float confidence = 0;             // mean word confidence, 0..100
    std::string text_source = "ocr";  // "layer" when the page's text layer was passed through
    Outline outline;                  // the document's outline (the Page's)
};

// code: a listing, a region of a text-layer page whose words are all set in a monospace font.
enum class RegionKind { text, heading, table, figure, caption, list, formula, code };

// A cell of a table region's grid (row and column are zero-based).
struct TableCell {
    int row = 0;
    int col = 0;
    BBox bbox;
    std::string text;
};

// A layout region of a page (std.layout.regions), in reading order; std.layout.RegionOcr fills
// `text` (and each table cell's text).
struct Region {
    std::string doc_path;
    std::string doc_name;
    int page_index = 0;
    int order = 0;  // reading order within the page, zero-based
    RegionKind kind = RegionKind::text;
    int level = 0;          // heading level (1 = largest) for headings, else 0
    BBox bbox;              // in points
    double page_width = 0;  // page size in points
    double page_height = 0;
    int dpi = 0;
    Image image;   // the region cropped from the page image
    int rows = 0;  // table grid, when one was found (else 0 and no cells)
    int cols = 0;
    std::vector<TableCell> cells;
    std::string text;                 // filled by OCR (or from the native text layer)
    float confidence = 0;             // 0..100, from OCR
    Metadata metadata;                // free-form tags (e.g. broadcast document metadata)
    std::string text_source = "ocr";  // the page's: "layer" when `text` came from its text layer
    double font_size = 0;             // "layer": the largest font size of its words, else 0
    Outline outline;                  // the document's outline (the Page's)
    // A text or heading region std.ocr.RegionText read: its lines and words as OCR found them,
    // in page coordinates, for std.assemble.page's line rules (code set at one pitch); else empty.
    std::vector<Line> lines;
    std::vector<Word> words;
};

// One content block of a page, the unit of the assembled outputs (std.assemble).
struct Block {
    // MinerU's content-list types: "text", "table", "image", "equation"; "header", "footer" and
    // "page_number" for the running text std.assemble finds repeated across pages.
    std::string type = "text";
    std::string text;      // for tables: the Markdown table
    int text_level = 0;    // heading level (1 = top), 0 for body text
    float confidence = 0;  // 0..100: OCR's mean word confidence, 100 for the text layer
    double font_size = 0;  // its largest line's font size (layer) or ascent (OCR); 0: unknown
    BBox bbox;
    std::vector<TableCell> cells;
    int rows = 0;
    int cols = 0;
};

// A page's content in reading order: what std.assemble folds into a document.
struct PageContent {
    std::string doc_path;
    std::string doc_name;
    int page_index = 0;
    double width = 0;
    double height = 0;
    std::vector<Block> blocks;
    std::string text_source = "ocr";  // "layer", "ocr", "model": where the page's text came from
    Outline outline;                  // the document's outline (the Page's)
};

// A Markdown document (what std.io.MarkdownDir writes).
struct Markdown {
    std::string text;
};

// One JSON value as text (what std.io.JsonDir and std.io.Jsonl write). Jsonl writes it compacted
// onto one line.
struct JsonText {
    std::string text;
};

}  // namespace rop::stdlib

// For the result store's keys (--cache), an item that names a file the next operator reads is
// its bytes and that file's (its bytes, or with --trust-mtime its path, size and modification
// time): an edited PDF runs again, a touched one does not.
template <>
struct rop::ContentKey<rop::stdlib::File> {
    static void add(const rop::stdlib::File& file, rop::ContentSink& key) { key.file(file.path); }
};
template <>
struct rop::ContentKey<rop::stdlib::Document> {
    static void add(const rop::stdlib::Document& doc, rop::ContentSink& key) { key.file(doc.path); }
};
// A page std.pdf.Render is still to read opens its document again.
template <>
struct rop::ContentKey<rop::stdlib::Page> {
    static void add(const rop::stdlib::Page& page, rop::ContentSink& key) {
        if (!page.pending_text.empty()) key.file(page.doc_path);
    }
};
