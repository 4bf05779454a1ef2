// TLS for https:// model servers: one OpenSSL context per actor (peer verification on, the
// system's CA paths or a PEM bundle), per-connection SNI and host name checks, and failure
// messages that say which host failed and OpenSSL's reason.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <string>

namespace rop::stdlib::model::detail {

// Verifies peers against `ca_bundle` (a PEM file of trusted CAs) when it is not empty, else
// against OpenSSL's default paths (the system store; SSL_CERT_FILE/SSL_CERT_DIR override it).
// TLS 1.2 at least. Throws std::invalid_argument when the bundle cannot be loaded.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& ca_bundle);

// Before the handshake on `ssl`: SNI (host names only, never IP literals, RFC 6066) and the
// check that the certificate names `host` (a DNS name or an IP address). Throws
// std::runtime_error if OpenSSL refuses the name.
void expect_peer(SSL* ssl, const std::string& host);

// Why a handshake failed, naming the peer and OpenSSL's reason.
struct TlsFailure {
    std::string message;
    bool setup = false;  // not worth retrying: a bad certificate, no TLS at the other end
};
TlsFailure tls_failure(SSL* ssl, const boost::system::error_code& ec, const std::string& peer);

}  // namespace rop::stdlib::model::detail
