// The CheckedProgram of the MinerU shape, its JSON plan and DOT graph; and a deep, wide
// generated pipeline that must check in (near) linear time without deep recursion.
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "sema/graph_dot.h"
#include "sema/plan_json.h"
#include "sema_test_util.h"

using rop::test::run_sema;
namespace sema = rop::sema;

namespace {

const std::string kMineru = R"(pipeline mineru;
use "udfs/mineru.hpp";
source docs : Doc = std.files(glob: "in/*.pdf");
pages  = expand docs as Page with std.pdf.render(dpi: 144);
ocr    = map pages with std.ocr.tesseract(lang: "eng") batch 48 actors 4 gpus 1;
kept   = filter ocr with std.text.nonempty;
title  = map docs with std.pdf.title;
hint   = broadcast title to Page;
fixed  = map (kept, hint?) with fix_hyphens retries 3 recovery isolate_tail timeout 30s;
md     = reduce fixed to Doc with std.text.join(sep: "\n\n");
(a, _b) = map docs with split_two;
out    = map (docs, md, a) with assemble batching single_parent isolation thread;
sink out -> std.markdown_dir(path: "out");
)";

}  // namespace

TEST_CASE("the MinerU shape lowers to a CheckedProgram", "[sema][program]") {
    const auto run = run_sema(kMineru);
    // gpus is checked and recorded (the runtime places it): no warning.
    REQUIRE(run.found(rop::Severity::Warning) == std::vector<std::string>{});
    REQUIRE(run.program.has_value());
    const sema::CheckedProgram& p = *run.program;
    CHECK(p.pipeline_name == "mineru");
    CHECK(p.uses == std::vector<std::string>{"udfs/mineru.hpp"});

    REQUIRE(p.domains.size() == 2);
    CHECK(p.domains[0].name == "Doc");
    CHECK_FALSE(p.domains[0].parent.has_value());
    CHECK(p.domains[0].depth == 0);
    CHECK(p.domains[1].name == "Page");
    CHECK(p.domains[1].parent == 0u);
    CHECK(p.domains[1].depth == 1);
    CHECK(p.domains[0].children == std::vector<sema::DomainId>{1});

    REQUIRE(p.calls.size() == 11);
    const std::vector<sema::CallKind> kinds = {sema::CallKind::Source, sema::CallKind::Expand,
                                               sema::CallKind::Map,    sema::CallKind::Filter,
                                               sema::CallKind::Map,    sema::CallKind::Broadcast,
                                               sema::CallKind::Map,    sema::CallKind::Reduce,
                                               sema::CallKind::Map,    sema::CallKind::Map};
    for (std::size_t i = 0; i < kinds.size(); ++i) CHECK(p.calls[i].kind == kinds[i]);
    CHECK(p.domains[1].opened_by == 1u);
    CHECK(p.source == 0u);
    REQUIRE(p.sinks.size() == 1);
    CHECK(p.calls[p.sinks[0]].kind == sema::CallKind::Sink);

    const sema::Call& expand = p.calls[1];
    CHECK(expand.domain == 0u);  // an expand runs per parent
    CHECK(p.ports[expand.outputs[0]].domain == 1u);
    const sema::Call& fixed = p.calls[6];
    REQUIRE(fixed.inputs.size() == 2);
    CHECK_FALSE(fixed.inputs[0].optional);
    CHECK(fixed.inputs[1].optional);
    CHECK(fixed.options.retries == 3);
    CHECK(fixed.options.timeout.count() == 30000);
    const sema::Call& reduce = p.calls[7];
    CHECK(reduce.domain == 0u);
    REQUIRE(reduce.op.has_value());
    CHECK(reduce.op->name == "std.text.join");
    CHECK_FALSE(p.calls[5].op.has_value());  // broadcast runs no operator
    const sema::Call& split = p.calls[8];
    REQUIRE(split.outputs.size() == 2);
    CHECK(p.ports[split.outputs[1]].name == "_b");
    CHECK(p.ports[split.outputs[1]].output_index == 1);
    for (const sema::Call& call : p.calls) CHECK_FALSE(call.binding.has_value());  // bound later

    REQUIRE(p.expand_reduce.size() == 1);
    CHECK(p.expand_reduce[0].child == 1u);
    CHECK(p.expand_reduce[0].expand == 1u);
    CHECK(p.expand_reduce[0].reduces == std::vector<sema::CallId>{7});
}

TEST_CASE("the plan JSON has the Domain tree / Ports / Calls and edges", "[sema][program]") {
    const auto run = run_sema(kMineru);
    REQUIRE(run.program.has_value());
    const auto plan = nlohmann::json::parse(sema::plan_json(*run.program, *run.sources));
    CHECK(plan["pipeline"] == "mineru");
    CHECK(plan["domains"][1]["name"] == "Page");
    CHECK(plan["domains"][1]["parent"] == 0);
    CHECK(plan["ports"].size() == run.program->ports.size());
    CHECK(plan["calls"][2]["options"]["batch"] == 48);
    CHECK(plan["calls"][2]["options"]["gpus"] == 1.0);
    CHECK(plan["calls"][1]["op"]["args"]["dpi"] == 144);
    CHECK(plan["calls"][6]["options"]["timeout_ms"] == 30000);
    CHECK(plan["calls"][0]["location"]["line"] == 3);
    CHECK(plan["expand_reduce"][0]["reduces"][0] == 7);
    std::size_t edges = 0;
    for (const auto& call : run.program->calls) edges += call.inputs.size();
    CHECK(plan["edges"].size() == edges);
    // Deterministic: the same program gives the same bytes.
    CHECK(sema::plan_json(*run.program, *run.sources) ==
          sema::plan_json(*run.program, *run.sources));
}

