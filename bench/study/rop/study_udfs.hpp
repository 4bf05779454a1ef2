// UDFs of bench/study/rop/study.rop: the study's cost model (bench/study/study.h) as sleeping
// UDFs. STUDY_COST = "compress render_root render_page ocr_batch ocr_page assemble_root
// assemble_page upload_root [shuffle_row shuffle_byte page_bytes]" (modelled seconds; the last
// three: the lineage gather of the regroup tail model, 0 0 4000 when absent); STUDY_LOG = a
// directory for the timing logs that bench/study/peers.py --system rop-pipeline collects (render
// starts, OCR batch sizes, commits).
#pragma once

#include <rop/udf.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace study {

struct DocRef {
    std::uint32_t id = 0, pages = 0;
    bool poisoned = false;  // B3: page 0 of this document fails its OCR (a GroupFailure)
};
struct PageRef {
    std::uint32_t root = 0, page = 0;
    bool poisoned = false;
};
struct DocOut {
    std::uint64_t digest = 0;
};

inline std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct Cost {
    double compress = 1000, render_root = 0.5, render_page = 0.25, ocr_batch = 7.55,
           ocr_page = 1.416, assemble_root = 1.0, assemble_page = 0.02, upload_root = 0.5,
           shuffle_row = 0, shuffle_byte = 0;
    std::uint32_t page_bytes = 4000;
    static const Cost& get() {
        static const Cost c = [] {
            Cost k;
            if (const char* s = std::getenv("STUDY_COST")) {
                std::istringstream in(s);
                in >> k.compress >> k.render_root >> k.render_page >> k.ocr_batch >> k.ocr_page >>
                    k.assemble_root >> k.assemble_page >> k.upload_root;
                double row = 0, byte = 0, bytes = 4000;
                if (in >> row >> byte >> bytes) {
                    k.shuffle_row = row;
                    k.shuffle_byte = byte;
                    k.page_bytes = std::uint32_t(bytes);
                }
            }
            return k;
        }();
        return c;
    }
    // A page's OCR text size, as bench/study/study.h's text_bytes.
    std::uint64_t text_bytes(std::uint64_t text) const {
        return page_bytes / 2 + text % (std::uint64_t(page_bytes) + 1);
    }
    static std::chrono::steady_clock::duration real(double modelled) {
        return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(modelled / get().compress));
    }
};

// Wall-clock (epoch) logs, one line per event, in the format bench/study/peers.py reads.
inline void log_line(const char* kind, const std::string& line) {
    static std::mutex mutex;
    static const char* dir = std::getenv("STUDY_LOG");
    if (!dir) return;
    std::lock_guard<std::mutex> lock(mutex);
    static FILE* files[3] = {nullptr, nullptr, nullptr};
    const int k = kind[0] == 'r' ? 0 : kind[0] == 'b' ? 1 : 2;
    if (!files[k]) {
        const std::string path =
            std::string(dir) + "/" + kind + "_" + std::to_string(getpid()) + ".txt";
        files[k] = std::fopen(path.c_str(), "a");
    }
    std::fputs(line.c_str(), files[k]);
    std::fputc('\n', files[k]);
    std::fflush(files[k]);
}
inline std::string epoch() {
    const double t =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", t);
    return buf;
}

// source: reads "pages": [..] and "poisoned": [..] from a corpus file written by `bench_study
// corpus`.
class Corpus {
  public:
    explicit Corpus(std::string path) {
        std::ifstream f(path);
        if (!f) throw std::runtime_error("cannot read " + path);
        std::stringstream ss;
        ss << f.rdbuf();
        const std::string s = ss.str();
        pages_ = list(s, "pages", path);
        poisoned_ = list(s, "poisoned", path);
        if (poisoned_.size() != pages_.size())
            throw std::runtime_error(path + ": \"poisoned\" and \"pages\" differ in length");
    }
    std::optional<DocRef> next() {
        if (i_ == pages_.size()) return std::nullopt;
        const std::uint32_t id = std::uint32_t(i_++);
        return DocRef{id, pages_[id], poisoned_[id] != 0};
    }
    std::optional<std::size_t> size_hint() const { return pages_.size(); }

