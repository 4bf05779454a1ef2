// The fake chat-completions server: one acceptor coroutine, one coroutine per connection, all on
// one io_context thread. The handler runs on that thread, under the stats mutex.
#include "fake_server.h"

#include <png.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>  // before Boost.Asio

namespace rop::test::model {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using nlohmann::json;

std::string base64_decode(std::string_view text) {
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::string out;
    std::uint32_t bits = 0;
    int count = 0;
    for (char c : text) {
        if (c == '=') break;
        const int v = value(c);
        if (v < 0) return {};
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out.push_back(static_cast<char>((bits >> count) & 0xFF));
        }
    }
    return out;
}

// Decodes the PNG into the request (libpng's simplified API, keeping the channel count).
void decode_png(const std::string& bytes, FakeRequest& request) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
        request.error = std::string("not a PNG: ") + image.message;
        return;
    }
    request.channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
    request.width = static_cast<int>(image.width);
    request.height = static_cast<int>(image.height);
    request.pixels.resize(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, request.pixels.data(), 0, nullptr)) {
        request.error = std::string("bad PNG: ") + image.message;
    }
    png_image_free(&image);
}

FakeRequest understand(const http::request<http::string_body>& req) {
    FakeRequest request;
    request.target = std::string(req.target());
    if (auto it = req.find(http::field::host); it != req.end()) {
        request.host = std::string(it->value());
    }
    if (auto it = req.find(http::field::authorization); it != req.end()) {
        request.authorization = std::string(it->value());
    }
    request.body = req.body();
    const json body = json::parse(req.body(), nullptr, false);
    if (body.is_discarded() || !body.is_object()) {
        request.error = "body is not a JSON object";
        return request;
    }
    request.model = body.value("model", "");
    request.max_tokens = body.value("max_tokens", 0);
    request.temperature = body.value("temperature", -1.0);
    if (!body.contains("messages") || !body["messages"].is_array()) {
        request.error = "no messages";
        return request;
    }
    for (const json& message : body["messages"]) {
        const std::string role = message.value("role", "");
        const json& content = message["content"];
        if (role == "system") {
            request.system = content.is_string() ? content.get<std::string>() : "";
            continue;
        }
        if (content.is_string()) {
            request.text = content.get<std::string>();
            continue;
        }
        for (const json& part : content) {
            const std::string type = part.value("type", "");
            if (type == "text") {
                if (!request.text.empty()) request.text += "\n";
                request.text += part.value("text", "");
            } else if (type == "image_url") {
                const std::string url = part["image_url"].value("url", "");
                constexpr std::string_view kPrefix = "data:image/png;base64,";
                if (!url.starts_with(kPrefix)) {
                    request.error = "image_url is not a PNG data URL";
                    continue;
                }
                request.has_image = true;
                decode_png(base64_decode(std::string_view(url).substr(kPrefix.size())), request);
            } else {
                request.error = "unknown content part type '" + type + "'";
            }
        }
    }
    return request;
}

// The path of an origin-form or absolute-form ("http://host:port/path") target.
std::string path_of(std::string_view target) {
    if (target.starts_with("http://")) {
        const std::size_t slash = target.find('/', 7);
        return slash == std::string_view::npos ? "/" : std::string(target.substr(slash));
    }
    return std::string(target);
}

tcp::socket& socket_of(tcp::socket& socket) { return socket; }
tcp::socket& socket_of(asio::ssl::stream<tcp::socket>& stream) { return stream.next_layer(); }

}  // namespace

Reply Reply::completion(const std::string& text, const std::string& finish_reason) {
    Reply reply;
    const json body = {
        {"id", "chatcmpl-test"},
        {"object", "chat.completion"},
        {"model", "fake"},
        {"choices", json::array({{{"index", 0},
                                  {"message", {{"role", "assistant"}, {"content", text}}},
                                  {"finish_reason", finish_reason}}})},
        {"usage", {{"prompt_tokens", 7}, {"completion_tokens", 3}, {"total_tokens", 10}}}};
    reply.body = body.dump();
    return reply;
}

Reply Reply::error(int status, const std::string& message) {
    Reply reply;
    reply.status = status;
    reply.body =
        json{{"error", {{"message", message}, {"type", "invalid_request_error"}, {"code", status}}}}
            .dump();
    return reply;
}

Reply Reply::drop() {
    Reply reply;
    reply.kind = Kind::drop;
    return reply;
}

Reply Reply::hang() {
    Reply reply;
    reply.kind = Kind::hang;
    return reply;
}

std::string FakeServer::key_of(const FakeRequest& request) {
    if (!request.has_image) return request.text;
    return request.text + "@" + std::to_string(request.width) + "x" +
           std::to_string(request.height);
}

struct FakeServer::Impl {
    explicit Impl(Handler h)
        : handler(std::move(h)), acceptor(io, {asio::ip::make_address("127.0.0.1"), 0}) {}

    Handler handler;
    asio::io_context io{1};
    tcp::acceptor acceptor;
    std::optional<asio::ssl::context> tls;
    std::thread thread;

    mutable std::mutex mutex;
    int requests = 0;
    int connections = 0;
    int active = 0;
    int max_active = 0;
    int handshake_failures = 0;
    std::map<std::string, std::vector<std::chrono::steady_clock::time_point>> arrivals;
    std::vector<FakeRequest> received;

