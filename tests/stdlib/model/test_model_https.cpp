// The model client against servers as they are deployed: https with a CA made at test time,
// a bearer key from the environment that never shows up in a message, and proxies from the
// environment (a CONNECT tunnel for https, absolute-form requests for http).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "connect_proxy.h"
#include "fake_server.h"
#include "protocol.h"
#include "proxy.h"
#include "rop/stdlib/model.h"
#include "test_pki.h"

namespace model = rop::stdlib::model;
namespace detail = rop::stdlib::model::detail;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using rop::test::model::ConnectProxy;
using rop::test::model::FakeRequest;
using rop::test::model::FakeServer;
using rop::test::model::Reply;
using rop::test::model::ServerTls;
using rop::test::model::TestPki;
using std::chrono::milliseconds;

namespace {

constexpr const char* kToken = "sk-live-SECRET-4d1f9a";

// Sets (or, with nullopt, unsets) environment variables for one test and restores them after.
class ScopedEnv {
  public:
    ScopedEnv(std::initializer_list<std::pair<const char*, std::optional<std::string>>> values) {
        for (const auto& [name, value] : values) {
            const char* old = std::getenv(name);
            saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
            if (value)
                ::setenv(name, value->c_str(), 1);
            else
                ::unsetenv(name);
        }
    }
    ~ScopedEnv() {
        for (const auto& [name, value] : saved_) {
            if (value)
                ::setenv(name.c_str(), value->c_str(), 1);
            else
                ::unsetenv(name.c_str());
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    std::map<std::string, std::optional<std::string>> saved_;
};

// Whether `done` comes to hold (the server notices a refused handshake on its own thread). The
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

Reply echo(const FakeRequest& request, int /*attempt*/) {
    return Reply::completion("echo: " + request.text);
}

model::ChatText https_client(const std::string& base_url, const std::string& ca_bundle,
                             int retries = 0) {
    // No probe: these tests count connections and handshakes.
    return model::ChatText(base_url, "fake-model", "", 64, 0.0, milliseconds(5000), 2, retries,
                           milliseconds(10), "ROP_TEST_MODEL_KEY", "", ca_bundle,
                           /*probe=*/false);
}

std::string failure_of(model::ChatText& client) {
    try {
        client(std::vector<std::string>{"hello"});
    } catch (const std::runtime_error& error) {
        return error.what();
    }
    return "(no failure)";
}

}  // namespace

TEST_CASE("https: with the CA bundle the request goes through with the bearer key", "[https]") {
    TestPki pki;
    FakeServer server(echo, ServerTls{pki.server_cert(), pki.server_key()});
    ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                  {"ROP_CA_BUNDLE", std::nullopt},
                  {"https_proxy", std::nullopt},
                  {"HTTPS_PROXY", std::nullopt}};
    REQUIRE(server.base_url().starts_with("https://127.0.0.1:"));
    auto client = https_client(server.base_url(), pki.ca());
    const auto results = client(std::vector<std::string>{"one", "two", "three"});
    REQUIRE(results.size() == 3);
    CHECK(results[0].text == "echo: one");
    CHECK(results[2].text == "echo: three");
    const auto received = server.received();
    REQUIRE(received.size() == 3);
    for (const auto& request : received) {
        CHECK(request.authorization == std::string("Bearer ") + kToken);
        CHECK(request.target == "/v1/chat/completions");
        CHECK(request.host == "127.0.0.1:" + std::to_string(server.port()));
    }
    CHECK(server.handshake_failures() == 0);
    // The connections are kept alive across batches, TLS included.
    CHECK(client(std::vector<std::string>{"four"}).at(0).text == "echo: four");
    CHECK(client.stats().connections == 2);
    CHECK(server.connections() == 2);
}

TEST_CASE("https: $ROP_CA_BUNDLE stands in for the ca_bundle argument; localhost by name",
          "[https]") {
    TestPki pki;
    FakeServer server(echo, ServerTls{pki.server_cert(), pki.server_key()});
    ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                  {"ROP_CA_BUNDLE", pki.ca()},
                  {"https_proxy", std::nullopt},
                  {"HTTPS_PROXY", std::nullopt}};
    auto client = https_client("https://localhost:" + std::to_string(server.port()) + "/v1", "");
    CHECK(client(std::vector<std::string>{"x"}).at(0).text == "echo: x");
    CHECK(server.received().at(0).host == "localhost:" + std::to_string(server.port()));
}

