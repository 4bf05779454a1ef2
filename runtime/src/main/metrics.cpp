// Prometheus metrics (metrics.h).
#include "metrics.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace rop::runtime::detail {

namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

// A label value: backslash, double quote and newline escaped (format 0.0.4).
std::string escape_label(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        out += c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    return out;
}

// As the Prometheus clients print a value (Go's strconv 'g', -1): the shortest text that reads
// back as the same double, exponent form from 1e+06 and below 1e-04 ("0.1", "123456",
// "1.234567e+06"); "NaN", "+Inf", "-Inf".
std::string number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general);
    return std::string(buf, end);
}

class Writer {
  public:
    explicit Writer(std::string_view pipeline)
        : pipeline_label_("pipeline=\"" + escape_label(pipeline) + "\"") {}

    void family(const char* name, const char* type, const char* help) {
        out_ += std::string("# HELP ") + name + " " + help + "\n";
        out_ += std::string("# TYPE ") + name + " " + type + "\n";
    }
    void sample(const char* name, double value, const std::string& labels = {}) {
        out_ += std::string(name) + "{" + pipeline_label_ + (labels.empty() ? "" : ",") + labels +
                "} " + number(value) + "\n";
    }
    std::string take() { return std::move(out_); }

  private:
    std::string pipeline_label_;
    std::string out_;
};

}  // namespace

std::string render_metrics(std::string_view pipeline, const Progress& p, const RootTally& roots,
                           std::span<const ProgressCall> calls) {
    Writer w(pipeline);
    w.family("rop_roots_total", "counter", "Roots this run finished, by status.");
    w.sample("rop_roots_total", static_cast<double>(roots.ok), "status=\"ok\"");
    w.sample("rop_roots_total", static_cast<double>(roots.dropped), "status=\"dropped\"");
    w.sample("rop_roots_total", static_cast<double>(roots.failed), "status=\"failed\"");
    w.family("rop_roots_done", "gauge",
             "Roots done, those an earlier run journaled (--resume) included.");
    w.sample("rop_roots_done", static_cast<double>(p.roots_done));
    w.family("rop_roots_inflight", "gauge", "Roots admitted and not yet done.");
    w.sample(
        "rop_roots_inflight",
        static_cast<double>(p.roots_admitted > p.roots_done ? p.roots_admitted - p.roots_done : 0));
    if (p.roots_total) {
        w.family("rop_roots_expected", "gauge", "Roots the source says it holds.");
        w.sample("rop_roots_expected", static_cast<double>(*p.roots_total));
    }
    w.family("rop_elapsed_seconds", "gauge", "Seconds since the run started.");
    w.sample("rop_elapsed_seconds", p.elapsed_s);

    struct Family {
        const char* name;
        const char* type;
        const char* help;
        double (*value)(const CallCounters&, std::size_t stuck);
    };
    static constexpr Family kFamilies[] = {
        {"rop_call_grains_total", "counter", "Grains the Call ran.",
         [](const CallCounters& c, std::size_t) { return static_cast<double>(c.grains); }},
        {"rop_call_batches_total", "counter", "Batches the Call ran.",
         [](const CallCounters& c, std::size_t) { return static_cast<double>(c.batches); }},
        {"rop_call_batch_fill", "gauge", "Mean Grains per batch over the batch cap (0..1).",
         [](const CallCounters& c, std::size_t) { return c.mean_batch_fill; }},
        {"rop_call_batch_seconds", "gauge",
         "Median run time of the Call's last 64 finished batches (0 before one finishes).",
         [](const CallCounters& c, std::size_t) { return c.median_batch_s; }},
        {"rop_call_failed_total", "counter", "Grains of the Call that failed.",
         [](const CallCounters& c, std::size_t) { return static_cast<double>(c.failed); }},
        {"rop_call_retries_total", "counter", "Batches replayed after a UDF error.",
         [](const CallCounters& c, std::size_t) { return static_cast<double>(c.retries); }},
        {"rop_call_infra_retries_total", "counter",
         "Batches replayed after an infra failure (InfraFailure, actor setup, timeout).",
         [](const CallCounters& c, std::size_t) { return static_cast<double>(c.infra_retries); }},
        {"rop_call_suppressed_total", "counter",
         "Grains that did not run because an input failed or was suppressed.",
         [](const CallCounters& c, std::size_t) { return static_cast<double>(c.suppressed); }},
        {"rop_call_dropped_total", "counter", "Grains whose outputs were dropped.",
         [](const CallCounters& c, std::size_t) { return static_cast<double>(c.dropped); }},
        {"rop_call_stuck_batches", "gauge", "Batches of the Call flagged stuck and running.",
         [](const CallCounters&, std::size_t stuck) { return static_cast<double>(stuck); }},
    };
    for (const Family& f : kFamilies) {
        w.family(f.name, f.type, f.help);
        for (std::size_t i = 0; i < p.calls.size(); ++i) {
            std::size_t stuck = 0;
            for (const StuckBatch& s : p.stuck) stuck += s.call == i;
            const std::string& name = i < calls.size() ? calls[i].name : p.calls[i].name;
            w.sample(f.name, f.value(p.calls[i], stuck), "call=\"" + escape_label(name) + "\"");
        }
    }
    return w.take();
}

