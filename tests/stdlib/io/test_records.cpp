// std.io's record sources and sink (JsonlSource, CsvSource, JsonlSink over rop::Fields): every
// field type both ways, every bad-input message with its line and field, CSV quoting, and the
// ordered sink with roots that finish out of order, skipped roots, checkpoints and restore.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "rop/stdlib/io.h"

namespace demo {
struct Customer {
    std::string name;
    std::optional<std::string> email;
};
struct Order {
    std::string id;
    int quantity = 0;
    double price = 0;
    bool paid = false;
    std::optional<std::int64_t> coupon;
    std::vector<std::string> tags;
    Customer customer;
};
struct Row {  // what a CSV file holds: scalars and optional scalars
    std::string sku;
    std::uint16_t count = 0;
    float weight = 0;
    bool fragile = false;
    std::optional<double> discount;
};
}  // namespace demo

template <>
struct rop::Fields<demo::Customer> {
    static constexpr auto list = std::make_tuple(rop::field("name", &demo::Customer::name),
                                                 rop::field("email", &demo::Customer::email));
};
template <>
struct rop::Fields<demo::Order> {
    static constexpr auto list = std::make_tuple(
        rop::field("id", &demo::Order::id), rop::field("quantity", &demo::Order::quantity),
        rop::field("price", &demo::Order::price), rop::field("paid", &demo::Order::paid),
        rop::field("coupon", &demo::Order::coupon), rop::field("tags", &demo::Order::tags),
        rop::field("customer", &demo::Order::customer));
};
template <>
struct rop::Fields<demo::Row> {
    static constexpr auto list = std::make_tuple(
        rop::field("sku", &demo::Row::sku), rop::field("count", &demo::Row::count),
        rop::field("weight", &demo::Row::weight), rop::field("fragile", &demo::Row::fragile),
        rop::field("discount", &demo::Row::discount));
};

static_assert(rop::record_io::csv_record<demo::Row>());
static_assert(!rop::record_io::csv_record<demo::Order>());  // a vector and a nested struct

