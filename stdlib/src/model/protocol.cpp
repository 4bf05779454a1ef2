// Request bodies and response parsing for OpenAI-compatible chat-completions servers (vLLM,
// SGLang, llama.cpp's server, OpenAI itself).
#include "protocol.h"

#include <boost/url/parse.hpp>
#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace rop::stdlib::model::detail {
namespace {

using nlohmann::json;

json request_skeleton(const RequestOptions& options) {
    json body = {{"model", options.model}, {"temperature", options.temperature}};
    if (options.max_tokens > 0) body["max_tokens"] = options.max_tokens;
    body["messages"] = json::array();
    if (!options.system.empty()) {
        body["messages"].push_back({{"role", "system"}, {"content", options.system}});
    }
    return body;
}

std::string trimmed(std::string_view text, std::size_t limit) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' ||
                             text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' ||
                             text.back() == '\t')) {
        text.remove_suffix(1);
    }
    if (text.size() <= limit) return std::string(text);
    return std::string(text.substr(0, limit)) + "...";
}

}  // namespace

std::string Endpoint::authority() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + port;
}

// Boost.URL parses (RFC 3986: IP literals, percent-encoding, ports); this checks what the client
// can use.
Endpoint parse_base_url(std::string_view base_url) {
    const std::string quoted = "'" + std::string(base_url) + "'";
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("model: base_url " + quoted + " " + why);
    };
    const auto parsed = boost::urls::parse_uri(base_url);
    if (!parsed) fail("must look like http://host:port/v1 or https://host/v1");
    const boost::urls::url_view url = *parsed;
    Endpoint endpoint;
    if (url.scheme_id() == boost::urls::scheme::https) {
        endpoint.tls = true;
    } else if (url.scheme_id() != boost::urls::scheme::http) {
        fail("must look like http://host:port/v1 or https://host/v1");
    }
    if (url.has_userinfo()) fail("has credentials: they are not supported (use api_key_env)");
    if (url.has_query() || url.has_fragment()) fail("must not have a query");
    if (url.host_type() == boost::urls::host_type::none ||
        url.host_type() == boost::urls::host_type::ipvfuture || url.host_address().empty()) {
        fail("has no host");
    }
    endpoint.host = url.host_address();
    if (url.has_port()) {
        if (url.port().empty() || url.port_number() == 0 ||
            std::to_string(url.port_number()) != url.port()) {
            fail("has a bad port (1..65535)");
        }
        endpoint.port = std::to_string(url.port_number());
    } else {
        endpoint.port = endpoint.tls ? "443" : "80";
    }
    const auto encoded_path = url.encoded_path();  // sent as it is: still percent-encoded
    std::string path(encoded_path.data(), encoded_path.size());
    while (path.ends_with('/')) path.pop_back();
    endpoint.target = path + "/chat/completions";
    endpoint.url = (endpoint.tls ? "https://" : "http://") + endpoint.authority() + endpoint.target;
    return endpoint;
}

std::string text_request_body(const RequestOptions& options, std::string_view text) {
    json body = request_skeleton(options);
    std::string content = options.prompt;
    if (!content.empty() && !text.empty()) content += "\n\n";
    content += text;
    body["messages"].push_back({{"role", "user"}, {"content", std::move(content)}});
    return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string image_request_body(const RequestOptions& options, std::string_view image_url) {
    json body = request_skeleton(options);
    json content = json::array();
    content.push_back({{"type", "image_url"}, {"image_url", {{"url", image_url}}}});
    if (!options.prompt.empty()) content.push_back({{"type", "text"}, {"text", options.prompt}});
    body["messages"].push_back({{"role", "user"}, {"content", std::move(content)}});
    return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Completion parse_completion(std::string_view body) {
    Completion completion;
    completion.status = 200;
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) {
        completion.error = "model server sent a response that is not JSON: " + trimmed(body, 200);
        return completion;
    }
    const auto choices = parsed.find("choices");
    if (choices == parsed.end() || !choices->is_array() || choices->empty() ||
        !(*choices)[0].is_object()) {
        completion.error = "model server sent no choices: " + trimmed(body, 200);
        return completion;
    }
    const json& choice = (*choices)[0];
    if (const auto message = choice.find("message");
        message != choice.end() && message->is_object()) {
        if (const auto content = message->find("content");
            content != message->end() && content->is_string()) {
            completion.text = content->get<std::string>();
        }
    }
    if (const auto reason = choice.find("finish_reason");
        reason != choice.end() && reason->is_string()) {
        completion.finish_reason = reason->get<std::string>();
    }
    if (const auto usage = parsed.find("usage"); usage != parsed.end() && usage->is_object()) {
        completion.prompt_tokens = usage->value("prompt_tokens", std::int64_t{0});
        completion.completion_tokens = usage->value("completion_tokens", std::int64_t{0});
    }
    return completion;
}

std::string error_message(std::string_view body) {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() && parsed.is_object()) {
        if (const auto error = parsed.find("error"); error != parsed.end()) {
            if (error->is_object()) {
                if (const auto message = error->find("message");
                    message != error->end() && message->is_string()) {
                    return trimmed(message->get<std::string>(), 500);
                }
            } else if (error->is_string()) {
                return trimmed(error->get<std::string>(), 500);
            }
        }
        for (const char* key : {"message", "detail"}) {
            if (const auto field = parsed.find(key); field != parsed.end() && field->is_string()) {
                return trimmed(field->get<std::string>(), 500);
            }
        }
    }
    std::string text = trimmed(body, 500);
    return text.empty() ? "(empty body)" : text;
}

std::optional<std::chrono::milliseconds> retry_after(std::string_view header) {
    while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
    double seconds = 0;
    const auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
    if (header.empty() || ec != std::errc{} || seconds < 0) return std::nullopt;
    (void)end;
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

}  // namespace rop::stdlib::model::detail
