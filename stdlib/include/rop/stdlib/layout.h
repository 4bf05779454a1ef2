// rop/stdlib/layout.h: page layout analysis on Tesseract — expand a page into regions (text,
// heading, table, figure, caption, formula) with boxes and reading order, so a pipeline can run
// Doc -> Page -> Region. Tables drawn with rules keep their cell grid.
// rop-link: rop_stdlib_layout rop_stdlib_rules tesseract lept
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <memory>
#include <string>
#include <vector>

namespace rop::stdlib::layout {

// expand Page -> Region: one actor's layout engine (Tesseract's page layout analysis, no
// language data needed). Regions come in reading order (Tesseract's block order, tables placed by
// their top edge), each with its box in points and its crop of the page image. Text lines whose
// ascent (baseline to top) is at least `heading_ratio` times the page's median become headings
// (level 1 at twice the median or more, 2 at 1.6 times, else 3). With `tables`, ruled tables are
// found from their rules and keep a cell grid (rows x cols, cells row by row); Tesseract's own
// table blocks become tables without a grid. On a page whose text_source is "layer" every region
// takes its text from the layer (each word to the first region, tables first, whose box holds
// its center; table cells likewise) and gets text_source "layer", so RegionText skips it; runs of
// words no region holds become text regions of their own (without a crop). A page without an
// image fails its record.
class Regions {
  public:
    explicit Regions(bool tables = true, double heading_ratio = 1.3);
    ~Regions();
    Regions(Regions&&) noexcept;
    Regions& operator=(Regions&&) noexcept;

    std::vector<Region> operator()(const Page& page);

    struct Engine;

  private:
    std::unique_ptr<Engine> engine_;
    bool tables_;
    double heading_ratio_;
};

// map Region -> std::string: "text", "heading", "table", "figure", "caption", "list", "formula".
std::string kind_name(const Region& region);

// map Region -> Region: the region with its document's metadata (a broadcast Document) merged
// into region.metadata ("title", "lang", ... as the Document and its File carry them).
Region tag(const Region& region, const Document& doc);

}  // namespace rop::stdlib::layout