namespace fs = std::filesystem;
using rop::stdlib::io::CsvSink;
using rop::stdlib::io::CsvSource;
using rop::stdlib::io::JsonlSink;
using rop::stdlib::io::JsonlSource;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        static int counter = 0;
        path = fs::temp_directory_path() /
               ("rop-records-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    std::string file(const std::string& name, const std::string& content) const {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary) << content;
        return p;
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The message a source's constructor throws for `content`.
template <class Source>
std::string open_error(const std::string& path) {
    try {
        Source source(path);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("JsonlSource reads every field type, by name, in file order", "[io][records]") {
    TempDir dir;
    const std::string path =
        dir.file("orders.jsonl",
                 R"({"id":"a1","quantity":3,"price":2.5,"paid":true,"coupon":12,"tags":["x","y"],)"
                 R"("customer":{"name":"Ann","email":"ann@example.com"},"extra":[1,{"z":null}]})"
                 "\n\n   \n"
                 R"({"customer":{"name":"Bo"},"tags":[],"paid":false,"price":-1e3,"quantity":-7,)"
                 R"("id":"b\u00e9\"q","coupon":null})"
                 "\r\n");
    JsonlSource<demo::Order> source(path);
    CHECK(source.size_hint() == 2u);

    std::optional<demo::Order> a = source.next();
    REQUIRE(a);
    CHECK(source.name_of(*a) == path + ":1");
    CHECK(a->id == "a1");
    CHECK(a->quantity == 3);
    CHECK(a->price == 2.5);
    CHECK(a->paid);
    CHECK(a->coupon == 12);
    CHECK(a->tags == std::vector<std::string>{"x", "y"});
    CHECK(a->customer.name == "Ann");
    CHECK(a->customer.email == "ann@example.com");

    std::optional<demo::Order> b = source.next();
    REQUIRE(b);
    CHECK(source.name_of(*b) == path + ":4");
    CHECK(b->id == "b\xc3\xa9\"q");
    CHECK(b->quantity == -7);
    CHECK(b->price == -1000.0);
    CHECK_FALSE(b->paid);
    CHECK_FALSE(b->coupon);  // null
    CHECK(b->tags.empty());
    CHECK_FALSE(b->customer.email);  // missing
    CHECK_FALSE(source.next());
}

TEST_CASE("JsonlSource lists every bad line with its line and field, and opens nothing",
          "[io][records]") {
    TempDir dir;
    const std::string path = dir.file(
        "bad.jsonl",
        R"({"id":"ok","quantity":1,"price":1,"paid":true,"tags":[],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x","quantity":"seven","price":1,"paid":true,"tags":[],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x","quantity":1.5,"price":1,"paid":true,"tags":[],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x","quantity":99999999999,"price":1,"paid":true,"tags":[],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x","quantity":1,"price":"1","paid":true,"tags":[],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x","quantity":1,"price":1,"paid":"yes","tags":[],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x","quantity":1,"price":1,"paid":true,"tags":["a",2],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x","quantity":1,"price":1,"paid":true,"tags":[],"customer":{"name":7}})"
        "\n"
        R"({"id":"x","price":1,"paid":true,"tags":[],"customer":{"name":"A"}})"
        "\n"
        R"({"id":"x", oops})"
        "\n"
        R"([1,2])"
        "\n"
        R"({"id":null,"quantity":1,"price":1,"paid":true,"tags":{},"customer":"A"})"
        "\n");
    const std::string error = open_error<JsonlSource<demo::Order>>(path);
    const std::string expected =
        "11 bad records in " + path + ":\n" +                                             //
        "  " + path + ":2: field 'quantity': expected an integer, got \"seven\"\n" +      //
        "  " + path + ":3: field 'quantity': expected an integer, got 1.5\n" +            //
        "  " + path + ":4: field 'quantity': expected an integer from -2147483648 to " +  //
        "2147483647, got 99999999999\n" +                                                 //
        "  " + path + ":5: field 'price': expected a number, got \"1\"\n" +               //
        "  " + path + ":6: field 'paid': expected true or false, got \"yes\"\n" +         //
        "  " + path + ":7: field 'tags[1]': expected a string, got 2\n" +                 //
        "  " + path + ":8: field 'customer.name': expected a string, got 7\n" +           //
        "  " + path + ":9: field 'quantity': missing\n" +                                 //
        "  " + path + ":10: not JSON: column 12: syntax error while parsing object key - " +
        "invalid literal; last read: '\"x\", o'; expected string literal\n" +  //
        "  " + path + ":11: expected a JSON object, got an array\n" +          //
        "  " + path + ":12: field 'id': expected a string, got null";
    CHECK(error == expected);
}

TEST_CASE("JsonlSource: more than 20 bad lines are counted, an unreadable file is named",
          "[io][records]") {
    TempDir dir;
    std::string many;
    for (int i = 0; i < 25; ++i) many += "not json\n";
    const std::string path = dir.file("many.jsonl", many);
    const std::string error = open_error<JsonlSource<demo::Order>>(path);
    CHECK(error.starts_with("25 bad records in " + path + ":\n  " + path + ":1: not JSON"));
    CHECK(error.find(path + ":20: not JSON") != std::string::npos);
    CHECK(error.find(path + ":21:") == std::string::npos);
    CHECK(error.ends_with("\n  ... and 5 more"));
    CHECK(open_error<JsonlSource<demo::Order>>(dir / "missing.jsonl")
              .starts_with("cannot read '" + (dir / "missing.jsonl") + "'"));
}

TEST_CASE("CsvSource: header names the columns, RFC 4180 quoting, typed cells", "[io][records]") {
    TempDir dir;
    const std::string path = dir.file("rows.csv",
                                      "\xEF\xBB\xBF"
                                      "weight,sku,count,fragile,discount,note\r\n"
                                      "1.5,plain,3,true,,ignored\r\n"
                                      "\r\n"
                                      "0,\"with, comma\",65535,false,0.25,\"x\"\n"
                                      "2,\"say \"\"hi\"\"\",0,false,,\"two\nlines\"\n"
                                      "3,\"multi\nline\nsku\",1,true,-1,\n");
    CsvSource<demo::Row> source(path);
    CHECK(source.size_hint() == 4u);
    std::optional<demo::Row> r = source.next();
    REQUIRE(r);
    CHECK(source.name_of(*r) == path + ":2");
    CHECK(r->sku == "plain");
    CHECK(r->count == 3);
    CHECK(r->weight == 1.5f);
    CHECK(r->fragile);
    CHECK_FALSE(r->discount);  // an empty cell
    r = source.next();
    REQUIRE(r);
    CHECK(source.name_of(*r) == path + ":4");
    CHECK(r->sku == "with, comma");
    CHECK(r->count == 65535);
    CHECK(r->discount == 0.25);
    r = source.next();
    REQUIRE(r);
    CHECK(r->sku == "say \"hi\"");
    r = source.next();
    REQUIRE(r);
    CHECK(source.name_of(*r) == path + ":7");  // the row starts on line 7, ends on 9
    CHECK(r->sku == "multi\nline\nsku");
    CHECK(r->discount == -1.0);
    CHECK_FALSE(source.next());
}