TEST_CASE("https: without the CA the certificate check fails, naming the host, not retried",
          "[https]") {
    TestPki pki;
    FakeServer server(echo, ServerTls{pki.server_cert(), pki.server_key()});
    ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                  {"ROP_CA_BUNDLE", std::nullopt},
                  {"https_proxy", std::nullopt},
                  {"HTTPS_PROXY", std::nullopt}};
    auto client = https_client(server.base_url(), "", /*retries=*/3);
    const std::string failure = failure_of(client);
    const std::string host = "127.0.0.1:" + std::to_string(server.port());
    CHECK_THAT(failure, ContainsSubstring("TLS: the certificate of " + host +
                                          " did not verify: unable to get local issuer "
                                          "certificate"));
    CHECK_THAT(failure, ContainsSubstring("[not retried]"));
    CHECK_THAT(failure, !ContainsSubstring(kToken));
    CHECK(client.stats().retries == 0);
    CHECK(client.stats().requests == 0);  // nothing was sent: the key never left
    CHECK(server.requests() == 0);
    CHECK(eventually([&] { return server.handshake_failures() == 1; }));
}

TEST_CASE("https: a certificate that does not verify is one handshake per batch, permanent",
          "[https]") {
    TestPki pki;
    FakeServer server(echo, ServerTls{pki.server_cert(), pki.server_key()});
    ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                  {"ROP_CA_BUNDLE", std::nullopt},
                  {"https_proxy", std::nullopt},
                  {"HTTPS_PROXY", std::nullopt}};
    // Four items, four connections allowed: the first connect goes alone, and its refusal stops
    // the batch before the other three try. The failure names that item and is permanent: the
    // runtime does not replay it (test_model_runtime.cpp).
    model::ChatText client(server.base_url(), "fake-model", "", 64, 0.0, milliseconds(5000), 4, 3,
                           milliseconds(10), "ROP_TEST_MODEL_KEY", "", "", /*probe=*/false);
    for (int batch = 1; batch <= 2; ++batch) {
        CAPTURE(batch);
        try {
            client(std::vector<std::string>{"a", "b", "c", "d"});
            FAIL("the certificate was accepted");
        } catch (const rop::PermanentFailure& failure) {
            CHECK(failure.index() == 0);
            CHECK_THAT(failure.reason(), ContainsSubstring("(item 0 of 4): TLS: the certificate"));
            CHECK_THAT(failure.reason(), EndsWith(" [not retried]"));
        }
        CHECK(client.stats().connections == static_cast<std::uint64_t>(batch));
        CHECK(eventually([&] { return server.handshake_failures() == batch; }));
    }
    CHECK(client.stats().retries == 0);
    CHECK(server.requests() == 0);
}

TEST_CASE("https: a certificate for another host name fails verification", "[https]") {
    TestPki pki;
    FakeServer server(echo, ServerTls{pki.other_cert(), pki.other_key()});
    ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                  {"ROP_CA_BUNDLE", std::nullopt},
                  {"https_proxy", std::nullopt},
                  {"HTTPS_PROXY", std::nullopt}};
    const std::string port = std::to_string(server.port());
    auto by_ip = https_client(server.base_url(), pki.ca(), 2);
    CHECK_THAT(failure_of(by_ip), ContainsSubstring("TLS: the certificate of 127.0.0.1:" + port +
                                                    " did not verify: IP address mismatch"));
    CHECK(by_ip.stats().retries == 0);
    auto by_name = https_client("https://localhost:" + port + "/v1", pki.ca(), 2);
    CHECK_THAT(failure_of(by_name), ContainsSubstring("TLS: the certificate of localhost:" + port +
                                                      " did not verify: hostname mismatch"));
    CHECK(server.requests() == 0);
}

TEST_CASE("https: a CA bundle that is not there fails the actor's setup", "[https]") {
    ScopedEnv env{{"ROP_CA_BUNDLE", std::nullopt},
                  {"https_proxy", std::nullopt},
                  {"HTTPS_PROXY", std::nullopt}};
    CHECK_THROWS_WITH(
        model::ChatText("https://127.0.0.1:1/v1", "m", "", 16, 0.0, milliseconds(1000), 1, 0,
                        milliseconds(10), "", "", "/nonexistent/ca.pem"),
        "model: ca_bundle '/nonexistent/ca.pem' is not a file (a PEM file of "
        "trusted CA certificates)");
}

