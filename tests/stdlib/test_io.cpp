// std.io: the Files source (glob, folder, manifest) and the per-root sinks.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "rop/stdlib/io.h"

namespace fs = std::filesystem;
using namespace rop::stdlib;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() /
               ("rop-stdlib-io-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    static int& counter() {
        static int value = 0;
        return value;
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void touch(const std::string& path, const std::string& content = "x") {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << content;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> names(io::Files files) {
    std::vector<std::string> out;
    while (auto file = files.next()) out.push_back(files.name_of(*file));
    return out;
}

}  // namespace

TEST_CASE("Files lists a glob's matches sorted by path") {
    TempDir dir;
    touch(dir / "b.pdf");
    touch(dir / "a.pdf");
    touch(dir / "c.txt");
    touch(dir / "sub/d.pdf");
    io::Files files(dir / "*.pdf");
    REQUIRE(files.size_hint() == 2u);
    CHECK(names(files) == std::vector<std::string>{dir / "a.pdf", dir / "b.pdf"});
    CHECK(names(io::Files(dir / "nothing-*.pdf")).empty());
    CHECK_THROWS_AS(io::Files(dir / "missing/*.pdf"), std::runtime_error);
    CHECK_THROWS_AS(io::Files(dir / "missing.pdf"), std::runtime_error);
    CHECK(names(io::Files(dir / "c.txt")) == std::vector<std::string>{dir / "c.txt"});
}

TEST_CASE("Files skips a folder the glob matches, with a warning naming it") {
    TempDir dir;
    touch(dir / "a.pdf");
    touch(dir / "old.pdf/b.pdf");  // a folder named like the inputs
    touch(dir / "sub/c.txt");
    std::ostringstream err;
    std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());
    std::vector<std::string> listed = names(io::Files(dir / "*.pdf"));
    std::vector<std::string> all = names(io::Files(dir / "*"));
    std::cerr.rdbuf(saved);
    CHECK(listed == std::vector<std::string>{dir / "a.pdf"});
    CHECK(all == std::vector<std::string>{dir / "a.pdf"});
    const std::string folder =
        "' but is a folder (to read the files in it, name the folder as "
        "the input)\n";
    CHECK(err.str() == "warning: std.io.Files: skipped '" + dir / "old.pdf" + "', which matches '" +
                           dir / "*.pdf" + folder + "warning: std.io.Files: skipped '" +
                           dir / "old.pdf" + "', which matches '" + dir / "*" + folder +
                           "warning: std.io.Files: skipped '" + dir / "sub" + "', which matches '" +
                           dir / "*" + folder);
}

TEST_CASE("Files lists a folder, with a suffix filter and recursively") {
    TempDir dir;
    touch(dir / "b.pdf");
    touch(dir / "a.pdf");
    touch(dir / "c.txt");
    touch(dir / "sub/d.pdf");
    CHECK(names(io::Files(dir.path.string(), ".pdf")) ==
          std::vector<std::string>{dir / "a.pdf", dir / "b.pdf"});
    CHECK(names(io::Files(dir.path.string())).size() == 3);
    CHECK(names(io::Files(dir.path.string(), ".pdf", true)) ==
          std::vector<std::string>{dir / "a.pdf", dir / "b.pdf", dir / "sub/d.pdf"});
}

TEST_CASE("Files reads a JSONL manifest in its order, with names and metadata") {
    TempDir dir;
    touch(dir / "list.jsonl",
          "{\"path\": \"z.pdf\", \"lang\": \"deu\", \"pages\": 3}\n"
          "\n"
          "\"a.pdf\"\n"
          "{\"uri\": \"https://example.org/x.pdf?v=1\", \"name\": \"remote\"}\n");
    io::Files files(dir / "list.jsonl");
    REQUIRE(files.size_hint() == 3u);
    auto first = files.next();
    REQUIRE(first);
    CHECK(first->path == dir / "z.pdf");
    CHECK(first->name == "z.pdf");
    CHECK(first->metadata == Metadata{{"lang", "deu"}, {"pages", "3"}});
    CHECK(files.next()->path == dir / "a.pdf");
    auto third = files.next();
    CHECK(third->path == "https://example.org/x.pdf?v=1");
    CHECK(third->name == "remote");
    CHECK_FALSE(files.next());

    touch(dir / "bad.jsonl", "{\"path\": \"a.pdf\"}\n[1, 2]\n");
    try {
        io::Files bad(dir / "bad.jsonl");
        FAIL("a bad manifest line must throw");
    } catch (const std::runtime_error& error) {
        CHECK(std::string(error.what()).find("bad.jsonl:2:") != std::string::npos);
    }
}

TEST_CASE("a manifest line that is not JSON is quoted 60 bytes at most, bytes not UTF-8 escaped") {
    TempDir dir;
    auto message = [](const std::string& manifest) {
        try {
            io::Files files(manifest);
        } catch (const std::runtime_error& error) {
            return std::string(error.what());
        }
        return std::string("(no error)");
    };
    touch(dir / "big.jsonl", "\"a.pdf\"\n\"" + std::string(10u << 20, 'x') + "\n");
    const std::string big = message(dir / "big.jsonl");
    CHECK(big == dir / "big.jsonl" +
                     ":2: not JSON: column 10485762: syntax error while parsing value - invalid "
                     "string: missing closing quote; last read: '\"" +
                     std::string(59, 'x') + "...' (10485761 bytes)");
    CHECK(big.size() < 1024);
    touch(dir / "bytes.jsonl", "{\"path\": \"caf\xe9.pdf\"}\n");
    CHECK(message(dir / "bytes.jsonl") ==
          dir / "bytes.jsonl" +
              ":1: not JSON: column 15: syntax error while parsing value - invalid string: "
              "ill-formed UTF-8 byte; last read: '\"caf\\xe9.'");
}

