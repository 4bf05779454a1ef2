// Domain rules as full tables over the Domain tree
//     Video ─┬─ Clip ── Frame
//            └─ Audio ── Word
// every relation (same, ancestor, descendant, sibling, cousin, root) for multi-input map, sink,
// broadcast, reduce and expand, each row with the exact diagnostic and line:col.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "sema_test_util.h"

using rop::test::at;
using rop::test::column_of;
using rop::test::run_sema;

namespace {

// One stream per Domain: vm (Video), cm (Clip), fm (Frame), am (Audio), wm (Word).
const std::string kTree = R"(pipeline p;
source v : Video = std.files(glob: "in/*.mp4");
clips = expand v as Clip with split_clips;
frames = expand clips as Frame with split_frames;
audio = expand v as Audio with split_audio;
vm = map v with f;
cm = map clips with f;
fm = map frames with f;
am = map audio with f;
words = expand audio as Word with split_words;
wm = map words with f;
)";
constexpr int kLine = 12;  // the statement under test

struct Row {
    std::string statement;
    std::vector<std::string> errors;  // "ID@line:col"; empty: checks clean
};

void check_rows(const std::vector<Row>& rows) {
    for (const Row& row : rows) {
        INFO(row.statement);
        const auto run = run_sema(kTree + row.statement + "\n");
        REQUIRE(run.parsed_cleanly);
        CHECK(run.found() == row.errors);
        CHECK(run.program.has_value() == row.errors.empty());
    }
}

// Column of the `nth` occurrence of `word` in the statement under test.
int col(const std::string& statement, const std::string& word, int nth = 1) {
    std::size_t at_pos = std::string::npos;
    for (int i = 0; i < nth; ++i) {
        at_pos = statement.find(word, at_pos == std::string::npos ? 0 : at_pos + 1);
    }
    return static_cast<int>(at_pos) + 1;
}

}  // namespace

TEST_CASE("inputs of a multi-input map share one Domain", "[sema][domains]") {
    const std::vector<std::pair<std::string, std::string>> same_domain = {
        {"cm", "clips"}, {"vm", "v"}, {"fm", "frames"}, {"am", "audio"}, {"wm", "words"}};
    std::vector<Row> rows;
    for (const auto& [a, b] : same_domain)
        rows.push_back({"out = map (" + a + ", " + b + ") with g;", {}});
    // ancestor first, descendant first, two levels apart, siblings, cousins, uncle/nephew.
    const std::vector<std::tuple<std::string, std::string, std::string, int>> mixed = {
        {"vm", "cm", "E0200", 1}, {"cm", "vm", "E0200", 2}, {"vm", "fm", "E0200", 1},
        {"fm", "vm", "E0200", 2}, {"cm", "fm", "E0200", 1}, {"am", "wm", "E0200", 1},
        {"cm", "am", "E0401", 2}, {"am", "cm", "E0401", 2}, {"fm", "wm", "E0401", 2},
        {"fm", "am", "E0401", 2}, {"am", "fm", "E0401", 1}, {"wm", "cm", "E0401", 2},
    };
    for (const auto& [a, b, id, which] : mixed) {
        const std::string s = "out = map (" + a + ", " + b + ") with g;";
        const std::string& reported = which == 1 ? a : b;
        rows.push_back({s, {at(id, kLine, col(s, reported + (which == 1 ? "," : ")")))}});
    }
    // Three inputs: each input off the deepest Domain is reported on its own.
    const std::string three = "out = map (vm, fm, am) with g;";
    rows.push_back(
        {three, {at("E0200", kLine, col(three, "vm")), at("E0401", kLine, col(three, "am"))}});
    check_rows(rows);
}

TEST_CASE("the broadcast fix-it rewrites the statement", "[sema][domains]") {
    const auto run = run_sema(kTree + "out = map (cm, vm) with g;\n");
    REQUIRE(run.diagnostics.size() == 1);
    REQUIRE(run.diagnostics[0].fixit.has_value());
    CHECK(run.diagnostics[0].fixit->replacement ==
          "vm_on_clip = broadcast vm to Clip;\nout = map (cm, vm_on_clip) with g");
    const auto fixed = run_sema(kTree + run.diagnostics[0].fixit->replacement + ";\n");
    CHECK(fixed.found().empty());
}

