// read_udfs: what it extracts from headers, how it reports C++ errors, and how long it takes.
#include <catch2/catch_test_macros.hpp>

#include "bind/types.h"
#include "bind_test_util.h"

namespace rop::bind::test {
namespace {

TEST_CASE("bind reader: finds the functions and class UDFs written in the header", "[bind]") {
    const ReadResult& read = read_fixture("shapes.hpp");
    REQUIRE(read.errors.empty());
    const UdfLibrary& lib = read.library;

    CHECK(lib.find("demo::title") != nullptr);
    CHECK(lib.find("demo.title") != nullptr);  // the .rop spelling
    CHECK(lib.find("::demo::title") != nullptr);
    CHECK(lib.find("global_length") != nullptr);
    CHECK(lib.find("title") == nullptr);  // qualified names only
    // Not UDFs: templates, plain types, and what an included header declares.
    CHECK(lib.find("demo::identity") == nullptr);
    CHECK(lib.find("demo::Settings") == nullptr);
    CHECK(lib.find("demo::helper_not_listed") == nullptr);
    CHECK(lib.find_all("demo::describe").size() == 2);

    const UdfDecl& title = udf(lib, "demo::title");
    CHECK_FALSE(title.is_class);
    CHECK(title.name == "title");
    CHECK(title.location == loc_of("shapes.hpp", "title(const Doc& doc)"));
    CHECK(title.result_location == loc_of("shapes.hpp", "std::string title("));
    REQUIRE(title.params.size() == 1);
    CHECK(title.params[0].name == "doc");
    CHECK(title.params[0].type.spelling == "const Doc &");
    CHECK(title.params[0].type.name == "demo::Doc");
    CHECK(title.params[0].type.canonical == "demo::Doc");
    CHECK(title.params[0].type.ref == RefKind::LValue);
    CHECK(title.params[0].type.is_const);
    CHECK(title.params[0].location.line == title.location.line);
    CHECK(title.result.name == "std::string");
    CHECK_FALSE(title.has_body);
}

TEST_CASE("bind reader: decomposes the types the conventions care about", "[bind]") {
    const UdfLibrary& lib = read_fixture("shapes.hpp").library;

    const UdfDecl& batch = udf(lib, "demo::ocr_batch");
    CHECK(batch.params[0].type.form == TypeForm::Span);
    REQUIRE(batch.params[0].type.args.size() == 1);
    CHECK(batch.params[0].type.args[0].name == "demo::Page");
    CHECK(batch.params[0].type.args[0].is_const);
    CHECK(batch.result.form == TypeForm::Vector);

    const UdfDecl& stats = udf(lib, "demo::split_stats");
    CHECK(stats.result.form == TypeForm::Tuple);
    REQUIRE(stats.result.args.size() == 2);
    CHECK(stats.result.args[0].name == "std::string");
    CHECK(stats.result.args[1].canonical == "int");

    const UdfDecl& hint = udf(lib, "demo::with_hint");
    CHECK(hint.params[1].type.form == TypeForm::Optional);
    CHECK(udf(lib, "demo::with_hint_ptr").params[1].type.form == TypeForm::Pointer);

    const UdfDecl& stream = udf(lib, "demo::stream_pages");
    CHECK(stream.params[1].type.form == TypeForm::Emitter);
    CHECK(stream.result.form == TypeForm::Void);

    const UdfDecl& assemble = udf(lib, "demo::assemble");
    CHECK(assemble.params[1].type.form == TypeForm::Ordinals);
    CHECK(assemble.params[2].type.form == TypeForm::Parent);
    CHECK(assemble.params[2].type.args.at(0).name == "demo::Doc");

    CHECK(udf(lib, "demo::nonempty").result.form == TypeForm::Bool);
    // A typedef keeps its readable name but compares by canonical type.
    const UdfDecl& join = udf(lib, "demo::join");
    CHECK(join.result.name == "demo::Text");
    CHECK(same_type(join.result, udf(lib, "demo::title").result));
}

TEST_CASE("bind reader: named parameters carry defaults and literal kinds", "[bind]") {
    const UdfLibrary& lib = read_fixture("shapes.hpp").library;
    const UdfDecl& render = udf(lib, "demo::render_title");
    REQUIRE(render.params.size() == 5);
    CHECK(render.params[1].name == "dpi");
    CHECK_FALSE(render.params[1].has_default);
    CHECK(render.params[1].arg_kind == ArgKind::Integer);
    CHECK(render.params[2].has_default);
    CHECK(render.params[2].default_text == "1.5");
    CHECK(render.params[2].arg_kind == ArgKind::Float);
    CHECK(render.params[3].arg_kind == ArgKind::Bool);
    CHECK(render.params[3].default_text == "false");
    CHECK(render.params[4].arg_kind == ArgKind::String);
    CHECK(render.params[4].default_text == "\"fast\"");
    CHECK(render.params[4].location == loc_of("shapes.hpp", "mode = \"fast\""));
    CHECK(udf(lib, "demo::join").params[1].arg_kind == ArgKind::String);
}

TEST_CASE("bind reader: class UDFs take named arguments in their constructor", "[bind]") {
    const UdfLibrary& lib = read_fixture("shapes.hpp").library;
    const UdfDecl& ocr = udf(lib, "demo.Ocr");
    CHECK(ocr.is_class);
    CHECK(ocr.location == loc_of("shapes.hpp", "Ocr {"));
    CHECK(ocr.constructor_count == 1);
    CHECK(ocr.call_operator_count == 1);
    REQUIRE(ocr.ctor_params.size() == 2);
    CHECK(ocr.ctor_params[0].name == "lang");
    CHECK(ocr.ctor_params[0].arg_kind == ArgKind::String);
    CHECK(ocr.ctor_params[1].default_text == "3");
    REQUIRE(ocr.params.size() == 1);
    CHECK(ocr.params[0].type.name == "demo::Page");
    CHECK(ocr.result.name == "std::string");

    const UdfDecl& counter = udf(lib, "demo::PageCounter");
    CHECK(counter.constructor_count == 0);
    CHECK(counter.ctor_params.empty());
}

TEST_CASE("bind reader: types declared in the header are listed for .rop type names", "[bind]") {
    const UdfLibrary& lib = read_fixture("shapes.hpp").library;
    const UdfType* text = lib.find_type("demo.Text");
    REQUIRE(text != nullptr);
    CHECK(text->location == loc_of("shapes.hpp", "Text = std::string"));
    REQUIRE(lib.find_type("demo::Settings") != nullptr);
    CHECK(lib.find_type("demo::Settings")->canonical == "demo::Settings");
    CHECK(lib.find_type("demo::Doc") == nullptr);  // declared in an included header
}

TEST_CASE("bind reader: a C++ error comes back with its location, and the rest is read", "[bind]") {
    const ReadResult& read = read_fixture("syntax_error.hpp");
    REQUIRE(read.errors.size() == 1);
    const BindError& error = read.errors.front();
    CHECK(error.location == loc_of("syntax_error.hpp", "undeclared_type"));
    CHECK(error.message == "unknown type name 'undeclared_type'");
    CHECK(read.library.find("fine_before") != nullptr);
    CHECK(read.library.find("fine_after") != nullptr);
}

TEST_CASE("bind reader: a missing #include is an error at the #include line", "[bind]") {
    const ReadResult& read = read_fixture("missing_include.hpp");
    REQUIRE_FALSE(read.errors.empty());
    CHECK(read.errors.front().location == loc_of("missing_include.hpp", "\"no/such"));
    CHECK(read.errors.front().message == "'no/such/header.hpp' file not found");
}

TEST_CASE("bind reader: a header that does not exist is an error naming it", "[bind]") {
    std::vector<BindError> errors;
    UdfLibrary lib =
        read_udfs({"no_such_dir/udfs.hpp", fixture("shapes.hpp")}, include_dirs(), &errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].location.file == "no_such_dir/udfs.hpp");
    CHECK_FALSE(errors[0].location.valid());
    CHECK(errors[0].message == "cannot read UDF header 'no_such_dir/udfs.hpp'");
    CHECK(lib.find("demo::title") != nullptr);  // the other header is still read
}

TEST_CASE("bind reader: several headers read together, the same header once", "[bind]") {
    std::vector<BindError> errors;
    UdfLibrary lib =
        read_udfs({fixture("shapes.hpp"), fixture("wrong_shapes.hpp"), fixture("shapes.hpp")},
                  include_dirs(), &errors);
    CHECK(errors.empty());
    CHECK(lib.find_all("demo::title").size() == 1);
    CHECK(lib.find("bad::is_blank") != nullptr);
    CHECK(udf(lib, "bad::is_blank").location.file == fixture("wrong_shapes.hpp"));
}

TEST_CASE("bind reader: garbage input never crashes", "[bind]") {
    std::vector<BindError> errors;
    UdfLibrary lib = read_udfs({fixture("../test_reader.cpp")}, {}, &errors);  // not a header
    CHECK_FALSE(errors.empty());
    errors.clear();
    read_udfs({}, {}, &errors);
    CHECK(errors.empty());
    read_udfs({fixture("")}, {}, &errors);  // a directory
    CHECK(errors.size() == 1);
}

}  // namespace
}  // namespace rop::bind::test
