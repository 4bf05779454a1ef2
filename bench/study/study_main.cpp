// bench_study: BENCH.md B2/B3 (issue 6). One strategy run per invocation, one JSON line out.
//
//   bench_study corpus [--scale 1] [--seed 1] [--b3 --roots R --pages P] [--compress C]
//                      [--cap 48]              -> the corpus, its histogram and the cost model
//   bench_study run --strategy S --actors N [--scale 1] [--seed 1] [--compress 1000] [--cap 48]
//                   [--inflight K] [--b3 --roots R --pages P [--poison]]
//   tail options (both commands): [--tail F] [--page-bytes 4000] [--shuffle-fixed S]
//                   [--shuffle-row R] [--shuffle-byte B]
//
// Strategies: lineage, single-parent (rop's runtime), flat-regroup, per-parent (threads),
// tbb-lineage (oneTBB flow graph). --b3 switches to the failure-injection corpus and cost model
// (a fixed 50 ms page UDF, no compression). --tail F models the regroup tail (CostModel):
// moving a mean page costs F x its OCR work (a quarter per row, three quarters per byte);
// flat-regroup pays it in a shuffle after the last OCR batch, the lineage strategies per root in
// their reduce. --shuffle-row / --shuffle-byte set the two costs directly (after --tail),
// --shuffle-fixed is each regroup partition's fixed cost (flat-regroup only).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include "study.h"

using namespace rop::study;

namespace {

struct Args {
    std::string command;
    RunConfig run;
    double scale = 1;
    std::uint64_t seed = 1;
    double compress = -1;
    std::uint32_t cap = 48;
    bool b3 = false, poison = false;
    std::size_t roots = 190, pages = 1200;
    std::string label;
    double tail = -1, shuffle_fixed = -1, shuffle_row = -1, shuffle_byte = -1;
    long page_bytes = -1;
};

Args parse(int argc, char** argv) {
    Args a;
    if (argc < 2) throw std::invalid_argument("usage: bench_study corpus|run [options]");
    a.command = argv[1];
    for (int i = 2; i < argc; ++i) {
        const std::string k = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
            return argv[++i];
        };
        if (k == "--strategy")
            a.run.strategy = val();
        else if (k == "--actors")
            a.run.actors = std::uint32_t(std::stoul(val()));
        else if (k == "--inflight")
            a.run.inflight = std::stoull(val());
        else if (k == "--scale")
            a.scale = std::stod(val());
        else if (k == "--seed")
            a.seed = std::stoull(val());
        else if (k == "--compress")
            a.compress = std::stod(val());
        else if (k == "--cap")
            a.cap = std::uint32_t(std::stoul(val()));
        else if (k == "--b3")
            a.b3 = true;
        else if (k == "--poison")
            a.poison = true;
        else if (k == "--roots")
            a.roots = std::stoull(val());
        else if (k == "--pages")
            a.pages = std::stoull(val());
        else if (k == "--label")
            a.label = val();
        else if (k == "--tail")
            a.tail = std::stod(val());
        else if (k == "--page-bytes")
            a.page_bytes = std::stol(val());
        else if (k == "--shuffle-fixed")
            a.shuffle_fixed = std::stod(val());
        else if (k == "--shuffle-row")
            a.shuffle_row = std::stod(val());
        else if (k == "--shuffle-byte")
            a.shuffle_byte = std::stod(val());
        else
            throw std::invalid_argument("unknown option " + k);
    }
    if (a.run.inflight == 0)
        a.run.inflight = std::max<std::size_t>(64, 4 * std::size_t(a.run.actors));
    return a;
}

CostModel cost_for(const Args& a) {
    CostModel c;
    c.cap = a.cap;
    if (a.b3) {  // the paper's failure test: a fixed 50 ms page UDF; light render/assemble
        c.compress = 1;
        c.render_root = 0;
        c.render_page = 0.001;
        c.ocr_batch = 0;
        c.ocr_page = 0.050;
        c.assemble_root = 0.005;
        c.assemble_page = 0;
        c.upload_root = 0;
    }
    if (a.compress > 0) c.compress = a.compress;
    if (a.page_bytes >= 0) c.page_bytes = std::uint32_t(a.page_bytes);
    if (a.tail >= 0) c.set_tail(a.tail);
    if (a.shuffle_fixed >= 0) c.shuffle_fixed = a.shuffle_fixed;
    if (a.shuffle_row >= 0) c.shuffle_row = a.shuffle_row;
    if (a.shuffle_byte >= 0) c.shuffle_byte = a.shuffle_byte;
    return c;
}