TEST_CASE("inputs of a sink share one Domain", "[sema][domains]") {
    std::vector<Row> rows = {
        {"sink (cm, clips) -> out;", {}},
        {"sink (vm) -> out;", {}},
        {"sink (fm) -> out;", {}},
    };
    const std::vector<std::tuple<std::string, std::string, std::string, int>> mixed = {
        {"vm", "cm", "E0206", 1}, {"cm", "vm", "E0206", 2}, {"vm", "fm", "E0206", 1},
        {"cm", "am", "E0401", 2}, {"fm", "wm", "E0401", 2},
    };
    for (const auto& [a, b, id, which] : mixed) {
        const std::string s = "sink (" + a + ", " + b + ") -> out;";
        const std::string& reported = which == 1 ? a : b;
        rows.push_back({s, {at(id, kLine, col(s, reported + (which == 1 ? "," : ")")))}});
    }
    check_rows(rows);
}

TEST_CASE("broadcast only from a strict ancestor Domain", "[sema][domains]") {
    struct Case {
        std::string from;
        std::string to;
        bool ok;
    };
    const std::vector<Case> cases = {
        {"vm", "Clip", true},   // parent -> child
        {"vm", "Frame", true},  // grandparent -> grandchild
        {"cm", "Frame", true},  {"am", "Word", true},   {"vm", "Video", false},  // same (root)
        {"cm", "Clip", false},                                                   // same
        {"fm", "Clip", false},                           // descendant -> ancestor
        {"cm", "Video", false}, {"cm", "Audio", false},  // sibling
        {"fm", "Word", false},                           // cousin
        {"am", "Frame", false},                          // uncle -> nephew
        {"wm", "Clip", false},
    };
    std::vector<Row> rows;
    for (const Case& c : cases) {
        const std::string s = "b = broadcast " + c.from + " to " + c.to + ";";
        rows.push_back({s, c.ok ? std::vector<std::string>{}
                                : std::vector<std::string>{at("E0203", kLine, 15)}});
    }
    check_rows(rows);
}

TEST_CASE("reduce only to the direct parent Domain", "[sema][domains]") {
    struct Case {
        std::string from;
        std::string to;
        std::string id;  // empty: clean
    };
    const std::vector<Case> cases = {
        {"cm", "Video", ""},  // direct parent
        {"fm", "Clip", ""},       {"am", "Video", ""},
        {"wm", "Audio", ""},      {"fm", "Video", "E0204"},  // grandparent
        {"wm", "Video", "E0204"}, {"cm", "Frame", "E0204"},  // child
        {"cm", "Clip", "E0204"},                             // self
        {"cm", "Audio", "E0204"},                            // sibling
        {"fm", "Audio", "E0204"},                            // uncle
        {"wm", "Clip", "E0204"},                             // cousin's parent
        {"vm", "Video", "E0205"},                            // root stream
        {"vm", "Clip", "E0205"},
    };
    std::vector<Row> rows;
    for (const Case& c : cases) {
        const std::string s = "r = reduce " + c.from + " to " + c.to + ";";
        if (c.id.empty()) {
            rows.push_back({s, {}});
        } else if (c.id == "E0205") {
            rows.push_back({s, {at(c.id, kLine, 12)}});  // at the root-Domain input
        } else {
            rows.push_back({s, {at(c.id, kLine, col(s, " " + c.to + ";") + 1)}});  // at the target
        }
    }
    check_rows(rows);
}

TEST_CASE("reduce names the expand that opened the Domain and fixes the target",
          "[sema][domains]") {
    const auto run = run_sema(kTree + "r = reduce fm to Video;\n");
    REQUIRE(run.diagnostics.size() == 1);
    const rop::Diagnostic& d = run.diagnostics[0];
    CHECK(d.message.find("opened by expand 'frames' under 'Clip'") != std::string::npos);
    REQUIRE(d.notes.size() == 1);
    REQUIRE(d.notes[0].range.has_value());
    CHECK(run.sources->line_col(d.notes[0].range->file, d.notes[0].range->begin).line == 4);
    REQUIRE(d.fixit.has_value());
    CHECK(d.fixit->replacement == "Clip");
}