  private:
    static std::vector<std::uint32_t> list(const std::string& s, const std::string& key,
                                           const std::string& path) {
        const std::string head = "\"" + key + "\": [";
        std::size_t at = s.find(head);
        if (at == std::string::npos) throw std::runtime_error(path + ": no \"" + key + "\" list");
        at += head.size();
        const std::size_t end = s.find(']', at);
        std::istringstream items(s.substr(at, end - at));
        std::vector<std::uint32_t> out;
        std::string item;
        while (std::getline(items, item, ','))
            if (item.find_first_not_of(" \n") != std::string::npos)
                out.push_back(std::uint32_t(std::stoul(item)));
        return out;
    }
    std::vector<std::uint32_t> pages_, poisoned_;
    std::size_t i_ = 0;
};

// streaming expand: one page per render_page, after render_root.
class Render {
  public:
    void operator()(const DocRef& doc, rop::Emitter<PageRef>& out) {
        log_line("r", std::to_string(doc.id) + " " + epoch());
        const Cost& c = Cost::get();
        auto t = std::chrono::steady_clock::now() + Cost::real(c.render_root);
        // Open: the page count is known, as std.pdf.pages knows it (the progress ETA and
        // --estimate's count pass take it).
        std::this_thread::sleep_until(t);
        rop::expected_children(doc.pages);
        for (std::uint32_t k = 0; k < doc.pages; ++k) {
            t += Cost::real(c.render_page);
            std::this_thread::sleep_until(t);
            out.emit(PageRef{doc.id, k, doc.poisoned});
        }
    }
};

// batch map, as bench_study's Ocr actor: the batch's fixed cost, then each page's at absolute
// deadlines; a page a sibling's GroupFailure barred meanwhile (rop::wanted) is skipped, not
// OCR'd (its result is discarded). B3: page 0 of a poisoned document fails its whole document
// (rop::fail_group, the GroupFailure of the API runner's Batch::fail_group), streamed the moment
// its OCR ends (rop::fail_group_now).
class Ocr {
  public:
    std::vector<rop::ItemResult<std::uint64_t>> operator()(std::span<const PageRef> pages) {
        const Cost& c = Cost::get();
        auto t = std::chrono::steady_clock::now() + Cost::real(c.ocr_batch);
        std::this_thread::sleep_until(t);
        std::vector<rop::ItemResult<std::uint64_t>> out;
        out.reserve(pages.size());
        for (std::size_t i = 0; i < pages.size(); ++i) {
            const PageRef& p = pages[i];
            const std::uint64_t text = mix((std::uint64_t(p.root) << 32) | p.page);
            if (!rop::wanted(i)) {
                out.emplace_back(text);  // ignored by the runtime
                continue;
            }
            t += Cost::real(c.ocr_page);
            std::this_thread::sleep_until(t);
            if (p.poisoned && p.page == 0) {
                // Known now: streamed at once, so the rest of the document is not OCR'd.
                const std::string reason = "poisoned page 0 of root " + std::to_string(p.root);
                rop::fail_group_now(i, reason);
                out.emplace_back(rop::fail_group(reason));
            } else {
                out.emplace_back(text);
            }
        }
        log_line("b", std::to_string(pages.size()));
        return out;
    }
};

// reduce: the document digest over its pages in ordinal order; gather (its pages' texts moved
// here: shuffle_row per page, shuffle_byte per byte, no shuffle) + assemble + upload.
class Assemble {
  public:
    DocOut operator()(std::span<const std::uint64_t> texts, const rop::Parent<DocRef>& doc) {
        std::uint64_t h = doc->id, bytes = 0;
        const Cost& c = Cost::get();
        for (std::uint64_t t : texts) {
            h = mix(h ^ t) + 1;
            bytes += c.text_bytes(t);
        }
        std::this_thread::sleep_for(
            Cost::real(c.shuffle_row * double(texts.size()) + c.shuffle_byte * double(bytes) +
                       c.assemble_root + c.assemble_page * double(texts.size()) + c.upload_root));
        char buf[64];
        std::snprintf(buf, sizeof buf, " 1 %016llx ", static_cast<unsigned long long>(h));
        log_line("a", std::to_string(doc->id) + " " + epoch() + buf);
        return DocOut{h};
    }
};

// sink: nothing to write (the commit is logged by Assemble).
class Log {
  public:
    explicit Log(std::string path) : path_(std::move(path)) {}
    void write(const rop::RootKey&, std::span<const DocOut>) {}

  private:
    std::string path_;
};

}  // namespace study