    template <class Stream>
    asio::awaitable<void> serve(Stream& socket) {
        beast::flat_buffer buffer;
        error_code ec;
        for (;;) {
            http::request_parser<http::string_body> parser;
            parser.body_limit(512u << 20);
            co_await http::async_read(socket, buffer, parser,
                                      asio::redirect_error(asio::use_awaitable, ec));
            if (ec) co_return;
            http::request<http::string_body> req = parser.release();
            FakeRequest request = understand(req);
            Reply reply;
            {
                std::lock_guard lock(mutex);
                ++requests;
                ++active;
                max_active = std::max(max_active, active);
                auto& times = arrivals[key_of(request)];
                times.push_back(std::chrono::steady_clock::now());
                const int attempt = static_cast<int>(times.size()) - 1;
                received.push_back(request);
                if (!request.error.empty()) {
                    reply = Reply::error(422, "fake server: " + request.error);
                } else if (path_of(req.target()) != "/v1/chat/completions" ||
                           req.method() != http::verb::post) {
                    reply = Reply::error(404, "fake server: no route " + std::string(req.target()));
                } else {
                    reply = handler(request, attempt);
                }
            }
            struct Done {
                Impl& impl;
                ~Done() {
                    std::lock_guard lock(impl.mutex);
                    --impl.active;
                }
            } done{*this};

            asio::steady_timer timer(io);
            if (reply.kind == Reply::Kind::hang) {
                // Never answer; notice when the client gives up (a read ends with EOF).
                beast::flat_buffer ignored;
                http::request_parser<http::string_body> next;
                co_await http::async_read(socket, ignored, next,
                                          asio::redirect_error(asio::use_awaitable, ec));
                co_return;
            }
            if (reply.delay.count() > 0) {
                timer.expires_after(reply.delay);
                co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            }
            if (reply.kind == Reply::Kind::drop) {
                socket_of(socket).shutdown(tcp::socket::shutdown_both, ec);
                socket_of(socket).close(ec);
                co_return;
            }
            http::response<http::string_body> res{static_cast<http::status>(reply.status), 11};
            res.set(http::field::content_type, "application/json");
            if (!reply.retry_after.empty()) res.set(http::field::retry_after, reply.retry_after);
            res.keep_alive(req.keep_alive());
            res.body() = reply.body;
            res.prepare_payload();
            co_await http::async_write(socket, res, asio::redirect_error(asio::use_awaitable, ec));
            if (ec || !req.keep_alive() || reply.close_after) {
                socket_of(socket).shutdown(tcp::socket::shutdown_both, ec);
                socket_of(socket).close(ec);
                co_return;
            }
        }
    }

    asio::awaitable<void> accept() {
        for (;;) {
            error_code ec;
            tcp::socket socket =
                co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
            if (ec) co_return;
            {
                std::lock_guard lock(mutex);
                ++connections;
            }
            asio::co_spawn(io, connection(std::move(socket)), asio::detached);
        }
    }

    asio::awaitable<void> connection(tcp::socket socket) {
        if (!tls) {
            co_await serve(socket);
            co_return;
        }
        asio::ssl::stream<tcp::socket> stream(std::move(socket), *tls);
        error_code ec;
        co_await stream.async_handshake(asio::ssl::stream_base::server,
                                        asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            std::lock_guard lock(mutex);
            ++handshake_failures;
            co_return;
        }
        co_await serve(stream);
    }
};

FakeServer::FakeServer(Handler handler) : impl_(std::make_unique<Impl>(std::move(handler))) {
    asio::co_spawn(impl_->io, impl_->accept(), asio::detached);
    impl_->thread = std::thread([this] { impl_->io.run(); });
}

FakeServer::FakeServer(Handler handler, const ServerTls& tls)
    : impl_(std::make_unique<Impl>(std::move(handler))) {
    impl_->tls.emplace(asio::ssl::context::tls_server);
    impl_->tls->use_certificate_chain_file(tls.certificate_chain);
    impl_->tls->use_private_key_file(tls.private_key, asio::ssl::context::pem);
    asio::co_spawn(impl_->io, impl_->accept(), asio::detached);
    impl_->thread = std::thread([this] { impl_->io.run(); });
}

FakeServer::~FakeServer() {
    impl_->io.stop();
    impl_->thread.join();
}

int FakeServer::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string FakeServer::base_url() const {
    return (impl_->tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port()) +
           "/v1";
}

int FakeServer::handshake_failures() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->handshake_failures;
}

int FakeServer::requests() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->requests;
}

int FakeServer::connections() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->connections;
}

int FakeServer::max_concurrent() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->max_active;
}

std::vector<std::chrono::steady_clock::time_point> FakeServer::arrivals(
    const std::string& key) const {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->arrivals.find(key);
    return it == impl_->arrivals.end() ? std::vector<std::chrono::steady_clock::time_point>{}
                                       : it->second;
}

std::vector<FakeRequest> FakeServer::received() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->received;
}

int closed_port() {
    asio::io_context io;
    tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    const int port = acceptor.local_endpoint().port();
    acceptor.close();
    return port;
}

}  // namespace rop::test::model
