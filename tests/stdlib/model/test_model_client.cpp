// The model UDFs against the local fake server: order, concurrency up to max_in_flight,
// retries with backoff, 4xx as item errors, timeouts, dropped and refused connections.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_server.h"
#include "rop/stdlib/assemble.h"
#include "rop/stdlib/model.h"

namespace model = rop::stdlib::model;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using rop::test::model::FakeRequest;
using rop::test::model::FakeServer;
using rop::test::model::Reply;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// Answers "echo: <text>" (plus the image's size for image requests).
Reply echo(const FakeRequest& request, int /*attempt*/) {
    std::string answer = "echo: " + request.text;
    if (request.has_image) {
        answer += " [" + std::to_string(request.width) + "x" + std::to_string(request.height) +
                  "x" + std::to_string(request.channels) + "]";
    }
    return Reply::completion(answer);
}

model::ChatText text_client(const FakeServer& server, int max_in_flight = 4, int retries = 3,
                            milliseconds timeout = milliseconds(5000),
                            milliseconds backoff = milliseconds(20), std::string api_key_env = "") {
    // No probe: these tests count the server's connections.
    return model::ChatText(server.base_url(), "fake-model", "", 64, 0.0, timeout, max_in_flight,
                           retries, backoff, std::move(api_key_env), "", "", /*probe=*/false);
}

std::vector<std::string> items(int count, const std::string& prefix = "item ") {
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) out.push_back(prefix + std::to_string(i));
    return out;
}

rop::stdlib::Page page_with_image(int index, int width, int height, int channels) {
    rop::stdlib::Page page;
    page.doc_path = "doc.pdf";
    page.doc_name = "doc.pdf";
    page.index = index;
    page.width = 612;
    page.height = 792;
    auto pixels = std::make_shared<std::vector<std::uint8_t>>(
        static_cast<std::size_t>(width * height * channels));
    for (std::size_t i = 0; i < pixels->size(); ++i)
        (*pixels)[i] = static_cast<std::uint8_t>(i * 7 + index);
    page.image.width = width;
    page.image.height = height;
    page.image.channels = channels;
    page.image.pixels = pixels;
    return page;
}

long ms_between(Clock::time_point a, Clock::time_point b) {
    return static_cast<long>(std::chrono::duration_cast<milliseconds>(b - a).count());
}

}  // namespace

TEST_CASE("results come back in input order whatever order the server answers in", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        Reply reply = echo(request, attempt);
        const int n = std::stoi(request.text.substr(5));
        reply.delay = milliseconds((12 - n) * 15);  // later items answer first
        return reply;
    });
    auto client = text_client(server, 6);
    const auto inputs = items(12);
    const auto results = client(inputs);
    REQUIRE(results.size() == inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        CHECK(results[i].ok());
        CHECK(results[i].status == 200);
        CHECK(results[i].text == "echo: " + inputs[i]);
        CHECK(results[i].finish_reason == "stop");
        CHECK(results[i].completion_tokens == 3);
    }
    CHECK(client(std::vector<std::string>{}).empty());
}

TEST_CASE("concurrency reaches max_in_flight and never exceeds it", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        Reply reply = echo(request, attempt);
        reply.delay = milliseconds(150);
        return reply;
    });
    auto client = text_client(server, 4);
    const auto start = Clock::now();
    const auto results = client(items(16));
    const long elapsed = ms_between(start, Clock::now());
    CHECK(results.size() == 16);
    CHECK(server.max_concurrent() == 4);
    CHECK(client.stats().max_in_flight_seen == 4);
    CHECK(client.stats().connections == 4);
    CHECK(server.connections() == 4);
    CHECK(elapsed >= 4 * 150);  // (max_concurrent says it was not one at a time)

    // The next batch reuses the kept-alive connections.
    client(items(8, "again "));
    CHECK(server.connections() == 4);
    CHECK(client.stats().requests == 24);
}

TEST_CASE("a batch smaller than max_in_flight opens one connection per item", "[model]") {
    FakeServer server(echo);
    auto client = text_client(server, 32);
    CHECK(client(items(3)).size() == 3);
    CHECK(client.stats().connections == 3);
}