TEST_CASE("CsvSource lists bad rows with line and column", "[io][records]") {
    TempDir dir;
    const std::string path = dir.file("bad.csv",
                                      "sku,count,weight,fragile\n"
                                      "a,seven,1,true\n"
                                      "b,70000,1,true\n"
                                      "c,1,,true\n"
                                      "d,1,1,yes\n"
                                      "e,1,1\n"
                                      "f\"x,1,1,true\n"
                                      "\"g\"x,1,1,true\n"
                                      "h,-1,1,true\n"
                                      "\"i,1,1,true\n");
    const std::string error = open_error<CsvSource<demo::Row>>(path);
    const std::string expected =
        "9 bad records in " + path + ":\n" +                                            //
        "  " + path + ":2: field 'count': expected an integer, got \"seven\"\n" +       //
        "  " + path + ":3: field 'count': expected an integer from 0 to 65535, got " +  //
        "\"70000\"\n" +                                                                 //
        "  " + path + ":4: field 'weight': expected a number, got an empty cell\n" +    //
        "  " + path + ":5: field 'fragile': expected true or false, got \"yes\"\n" +    //
        "  " + path + ":6: 3 cells, the header has 4\n" +                               //
        "  " + path + ":7: cell 1: a quote inside an unquoted cell (quote the cell and " +
        "double the quote)\n" +                                                 //
        "  " + path + ":8: cell 1: text after a closing quote\n" +              //
        "  " + path + ":9: field 'count': expected an integer, got \"-1\"\n" +  //
        "  " + path + ":10: unterminated quoted cell";
    CHECK(error == expected);

    const std::string no_column = dir.file("short.csv", "sku,count,weight\na,1,1\n");
    CHECK(open_error<CsvSource<demo::Row>>(no_column) ==
          "1 bad record in " + no_column + ":\n  " + no_column + ":2: field 'fragile': missing");
    CHECK(open_error<CsvSource<demo::Row>>(dir.file("empty.csv", "")) ==
          dir / "empty.csv" + ": no header row (an empty file)");
}

TEST_CASE("a bad record's message quotes 60 bytes of it at most, bytes not UTF-8 escaped",
          "[io][records]") {
    // Each line is 10 MB; the message that lists them stays short and valid UTF-8.
    constexpr std::size_t kBig = 10u << 20;
    const std::string rest = R"(,"price":1,"paid":true,"tags":[],"customer":{"name":"A"}})";
    TempDir dir;
    const std::string path =
        dir.file("big.jsonl",
                 R"({"id":")" + std::string(kBig, 'a') + "\n" +                                   //
                     R"({"id":"x","quantity":")" + std::string(kBig, 'b') + "\"" + rest + "\n" +  //
                     R"({"id":"x","quantity":0.)" + std::string(kBig, '0') + rest + "\n" +        //
                     "{\"id\":\"caf\xe9\",\"quantity\":1" + rest + "\n" +                         //
                     R"({"id":"x","quantity":")" + std::string(59, 'c') + "\xc3\xa9\"" + rest +
                     "\n" + R"({"id":"x","quantity":"\u0007\u00e9")" + rest + "\n");
    const std::string error = open_error<JsonlSource<demo::Order>>(path);
    const std::string expected =
        "6 bad records in " + path + ":\n" +  //
        "  " + path + ":1: not JSON: column 10485768: syntax error while parsing value - " +
        "invalid string: missing closing quote; last read: '\"" + std::string(59, 'a') +
        "...' (10485761 bytes)\n" +  //
        "  " + path + ":2: field 'quantity': expected an integer, got \"" + std::string(60, 'b') +
        "...\" (10485760 bytes)\n" +  //
        "  " + path + ":3: field 'quantity': expected an integer, got 0." + std::string(58, '0') +
        "... (10485762 bytes)\n" +  //
        "  " + path + ":4: not JSON: column 12: syntax error while parsing value - " +
        "invalid string: ill-formed UTF-8 byte; last read: '\"caf\\xe9\"'\n" +  //
        "  " + path + ":5: field 'quantity': expected an integer, got \"" + std::string(59, 'c') +
        "...\" (61 bytes)\n" +  // not half of the 'é'
        "  " + path + ":6: field 'quantity': expected an integer, got \"\\x07\xc3\xa9\"";
    CHECK(error == expected);
    std::istringstream lines(error);
    for (std::string line; std::getline(lines, line);) CHECK(line.size() < 256);

    // A CSV cell: a byte that is not UTF-8, a line break and a tab, as \xNN.
    const std::string csv =
        dir.file("bad.csv", "sku,count,weight,fragile\na,\"caf\xe9\n\t\",1,true\n");
    CHECK(open_error<CsvSource<demo::Row>>(csv) ==
          "1 bad record in " + csv + ":\n  " + csv +
              ":2: field 'count': expected an integer, got \"caf\\xe9\\x0a\\x09\"");
}

