#include "test_pki.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rop::test::model {
namespace {

std::string read_all(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

}  // namespace

TestPki::TestPki() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rop-pki-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    const std::string d = dir_.string();
    const std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    write(dir_ / "server.ext",
          "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
          "extendedKeyUsage=serverAuth\n");
    write(dir_ / "other.ext",
          "subjectAltName=DNS:other.example\nbasicConstraints=CA:FALSE\n"
          "extendedKeyUsage=serverAuth\n");
    const std::string commands[] = {
        "openssl req -x509" + key + " -keyout " + d + "/ca.key -out " + d +
            "/ca.pem -days 2 -subj '/CN=rop test CA'"
            " -addext basicConstraints=critical,CA:TRUE"
            " -addext keyUsage=critical,keyCertSign,cRLSign",
        "openssl req" + key + " -keyout " + d + "/server.key -out " + d +
            "/server.csr -subj /CN=localhost",
        "openssl x509 -req -in " + d + "/server.csr -CA " + d + "/ca.pem -CAkey " + d +
            "/ca.key -CAcreateserial -days 2 -extfile " + d + "/server.ext -out " + d +
            "/server.pem",
        "openssl req" + key + " -keyout " + d + "/other.key -out " + d +
            "/other.csr -subj /CN=other.example",
        "openssl x509 -req -in " + d + "/other.csr -CA " + d + "/ca.pem -CAkey " + d +
            "/ca.key -CAcreateserial -days 2 -extfile " + d + "/other.ext -out " + d + "/other.pem",
    };
    for (const std::string& command : commands) {
        if (std::system((command + " >>" + d + "/openssl.log 2>&1").c_str()) != 0) {
            throw std::runtime_error("'" + command + "' failed:\n" +
                                     read_all(dir_ / "openssl.log"));
        }
    }
}

TestPki::~TestPki() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

std::string TestPki::path(const char* name) const { return (dir_ / name).string(); }
std::string TestPki::ca() const { return path("ca.pem"); }
std::string TestPki::server_cert() const { return path("server.pem"); }
std::string TestPki::server_key() const { return path("server.key"); }
std::string TestPki::other_cert() const { return path("other.pem"); }
std::string TestPki::other_key() const { return path("other.key"); }

}  // namespace rop::test::model