TEST_CASE("expand opens a new Domain once / never the root's name", "[sema][domains]") {
    const std::vector<Row> rows = {
        {"e = expand cm as Shot with split;", {}},
        {"e = expand fm as Pixel with split;", {}},
        {"e = expand vm as Clip with split;", {at("E0201", kLine, 18)}},
        {"e = expand cm as Clip with split;", {at("E0201", kLine, 18)}},
        {"e = expand fm as Audio with split;", {at("E0201", kLine, 18)}},
        {"e = expand vm as Video with split;", {at("E0202", kLine, 18)}},
        {"e = expand cm as Video with split;", {at("E0202", kLine, 18)}},
    };
    check_rows(rows);
}

TEST_CASE("Domains are inferred for every stream", "[sema][domains]") {
    const auto run = run_sema(kTree + R"(kept = filter fm with keep;
hint = broadcast vm to Frame;
both = map (kept, hint) with g;
per_clip = reduce both to Clip with join;
per_video = reduce per_clip to Video;
sink per_video -> out;
)");
    REQUIRE(run.program.has_value());
    const auto& program = *run.program;
    auto domain_of = [&](const std::string& name) {
        for (const auto& port : program.ports) {
            if (port.name == name) return program.domains[port.domain].name;
        }
        return std::string("?");
    };
    CHECK(domain_of("v") == "Video");
    CHECK(domain_of("clips") == "Clip");
    CHECK(domain_of("frames") == "Frame");
    CHECK(domain_of("kept") == "Frame");     // filter keeps its input's Domain
    CHECK(domain_of("hint") == "Frame");     // broadcast: its target
    CHECK(domain_of("both") == "Frame");     // map: its inputs'
    CHECK(domain_of("per_clip") == "Clip");  // reduce: the parent
    CHECK(domain_of("per_video") == "Video");
    CHECK(domain_of("words") == "Word");
}

TEST_CASE("a reopened Domain does not hide an independent Domain error", "[sema][domains]") {
    // E0202 and E0201 are reported while the names are collected; the mismatch (E0200) is a
    // Domain rule of a later phase. Both kinds of mistake come back from one run.
    const std::vector<Row> rows = {
        {"e = expand vm as Video with split;\nx = map (fm, cm) with f;",
         {at("E0202", kLine, 18), at("E0200", kLine + 1, 14)}},
        {"e = expand vm as Clip with split;\nx = map (fm, cm) with f;",
         {at("E0201", kLine, 18), at("E0200", kLine + 1, 14)}},
        // Streams downstream of the bad expand have no Domain: no follow-on noise.
        {"e = expand vm as Video with split;\nx = map (e, fm) with f;", {at("E0202", kLine, 18)}},
    };
    check_rows(rows);
}

TEST_CASE("a stream where a Domain belongs names the stream's Domain", "[sema][domains]") {
    const std::vector<Row> rows = {
        {"r = reduce fm to clips;", {at("E0103", kLine, 18)}},
        {"r = reduce fm to cm;", {at("E0103", kLine, 18)}},
        {"h = broadcast vm to frames;", {at("E0103", kLine, 21)}},
    };
    check_rows(rows);
    // `clips` is the stream an expand defines, in the Domain it opens; `cm` maps it.
    for (const std::string& stream : {std::string("clips"), std::string("cm")}) {
        const auto run = run_sema(kTree + "r = reduce fm to " + stream + ";\n");
        REQUIRE(run.diagnostics.size() == 1);
        const rop::Diagnostic& d = run.diagnostics[0];
        CHECK(d.message == "'" + stream + "' is a stream, not a Domain: it is in Domain 'Clip'");
        REQUIRE(d.fixit.has_value());
        CHECK(d.fixit->replacement == "Clip");
        REQUIRE_FALSE(d.notes.empty());
        REQUIRE(d.notes[0].range.has_value());  // where the stream is defined
        CHECK(run.sources->line_col(d.notes[0].range->file, d.notes[0].range->begin).line ==
              (stream == "clips" ? 3 : 7));
        // The fix-it checks clean.
        CHECK(run_sema(kTree + "r = reduce fm to Clip;\n").found().empty());
    }
}