TEST_CASE("JsonlSink writes one object per item, fields in table order", "[io][records]") {
    TempDir dir;
    const std::string path = dir / "out/orders.jsonl";
    JsonlSink<demo::Order> sink(path);
    sink.restore("");
    demo::Order a{.id = "a\"1\n",
                  .quantity = -3,
                  .price = 0.1,
                  .paid = true,
                  .coupon = 5,
                  .tags = {"x"},
                  .customer = {.name = "Ann", .email = std::nullopt}};
    demo::Order b = a;
    b.id = "b";
    b.coupon.reset();
    b.tags.clear();
    b.price = std::numeric_limits<double>::infinity();
    const std::vector<demo::Order> items{a, b};
    sink.write({0, "r0"}, items);
    sink.sync();
    const std::string written = slurp(path);
    CHECK(written ==
          R"({"id":"a\"1\n","quantity":-3,"price":0.1,"paid":true,"coupon":5,"tags":["x"],)"
          R"("customer":{"name":"Ann","email":null}})"
          "\n"
          R"({"id":"b","quantity":-3,"price":null,"paid":true,"coupon":null,"tags":[],)"
          R"("customer":{"name":"Ann","email":null}})"
          "\n");
    // What the sink writes the source reads back (but the infinity, which JSON cannot hold).
    const std::string first_line = written.substr(0, written.find('\n') + 1);
    JsonlSource<demo::Order> back(dir.file("back.jsonl", first_line));
    std::optional<demo::Order> read = back.next();
    REQUIRE(read);
    CHECK(read->id == a.id);
    CHECK(read->price == a.price);
    CHECK(read->coupon == a.coupon);
    CHECK(read->tags == a.tags);
    CHECK(read->customer.name == "Ann");
    // checkpoint is the size; restore truncates back to it.
    const std::string token = sink.checkpoint();
    CHECK(token == std::to_string(written.size()));
    sink.write({1, "r1"}, std::vector<demo::Order>{a});
    sink.restore(token);
    CHECK(slurp(path) == written);
}

namespace {

std::vector<demo::Customer> one(const std::string& name) { return {{.name = name, .email = {}}}; }

std::string line_of(const std::string& name) {
    return R"({"name":")" + name + R"(","email":null})" + "\n";
}

}  // namespace

TEST_CASE("JsonlSink ordered: lines in source order though roots finish out of order",
          "[io][records]") {
    TempDir dir;
    const std::string path = dir / "ordered.jsonl";
    JsonlSink<demo::Customer> sink(path, /*ordered=*/true);
    sink.restore("");
    sink.write({2, "r2"}, one("c"));
    sink.write({1, "r1"}, one("b"));
    CHECK(slurp(path).empty());  // both wait for root 0
    sink.skip({3, "r3"});        // root 3 failed or had no items
    sink.write({4, "r4"}, one("e"));
    sink.write({0, "r0"}, one("a"));
    CHECK(slurp(path) == line_of("a") + line_of("b") + line_of("c") + line_of("e"));
    sink.skip({5, "r5"});
    sink.write({6, "r6"}, one("g"));
    CHECK(slurp(path) == line_of("a") + line_of("b") + line_of("c") + line_of("e") + line_of("g"));
    // A root older than what is written (one --retry-failed runs again) is appended at once.
    sink.write({3, "r3"}, one("d"));
    CHECK(slurp(path).ends_with(line_of("g") + line_of("d")));
}