std::string cost_json(const CostModel& c) {
    char buf[600];
    std::snprintf(buf, sizeof buf,
                  "{\"compress\": %g, \"render_root\": %g, \"render_page\": %g, \"ocr_batch\": %g, "
                  "\"ocr_page\": %g, \"assemble_root\": %g, \"assemble_page\": %g, "
                  "\"upload_root\": %g, \"cap\": %u, \"page_bytes\": %u, \"shuffle_fixed\": %g, "
                  "\"shuffle_row\": %.9g, \"shuffle_byte\": %.9g, \"tail_fraction\": %.6g}",
                  c.compress, c.render_root, c.render_page, c.ocr_batch, c.ocr_page,
                  c.assemble_root, c.assemble_page, c.upload_root, c.cap, c.page_bytes,
                  c.shuffle_fixed, c.shuffle_row, c.shuffle_byte, c.tail_fraction());
    return buf;
}

Corpus corpus_for(const Args& a) {
    return a.b3 ? b3_corpus(a.roots, a.pages, a.seed, a.poison) : mineru_corpus(a.scale, a.seed);
}

std::string load() {
    std::ifstream f("/proc/loadavg");
    double l1 = 0;
    f >> l1;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", l1);
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Args a = parse(argc, argv);
        const CostModel cost = cost_for(a);
        const Corpus corpus = corpus_for(a);
        if (a.command == "corpus") {
            std::string o = "{\"kind\": \"" + corpus.kind +
                            "\", \"scale\": " + std::to_string(a.scale) +
                            ", \"seed\": " + std::to_string(a.seed) +
                            ", \"roots\": " + std::to_string(corpus.pages.size()) +
                            ", \"total_pages\": " + std::to_string(corpus.total_pages()) +
                            ", \"cost\": " + cost_json(cost) + ", \"ideal_modelled_s\": {";
            const std::uint32_t actor_counts[] = {1, 2, 4, 8, 16, 32, 64};
            for (std::size_t i = 0; i < std::size(actor_counts); ++i)
                o += (i ? ", \"" : "\"") + std::to_string(actor_counts[i]) +
                     "\": " + std::to_string(ideal_bound(corpus, cost, actor_counts[i]));
            o += "}, \"pages\": [";
            for (std::size_t i = 0; i < corpus.pages.size(); ++i)
                o += (i ? ", " : "") + std::to_string(corpus.pages[i]);
            o += "], \"poisoned\": [";
            for (std::size_t i = 0; i < corpus.poisoned.size(); ++i)
                o += (i ? ", " : "") + std::to_string(int(corpus.poisoned[i]));
            o += "]}";
            std::puts(o.c_str());
            return 0;
        }
        if (a.command != "run") throw std::invalid_argument("unknown command " + a.command);
        Recorder rec;
        std::string extra;
        const std::string load_before = load();
        run_strategy(a.run, corpus, cost, rec, extra);
        const double ideal = ideal_bound(corpus, cost, a.run.actors) / cost.compress;
        char buf[1200];
        std::snprintf(
            buf, sizeof buf,
            "\"system\": \"%s\", \"strategy\": \"%s\", \"label\": \"%s\", \"bench\": \"%s\", "
            "\"actors\": %u, \"cap\": %u, \"inflight\": %zu, \"scale\": %g, \"seed\": %llu, "
            "\"poison\": %s, \"corpus_roots\": %zu, \"corpus_pages\": %llu, "
            "\"ideal_s\": %.6f, \"load_before\": %s, \"load_after\": %s, \"cost\": %s",
            a.run.strategy == "tbb-lineage" ? "onetbb" : "rop-study", a.run.strategy.c_str(),
            a.label.c_str(), a.b3 ? "b3" : "b2", a.run.actors, cost.cap, a.run.inflight, a.scale,
            static_cast<unsigned long long>(a.seed), a.poison ? "true" : "false",
            corpus.pages.size(), static_cast<unsigned long long>(corpus.total_pages()), ideal,
            load_before.c_str(), load().c_str(), cost_json(cost).c_str());
        std::string head = buf + extra;
        std::puts(rec.to_json(head, corpus).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_study: %s\n", e.what());
        return 2;
    }
}