struct MetricsServer::State {
    asio::io_context io;
    tcp::acceptor acceptor{io};
    std::thread thread;
    std::mutex mutex;
    std::string text;
    std::uint16_t port = 0;
    bool stopped = false;
};

namespace {

// One connection: read a request, answer, close.
struct Session : std::enable_shared_from_this<Session> {
    // The state outlives every handler: stop() joins the thread that runs them, and the
    // handlers left queued hold no reference to it (no cycle through the io_context).
    Session(tcp::socket s, MetricsServer::State* st) : socket(std::move(s)), state(st) {}
    tcp::socket socket;
    MetricsServer::State* state;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::response<http::string_body> response;

    void start() {
        http::async_read(socket, buffer, request,
                         [self = shared_from_this()](boost::beast::error_code ec, std::size_t) {
                             if (!ec) self->answer();
                         });
    }
    void answer() {
        response.version(request.version());
        response.keep_alive(false);
        const std::string target(request.target());
        if (request.method() != http::verb::get && request.method() != http::verb::head) {
            response.result(http::status::method_not_allowed);
            response.body() = "GET /metrics\n";
        } else if (target != "/metrics" && !target.starts_with("/metrics?")) {
            response.result(http::status::not_found);
            response.body() = "GET /metrics\n";
        } else {
            response.result(http::status::ok);
            response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
            std::lock_guard lock(state->mutex);
            response.body() = state->text;
        }
        response.prepare_payload();
        http::async_write(socket, response,
                          [self = shared_from_this()](boost::beast::error_code, std::size_t) {
                              boost::beast::error_code ignored;
                              self->socket.shutdown(tcp::socket::shutdown_both, ignored);
                          });
    }
};

void accept_next(MetricsServer::State* state) {
    state->acceptor.async_accept([state](boost::beast::error_code ec, tcp::socket socket) {
        if (ec) return;  // closed by stop()
        std::make_shared<Session>(std::move(socket), state)->start();
        accept_next(state);
    });
}

}  // namespace

MetricsServer::MetricsServer(std::uint16_t port) : state_(std::make_shared<State>()) {
    boost::beast::error_code ec;
    const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), port);
    state_->acceptor.open(endpoint.protocol(), ec);
    if (!ec) state_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) state_->acceptor.bind(endpoint, ec);
    if (!ec) state_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                                 ec.message());
    }
    state_->port = state_->acceptor.local_endpoint().port();
    accept_next(state_.get());
    state_->thread = std::thread([state = state_.get()] { state->io.run(); });
}

MetricsServer::~MetricsServer() { stop(); }

std::uint16_t MetricsServer::port() const { return state_->port; }

void MetricsServer::set(std::string text) {
    std::lock_guard lock(state_->mutex);
    state_->text = std::move(text);
}

void MetricsServer::stop() {
    if (state_->stopped) return;
    state_->stopped = true;
    // Closing the acceptor ends the accept loop; stopping the context drops open connections.
    asio::post(state_->io, [state = state_.get()] {
        boost::beast::error_code ignored;
        state->acceptor.close(ignored);
        state->io.stop();
    });
    state_->thread.join();
}

}  // namespace rop::runtime::detail
