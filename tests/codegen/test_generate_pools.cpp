// Shared actor pools through ropc's generated code, over tests/codegen/fixtures/shared_pool: the
// PoolSpec (its placement options, one function that sets up an instance, its constructor's
// arguments as text) and a view per pooled Call (no factory of its own, no placement options,
// the method called on the shared instance, its arguments as text); then the pipeline built and
// run: four Calls of one pool on two actors set the class up at most twice (once per pool actor
// that ran), not once per Call, and give the outputs the methods compute.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "host_compiler.h"

namespace rop::codegen {
namespace {

namespace t = rop::codegen::test;

const std::string kFixture = std::string(ROP_CODEGEN_FIXTURES) + "/shared_pool";

std::string ropc_env(const std::filesystem::path& dir) {
    return "cd " + t::shell_quote(kFixture) +
           " && ROP_CACHE_DIR=" + t::shell_quote((dir / "cache").string()) + " " +
           t::shell_quote(ROP_ROPC);
}

std::size_t count(const std::string& text, const std::string& piece) {
    std::size_t n = 0;
    for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
    return n;
}

std::string sorted_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t from = 0;
    for (auto end = text.find('\n'); end != std::string::npos; end = text.find('\n', from)) {
        lines.push_back(text.substr(from, end + 1 - from));
        from = end + 1;
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const std::string& line : lines) out += line;
    return out;
}

// The `pipeline.call({...});` statement of Call `name`.
std::string call_spec(const std::string& cpp, const std::string& name) {
    const auto begin = cpp.find("pipeline.call({.name = \"" + name + "\"");
    REQUIRE(begin != std::string::npos);
    return cpp.substr(begin, cpp.find(");\n", begin) - begin);
}

TEST_CASE("pools: ropc writes one PoolSpec and a view of it per pooled Call",
          "[codegen][host][pool]") {
    const auto dir = t::work_dir("pools_emit");
    const std::filesystem::path generated = dir / "generated.cpp";
    const t::CommandResult emit =
        t::run_command("(" + ropc_env(dir) + " build shared_pool.rop --emit=cpp >" +
                           t::shell_quote(generated.string()) + ")",
                       dir / "emit.log");
    INFO(emit.output);
    REQUIRE(emit.exit_code == 0);
    const std::string cpp = t::read_file(generated);
    INFO(cpp);

    // The pool, once, before the Calls: its placement, its class set up with its arguments.
    CHECK(count(cpp, "pipeline.pool({") == 1);
    const auto pool = cpp.find("const rop::runtime::PoolId rop_pool_0 = pipeline.pool({");
    REQUIRE(pool != std::string::npos);
    CHECK(pool < cpp.find("pipeline.call("));
    CHECK(cpp.find(".name = \"model\",\n") != std::string::npos);
    CHECK(cpp.find(".options = rop::vocab::options_with({{\"actors\", 2}}),") != std::string::npos);
    CHECK(count(cpp, "std::make_shared<::shared::Model>(std::string(\"~\", 1), 2);") == 1);
    CHECK(cpp.find(".identity = rop::gen::class_identity<::shared::Model>,") != std::string::npos);
    CHECK(cpp.find(".arguments = \"prefix=~ scale=2\"});") != std::string::npos);

    // Each pooled Call: a view holding the shared instance, calling its method.
    for (const char* name : {"lines", "sizes", "kept", "sums"}) {
        INFO(name);
        const std::string spec = call_spec(cpp, name);
        CHECK(spec.find(".factory = {}") != std::string::npos);
        CHECK(spec.find(".pool = rop_pool_0") != std::string::npos);
        CHECK(spec.find(".view = rop::gen::pool_view<Call_" + std::string(name) +
                        ", ::shared::Model>") != std::string::npos);
        CHECK(spec.find(".identity = rop::gen::identity_of<Call_" + std::string(name) + ">") !=
              std::string::npos);
        CHECK(spec.find("\"actors\"") == std::string::npos);  // the pool's, not the Call's
        CHECK(spec.find("shared::Model::Model") != std::string::npos);  // its code: the setup
    }
    CHECK(count(cpp, "std::shared_ptr<::shared::Model> udf_;") == 4);
    CHECK(cpp.find("rop::gen::emit_each(emitter, udf_->lines(grain.in<std::string>(0), 3));") !=
          std::string::npos);
    CHECK(cpp.find("udf_->sizes(std::span<const shared::Line>(input_0))") != std::string::npos);
    CHECK(cpp.find("udf_->join(children, std::string(\"+\", 1))") != std::string::npos);
    CHECK(call_spec(cpp, "lines").find(".arguments = \"limit=3\"") != std::string::npos);
    CHECK(call_spec(cpp, "sums").find(".arguments = \"sep=+\"") != std::string::npos);
    CHECK(call_spec(cpp, "sizes")
              .find(".options = rop::vocab::options_with({{\"batch\", 4}, {\"retries\", 1}})") !=
          std::string::npos);
    // The Call that runs its own UDF is as before.
    CHECK(call_spec(cpp, "text").find(".factory = rop::gen::make_actor<Call_text>") !=
          std::string::npos);
    CHECK(call_spec(cpp, "text").find(".pool") == std::string::npos);
}

TEST_CASE("pools: four Calls on a pool of two actors set its class up at most twice",
          "[codegen][host][pool]") {
    const auto dir = t::work_dir("pools_run");
    const std::string binary = (dir / "shared_pool").string();
    const t::CommandResult built = t::run_command(
        "(" + ropc_env(dir) + " build shared_pool.rop -O1 -o " + t::shell_quote(binary) + ")",
        dir / "build.log");
    INFO(built.output);
    REQUIRE(built.exit_code == 0);
    const std::string out = (dir / "out.jsonl").string();
    const t::CommandResult ran =
        t::run_command("(cd " + t::shell_quote(kFixture) + " && " + t::shell_quote(binary) +
                           " --output sums=" + t::shell_quote(out) + " --no-progress)",
                       dir / "run.log");
    INFO(ran.output);
    REQUIRE(ran.exit_code == 0);
    // One instance per pool actor, whatever the number of Calls on it: each of the four Calls
    // takes batches, so actors of their own would set up at least four. (An actor sets its
    // instance up when it takes its first batch, so a short run may start fewer than all.)
    const std::size_t two = count(ran.output, "shared_pool: Model set up");
    CHECK(two >= 1);
    CHECK(two <= 2);
    // a.txt: "~one" "~two" "~three" (limit 3), sizes doubled; b.txt's blank line has no Line.
    // The roots commit in the order they finish.
    const std::string jsonl = sorted_lines(t::read_file(out));
    CHECK(jsonl == "{\"sizes\":\"12+10\"}\n{\"sizes\":\"8+8+12\"}\n");

    // The pool's actors answer to its name on the command line.
    const t::CommandResult four = t::run_command(
        "(cd " + t::shell_quote(kFixture) + " && " + t::shell_quote(binary) +
            " --output sums=" + t::shell_quote(out) + " --no-progress --set model.actors=4)",
        dir / "run4.log");
    INFO(four.output);
    REQUIRE(four.exit_code == 0);
    const std::size_t four_set_up = count(four.output, "shared_pool: Model set up");
    CHECK(four_set_up >= 1);
    CHECK(four_set_up <= 4);
    CHECK(sorted_lines(t::read_file(out)) == jsonl);
}

}  // namespace
}  // namespace rop::codegen
