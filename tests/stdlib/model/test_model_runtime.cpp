// The model client run by the runtime, as a generated pipeline runs it (rop::gen's actors): what
// retrying cannot fix is tried once per item and never replayed by the Call's retries or
// recovery (issue 32 item 8). A server certificate that does not verify fails each root at the
// model Call after one handshake per item (rop::PermanentFailure naming the item); a 400 is one
// request per item, and each root fails at `text`; a 503 that passes is retried and the roots
// succeed.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "fake_server.h"
#include "rop/runtime/generated.h"
#include "rop/runtime/run.h"
#include "rop/stdlib/model.h"
#include "test_pki.h"

namespace model = rop::stdlib::model;
namespace rt = rop::runtime;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using rop::test::model::FakeRequest;
using rop::test::model::FakeServer;
using rop::test::model::Reply;
using rop::test::model::ServerTls;
using rop::test::model::TestPki;
using std::chrono::milliseconds;

namespace {

// Whether `done` comes to hold (the server counts a refused handshake on its own thread). The
// 60 s only guard against a hang: a loaded machine never needs them, a broken client fails.
template <class Predicate>
bool eventually(Predicate done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(milliseconds(5));
    }
    return true;
}

// What the client counted (ClientStats): the connections it opened, the requests it sent, the
// attempts it started (refused connections included).
struct Seen {
    std::atomic<std::uint64_t> connections{0};
    std::atomic<std::uint64_t> requests{0};
    std::atomic<std::uint64_t> attempts{0};
};

// `answers = map texts with std.model.ChatText(...)`, as ropc generates a batch map; it also
// keeps its client's counts in `seen` after every batch.
struct AnswersCall final : rop::gen::BatchActor<AnswersCall> {
    AnswersCall(const std::string& base_url, std::shared_ptr<Seen> seen)
        : udf_(base_url, "fake-model", "", 64, 0.0, milliseconds(5000), /*max_in_flight=*/8,
               /*retries=*/2, milliseconds(10), "", "", "", /*probe=*/false),
          seen_(std::move(seen)) {}
    AnswersCall(model::ChatText udf, std::shared_ptr<Seen> seen)
        : udf_(std::move(udf)), seen_(std::move(seen)) {}
    void run(rop::gen::Grains grains) {
        const std::vector<std::string> input_0 = grains.gather<std::string>(0);
        struct Count {
            const AnswersCall& call;
            ~Count() {
                call.seen_->connections = call.udf_.stats().connections;
                call.seen_->requests = call.udf_.stats().requests;
                call.seen_->attempts = call.udf_.stats().attempts;
            }
        } count{*this};
        auto results = udf_(std::span<const std::string>(input_0));
        grains.check_size(results, "rop::stdlib::model::ChatText");
        for (std::size_t i = 0; i < grains.size(); ++i) {
            grains[i].out<model::Completion>(0, std::move(results[i]));
        }
    }
    model::ChatText udf_;
    std::shared_ptr<Seen> seen_;
};

// `text = map answers with std.model.text`, as ropc generates an element map.
struct TextCall final : rop::gen::ElementActor<TextCall> {
    void run(rop::gen::Grain grain) {
        grain.out<std::string>(0, model::text(grain.in<model::Completion>(0)));
    }
};

class Texts final : public rt::RootSource {
  public:
    explicit Texts(int count) : count_(count) {}
    std::optional<Root> next() override {
        if (next_ == count_) return std::nullopt;
        const std::string text = "page " + std::to_string(next_++);
        return Root{rt::Value::of<std::string>(text), text};
    }

  private:
    int count_;
    int next_ = 0;
};

// `roots` roots in batches of up to 8, the Call's retries 2 under `recovery`; the model Call's
// client made by `make`.
rt::RunReport run_pipeline(std::function<model::ChatText()> make, rt::Recovery recovery,
                           std::shared_ptr<Seen> seen, int roots) {
    rt::PlanBuilder b;
    const rt::DomainId doc = b.add_domain("Doc");
    const rt::PortId src = b.source("texts");
    const rt::PortId answers = b.add_port("answers", doc);
    const rt::PortId text = b.add_port("text", doc);
    rt::CallOptions o;
    o.batch = 8;
    o.actors = 1;
    o.retries = 2;
    o.recovery = recovery;
    b.add_call({"answers", rt::CallKind::Map, doc, {{src}}, {answers}, o, [make, seen] {
                    return std::make_unique<AnswersCall>(make(), seen);
                }});
    b.add_call(
        {"text", rt::CallKind::Map, doc, {{answers}}, {text}, o, rop::gen::make_actor<TextCall>});
    Texts source(roots);
    return rt::run(b.build(), source, rt::RunOptions{});
}

// Five roots, one batch of five (batch 8), the Call's retries 2 under `recovery`.
rt::RunReport run_pipeline(const std::string& base_url, rt::Recovery recovery,
                           std::shared_ptr<Seen> seen = std::make_shared<Seen>()) {
    return run_pipeline(
        [base_url] {
            return model::ChatText(base_url, "fake-model", "", 64, 0.0, milliseconds(5000),
                                   /*max_in_flight=*/8, /*retries=*/2, milliseconds(10), "", "", "",
                                   /*probe=*/false);
        },
        recovery, std::move(seen), 5);
}

const rt::CallCounters& counters(const rt::RunReport& report, const std::string& name) {
    for (const rt::CallCounters& c : report.calls) {
        if (c.name == name) return c;
    }
    FAIL("no call " << name);
    return report.calls.front();
}

}  // namespace

