// Shared actor pools (docs/language.md, "pool"): every sema rule as rows of (program, exact
// id@line:col): names (E0107-E0110), options on a pool and on a Call that runs on it (E0300-E0308),
// the unused pool (W0002); then the lowered CheckedProgram and its plan JSON.
#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sema/plan_json.h"
#include "sema_test_util.h"

using rop::test::at;
using rop::test::run_sema;
namespace sema = rop::sema;

namespace {

struct Row {
    std::string name;
    std::string text;
    std::vector<std::string> found;  // errors, then (when `warnings`) warnings too
    bool warnings = false;
};

void check_rows(const std::vector<Row>& rows) {
    for (const Row& row : rows) {
        INFO(row.name << "\n" << row.text);
        const auto run = run_sema(row.text);
        REQUIRE(run.parsed_cleanly);
        CHECK(run.found(row.warnings ? rop::Severity::Warning : rop::Severity::Error) == row.found);
    }
}

// Line 3 declares the pool `m`; a row's own lines start at 4.
const std::string kHead =
    "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
    "pool m = ns.Model(path: \"m.bin\") actors 2 gpus 1;\n";

}  // namespace

TEST_CASE("pools are declared once and before the Calls that run on them", "[sema][pool]") {
    check_rows({
        {"clean", kHead + "a = map docs with m.tag(stage: \"a\");\nsink a -> out;\n", {}, true},
        {"two Calls on one pool",
         kHead + "a = map docs with m.tag;\nb = map a with m.more batch 8;\nsink b -> out;\n",
         {},
         true},
        {"duplicate pool",
         kHead + "pool m = ns.Other;\na = map docs with m.tag;\nsink a -> out;\n",
         {at("E0107", 4, 6)}},
        {"a pool with a stream's name",
         kHead + "m2 = map docs with m.tag;\npool m2 = ns.Model;\nb = map m2 with m2.f;\n"
                 "sink b -> out;\n",
         {at("E0107", 5, 6)}},
        {"a pool named as the source",
         kHead + "pool docs = ns.Model;\na = map docs with m.tag;\nsink a -> out;\n",
         {at("E0107", 4, 6)}},
        {"used before its declaration",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "a = map docs with m.tag;\npool m = ns.Model;\nsink a -> out;\n",
         {at("E0108", 3, 19)}},
        {"a sink on a pool",
         kHead + "a = map docs with m.tag;\nsink a -> m.Out;\n",
         {at("E0109", 5, 11)}},
        {"a source on a pool",
         "pipeline p;\npool m = ns.Model;\nsource docs : Doc = m.files;\n"
         "a = map docs with m.tag;\nsink a -> out;\n",
         {at("E0109", 3, 21)}},
        {"a pool on a pool",
         kHead + "pool n = m.Other;\na = map docs with m.tag;\nb = map a with n.tag;\n"
                 "sink b -> out;\n",
         {at("E0109", 4, 10)}},
        {"the pool alone", kHead + "a = map docs with m;\nsink a -> out;\n", {at("E0110", 4, 19)}},
        {"two members",
         kHead + "a = map docs with m.tag.more;\nsink a -> out;\n",
         {at("E0110", 4, 19)}},
        {"every kind with a UDF runs on a pool",
         kHead + "k = filter docs with m.keep;\npages = expand k as Page with m.pages;\n"
                 "t = map pages with m.text;\nmd = reduce t to Doc with m.join;\nsink md -> out;\n",
         {},
         true},
        {"a name that is no pool is an operator of its own",
         kHead + "a = map docs with mm.tag;\nb = map a with m.tag;\nsink b -> out;\n",
         {}},
    });
}

