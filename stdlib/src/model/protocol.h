// The OpenAI chat-completions protocol as the model client speaks it: the base URL, request
// bodies (text and image content parts) and what a response or an error body means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rop/stdlib/model.h"

namespace rop::stdlib::model::detail {

// `http[s]://host[:port][/path]`: where POST <path>/chat/completions goes. Anything else (no
// scheme, another scheme, credentials, a query) throws std::invalid_argument with the reason.
struct Endpoint {
    bool tls = false;               // https: TLS, with the server's certificate checked
    std::string host;               // "gpu-box", "127.0.0.1", "::1" (no brackets)
    std::string port;               // "80" or "443" when the URL names none
    std::string target;             // "/v1/chat/completions"
    std::string url;                // scheme://host:port/target, for messages
    std::string authority() const;  // host:port, [v6]:port: the Host header, CONNECT's target
};
Endpoint parse_base_url(std::string_view base_url);

// The sampling options every request carries.
struct RequestOptions {
    std::string model;
    std::string system;  // empty: no system message
    std::string prompt;
    int max_tokens = 0;  // <= 0: not sent (the server's default)
    double temperature = 0.0;
};

// One user message: the prompt and then the item's text, as one string.
std::string text_request_body(const RequestOptions& options, std::string_view text);
// One user message: the image (a data URL) then the prompt, as OpenAI content parts.
std::string image_request_body(const RequestOptions& options, std::string_view image_url);

// A 200 response body as a Completion; a body that is not a chat completion becomes a Completion
// whose `error` says why.
Completion parse_completion(std::string_view body);

// The human-readable message of an error body: OpenAI's {"error": {"message"}}, vLLM's
// {"message"}, FastAPI's {"detail"}, else the body itself (trimmed, at most 500 bytes).
std::string error_message(std::string_view body);

// The delay a Retry-After header asks for (seconds only, not HTTP dates); nullopt if none.
std::optional<std::chrono::milliseconds> retry_after(std::string_view header);

}  // namespace rop::stdlib::model::detail