TEST_CASE("page images travel as PNG data URLs with the prompt", "[model]") {
    FakeServer server(echo);
    model::ChatPages client(server.base_url(), "Qwen/Qwen2.5-VL-7B-Instruct",
                            "Convert this page to Markdown.", 256, 0.1, milliseconds(5000), 2);
    std::vector<rop::stdlib::Page> pages = {
        page_with_image(0, 60, 80, 1), page_with_image(1, 33, 21, 3), page_with_image(2, 8, 8, 1)};
    const auto results = client(pages);
    REQUIRE(results.size() == 3);
    CHECK(results[0].text == "echo: Convert this page to Markdown. [60x80x1]");
    CHECK(results[1].text == "echo: Convert this page to Markdown. [33x21x3]");
    CHECK(results[2].text == "echo: Convert this page to Markdown. [8x8x1]");

    const auto received = server.received();
    REQUIRE(received.size() == 3);
    for (const FakeRequest& request : received) {
        CHECK(request.error.empty());
        CHECK(request.model == "Qwen/Qwen2.5-VL-7B-Instruct");
        CHECK(request.max_tokens == 256);
        CHECK(request.temperature == 0.1);
        const auto& page = request.width == 60   ? pages[0]
                           : request.width == 33 ? pages[1]
                                                 : pages[2];
        CHECK(request.pixels == *page.image.pixels);  // lossless round trip
    }

    const auto content = model::page_content(results[1], pages[1]);
    CHECK(content.page_index == 1);
    CHECK(content.doc_name == "doc.pdf");
    REQUIRE(content.blocks.size() == 1);
    CHECK(content.blocks[0].text == results[1].text);
    CHECK(content.blocks[0].bbox.x1 == 612);
}

TEST_CASE("a page's Markdown answer reaches std.assemble.markdown as it is, headings included",
          "[model]") {
    // The VLM path: ChatPages -> page_content -> markdown. The answer is Markdown already; only
    // text read from a page (OCR, the text layer) has a leading '#' escaped as body text.
    model::Completion answer;
    answer.status = 200;
    answer.text = "# Annual Report\n\n## 1. Scope\n\nBody text.\n\n# not a comment";
    const rop::stdlib::Page page = page_with_image(0, 4, 4, 1);
    const rop::stdlib::PageContent content = model::page_content(answer, page);
    CHECK(content.text_source == "model");
    const std::vector<rop::stdlib::PageContent> pages = {content};
    CHECK(rop::stdlib::assemble::markdown(pages).text == answer.text + "\n");

    rop::stdlib::PageContent read = content;  // a line read off a page as body text
    read.text_source = "ocr";
    read.blocks.resize(1);
    read.blocks[0].text = "# not a comment";
    read.blocks[0].text_level = 0;
    const std::vector<rop::stdlib::PageContent> read_pages = {read};
    CHECK(rop::stdlib::assemble::markdown(read_pages).text == "\\# not a comment\n");
}

TEST_CASE("a page without an image fails alone; its neighbours go on", "[model]") {
    FakeServer server(echo);
    model::ChatPages client(server.base_url(), "m", "p");
    std::vector<rop::stdlib::Page> pages = {page_with_image(0, 4, 4, 1), rop::stdlib::Page{},
                                            page_with_image(2, 4, 4, 1)};
    pages[1].index = 1;
    pages[1].doc_name = "scan.pdf";
    const auto results = client(pages);
    CHECK(results[0].ok());
    CHECK_FALSE(results[1].ok());
    CHECK_THAT(results[1].error, ContainsSubstring("page 2 of 'scan.pdf' has no image"));
    CHECK(results[2].ok());
    CHECK(server.requests() == 2);
    CHECK_THROWS_AS(model::page_content(results[1], pages[1]), rop::RecordFailure);
}

TEST_CASE("429 then success: retried with exponential backoff", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        if (attempt < 2) return Reply::error(429, "slow down");
        return echo(request, attempt);
    });
    auto client =
        text_client(server, 3, /*retries=*/3, milliseconds(5000), /*backoff=*/milliseconds(100));
    const auto results = client(items(3));
    for (const auto& result : results) CHECK(result.ok());
    CHECK(results[2].text == "echo: item 2");
    CHECK(server.requests() == 9);
    CHECK(client.stats().retries == 6);
    CHECK(client.stats().requests == 9);
    const auto times = server.arrivals("item 1");
    REQUIRE(times.size() == 3);
    CHECK(ms_between(times[0], times[1]) >= 100);  // backoff
    CHECK(ms_between(times[1], times[2]) >= 200);  // doubled
}

