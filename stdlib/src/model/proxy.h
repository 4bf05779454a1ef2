// Which proxy, if any, a model server is reached through: the usual environment variables
// (https_proxy, http_proxy, no_proxy and their upper-case forms), read as curl reads them.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "protocol.h"

namespace rop::stdlib::model::detail {

// An HTTP proxy: plain requests go to it in absolute form, https ones through a CONNECT tunnel.
struct Proxy {
    std::string host;
    std::string port;      // "1080" (curl's default) when the variable names none
    std::string variable;  // where it came from ("https_proxy"), for messages
    std::string authority() const;
};

// A variable's value, nullopt when unset; std::getenv by default, tests pass their own.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
std::optional<std::string> process_environment(const std::string& name);

// The proxy for `endpoint`: https_proxy/HTTPS_PROXY for https URLs, http_proxy/HTTP_PROXY for
// http ones (the lower-case name wins; an empty value means none), unless no_proxy/NO_PROXY
// matches the host: a comma list of host names (each also matching its subdomains, a leading
// dot ignored), IP addresses, or `*` for every host. Throws std::invalid_argument for a proxy
// URL the client cannot use (not http://, or with credentials); the message names the variable,
// never its value, which may hold a password.
std::optional<Proxy> proxy_for(const Endpoint& endpoint,
                               const Environment& environment = process_environment);

// Whether the no_proxy list `list` exempts `host`.
bool no_proxy_matches(const std::string& list, const std::string& host);

}  // namespace rop::stdlib::model::detail
