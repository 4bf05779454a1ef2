// UdfLibrary lookups with "did you mean", and named arguments checked by name.
#include <catch2/catch_test_macros.hpp>

#include "bind/named_arguments.h"
#include "bind_test_util.h"

namespace rop::bind::test {
namespace {

const UdfLibrary& shapes() { return read_fixture("shapes.hpp").library; }

using Names = std::vector<std::string>;

TEST_CASE("bind library: did you mean", "[bind]") {
    CHECK(shapes().suggestions("demo.fix_hyphen") == Names{"demo.fix_hyphens"});
    CHECK(shapes().suggestions("demo::fix_hyphen") == Names{"demo::fix_hyphens"});
    // A missing or wrong namespace still finds the UDF by its last component.
    CHECK(shapes().suggestions("fix_hyphens") == Names{"demo.fix_hyphens"});
    CHECK(shapes().suggestions("other.renderr") == Names{"demo.render"});
    CHECK(shapes().suggestions("demo.tittle") == Names{"demo.title"});
    // Closest first, at most three, no duplicates for overloads.
    Names joins = shapes().suggestions("demo.jion");
    REQUIRE_FALSE(joins.empty());
    CHECK(joins.front() == "demo.join");
    CHECK(joins.size() <= 3);
    CHECK(shapes().suggestions("demo.describ") == Names{"demo.describe"});
    CHECK(shapes().suggestions("completely_unrelated_name").empty());
}

TEST_CASE("bind library: a .rop scope can stand for a C++ namespace", "[bind]") {
    UdfLibrary lib = shapes();
    lib.aliases = {{"std", "demo"}};  // as ropc maps `std.` to the stdlib's namespace
    REQUIRE(lib.find("std.title") != nullptr);
    CHECK(lib.find("std.title")->qualified_name == "demo::title");
    CHECK(lib.find("demo.title") != nullptr);
    CHECK(lib.find_type("std.Text") != nullptr);
    CHECK(lib.suggestions("std.titel") == Names{"std.title"});
}

std::vector<std::string> messages(const std::vector<ArgumentProblem>& problems) {
    std::vector<std::string> out;
    for (const ArgumentProblem& p : problems) out.push_back(p.message);
    return out;
}

TEST_CASE("bind named arguments: matched by name, defaults may be left out", "[bind]") {
    const UdfDecl& render = udf(shapes(), "demo::render_title");
    Classification c = classify(render, Primitive::Map, 1);
    REQUIRE(c.ok());
    CHECK(check_named_arguments(render, *c.binding, {{"dpi", ArgKind::Integer, ""}}).empty());
    CHECK(check_named_arguments(render, *c.binding,
                                {{"mode", ArgKind::String, ""},
                                 {"scale", ArgKind::Integer, ""},  // an integer fits a double
                                 {"dpi", ArgKind::Integer, ""},
                                 {"color", ArgKind::Bool, ""}})
              .empty());
}

TEST_CASE("bind named arguments: unknown, missing and wrongly typed", "[bind]") {
    const UdfDecl& render = udf(shapes(), "demo::render_title");
    Binding binding = *classify(render, Primitive::Map, 1).binding;
    auto problems = check_named_arguments(render, binding,
                                          {{"colr", ArgKind::Bool, ""},
                                           {"scale", ArgKind::String, ""},
                                           {"zzz", ArgKind::Integer, ""}});
    CHECK(messages(problems) ==
          Names{"'demo::render_title' has no parameter 'colr'; did you mean 'color'?",
                "argument 'scale' of 'demo::render_title' takes a number ('double'), not a "
                "string",
                "'demo::render_title' has no parameter 'zzz'",
                "'demo::render_title' needs argument 'dpi: an integer' (it has no default)"});
    REQUIRE(problems.size() == 4);
    CHECK(problems[0].kind == ArgumentProblem::Kind::Unknown);
    CHECK(problems[0].argument == 0);
    CHECK(problems[1].kind == ArgumentProblem::Kind::WrongKind);
    CHECK(problems[1].note == loc_of("shapes.hpp", "scale = 1.5"));
    CHECK(problems[3].kind == ArgumentProblem::Kind::Missing);
    CHECK(problems[3].note == loc_of("shapes.hpp", "render_title(", "dpi"));
}

TEST_CASE("bind named arguments: a class UDF's come from its constructor", "[bind]") {
    const UdfDecl& ocr = udf(shapes(), "demo::Ocr");
    Binding binding = *classify(ocr, Primitive::Map, 1).binding;
    CHECK(check_named_arguments(ocr, binding, {{"lang", ArgKind::String, ""}}).empty());
    CHECK(messages(check_named_arguments(ocr, binding, {{"psm", ArgKind::Integer, ""}})) ==
          Names{"the constructor of 'demo::Ocr' needs argument 'lang: a string' (it has no "
                "default)"});
}

TEST_CASE("bind named arguments: enums take identifiers, durations and lists their kinds",
          "[bind]") {
    const ReadResult& read = read_fixture("named_kinds.hpp");
    REQUIRE(read.errors.empty());
    const UdfDecl& tune = udf(read.library, "demo::tune");
    REQUIRE(tune.params.size() == 4);
    CHECK(tune.params[1].arg_kind == ArgKind::Enum);
    CHECK(tune.params[1].enumerators == Names{"fast", "accurate"});
    CHECK(tune.params[2].arg_kind == ArgKind::Duration);
    CHECK(tune.params[3].arg_kind == ArgKind::List);

    Binding binding = *classify(tune, Primitive::Map, 1).binding;
    CHECK(check_named_arguments(tune, binding,
                                {{"mode", ArgKind::Enum, "accurate"},
                                 {"timeout", ArgKind::Duration, ""},
                                 {"sizes", ArgKind::List, ""}})
              .empty());
    CHECK(messages(check_named_arguments(
              tune, binding,
              {{"mode", ArgKind::Enum, "turbo"}, {"timeout", ArgKind::Integer, ""}})) ==
          Names{"'turbo' is not a value of 'demo::Mode' (argument 'mode' of 'demo::tune'); one "
                "of: fast, accurate",
                "argument 'timeout' of 'demo::tune' takes a duration "
                "('std::chrono::milliseconds'), not an integer"});
}

}  // namespace
}  // namespace rop::bind::test