TEST_CASE("a 429's Retry-After is honoured when longer than the backoff", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        if (attempt > 0) return echo(request, attempt);
        Reply reply = Reply::error(429, "rate limited");
        reply.retry_after = "0.4";
        return reply;
    });
    auto client = text_client(server, 1, 2, milliseconds(5000), milliseconds(10));
    CHECK(client(items(1))[0].ok());
    const auto times = server.arrivals("item 0");
    REQUIRE(times.size() == 2);
    CHECK(ms_between(times[0], times[1]) >= 400);
}

TEST_CASE("500 forever: the retries run out and that item fails; the batch goes on", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        if (request.text == "item 2") return Reply::error(500, "engine dead");
        return echo(request, attempt);
    });
    auto client = text_client(server, 2, /*retries=*/2, milliseconds(5000), milliseconds(10));
    const auto results = client(items(4));
    CHECK(results[0].ok());
    CHECK(results[1].ok());
    CHECK(results[3].ok());
    CHECK(results[2].status == 500);
    CHECK_THAT(results[2].error, StartsWith("failed after 3 attempt(s) in "));
    CHECK_THAT(results[2].error, EndsWith(": HTTP 500: engine dead"));
    CHECK_THROWS_AS(model::text(results[2]), rop::PermanentFailure);
    CHECK(server.arrivals("item 2").size() == 3);
    CHECK(client.stats().retries == 2);

    // The actor stays usable for the next batch.
    CHECK(client(std::vector<std::string>{"item 0"})[0].ok());
}

TEST_CASE("a 400 fails that item with the server's message, not retried", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        if (request.text == "item 1") {
            return Reply::error(400, "This model's maximum context length is 32768 tokens.");
        }
        return echo(request, attempt);
    });
    auto client = text_client(server, 4, 3);
    const auto results = client(items(3));
    CHECK(results[0].ok());
    CHECK(results[2].ok());
    CHECK_FALSE(results[1].ok());
    CHECK(results[1].status == 400);
    CHECK(results[1].error == "HTTP 400: This model's maximum context length is 32768 tokens.");
    CHECK(server.arrivals("item 1").size() == 1);
    CHECK(client.stats().retries == 0);

    CHECK(model::text(results[0]) == "echo: item 0");
    CHECK(model::ok(results[0]));
    CHECK_FALSE(model::ok(results[1]));
    try {
        model::text(results[1]);
        FAIL("expected a RecordFailure");
    } catch (const rop::RecordFailure& failure) {
        CHECK_THAT(failure.reason(), ContainsSubstring("maximum context length is 32768 tokens"));
    }
}

TEST_CASE("a dropped connection is retried on a fresh one", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        if (attempt == 0) return Reply::drop();
        return echo(request, attempt);
    });
    auto client = text_client(server, 2, 2);
    const auto results = client(items(4));
    for (const auto& result : results) CHECK(result.ok());
    CHECK(results[3].text == "echo: item 3");
    CHECK(server.requests() == 8);
    CHECK(client.stats().retries + client.stats().stale_reconnects == 4);
}

TEST_CASE("a kept-alive connection the server closed is reopened without a retry", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        Reply reply = echo(request, attempt);
        reply.close_after = true;  // says keep-alive, closes anyway (an idle timeout)
        return reply;
    });
    auto client = text_client(server, 1, /*retries=*/0);
    CHECK(client(items(1))[0].ok());
    CHECK(client(items(1, "second "))[0].ok());
    CHECK(client.stats().stale_reconnects == 1);
    CHECK(client.stats().retries == 0);
    CHECK(server.connections() == 2);
}

TEST_CASE("a server that never answers times out; each attempt counts", "[model]") {
    FakeServer server([](const FakeRequest&, int) { return Reply::hang(); });
    auto client =
        text_client(server, 1, /*retries=*/1, /*timeout=*/milliseconds(200), milliseconds(10));
    const auto start = Clock::now();
    CHECK_THAT(client(items(1))[0].error,
               EndsWith("timed out after 200 ms (waiting for the answer)"));
    const long elapsed = ms_between(start, Clock::now());
    CHECK(elapsed >= 400);
    CHECK(client.stats().timeouts == 2);
    CHECK(server.requests() == 2);
}

TEST_CASE("a slow answer within the timeout is fine", "[model]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        Reply reply = echo(request, attempt);
        reply.delay = milliseconds(100);
        return reply;
    });
    auto client = text_client(server, 1, 0, milliseconds(2000));
    CHECK(client(items(2))[1].text == "echo: item 1");
}