TEST_CASE("JsonlSink ordered: restore reloads the roots that were waiting", "[io][records]") {
    TempDir dir;
    const std::string path = dir / "ordered.jsonl";
    std::string token;
    {
        JsonlSink<demo::Customer> sink(path, true);
        sink.restore("");
        sink.write({0, "r0"}, one("a"));
        sink.write({3, "r3"}, one("d"));
        sink.skip({2, "r2"});
        sink.sync();
        token = sink.checkpoint();  // what the journal holds after root 2
        CHECK(token == std::to_string(line_of("a").size()) + "/1/" +
                           std::to_string(slurp(path + ".pending").size()));
        sink.write({4, "r4"}, one("e"));  // after the checkpoint: undone by restore
        sink.sync();
    }  // the process ends (a kill): roots 1 and 4 were not journaled
    JsonlSink<demo::Customer> resumed(path, true);
    resumed.restore(token);
    CHECK(slurp(path) == line_of("a"));
    resumed.write({1, "r1"}, one("b"));  // root 2 was skipped, root 3 waited: both known again
    CHECK(slurp(path) == line_of("a") + line_of("b") + line_of("d"));
    resumed.write({4, "r4"}, one("e"));
    CHECK(slurp(path) == line_of("a") + line_of("b") + line_of("d") + line_of("e"));

    // Undo one root (another sink failed it): the checkpoint from before it puts it back.
    const std::string before = resumed.checkpoint();
    resumed.write({6, "r6"}, one("g"));
    resumed.restore(before);
    resumed.write({5, "r5"}, one("f"));
    CHECK(slurp(path).ends_with(line_of("e") + line_of("f")));  // 6 is not waiting any more

    std::string error;
    try {
        resumed.restore("12");
    } catch (const std::exception& e) {
        error = e.what();
    }
    CHECK(error ==
          "bad checkpoint '12' for '" + path + "' (an ordered file's is SIZE/NEXT/PENDING)");
}

TEST_CASE("CsvSink: a header row on a fresh file, RFC 4180 quoting, read back by CsvSource",
          "[io][records]") {
    TempDir dir;
    const std::string path = dir / "rows.csv";
    CsvSink<demo::Row> sink(path);
    sink.restore("");
    CHECK(slurp(path) == "sku,count,weight,fragile,discount\n");
    const std::vector<demo::Row> rows = {
        {.sku = "plain", .count = 3, .weight = 1.5f, .fragile = true, .discount = std::nullopt},
        {.sku = "a,\"b\"\nc", .count = 0, .weight = 0.1f, .fragile = false, .discount = 0.25},
        {.sku = " padded ", .count = 65535, .weight = -2, .fragile = false, .discount = -1}};
    sink.write({0, "r0"}, rows);
    CHECK(slurp(path) ==
          "sku,count,weight,fragile,discount\n"
          "plain,3,1.5,true,\n"
          "\"a,\"\"b\"\"\nc\",0,0.1,false,0.25\n"
          "\" padded \",65535,-2,false,-1\n");
    CsvSource<demo::Row> back(path);
    for (const demo::Row& want : rows) {
        std::optional<demo::Row> got = back.next();
        REQUIRE(got);
        CHECK(got->sku == want.sku);
        CHECK(got->count == want.count);
        CHECK(got->weight == want.weight);
        CHECK(got->fragile == want.fragile);
        CHECK(got->discount == want.discount);
    }
    CHECK_FALSE(back.next());
    // A resumed run keeps the header; a fresh one writes it again.
    const std::string token = sink.checkpoint();
    sink.write({1, "r1"}, rows);
    sink.restore(token);
    CHECK(slurp(path).size() == std::stoul(token));
    sink.restore("");
    CHECK(slurp(path) == "sku,count,weight,fragile,discount\n");
}
