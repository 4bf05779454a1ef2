// The model client's budgets (issue 31 item 5): an item's attempts across batches, its time
// budget, its document's, and the circuit that a run of unanswered requests opens, against the
// fake server hanging and a port nothing listens on. Counts are bounds that timers guarantee
// (an attempt takes at least its timeout), never wall-clock upper bounds.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "fake_server.h"
#include "rop/stdlib/model.h"

namespace model = rop::stdlib::model;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using rop::test::model::FakeRequest;
using rop::test::model::FakeServer;
using rop::test::model::Reply;
using std::chrono::milliseconds;

namespace {

Reply hang(const FakeRequest&, int) { return Reply::hang(); }

struct Options {
    std::string model = "budget-test";  // the ledger's scope: each test its own
    int max_in_flight = 1;
    int retries = 0;
    milliseconds timeout{100};
    milliseconds backoff{10};
    bool probe = false;
    milliseconds budget{0};
    milliseconds root_budget{0};
    int breaker = 0;
};

model::ChatText text_client(const std::string& base_url, const Options& o) {
    return model::ChatText(base_url, o.model, "", 16, 0.0, o.timeout, o.max_in_flight, o.retries,
                           o.backoff, "", "", "", o.probe, o.budget, o.root_budget, o.breaker);
}

model::ChatPages page_client(const std::string& base_url, const Options& o) {
    return model::ChatPages(base_url, o.model, "p", 16, 0.0, o.timeout, o.max_in_flight, o.retries,
                            o.backoff, "", "", "", o.probe, o.budget, o.root_budget, o.breaker);
}

std::vector<std::string> items(int count, const std::string& prefix = "item ") {
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) out.push_back(prefix + std::to_string(i));
    return out;
}

rop::stdlib::Page page(const std::string& doc, int index) {
    rop::stdlib::Page page;
    page.doc_path = doc;
    page.doc_name = doc;
    page.index = index;
    page.image.width = 2;
    page.image.height = 2;
    page.image.channels = 1;
    page.image.pixels = std::make_shared<std::vector<std::uint8_t>>(4, std::uint8_t{200});
    return page;
}

std::string dead_url() {
    return "http://127.0.0.1:" + std::to_string(rop::test::model::closed_port()) + "/v1";
}

}  // namespace

TEST_CASE("budget: an item's attempts hold across batches and actors", "[model][budget]") {
    FakeServer server(hang);
    Options o;
    o.model = "budget-across-batches";
    o.retries = 1;
    auto client = text_client(server.base_url(), o);
    const std::string first = client(items(1))[0].error;
    CHECK_THAT(first, StartsWith("failed after 2 attempt(s) in "));
    CHECK_THAT(first, EndsWith(": timed out after 100 ms (waiting for the answer)"));
    CHECK(server.requests() == 2);
    // The runtime replays the batch (a Call's timeout, a fresh actor): the item is not tried
    // again, and says what it spent.
    auto replayed_on = text_client(server.base_url(), o);
    CHECK_THAT(replayed_on(items(1))[0].error, StartsWith("failed after 2 attempt(s) in "));
    CHECK_THAT(client(items(1))[0].error,
               EndsWith(": timed out after 100 ms (waiting for the answer)"));
    CHECK(server.requests() == 2);
    // Another item is tried afresh.
    CHECK_THAT(client(items(1, "other "))[0].error, StartsWith("failed after 2 attempt(s)"));
    CHECK(server.requests() == 4);
}

TEST_CASE("budget: an item's time across its attempts and waits", "[model][budget]") {
    FakeServer server(hang);
    Options o;
    o.model = "budget-time";
    o.retries = 10;
    o.budget = milliseconds(250);
    auto client = text_client(server.base_url(), o);
    const model::Completion result = client(items(1))[0];
    // 100 ms, a 10 ms wait, 100 ms, a 20 ms wait, then at most the 20 ms left: 3 attempts at most
    // of the 11 its retries allow.
    CHECK_THAT(result.error, ContainsSubstring(" (its budget: 250 ms): timed out after "));
    CHECK(result.status == 0);
    CHECK(server.requests() >= 1);
    CHECK(server.requests() <= 3);
    CHECK(client.stats().attempts == static_cast<std::uint64_t>(server.requests()));
}