TEST_CASE("an item whose retries run out fails alone; the batch's others are answered", "[model]") {
    FakeServer server([](const FakeRequest& request, int) {
        if (request.text == "item 0") return Reply::error(503, "overloaded");
        return echo(request, 0);
    });
    auto client = text_client(server, 4, 0, milliseconds(10000));
    const auto results = client(items(4));
    CHECK_THAT(results[0].error, EndsWith("HTTP 503: overloaded"));
    for (int i = 1; i < 4; ++i) CHECK(results[i].ok());
    CHECK(client.stats().retries == 0);
}

TEST_CASE("nothing listening: connection errors are retried, then each item fails", "[model]") {
    model::ChatText client(
        "http://127.0.0.1:" + std::to_string(rop::test::model::closed_port()) + "/v1", "m", "", 16,
        0.0, milliseconds(1000), 2, /*retries=*/2, milliseconds(10), "", "", "",
        /*probe=*/false);
    for (const model::Completion& result : client(items(2))) {
        CHECK_THAT(result.error, StartsWith("failed after 3 attempt(s) in "));
        CHECK_THAT(result.error, EndsWith(": connect: Connection refused"));
    }
    CHECK(client.stats().retries == 4);
    CHECK(client.stats().connections == 0);
}

TEST_CASE("nothing listening at construction: the probe fails the actor's setup", "[model]") {
    const std::string port = std::to_string(rop::test::model::closed_port());
    CHECK_THROWS_WITH(model::ChatText("http://127.0.0.1:" + port + "/v1", "m"),
                      "model: cannot reach http://127.0.0.1:" + port +
                          "/v1/chat/completions: connect: Connection refused (is the server "
                          "up? the probe: false argument skips this check)");
    CHECK_THROWS_WITH(model::ChatPages("http://no-such-host.invalid:8000/v1", "m"),
                      ContainsSubstring("model: cannot reach "
                                        "http://no-such-host.invalid:8000/v1/chat/completions: "
                                        "resolve no-such-host.invalid: "));
    // A server that is up: the probe opens one connection, sends nothing and closes it.
    FakeServer server(echo);
    model::ChatText client(server.base_url(), "m");
    CHECK(client(items(1))[0].ok());
    CHECK(server.requests() == 1);
    CHECK(server.connections() == 2);  // the probe's, then the request's
    CHECK(client.stats().connections == 1);
}

TEST_CASE("the API key comes from the named environment variable", "[model]") {
    FakeServer server(echo);
    ::setenv("ROP_MODEL_TEST_KEY", "sk-test-123", 1);
    auto client =
        text_client(server, 1, 0, milliseconds(5000), milliseconds(10), "ROP_MODEL_TEST_KEY");
    CHECK(client(items(1))[0].ok());
    CHECK(server.received().at(0).authorization == "Bearer sk-test-123");
    ::unsetenv("ROP_MODEL_TEST_KEY");
    CHECK_THROWS_WITH(
        text_client(server, 1, 0, milliseconds(5000), milliseconds(10), "ROP_MODEL_TEST_KEY"),
        ContainsSubstring("ROP_MODEL_TEST_KEY"));
}

TEST_CASE("bad settings fail the actor's setup with the reason", "[model]") {
    CHECK_THROWS_WITH(model::ChatText("grpc://127.0.0.1:8000/v1", "gpt"),
                      ContainsSubstring("must look like http://host:port/v1"));
    CHECK_THROWS_WITH(model::ChatText("http://127.0.0.1:8000/v1", ""), ContainsSubstring("model"));
    CHECK_THROWS_WITH(
        model::ChatText("http://127.0.0.1:8000/v1", "m", "", 16, 0.0, milliseconds(1000), 0),
        ContainsSubstring("max_in_flight"));
    CHECK_THROWS_WITH(
        model::ChatText("http://127.0.0.1:8000/v1", "m", "", 16, 0.0, milliseconds(0)),
        ContainsSubstring("timeout"));
}

TEST_CASE("system prompt and region images", "[model]") {
    FakeServer server(echo);
    model::ChatRegions client(server.base_url(), "m", "Table to HTML.", 128, 0.0,
                              milliseconds(5000), 2, 0, milliseconds(10), "", "Be terse.");
    rop::stdlib::Region region;
    region.image = page_with_image(0, 10, 6, 3).image;
    const auto results = client(std::vector<rop::stdlib::Region>{region});
    CHECK(results.at(0).text == "echo: Table to HTML. [10x6x3]");
    CHECK(server.received().at(0).system == "Be terse.");
}
