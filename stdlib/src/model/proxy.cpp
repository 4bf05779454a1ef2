// Proxy selection from the environment. Proxy URLs are parsed by Boost.URL; a bare
// "host:port" (as many shells export it) is read as http://host:port.
#include "proxy.h"

#include <algorithm>
#include <boost/url/parse.hpp>
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace rop::stdlib::model::detail {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

// The first of `names` that is set, with its name.
std::optional<std::pair<std::string, std::string>> first_set(
    const Environment& environment, std::initializer_list<const char*> names) {
    for (const char* name : names) {
        if (auto value = environment(name)) return std::make_pair(std::string(name), *value);
    }
    return std::nullopt;
}

Proxy parse_proxy(const std::string& variable, std::string value) {
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("model: the proxy in $" + variable + " " + why);
    };
    if (value.find("://") == std::string::npos) value = "http://" + value;
    const auto parsed = boost::urls::parse_uri(value);
    if (!parsed) fail("is not a URL like http://proxy:3128");
    const boost::urls::url_view url = *parsed;
    if (url.scheme_id() != boost::urls::scheme::http) {
        fail("must be an http:// proxy (TLS to the proxy itself is not supported)");
    }
    if (url.has_userinfo()) fail("has credentials: proxy authentication is not supported");
    if (url.host_address().empty()) fail("has no host");
    Proxy proxy;
    proxy.variable = variable;
    proxy.host = url.host_address();
    proxy.port = "1080";
    if (url.has_port()) {
        if (url.port_number() == 0 || std::to_string(url.port_number()) != url.port())
            fail("has a bad port (1..65535)");
        proxy.port = std::to_string(url.port_number());
    }
    return proxy;
}

}  // namespace

std::string Proxy::authority() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + port;
}

std::optional<std::string> process_environment(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

bool no_proxy_matches(const std::string& list, const std::string& host) {
    const std::string name = lower(host);
    std::string_view rest = list;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        std::string_view entry = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (entry == "*") return true;
        if (entry.starts_with('[') && entry.ends_with(']')) {
            entry = entry.substr(1, entry.size() - 2);
        }
        while (entry.starts_with('.')) entry.remove_prefix(1);
        if (entry.empty()) continue;
        const std::string suffix = lower(entry);
        if (name == suffix) return true;
        if (name.size() > suffix.size() && name.ends_with(suffix) &&
            name[name.size() - suffix.size() - 1] == '.') {
            return true;
        }
    }
    return false;
}

std::optional<Proxy> proxy_for(const Endpoint& endpoint, const Environment& environment) {
    const auto chosen = endpoint.tls ? first_set(environment, {"https_proxy", "HTTPS_PROXY"})
                                     : first_set(environment, {"http_proxy", "HTTP_PROXY"});
    if (!chosen || trim(chosen->second).empty()) return std::nullopt;
    if (const auto exempt = first_set(environment, {"no_proxy", "NO_PROXY"})) {
        if (no_proxy_matches(exempt->second, endpoint.host)) return std::nullopt;
    }
    return parse_proxy(chosen->first, std::string(trim(chosen->second)));
}

}  // namespace rop::stdlib::model::detail
