// Certificates for the https tests, made at test time with the `openssl` command in a fresh
// temporary folder: a self-signed CA, a server certificate it signs for localhost and
// 127.0.0.1, and one it signs for another host name only.
#pragma once

#include <filesystem>
#include <string>

namespace rop::test::model {

class TestPki {
  public:
    TestPki();  // throws std::runtime_error with openssl's output when a command fails
    ~TestPki();
    TestPki(const TestPki&) = delete;
    TestPki& operator=(const TestPki&) = delete;

    std::string ca() const;           // the CA certificate (PEM): the bundle a client trusts
    std::string server_cert() const;  // for DNS:localhost and IP:127.0.0.1
    std::string server_key() const;
    std::string other_cert() const;  // for DNS:other.example only
    std::string other_key() const;

  private:
    std::string path(const char* name) const;
    std::filesystem::path dir_;
};

}  // namespace rop::test::model