TEST_CASE("under the runtime, a certificate that does not verify is one handshake per item",
          "[model][runtime]") {
    TestPki pki;
    FakeServer server([](const FakeRequest&, int) { return Reply::completion("never"); },
                      ServerTls{pki.server_cert(), pki.server_key()});
    for (rt::Recovery recovery : {rt::Recovery::IsolateTail, rt::Recovery::RetryBatch}) {
        CAPTURE(static_cast<int>(recovery));
        const int before = server.handshake_failures();
        auto seen = std::make_shared<Seen>();
        const rt::RunReport report = run_pipeline(server.base_url(), recovery, seen);  // no CA
        REQUIRE(report.roots.size() == 5);
        for (const rt::RootResult& root : report.roots) {
            CAPTURE(root.name);
            CHECK(root.status == rt::RootStatus::Failed);
            CHECK(root.failed_call == "answers");
            CHECK_THAT(root.reason,
                       ContainsSubstring("TLS: the certificate of 127.0.0.1:" +
                                         std::to_string(server.port()) + " did not verify"));
            CHECK_THAT(root.reason, EndsWith("[not retried]"));
        }
        CHECK(counters(report, "answers").retries == 0);
        CHECK(seen->connections == 5);  // one per item: the other items' connects waited
        CHECK(seen->requests == 0);
        CHECK(eventually([&] { return server.handshake_failures() - before == 5; }));
    }
    CHECK(server.requests() == 0);
}

TEST_CASE("under the runtime, a 400 is one request per item; its root fails at text",
          "[model][runtime]") {
    FakeServer server([](const FakeRequest& request, int) {
        if (request.text == "page 3") return Reply::completion("fine");
        return Reply::error(400, "This model's maximum context length is 32768 tokens.");
    });
    const rt::RunReport report = run_pipeline(server.base_url(), rt::Recovery::IsolateTail);
    REQUIRE(report.roots.size() == 5);
    for (const rt::RootResult& root : report.roots) {
        CAPTURE(root.name);
        if (root.name == "page 3") {
            CHECK(root.status == rt::RootStatus::Ok);
            continue;
        }
        CHECK(root.status == rt::RootStatus::Failed);
        CHECK(root.failed_call == "text");
        CHECK(root.reason ==
              "model: HTTP 400: This model's maximum context length is 32768 tokens.");
    }
    CHECK(server.requests() == 5);
    CHECK(counters(report, "answers").retries == 0);
    CHECK(counters(report, "text").retries == 0);
}

TEST_CASE("under the runtime, a 503 that passes is retried by the client", "[model][runtime]") {
    FakeServer server([](const FakeRequest& request, int attempt) {
        if (attempt == 0) return Reply::error(503, "warming up");
        return Reply::completion("answer to " + request.text);
    });
    const rt::RunReport report = run_pipeline(server.base_url(), rt::Recovery::IsolateTail);
    REQUIRE(report.roots.size() == 5);
    for (const rt::RootResult& root : report.roots) CHECK(root.status == rt::RootStatus::Ok);
    CHECK(server.requests() == 10);
    CHECK(counters(report, "answers").udf_counters.at("http_retries") == 5);
}

TEST_CASE("under the runtime, a server that never answers: each root within its budget, no replay",
          "[model][runtime][budget]") {
    FakeServer server([](const FakeRequest&, int) { return Reply::hang(); });
    auto seen = std::make_shared<Seen>();
    const std::string url = server.base_url();
    // 25 roots, batches of 8, 8 in flight: each item 100 ms attempts, at most 250 ms in all; no
    // breaker, so every item spends its own budget.
    const rt::RunReport report = run_pipeline(
        [url] {
            return model::ChatText(url, "runtime-budget", "", 64, 0.0, milliseconds(100), 8,
                                   /*retries=*/4, milliseconds(10), "", "", "", false,
                                   /*budget=*/milliseconds(250), milliseconds(0), /*breaker=*/0);
        },
        rt::Recovery::IsolateTail, seen, 25);
    REQUIRE(report.roots.size() == 25);
    for (const rt::RootResult& root : report.roots) {
        CAPTURE(root.name);
        CHECK(root.status == rt::RootStatus::Failed);
        CHECK(root.failed_call == "text");  // the model Call returned: nothing to replay
        CHECK_THAT(root.reason, StartsWith("model: failed after "));
        CHECK_THAT(root.reason, ContainsSubstring(" (its budget: 250 ms): timed out after "));
    }
    CHECK(counters(report, "answers").retries == 0);
    // 3 attempts at most an item (the budget, not the 5 its retries allow), each tried in one
    // batch: the runtime bisected nothing.
    CHECK(server.requests() <= 25 * 3);
}

TEST_CASE("under the runtime, a dead server: at most 2 attempts a root, one circuit",
          "[model][runtime][budget]") {
    const std::string url =
        "http://127.0.0.1:" + std::to_string(rop::test::model::closed_port()) + "/v1";
    auto seen = std::make_shared<Seen>();
    const rt::RunReport report = run_pipeline(
        [url] {
            return model::ChatText(url, "runtime-dead", "", 64, 0.0, milliseconds(1000), 8,
                                   /*retries=*/4, milliseconds(10), "", "", "", false);
        },
        rt::Recovery::IsolateTail, seen, 25);
    REQUIRE(report.roots.size() == 25);
    int circuit = 0;
    for (const rt::RootResult& root : report.roots) {
        CAPTURE(root.name);
        CHECK(root.status == rt::RootStatus::Failed);
        CHECK(root.failed_call == "text");
        if (root.reason.find("the circuit is open: 8 requests in a row to " + url) !=
            std::string::npos) {
            ++circuit;
        }
    }
    CHECK(circuit >= 25 - 15);
    CHECK(counters(report, "answers").retries == 0);
    // The default breaker (8) and 8 in flight: at most 15 connection attempts for 25 roots (the
    // client before the budgets made 9-23 a root).
    CHECK(seen->attempts <= 15);
    CHECK(seen->connections == 0);
}