TEST_CASE("a pool takes the placement options and its Calls take the others", "[sema][pool]") {
    const std::string use = "a = map docs with m.tag";
    const std::string tail = ";\nsink a -> out;\n";
    check_rows({
        {"batch on a pool",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "pool m = ns.Model batch 8;\n" +
             use + tail,
         {at("E0302", 3, 19)}},
        {"retries on a pool",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "pool m = ns.Model actors 2 retries 3;\n" +
             use + tail,
         {at("E0302", 3, 28)}},
        {"unknown option on a pool",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "pool m = ns.Model actor 2;\n" +
             use + tail,
         {at("E0300", 3, 19)}},
        {"actors out of range on a pool",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "pool m = ns.Model actors 0;\n" +
             use + tail,
         {at("E0304", 3, 26)}},
        {"unknown isolation on a pool",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "pool m = ns.Model isolation processes;\n" +
             use + tail,
         {at("E0305", 3, 29)}},
        {"memory without isolation on a pool",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "pool m = ns.Model memory_mb 512;\n" +
             use + tail,
         {at("E0307", 3, 19)}},
        {"memory with isolation on a pool",
         "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
         "pool m = ns.Model isolation process memory_mb 512;\n" +
             use + tail,
         {}},
        {"actors on a pooled Call", kHead + use + " actors 4" + tail, {at("E0308", 4, 25)}},
        {"gpus on a pooled Call", kHead + use + " gpus 1" + tail, {at("E0308", 4, 25)}},
        {"isolation on a pooled Call",
         kHead + use + " isolation process" + tail,
         {at("E0308", 4, 25)}},
        {"memory on a pooled Call is E0308 alone",
         kHead + use + " memory_mb 64" + tail,
         {at("E0308", 4, 25)}},
        {"every other option on a pooled Call",
         kHead + use +
             " batch 8 retries 2 infra_retries 1 recovery abort timeout 3s batching "
             "single_parent cache off" +
             tail,
         {}},
        {"on_failure on a pooled reduce",
         kHead + "pages = expand docs as Page with m.pages;\n"
                 "md = reduce pages to Doc with m.join on_failure skip;\nsink md -> out;\n",
         {}},
        {"a duplicate on a pooled Call is E0301",
         kHead + use + " batch 2 batch 3" + tail,
         {at("E0301", 4, 33)}},
    });
}

TEST_CASE("an unused pool warns", "[sema][pool]") {
    check_rows({
        {"unused",
         kHead + "a = map docs with ns.tag;\nsink a -> out;\n",
         {at("W0002", 3, 6)},
         true},
        {"used by a later Call only",
         kHead + "a = map docs with ns.tag;\nb = map a with m.tag;\nsink b -> out;\n",
         {},
         true},
    });
    // -Werror: an error, and no program.
    const auto run = run_sema(kHead + "a = map docs with ns.tag;\nsink a -> out;\n", true);
    CHECK(run.found() == std::vector<std::string>{at("W0002", 3, 6)});
    CHECK_FALSE(run.program.has_value());
}

TEST_CASE("pools lower into the CheckedProgram and its plan", "[sema][pool]") {
    const auto run = run_sema(kHead +
                              "a = map docs with m.tag(stage: \"a\") batch 8;\n"
                              "pages = expand a as Page with m.pages;\n"
                              "b = map docs with ns.plain actors 3;\n"
                              "sink (a) -> out;\nsink pages -> out2;\nsink b -> out3;\n");
    REQUIRE(run.found(rop::Severity::Warning) == std::vector<std::string>{});
    REQUIRE(run.program.has_value());
    const sema::CheckedProgram& p = *run.program;
    REQUIRE(p.pools.size() == 1);
    const sema::Pool& pool = p.pools[0];
    CHECK(pool.name == "m");
    CHECK(pool.op.name == "ns.Model");
    CHECK(pool.op.args.at(0).name.name == "path");
    CHECK(pool.options.actors == 2);
    CHECK(pool.options.gpus == 1.0);
    CHECK(pool.calls == std::vector<sema::CallId>{1, 2});
    const sema::Call& a = p.calls[1];
    REQUIRE(a.pool);
    CHECK(*a.pool == 0);
    CHECK(a.method == "tag");
    CHECK(a.op->name == "m.tag");
    CHECK(a.options.batch == 8);
    CHECK(a.options.actors == 2);  // the pool's placement, as the runtime will run it
    CHECK(a.options.gpus == 1.0);
    CHECK(p.calls[2].method == "pages");
    CHECK_FALSE(p.calls[3].pool);
    CHECK(p.calls[3].options.actors == 3);

    const auto plan = nlohmann::json::parse(sema::plan_json(p, *run.sources));
    REQUIRE(plan.contains("pools"));
    CHECK(plan["pools"][0]["name"] == "m");
    CHECK(plan["pools"][0]["op"]["name"] == "ns.Model");
    CHECK(plan["pools"][0]["options"] ==
          nlohmann::json{{"actors", 2}, {"gpus", 1.0}, {"isolation", "thread"}, {"memory_mb", 0}});
    CHECK(plan["pools"][0]["calls"] == nlohmann::json{1, 2});
    CHECK(plan["calls"][1]["pool"] == 0);
    CHECK(plan["calls"][1]["method"] == "tag");
    CHECK_FALSE(plan["calls"][3].contains("pool"));

    // A pipeline without pools has neither key (its plan reads as it always did).
    const auto plain = run_sema(
        "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
        "a = map docs with f;\nsink a -> out;\n");
    REQUIRE(plain.program.has_value());
    const auto plain_plan = nlohmann::json::parse(sema::plan_json(*plain.program, *plain.sources));
    CHECK_FALSE(plain_plan.contains("pools"));
    CHECK_FALSE(plain_plan["calls"][1].contains("pool"));
}
