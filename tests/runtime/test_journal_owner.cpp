// The journal's own rules, on the Journal alone (journal.h): a journal belongs to one pipeline
// (its header names it; --resume refuses another's), and a run that died without a word (no
// end line, no crash line) leaves the roots under its watermark that no line says finished as
// suspects, counted as a crash line would count them. Each as a table of cases.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/journal.h"
#include "rop/runtime/run.h"

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using rop::runtime::ForeignJournal;
using rop::runtime::detail::Journal;
using rop::runtime::detail::JournalOwner;

namespace {

struct TempFile {
    fs::path path;
    TempFile() {
        static int counter = 0;
        path = fs::temp_directory_path() / ("rop-journal-owner-" + std::to_string(::getpid()) +
                                            "-" + std::to_string(counter++));
    }
    ~TempFile() { fs::remove(path); }
    void write(const std::string& text) const { std::ofstream(path, std::ios::binary) << text; }
    std::string read() const {
        std::ifstream in(path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
};

std::string entry(int ordinal, const std::string& status = "ok") {
    std::string line = R"({"name":"r)" + std::to_string(ordinal) + R"(","root":)" +
                       std::to_string(ordinal) + R"(,"status":")" + status + R"(","tokens":[""]})";
    return line + "\n";
}

}  // namespace

TEST_CASE("journal: a journal belongs to one pipeline", "[runtime][journal][owner]") {
    const std::string wc = R"({"journal":"rop","pipeline":"wc","rop_hash":"aaa","sinks":["s"],)"
                           R"("version":2})"
                           "\n";
    const std::string v1 = R"({"journal":"rop","sinks":["s"],"version":1})"
                           "\n";
    struct Case {
        const char* what;
        std::string header;
        JournalOwner owner;
        std::vector<std::string> sinks;
        const char* refused;  // nullptr: accepted; else a part of the message
    };
    const std::vector<Case> cases = {
        {"its own", wc, {"wc", "aaa", false}, {"s"}, nullptr},
        {"its own, rebuilt flag given anyway", wc, {"wc", "aaa", true}, {"s"}, nullptr},
        {"another pipeline's",
         wc,
         {"docs", "aaa", false},
         {"s"},
         "written by pipeline 'wc', not by 'docs' (another pipeline's journal"},
        {"another pipeline's, even with --resume-rebuilt",
         wc,
         {"docs", "aaa", true},
         {"s"},
         "written by pipeline 'wc', not by 'docs'"},
        {"rebuilt from another .rop text",
         wc,
         {"wc", "bbb", false},
         {"s"},
         "written by pipeline 'wc' built from another .rop text (rop_hash aaa, this binary's "
         "bbb); if its roots and sinks still mean the same, --resume-rebuilt resumes it"},
        {"rebuilt, with --resume-rebuilt", wc, {"wc", "bbb", true}, {"s"}, nullptr},
        {"an older rop's (no pipeline)",
         v1,
         {"wc", "aaa", false},
         {"s"},
         "written by an rop binary that did not record its pipeline; if it is this pipeline's "
         "journal, --resume-rebuilt resumes it"},
        {"an older rop's, with --resume-rebuilt", v1, {"wc", "aaa", true}, {"s"}, nullptr},
        {"run() without an owner checks nothing", wc, {}, {"s"}, nullptr},
        {"other sinks",
         wc,
         {"wc", "aaa", false},
         {"t"},
         "written for sinks [s], this run has [t] (use the same outputs, or run without "
         "--resume)"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.what);
        TempFile file;
        file.write(c.header + entry(0));
        if (c.refused) {
            try {
                Journal journal(file.path.string(), c.sinks, true, c.owner);
                FAIL("accepted");
            } catch (const ForeignJournal& e) {
                CHECK_THAT(e.what(), ContainsSubstring(c.refused));
                CHECK_THAT(e.what(), ContainsSubstring("journal '" + file.path.string() + "': "));
            }
            CHECK(file.read() == c.header + entry(0));  // untouched
        } else {
            Journal journal(file.path.string(), c.sinks, true, c.owner);
            CHECK(journal.entries().size() == 1);
            CHECK(journal.header() == c.header);
        }
    }
    // A fresh journal records its owner (and an id of its own).
    TempFile fresh;
    {
        Journal journal(fresh.path.string(), {"s"}, false, {"wc", "aaa", false});
    }
    CHECK_THAT(fresh.read(), ContainsSubstring(R"("pipeline":"wc","rop_hash":"aaa")"));
    TempFile other;
    {
        Journal journal(other.path.string(), {"s"}, false, {"wc", "aaa", false});
    }
    CHECK(fresh.read() != other.read());  // the ids differ
}

TEST_CASE("journal: a run that died without a word leaves the roots it had in flight suspect",
          "[runtime][journal][kill]") {
    const std::string header = R"({"journal":"rop","sinks":["s"],"version":2})"
                               "\n";
    const std::string begin = "{\"begin\":\"resume\"}\n";
    auto admitted = [](int n) { return "{\"admitted\":" + std::to_string(n) + "}\n"; };
    const std::string ended = "{\"ended\":true}\n";
    struct Case {
        const char* what;
        std::string body;  // after the header
        // Expected: ordinal -> (count, killed, call).
        std::map<std::uint64_t, std::tuple<std::uint32_t, std::uint32_t, std::string>> crashes;
    };
    const std::string crash3 = R"({"crashed":[3],"call":"m","signal":"SIGSEGV"})"
                               "\n";
    const std::vector<Case> cases = {
        {"no watermark: nothing ran", "", {}},
        {"killed: the roots under the watermark without a line",
         admitted(2) + entry(0) + admitted(5) + entry(2),
         {{1, {1, 1, ""}}, {3, {1, 1, ""}}, {4, {1, 1, ""}}}},
        {"ended under its own control: none", admitted(5) + entry(0) + ended, {}},
        {"a crash line names the culprits: only them",
         admitted(5) + entry(0) + crash3,
         {{3, {1, 0, "m"}}}},
        {"a failed root has a line: not a suspect",
         admitted(2) + entry(0, "failed"),
         {{1, {1, 1, ""}}}},
        {"two deaths: a root in flight at both counts twice",
         admitted(3) + entry(0) + begin + admitted(3) + entry(1),
         {{1, {1, 1, ""}}, {2, {2, 2, ""}}}},
        {"a death, then a clean run: counted once",
         admitted(3) + entry(0) + begin + admitted(3) + entry(1) + entry(2) + ended,
         {{1, {1, 1, ""}}, {2, {1, 1, ""}}}},
        {"alone, one Call in flight: it is named",
         admitted(2) + entry(0) + begin + admitted(2) + "{\"running\":[\"m\"]}\n",
         {{1, {2, 2, "m"}}}},
        {"alone, two Calls in flight: neither is named",
         admitted(2) + entry(0) + begin + admitted(2) + "{\"running\":[\"pages\",\"ocr\"]}\n",
         {{1, {2, 2, ""}}}},
        {"alone, no Call in flight any more",
         admitted(2) + entry(0) + begin + admitted(2) + "{\"running\":[\"m\"]}\n{\"running\":[]}\n",
         {{1, {2, 2, ""}}}},
        {"a torn last line does not hide the death",
         admitted(3) + entry(0) + "{\"adm",
         {{1, {1, 1, ""}}, {2, {1, 1, ""}}}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.what);
        TempFile file;
        file.write(header + c.body);
        Journal journal(file.path.string(), {"s"}, true);
        std::map<std::uint64_t, std::tuple<std::uint32_t, std::uint32_t, std::string>> got;
        for (const auto& [ordinal, crashes] : journal.crashes()) {
            got[ordinal] = {crashes.count, crashes.killed, crashes.call};
        }
        CHECK(got == c.crashes);
        // This run's lines start after a begin line of its own.
        CHECK(file.read().ends_with(begin));
    }
}

TEST_CASE("journal: why a root that brought the process down twice fails",
          "[runtime][journal][kill]") {
    Journal::Crashes killed{2, 2, "killed without a crash line", "m", ""};
    CHECK(killed.reason() ==
          "killed (SIGKILL) twice; perhaps out of memory (the process died without a crash line "
          "while it ran)");
    Journal::Crashes three{3, 3, "killed without a crash line", "", ""};
    CHECK_THAT(three.reason(), ContainsSubstring("killed (SIGKILL) 3 times;"));
    Journal::Crashes mixed{2, 1, "call 'm': SIGSEGV", "m", ""};
    CHECK(mixed.reason() == "crashed the process twice (last: call 'm': SIGSEGV)");
    Journal::Crashes ranked{2, 0, "call 'm' on rank 2: SIGSEGV", "m", "2"};
    CHECK(ranked.reason() == "crashed the process twice (last: call 'm' on rank 2: SIGSEGV)");
    // A crash line from a worker rank names it.
    TempFile file;
    file.write(R"({"journal":"rop","sinks":["s"],"version":2})"
               "\n"
               R"({"crashed":[4,6],"call":"ocr","signal":"SIGSEGV","rank":2})"
               "\n");
    Journal journal(file.path.string(), {"s"}, true);
    REQUIRE(journal.crashes().count(6) == 1);
    const Journal::Crashes& c = journal.crashes().at(6);
    CHECK(c.count == 1);
    CHECK(c.killed == 0);
    CHECK(c.call == "ocr");
    CHECK(c.rank == "2");
    CHECK(c.last == "call 'ocr' on rank 2: SIGSEGV");
}