TEST_CASE("Jsonl appends one line per item, checkpoints by size and restores") {
    TempDir dir;
    const std::string path = dir / "out/docs.jsonl";
    {
        io::Jsonl sink(path);
        sink.restore("");
        const std::vector<JsonText> first{{"{\"a\": 1,\n \"b\": [1, 2]}"}, {"not json"}};
        sink.write({0, "a.pdf"}, first);
        const std::string token = sink.checkpoint();
        CHECK(token == std::to_string(slurp(path).size()));
        sink.write({1, "b.pdf"}, std::vector<JsonText>{{"{\"c\":3}"}});
        CHECK(slurp(path) == "{\"a\":1,\"b\":[1,2]}\n\"not json\"\n{\"c\":3}\n");
        sink.sync();  // durable; the content is what was written
        CHECK(slurp(path) == "{\"a\":1,\"b\":[1,2]}\n\"not json\"\n{\"c\":3}\n");
        sink.restore(token);
        CHECK(slurp(path) == "{\"a\":1,\"b\":[1,2]}\n\"not json\"\n");
        CHECK_THROWS(sink.restore("999999"));
        CHECK_THROWS(sink.restore("12x"));
    }
    io::Jsonl again(path);
    again.restore("");
    CHECK(slurp(path).empty());
}

TEST_CASE("MarkdownDir and JsonDir write one file per root, named after its stem") {
    TempDir dir;
    io::MarkdownDir markdown(dir / "md");
    markdown.write({0, "in/report.pdf"}, std::vector<Markdown>{{"# A"}, {"body"}});
    markdown.write({1, "other/report.pdf"}, std::vector<Markdown>{{"second"}});
    markdown.write({0, "in/report.pdf"}, std::vector<Markdown>{{"# A again"}});
    markdown.write({2, "https://x.org/a b.pdf?x=1"}, std::vector<Markdown>{{"remote"}});
    markdown.write({3, "///"}, std::vector<Markdown>{{"nameless"}});
    CHECK(slurp(dir / "md/report.md") == "# A again\n");
    CHECK(slurp(dir / "md/report-1.md") == "second\n");
    CHECK(slurp(dir / "md/a_b.md") == "remote\n");
    CHECK(slurp(dir / "md/root-3.md") == "nameless\n");
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "md")) ++count;
    CHECK(count == 5);  // four files and the .rop-names index: no temp files left behind

    // A resumed run names files as the interrupted one did; a fresh run starts over.
    {
        io::MarkdownDir first_run(dir / "resume");
        first_run.restore("");
        first_run.write({0, "a/x.pdf"}, std::vector<Markdown>{{"zero"}});
        const std::string token = first_run.checkpoint();
        first_run.write({1, "b/x.pdf"}, std::vector<Markdown>{{"one, not committed"}});
        CHECK(fs::exists(dir / "resume/x-1.md"));
        io::MarkdownDir resumed(dir / "resume");
        resumed.restore(token);
        // The file named after the checkpoint belonged to a root not journaled: taken back.
        CHECK_FALSE(fs::exists(dir / "resume/x-1.md"));
        CHECK(slurp(dir / "resume/x.md") == "zero\n");
        resumed.write({2, "c/x.pdf"}, std::vector<Markdown>{{"two"}});
        resumed.write({1, "b/x.pdf"}, std::vector<Markdown>{{"one"}});
        CHECK(slurp(dir / "resume/x.md") == "zero\n");
        CHECK(slurp(dir / "resume/x-2.md") == "two\n");
        CHECK(slurp(dir / "resume/x-1.md") == "one\n");
        io::MarkdownDir fresh(dir / "resume");
        fresh.restore("");  // forgets the names, keeps the files (a fresh run rewrites them)
        CHECK(fs::exists(dir / "resume/x-2.md"));
        fresh.write({5, "c/x.pdf"}, std::vector<Markdown>{{"five"}});
        CHECK(slurp(dir / "resume/x.md") == "five\n");
        CHECK_THROWS(fresh.restore("100000"));
    }

    io::JsonDir json(dir / "json");
    json.write({0, "a.pdf"}, std::vector<JsonText>{{"{\"x\":1}"}});
    json.write({1, "b.pdf"}, std::vector<JsonText>{{"1"}, {"2"}});
    CHECK(slurp(dir / "json/a.json") == "{\"x\":1}\n");
    CHECK(slurp(dir / "json/b.json") == "[1,\n2]\n");
}

TEST_CASE("restore removes the temp files a killed writer left, and only those") {
    TempDir dir;
    io::MarkdownDir markdown(dir / "md");
    // A pid that cannot run (above the kernel's pid_max), one that runs (this process), and
    // names that only look similar.
    touch(dir / "md/.report.md.tmp-4194999", "torn");
    touch(dir / ("md/.live.md.tmp-" + std::to_string(::getpid())), "being written");
    touch(dir / "md/report.md.tmp-4194999", "not hidden: not ours");
    touch(dir / "md/.notes.tmp-abc", "not a pid");
    markdown.restore("");
    CHECK_FALSE(fs::exists(dir / "md/.report.md.tmp-4194999"));
    CHECK(fs::exists(dir / ("md/.live.md.tmp-" + std::to_string(::getpid()))));
    CHECK(fs::exists(dir / "md/report.md.tmp-4194999"));
    CHECK(fs::exists(dir / "md/.notes.tmp-abc"));

    io::JsonDir json(dir / "json");
    touch(dir / "json/.a.json.tmp-4194999", "torn");
    json.restore("");
    CHECK_FALSE(fs::exists(dir / "json/.a.json.tmp-4194999"));
}
