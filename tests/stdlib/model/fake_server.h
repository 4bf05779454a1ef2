// A local OpenAI-compatible chat-completions server for the model client's tests: POST
// /v1/chat/completions with JSON in and out, scriptable per request (answer, error, delay, drop
// the connection, never answer). Listens on 127.0.0.1 on a free port; runs on its own thread.
// With a certificate it speaks TLS (https); it also takes absolute-form targets, as a client
// sends them to an HTTP proxy, so a test can stand it in for one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rop::test::model {

// What the server understood of one request.
struct FakeRequest {
    std::string target;         // "/v1/chat/completions", or "http://host:port/v1/..." (proxy form)
    std::string host;           // the Host header
    std::string authorization;  // the Authorization header, "" if none
    std::string body;           // the raw JSON body
    std::string model;
    std::string system;      // the system message, "" if none
    std::string text;        // the user message's text (content parts joined with "\n")
    bool has_image = false;  // an image_url part with a PNG data URL was sent
    int width = 0;           // the decoded PNG
    int height = 0;
    int channels = 0;
    std::vector<std::uint8_t> pixels;
    int max_tokens = 0;
    double temperature = -1;
    std::string error;  // set when the body was not what the client should send
};

// What to do with it.
struct Reply {
    enum class Kind { answer, drop, hang };
    Kind kind = Kind::answer;
    int status = 200;
    std::string body;
    std::string retry_after;             // Retry-After header value, if any
    std::chrono::milliseconds delay{0};  // wait before answering (or dropping)
    bool close_after = false;            // answer with keep-alive, then close the connection anyway

    static Reply completion(const std::string& text, const std::string& finish_reason = "stop");
    static Reply error(int status, const std::string& message);  // OpenAI-style error body
    static Reply drop();
    static Reply hang();
};

// `attempt` counts earlier requests with the same key (FakeRequest::text, plus the image size
// for image requests), from 0.
using Handler = std::function<Reply(const FakeRequest& request, int attempt)>;

// PEM files of the certificate (chain) and key an https server presents.
struct ServerTls {
    std::string certificate_chain;
    std::string private_key;
};

class FakeServer {
  public:
    explicit FakeServer(Handler handler);
    FakeServer(Handler handler, const ServerTls& tls);  // https
    ~FakeServer();
    FakeServer(const FakeServer&) = delete;
    FakeServer& operator=(const FakeServer&) = delete;

    std::string base_url() const;  // http[s]://127.0.0.1:<port>/v1
    int port() const;
    int handshake_failures() const;  // TLS handshakes that failed (the client refused us)

    int requests() const;        // requests read
    int connections() const;     // connections accepted
    int max_concurrent() const;  // most requests being handled at once
    // When each request with this key arrived, in order.
    std::vector<std::chrono::steady_clock::time_point> arrivals(const std::string& key) const;
    std::vector<FakeRequest> received() const;  // every request, in arrival order

    static std::string key_of(const FakeRequest& request);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A port on 127.0.0.1 that nothing listens on (bound, then released).
int closed_port();

}  // namespace rop::test::model
