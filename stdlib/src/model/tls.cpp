// OpenSSL's own host check (SSL_set1_host) rather than asio's ssl::host_name_verification
// callback: the callback rejects a mismatch without setting an X509 error, so the failure could
// only say "certificate verify failed"; SSL_set1_host records "hostname mismatch" / "IP
// address mismatch", which the message passes on. Both use X509_check_host underneath.
#include "tls.h"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/error.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <filesystem>
#include <stdexcept>

namespace rop::stdlib::model::detail {

namespace ssl = boost::asio::ssl;

std::shared_ptr<ssl::context> make_tls_context(const std::string& ca_bundle) {
    auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
    context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                         ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                         ssl::context::no_tlsv1_1);
    context->set_verify_mode(ssl::verify_peer);
    boost::system::error_code ec;
    if (ca_bundle.empty()) {
        context->set_default_verify_paths(ec);
        if (ec) {
            throw std::invalid_argument("model: cannot load the system's CA certificates: " +
                                        ec.message());
        }
        return context;
    }
    std::error_code fs_ec;
    if (!std::filesystem::is_regular_file(ca_bundle, fs_ec)) {
        throw std::invalid_argument("model: ca_bundle '" + ca_bundle +
                                    "' is not a file (a PEM file of trusted CA certificates)");
    }
    context->load_verify_file(ca_bundle, ec);
    if (ec) {
        throw std::invalid_argument("model: ca_bundle '" + ca_bundle +
                                    "' holds no usable PEM certificate: " + ec.message());
    }
    return context;
}

void expect_peer(SSL* ssl, const std::string& host) {
    boost::system::error_code not_an_address;
    boost::asio::ip::make_address(host, not_an_address);
    const bool ip_literal = !not_an_address;
    // SSL_set_tlsext_host_name, without the macro's C cast.
    if (!ip_literal && SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                                const_cast<char*>(host.c_str())) != 1) {
        throw std::runtime_error("model: TLS: cannot send the server name '" + host + "'");
    }
    // An IP literal is checked against the certificate's IP addresses, a name against its DNS
    // names (OpenSSL 3 tells them apart itself).
    if (SSL_set1_host(ssl, host.c_str()) != 1) {
        throw std::runtime_error("model: TLS: cannot check the certificate against '" + host + "'");
    }
}

TlsFailure tls_failure(SSL* ssl, const boost::system::error_code& ec, const std::string& peer) {
    TlsFailure failure;
    const long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) {
        failure.setup = true;
        failure.message = "TLS: the certificate of " + peer +
                          " did not verify: " + X509_verify_cert_error_string(verify) +
                          " (trusted CAs: ca_bundle, $ROP_CA_BUNDLE, or the system's)";
        return failure;
    }
    failure.setup = ec.category() == boost::asio::error::get_ssl_category();
    failure.message = "TLS handshake with " + peer + ": " + ec.message();
    return failure;
}

}  // namespace rop::stdlib::model::detail