TEST_CASE("budget: a document's failed time stops its other pages, not other documents'",
          "[model][budget]") {
    FakeServer server(hang);
    Options o;
    o.model = "budget-root";
    o.root_budget = milliseconds(150);
    auto client = page_client(server.base_url(), o);
    const std::vector<rop::stdlib::Page> pages = {
        page("a.pdf", 0), page("a.pdf", 1), page("a.pdf", 2), page("a.pdf", 3), page("b.pdf", 0)};
    const auto results = client(pages);
    // One page at a time: a.pdf's failures take 100 ms each, so after two at most its budget is
    // spent and its pages 3 and 4 are not sent; b.pdf's page is.
    for (int i = 2; i < 4; ++i) {
        CHECK_THAT(results[i].error,
                   StartsWith("not sent: its document's budget of 150 ms is spent: its items' "
                              "failed attempts took "));
    }
    CHECK_THAT(results[4].error, StartsWith("failed after 1 attempt(s) in "));
    CHECK(server.requests() <= 3);
    // std.model.page_content names the page.
    CHECK_THROWS_WITH(model::page_content(results[3], pages[3]),
                      StartsWith("model: page 4 of 'a.pdf': not sent: its document's budget"));
}

TEST_CASE("breaker: a port nothing listens on, 25 items: one run of refusals opens the circuit",
          "[model][budget]") {
    Options o;
    o.model = "budget-dead-port";
    o.max_in_flight = 4;
    o.retries = 4;
    o.breaker = 8;
    const std::string url = dead_url();
    auto client = text_client(url, o);
    const auto results = client(items(25));
    // Before the circuit opens, 8 refusals; in flight then, at most 3 more: at most 11 attempts
    // for 25 items (a dead server got 9-23 per item before the budgets).
    CHECK(client.stats().attempts >= 8);
    CHECK(client.stats().attempts <= 11);
    const std::string circuit = "the circuit is open: 8 requests in a row to " + url +
                                "/chat/completions got no answer (the last: connect: Connection "
                                "refused)";
    int not_sent = 0;
    for (const model::Completion& result : results) {
        CHECK_FALSE(result.ok());
        // (or its own 5 attempts, had it run that far ahead of the others)
        CHECK((result.error.find(circuit) != std::string::npos ||
               result.error.starts_with("failed after 5 attempt(s)")));
        if (result.error.starts_with("not sent: " + circuit)) ++not_sent;
    }
    CHECK(not_sent >= 25 - 11);
    // A later batch sends nothing while it is open.
    const auto attempts = client.stats().attempts;
    CHECK_THAT(client(items(3, "later "))[2].error, StartsWith("not sent: the circuit is open"));
    CHECK(client.stats().attempts == attempts);
}

TEST_CASE("breaker: a server that never answers, 25 items: at most breaker + in flight requests",
          "[model][budget]") {
    FakeServer server(hang);
    Options o;
    o.model = "budget-hang";
    o.max_in_flight = 8;
    o.retries = 4;
    o.breaker = 8;
    auto client = text_client(server.base_url(), o);
    const auto results = client(items(25));
    int circuit = 0;
    for (const model::Completion& result : results) {
        CHECK_FALSE(result.ok());
        if (result.error.find("the circuit is open: 8 requests in a row") != std::string::npos) {
            ++circuit;
        }
    }
    CHECK(circuit >= 25 - 15);
    CHECK(server.requests() >= 8);
    CHECK(server.requests() <= 15);
}

TEST_CASE("breaker: a fresh actor whose probe reaches the server closes the circuit",
          "[model][budget]") {
    std::atomic<bool> down{true};
    FakeServer server([&](const FakeRequest& request, int) {
        if (down) return Reply::hang();
        return Reply::completion("echo: " + request.text);
    });
    Options o;
    o.model = "budget-reopen";
    o.breaker = 2;
    auto client = text_client(server.base_url(), o);
    const auto results = client(items(3));
    CHECK_THAT(results[2].error, StartsWith("not sent: the circuit is open: 2 requests in a row"));
    CHECK(server.requests() == 2);
    down = false;
    // Still open for this actor: nothing is sent.
    CHECK_THAT(client(items(1, "later "))[0].error, StartsWith("not sent: the circuit is open"));
    CHECK(server.requests() == 2);
    // A new actor's probe connects: the server is up, the circuit closes for every actor.
    o.probe = true;
    auto fresh = text_client(server.base_url(), o);
    CHECK(fresh(items(1, "later "))[0].text == "echo: later 0");
    CHECK(client(items(1, "after "))[0].text == "echo: after 0");
}

TEST_CASE("budget settings below zero fail the actor's setup", "[model][budget]") {
    Options o;
    o.budget = milliseconds(-1);
    CHECK_THROWS_WITH(text_client("http://127.0.0.1:1/v1", o),
                      "model: budget must be >= 0, not -1 ms");
    o.budget = milliseconds(0);
    o.root_budget = milliseconds(-5);
    CHECK_THROWS_WITH(text_client("http://127.0.0.1:1/v1", o),
                      "model: root_budget must be >= 0, not -5 ms");
    o.root_budget = milliseconds(0);
    o.breaker = -1;
    CHECK_THROWS_WITH(text_client("http://127.0.0.1:1/v1", o),
                      "model: breaker must be >= 0, not -1");
}