TEST_CASE("the key never appears in a message, even when the server echoes it", "[https]") {
    TestPki pki;
    const std::string echoed = std::string("Incorrect API key provided: ") + kToken + ".";
    FakeServer server(
        [&](const FakeRequest& request, int) {
            if (request.text == "rejected") return Reply::error(401, echoed);
            return Reply::error(503, echoed);
        },
        ServerTls{pki.server_cert(), pki.server_key()});
    ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                  {"ROP_CA_BUNDLE", std::nullopt},
                  {"https_proxy", std::nullopt},
                  {"HTTPS_PROXY", std::nullopt}};
    auto client = https_client(server.base_url(), pki.ca(), /*retries=*/1);
    const auto results = client(std::vector<std::string>{"rejected"});
    CHECK(results.at(0).error == "HTTP 401: Incorrect API key provided: <redacted>.");
    CHECK_THROWS_WITH(model::text(results.at(0)), !ContainsSubstring(kToken));
    const std::string failure = client(std::vector<std::string>{"hello"}).at(0).error;
    CHECK_THAT(failure, ContainsSubstring("HTTP 503: Incorrect API key provided: <redacted>."));
    CHECK_THAT(failure, !ContainsSubstring(kToken));
    CHECK(server.received().at(0).authorization == std::string("Bearer ") + kToken);
}

TEST_CASE("a key variable the .rop names but the environment lacks fails the setup", "[https]") {
    ScopedEnv env{{"ROP_TEST_MODEL_KEY", std::nullopt}};
    CHECK_THROWS_WITH(https_client("https://127.0.0.1:1/v1", ""),
                      "model: api_key_env names 'ROP_TEST_MODEL_KEY', which is not set in the "
                      "environment");
    ScopedEnv newline{{"ROP_TEST_MODEL_KEY", std::string(kToken) + "\n"}};
    try {
        https_client("https://127.0.0.1:1/v1", "");
        FAIL("a key with a newline was accepted");
    } catch (const std::invalid_argument& error) {
        CHECK(std::string(error.what()) ==
              "model: the key in $ROP_TEST_MODEL_KEY holds a control character (a trailing "
              "newline?)");
    }
}

TEST_CASE("$ROP_MODEL_API_KEY_ENV names the key's variable when the .rop names none", "[https]") {
    FakeServer server(echo);
    ScopedEnv env{{"ROP_MODEL_API_KEY_ENV", "ROP_TEST_DEPLOYED_KEY"},
                  {"ROP_TEST_DEPLOYED_KEY", kToken},
                  {"http_proxy", std::nullopt},
                  {"HTTP_PROXY", std::nullopt}};
    model::ChatText client(server.base_url(), "m", "", 16, 0.0, milliseconds(5000), 1, 0,
                           milliseconds(10));
    CHECK(client(std::vector<std::string>{"x"}).at(0).ok());
    CHECK(server.received().at(0).authorization == std::string("Bearer ") + kToken);
    ScopedEnv unset{{"ROP_TEST_DEPLOYED_KEY", std::nullopt}};
    CHECK_THROWS_WITH(model::ChatText(server.base_url(), "m"),
                      "model: $ROP_MODEL_API_KEY_ENV names 'ROP_TEST_DEPLOYED_KEY', which is not "
                      "set in the environment");
}

TEST_CASE("https through $https_proxy: a CONNECT tunnel, TLS end to end; no_proxy skips it",
          "[https][proxy]") {
    TestPki pki;
    FakeServer server(echo, ServerTls{pki.server_cert(), pki.server_key()});
    ConnectProxy proxy;
    const std::string authority = "127.0.0.1:" + std::to_string(server.port());
    {
        ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                      {"ROP_CA_BUNDLE", std::nullopt},
                      {"https_proxy", proxy.url()},
                      {"HTTPS_PROXY", std::nullopt},
                      {"no_proxy", "gpu-box.internal, .example.com"},
                      {"NO_PROXY", std::nullopt}};
        auto client = https_client(server.base_url(), pki.ca());
        CHECK(client(std::vector<std::string>{"via proxy"}).at(0).text == "echo: via proxy");
        CHECK(proxy.connect_targets() == std::vector<std::string>{authority});
        CHECK(server.received().at(0).authorization == std::string("Bearer ") + kToken);
        CHECK(server.received().at(0).target == "/v1/chat/completions");
    }
    {
        ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken},
                      {"ROP_CA_BUNDLE", std::nullopt},
                      {"https_proxy", proxy.url()},
                      {"HTTPS_PROXY", std::nullopt},
                      {"no_proxy", "gpu-box.internal,127.0.0.1"},
                      {"NO_PROXY", std::nullopt}};
        auto client = https_client(server.base_url(), pki.ca());
        CHECK(client(std::vector<std::string>{"direct"}).at(0).text == "echo: direct");
        CHECK(proxy.connect_targets().size() == 1);  // still only the first client's tunnel
    }
    {
        // Through the proxy, the certificate is still the server's and still checked.
        ScopedEnv env{{"ROP_TEST_MODEL_KEY", kToken}, {"ROP_CA_BUNDLE", std::nullopt},
                      {"https_proxy", std::nullopt},  {"HTTPS_PROXY", proxy.url()},
                      {"no_proxy", std::nullopt},     {"NO_PROXY", std::nullopt}};
        auto client = https_client(server.base_url(), "");
        CHECK_THAT(failure_of(client),
                   ContainsSubstring("TLS: the certificate of " + authority + " did not verify"));
        CHECK(proxy.connect_targets().size() == 2);
    }
    CHECK(server.requests() == 2);
}