TEST_CASE("the DOT graph nests child Domain clusters", "[sema][program]") {
    const auto run = run_sema(kMineru);
    REQUIRE(run.program.has_value());
    const std::string dot = sema::graph_dot(*run.program);
    const auto doc = dot.find("subgraph cluster_0");
    const auto page = dot.find("subgraph cluster_1");
    REQUIRE(doc != std::string::npos);
    REQUIRE(page != std::string::npos);
    CHECK(doc < page);
    CHECK(dot.find("label=\"Page\"") != std::string::npos);
    CHECK(dot.find("[style=dashed]") != std::string::npos);  // the optional input
    CHECK(dot.find("c1 -> p1;") != std::string::npos);       // expand -> pages
}

namespace {

// 5,000 stages: levels D0..D9, each opened by an expand; per level maps, filters, a broadcast
// from the parent and a reduce back; then 4,000 more maps fanned out and zipped pairwise.
std::string deep_and_wide_pipeline() {
    std::string text = "pipeline big;\nsource s0 : D0 = std.files(glob: \"x\");\n";
    std::string prev = "s0";
    int stages = 0;
    std::vector<std::string> tails;
    for (int level = 1; level <= 10; ++level) {
        const std::string l = std::to_string(level);
        const std::string e = "e" + l;
        text += e + " = expand " + prev + " as D" + l + " with split;\n";
        text += "b" + l + " = broadcast " + prev + " to D" + l + ";\n";
        std::string cur = e;
        for (int i = 0; i < 40; ++i) {
            const std::string m = "m" + l + "_" + std::to_string(i);
            text += m + " = map (" + cur + ", b" + l + "?) with f;\n";
            const std::string k = "k" + l + "_" + std::to_string(i);
            text += k + " = filter " + m + " with keep;\n";
            cur = k;
            stages += 2;
        }
        text += "r" + l + " = reduce " + cur + " to D" + std::to_string(level - 1) + ";\n";
        tails.push_back("r" + l);
        prev = e;
        stages += 3;
    }
    for (int i = 0; stages < 5000; ++i, ++stages) {
        const std::string name = "w" + std::to_string(i);
        const std::string in = i < 2 ? "s0" : "w" + std::to_string(i - 2);
        text +=
            name + " = map (" + in + (i >= 3 ? ", w" + std::to_string(i - 3) : "") + ") with f;\n";
    }
    text += "sink (s0) -> out;\n";
    return text;
}

}  // namespace

// How fast it checks is measured by the hidden "[.bench]" case below, not here: a shared
// machine's load would decide a time bound.
TEST_CASE("a 5000-stage deep and wide pipeline checks fast", "[sema][scale]") {
    const auto run = run_sema(deep_and_wide_pipeline());
    CHECK(run.found().empty());
    CHECK(run.program.has_value());
    CHECK(run.program->calls.size() > 5000);
}

// A benchmark, not a test (hidden: `rop_sema_tests "[.bench]"` runs it), with the bound the
// test had (meant for a debug build).
TEST_CASE("sema bench: a 5000-stage deep and wide pipeline", "[sema][.bench]") {
    const std::string text = deep_and_wide_pipeline();
    const auto start = std::chrono::steady_clock::now();
    const auto run = run_sema(text);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    REQUIRE(run.found().empty());
    WARN("sema of 5000 stages: " << elapsed.count() << " s");
    CHECK(elapsed.count() < 5);
}

TEST_CASE("a 100000-statement chain does not recurse deeply", "[sema][scale]") {
    std::string text = "pipeline chain;\nsource s : D = std.files(glob: \"x\");\n";
    std::string prev = "s";
    for (int i = 0; i < 100000; ++i) {
        const std::string name = "c" + std::to_string(i);
        text += name + " = map " + prev + " with f;\n";
        prev = name;
    }
    text += "sink " + prev + " -> out;\n";
    const auto run = run_sema(text);
    CHECK(run.found().empty());
    // A loop across the whole chain is found and reported once.
    const auto loop = run_sema(
        "pipeline chain;\nsource s : D = std.files(glob: \"x\");\n"
        "c0 = map (s, c999?) with f;\n" +
        [] {
            std::string body;
            for (int i = 1; i < 1000; ++i) {
                body += "c" + std::to_string(i) + " = map c" + std::to_string(i - 1) + " with f;\n";
            }
            return body;
        }() +
        "sink c999 -> out;\n");
    CHECK(loop.found() == std::vector<std::string>{"E0400@3:14"});
    REQUIRE(loop.diagnostics.size() == 1);
    CHECK(loop.diagnostics[0].notes.size() == 1000);
}

TEST_CASE("the DOT graph of deeply nested Domains stays linear in size", "[sema][program][scale]") {
    // Each expand opens a Domain inside the previous one; indentation that grew with depth made
    // 10,000 levels write 1.4 GB.
    const auto dot_size = [](int depth) {
        std::string text = "pipeline deep;\nsource d0 : D0 = std.files(glob: \"x\");\n";
        for (int i = 1; i <= depth; ++i) {
            text += "d" + std::to_string(i) + " = expand d" + std::to_string(i - 1) + " as D" +
                    std::to_string(i) + " with split;\n";
        }
        text += "sink d" + std::to_string(depth) + " -> out;\n";
        const auto run = run_sema(text);
        REQUIRE(run.program.has_value());
        const std::string dot = sema::graph_dot(*run.program);
        CHECK(dot.find("subgraph cluster_" + std::to_string(depth) + " {") != std::string::npos);
        return dot.size();
    };
    const std::size_t small = dot_size(500);
    const std::size_t large = dot_size(4000);
    CHECK(large < small * 9);   // 8x the Domains: about 8x the bytes, not 64x
    CHECK(large < 4000 * 500);  // a few short lines per Domain
}
