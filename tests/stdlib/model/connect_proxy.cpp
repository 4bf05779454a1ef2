// The CONNECT proxy: one io_context thread; per client, a coroutine that reads the CONNECT
// request (Beast's parser), connects to the target and then pumps both directions.
#include "connect_proxy.h"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <mutex>
#include <thread>
#include <utility>  // before Boost.Asio

namespace rop::test::model {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// Copies `from` to `to` until `from` ends, then ends `to`'s sending side.
asio::awaitable<void> pump(std::shared_ptr<tcp::socket> from, std::shared_ptr<tcp::socket> to) {
    std::array<char, 16384> chunk;
    error_code ec;
    for (;;) {
        const std::size_t n = co_await from->async_read_some(
            asio::buffer(chunk), asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;
        co_await asio::async_write(*to, asio::buffer(chunk.data(), n),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;
    }
    to->shutdown(tcp::socket::shutdown_send, ec);
}

}  // namespace

struct ConnectProxy::Impl {
    asio::io_context io{1};
    tcp::acceptor acceptor{io, {asio::ip::make_address("127.0.0.1"), 0}};
    std::thread thread;
    mutable std::mutex mutex;
    std::vector<std::string> targets;

    asio::awaitable<void> tunnel(tcp::socket accepted) {
        auto client = std::make_shared<tcp::socket>(std::move(accepted));
        beast::flat_buffer buffer;
        http::request_parser<http::empty_body> parser;
        error_code ec;
        co_await http::async_read(*client, buffer, parser,
                                  asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return;
        const auto& req = parser.get();
        if (req.method() != http::verb::connect) {
            http::response<http::string_body> no{http::status::method_not_allowed, 11};
            no.body() = "CONNECT only";
            no.prepare_payload();
            co_await http::async_write(*client, no, asio::redirect_error(asio::use_awaitable, ec));
            co_return;
        }
        const std::string target(req.target());
        {
            std::lock_guard lock(mutex);
            targets.push_back(target);
        }
        const std::size_t colon = target.rfind(':');
        tcp::resolver resolver(io);
        auto found =
            co_await resolver.async_resolve(target.substr(0, colon), target.substr(colon + 1),
                                            asio::redirect_error(asio::use_awaitable, ec));
        auto server = std::make_shared<tcp::socket>(io);
        if (!ec) {
            co_await asio::async_connect(*server, found,
                                         asio::redirect_error(asio::use_awaitable, ec));
        }
        if (ec) {
            http::response<http::empty_body> bad{http::status::bad_gateway, 11};
            co_await http::async_write(*client, bad, asio::redirect_error(asio::use_awaitable, ec));
            co_return;
        }
        static constexpr std::string_view kEstablished =
            "HTTP/1.1 200 Connection established\r\n\r\n";
        co_await asio::async_write(*client, asio::buffer(kEstablished),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return;
        if (buffer.size() > 0) {  // bytes the client sent right after the request
            co_await asio::async_write(*server, buffer.data(),
                                       asio::redirect_error(asio::use_awaitable, ec));
        }
        asio::co_spawn(io, pump(server, client), asio::detached);
        co_await pump(client, server);
    }

    asio::awaitable<void> accept() {
        for (;;) {
            error_code ec;
            tcp::socket socket =
                co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
            if (ec) co_return;
            asio::co_spawn(io, tunnel(std::move(socket)), asio::detached);
        }
    }
};

ConnectProxy::ConnectProxy() : impl_(std::make_unique<Impl>()) {
    asio::co_spawn(impl_->io, impl_->accept(), asio::detached);
    impl_->thread = std::thread([this] { impl_->io.run(); });
}

ConnectProxy::~ConnectProxy() {
    impl_->io.stop();
    impl_->thread.join();
}

std::string ConnectProxy::url() const {
    return "http://127.0.0.1:" + std::to_string(impl_->acceptor.local_endpoint().port());
}

std::vector<std::string> ConnectProxy::connect_targets() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->targets;
}

}  // namespace rop::test::model