TEST_CASE("http through $http_proxy: absolute-form requests to the proxy", "[proxy]") {
    FakeServer proxy(echo);  // answers proxied requests itself, as a caching proxy would
    ScopedEnv env{{"http_proxy", "127.0.0.1:" + std::to_string(proxy.port())},
                  {"HTTP_PROXY", std::nullopt},
                  {"no_proxy", std::nullopt},
                  {"NO_PROXY", std::nullopt}};
    // model.invalid does not resolve: only the proxy can have answered.
    model::ChatText client("http://model.invalid:8000/v1", "m", "", 16, 0.0, milliseconds(5000), 1,
                           0, milliseconds(10));
    CHECK(client(std::vector<std::string>{"hi"}).at(0).text == "echo: hi");
    const auto received = proxy.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0].target == "http://model.invalid:8000/v1/chat/completions");
    CHECK(received[0].host == "model.invalid:8000");
}

TEST_CASE("proxy choice: scheme, case, empty values, no_proxy lists", "[proxy]") {
    std::map<std::string, std::string> vars;
    const detail::Environment environment = [&](const std::string& name) {
        auto it = vars.find(name);
        return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    const auto https = detail::parse_base_url("https://api.example.com/v1");
    const auto http = detail::parse_base_url("http://gpu-box:8000/v1");
    CHECK_FALSE(detail::proxy_for(https, environment));

    vars = {{"HTTPS_PROXY", "http://upper:3128"}, {"http_proxy", "http://plain:8080/"}};
    auto proxy = detail::proxy_for(https, environment);
    REQUIRE(proxy);
    CHECK(proxy->authority() == "upper:3128");
    CHECK(proxy->variable == "HTTPS_PROXY");
    CHECK(detail::proxy_for(http, environment)->authority() == "plain:8080");

    vars["https_proxy"] = "lower";  // lower case wins; a bare host gets curl's port
    CHECK(detail::proxy_for(https, environment)->authority() == "lower:1080");
    vars["https_proxy"] = "";  // set but empty: no proxy, whatever HTTPS_PROXY says
    CHECK_FALSE(detail::proxy_for(https, environment));
    vars["https_proxy"] = "http://[::1]:3128";
    CHECK(detail::proxy_for(https, environment)->authority() == "[::1]:3128");

    vars["NO_PROXY"] = "example.com";
    CHECK_FALSE(detail::proxy_for(https, environment));  // a subdomain of a listed name
    CHECK(detail::proxy_for(http, environment));
    vars["no_proxy"] = " gpu-box ";  // lower case wins over NO_PROXY
    CHECK(detail::proxy_for(https, environment));
    CHECK_FALSE(detail::proxy_for(http, environment));

    CHECK(detail::no_proxy_matches("*", "anything"));
    CHECK(detail::no_proxy_matches(".example.com", "api.example.com"));
    CHECK(detail::no_proxy_matches(".example.com", "example.com"));
    CHECK(detail::no_proxy_matches("EXAMPLE.com", "Api.Example.COM"));
    CHECK_FALSE(detail::no_proxy_matches("example.com", "badexample.com"));
    CHECK_FALSE(detail::no_proxy_matches("127.0.0.1", "127.0.0.10"));
    CHECK(detail::no_proxy_matches("localhost,[::1]", "::1"));
    CHECK_FALSE(detail::no_proxy_matches("", "host"));

    vars = {{"https_proxy", "https://tls-proxy:443"}};
    CHECK_THROWS_WITH(detail::proxy_for(https, environment),
                      "model: the proxy in $https_proxy must be an http:// proxy (TLS to the "
                      "proxy itself is not supported)");
    vars = {{"https_proxy", "http://me:hunter2@proxy:3128"}};
    try {
        detail::proxy_for(https, environment);
        FAIL("a proxy with credentials was accepted");
    } catch (const std::invalid_argument& error) {
        CHECK_THAT(error.what(), ContainsSubstring("$https_proxy has credentials"));
        CHECK_THAT(error.what(), !ContainsSubstring("hunter2"));
    }
}
