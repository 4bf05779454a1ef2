// The event loop behind the model UDFs. A batch spawns min(count, max_in_flight) workers on the
// actor's io_context; each worker owns one connection slot and takes the next item until none is
// left, so at most max_in_flight requests (and connections) are outstanding. Everything runs on
// the calling thread: io_context::run() returns when the batch is done.
#include "client.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>  // before Boost.Asio: it uses std::exchange without including <utility>

#include "ledger.h"
#include "proxy.h"
#include "rop/udf.h"
#include "tls.h"

namespace rop::stdlib::model::detail {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

constexpr std::uint64_t kMaxResponseBytes = 256ull << 20;

// What one HTTP attempt came to: an answer (any status) or a transport failure.
struct Attempt {
    bool answered = false;
    int status = 0;
    std::string body;
    std::optional<std::chrono::milliseconds> retry_after;
    std::string failure;  // when !answered: "timed out after 200 ms", "connect: Connection refused"
    bool setup = false;   // when !answered: a failure retrying cannot fix (a bad certificate)
    bool aborted = false;  // not tried: the batch is failing anyway
};

bool retryable_status(int status) { return status == 408 || status == 429 || status >= 500; }

std::string ms_text(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

// "2.35 s", "120 ms": a time spent, for a message.
std::string time_text(std::chrono::steady_clock::duration time) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time).count();
    if (ms < 1000) return std::to_string(ms) + " ms";
    const std::string hundredths = std::to_string(ms / 10 % 100);
    return std::to_string(ms / 1000) + "." + (hundredths.size() < 2 ? "0" : "") + hundredths + " s";
}

void validate(const Settings& s) {
    auto fail = [](const std::string& what) { throw std::invalid_argument("model: " + what); };
    if (s.model.empty())
        fail("model must name the served model (e.g. \"Qwen/Qwen2.5-VL-7B-Instruct\")");
    if (s.max_in_flight < 1 || s.max_in_flight > 4096) {
        fail("max_in_flight must be in 1..4096, not " + std::to_string(s.max_in_flight));
    }
    if (s.retries < 0) fail("retries must be >= 0, not " + std::to_string(s.retries));
    if (s.timeout.count() <= 0) fail("timeout must be positive, not " + ms_text(s.timeout));
    if (s.backoff.count() < 0) fail("backoff must be >= 0, not " + ms_text(s.backoff));
    if (s.budget.count() < 0) fail("budget must be >= 0, not " + ms_text(s.budget));
    if (s.root_budget.count() < 0) fail("root_budget must be >= 0, not " + ms_text(s.root_budget));
    if (s.breaker < 0) fail("breaker must be >= 0, not " + std::to_string(s.breaker));
    if (s.temperature < 0) fail("temperature must be >= 0");
}

}  // namespace

struct Client::Impl {
    // One connection and its backoff timer; a worker owns one slot for the whole batch. The
    // connection is `tcp` (http) or `tls` (https), never both.
    struct Slot {
        explicit Slot(asio::io_context& io) : timer(io) {}
        std::optional<beast::tcp_stream> tcp;
        std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
        beast::flat_buffer buffer;
        asio::steady_timer timer;

        bool connected() const { return tcp || tls; }
        beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *tcp; }
    };

    struct BatchState {
        std::size_t count = 0;
        const std::function<std::string(std::size_t)>* body = nullptr;
        const std::function<ItemId(std::size_t)>* id = nullptr;
        std::vector<Completion> results;
        std::size_t next = 0;
        bool fatal = false;
        std::exception_ptr error;
    };

    // Counts a request as outstanding while it lives.
    struct InFlight {
        explicit InFlight(Impl& impl) : impl_(impl) {
            ++impl_.in_flight;
            impl_.stats.max_in_flight_seen =
                std::max(impl_.stats.max_in_flight_seen, impl_.in_flight);
        }
        ~InFlight() { --impl_.in_flight; }
        InFlight(const InFlight&) = delete;
        InFlight& operator=(const InFlight&) = delete;
        Impl& impl_;
    };

    // While no connection is open, a batch's first connect goes alone and the others wait for
    // its outcome: a certificate that does not verify, or a proxy that refuses the tunnel, is
    // then one handshake per batch, not one per item in flight (Client::run sets Needed).
    enum class FirstConnect { Done, Needed, Running, Refused };

    Settings settings;
    Endpoint endpoint;
    std::optional<Proxy> proxy;  // from the environment, read once at construction
    std::shared_ptr<asio::ssl::context> tls_context;  // https only
    RequestOptions request;
    std::string api_key;  // never in a message: redact() removes it from server text
    std::string authorization;
    asio::io_context io{1};
    FirstConnect first_connect = FirstConnect::Done;
    asio::steady_timer first_connect_done{io};  // the others wait on it; cancelled when it ends
    std::optional<tcp::resolver::results_type> resolved;
    std::shared_ptr<Ledger> ledger;  // the Call's: what items, documents, the server have spent
    std::vector<std::unique_ptr<Slot>> slots;
    ClientStats stats;
    std::uint64_t in_flight = 0;
    bool aborting = false;  // the batch failed: every exchange stops at its next step

    // Without TLS's close_notify: the connection is dropped, not reused, and the server's view
    // of its end does not matter to the client.
    static void close(Slot& slot) {
        if (slot.connected()) {
            error_code ignored;
            slot.lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
            slot.lowest().close();
        }
        slot.tls.reset();
        slot.tcp.reset();
        slot.buffer.clear();
    }

    // Server text (an error body) with the API key cut out, in case the server echoes it.
    std::string redact(std::string text) const {
        if (api_key.empty()) return text;
        for (std::size_t at = text.find(api_key); at != std::string::npos;
             at = text.find(api_key, at)) {
            text.replace(at, api_key.size(), "<redacted>");
        }
        return text;
    }

    void abort_batch(BatchState& batch, std::exception_ptr error) {
        if (!batch.error) batch.error = std::move(error);
        batch.fatal = true;
        aborting = true;
        // Closing (not just cancelling) also stops an exchange whose previous step has completed
        // but whose next one has not started yet; send() checks `aborting` between steps too.
        for (auto& slot : slots) {
            slot->timer.cancel();
            if (slot->connected()) slot->lowest().close();
        }
    }

    std::chrono::milliseconds backoff_delay(int attempt,
                                            std::optional<std::chrono::milliseconds> asked) const {
        std::chrono::milliseconds delay = settings.backoff;
        for (int i = 0; i < attempt && delay < kMaxBackoff; ++i) delay *= 2;
        if (asked && *asked > delay) delay = *asked;
        return std::min(delay, kMaxBackoff);
    }

    // `limit`: the attempt's time, its timeout or what was left of its item's budget.
    Attempt transport_failure(const std::string& stage, const error_code& ec,
                              std::chrono::milliseconds limit) {
        Attempt attempt;
        if (ec == beast::error::timeout) {
            ++stats.timeouts;
            attempt.failure = "timed out after " + ms_text(limit) + " (" + stage + ")";
        } else {
            attempt.failure = stage + ": " + ec.message();
        }
        return attempt;
    }

    static Attempt aborted() {
        Attempt attempt;
        attempt.failure = "aborted: another item of the batch failed";
        attempt.aborted = true;
        return attempt;
    }

    Attempt setup_failure(std::string message) {
        Attempt attempt;
        attempt.failure = std::move(message);
        attempt.setup = true;
        return attempt;
    }

    // The time an attempt may take: it ends at `deadline`, `limit` after it started.
    struct Limit {
        std::chrono::steady_clock::time_point deadline;
        std::chrono::milliseconds limit;
    };

    // Opens the slot's connection (open()), the batch's first one alone (FirstConnect). nullopt
    // when connected.
    asio::awaitable<std::optional<Attempt>> connect(Slot& slot, Limit limit) {
        while (first_connect == FirstConnect::Running) {
            error_code woken;
            co_await first_connect_done.async_wait(
                asio::redirect_error(asio::use_awaitable, woken));
        }
        if (aborting || first_connect == FirstConnect::Refused) co_return aborted();
        if (first_connect == FirstConnect::Done) co_return co_await open(slot, limit);
        first_connect = FirstConnect::Running;
        std::optional<Attempt> failed;
        try {
            failed = co_await open(slot, limit);
        } catch (...) {
            first_connect = FirstConnect::Done;
            first_connect_done.cancel();
            throw;
        }
        first_connect = failed && failed->setup ? FirstConnect::Refused : FirstConnect::Done;
        first_connect_done.cancel();
        co_return failed;
    }

    // Opens the slot's connection: TCP to the server or the proxy, a CONNECT tunnel through the
    // proxy for https, then the TLS handshake for https. nullopt when connected.
    asio::awaitable<std::optional<Attempt>> open(Slot& slot, Limit limit) {
        error_code ec;
        const std::string& peer_host = proxy ? proxy->host : endpoint.host;
        const std::string& peer_port = proxy ? proxy->port : endpoint.port;
        const std::string proxy_text =
            proxy ? "proxy " + proxy->authority() + " (from $" + proxy->variable + ")" : "";
        if (!resolved) {
            tcp::resolver resolver(io);
            auto results = co_await resolver.async_resolve(
                peer_host, peer_port, asio::redirect_error(asio::use_awaitable, ec));
            if (aborting) co_return aborted();
            if (ec) co_return transport_failure("resolve " + peer_host, ec, limit.limit);
            resolved = std::move(results);
        }
        if (aborting) co_return aborted();
        slot.tcp.emplace(io);
        slot.buffer.clear();
        slot.tcp->expires_at(limit.deadline);
        co_await slot.tcp->async_connect(*resolved, asio::redirect_error(asio::use_awaitable, ec));
        if (ec || aborting) {
            close(slot);
            co_return aborting ? aborted()
                               : transport_failure(proxy ? "connect to " + proxy_text : "connect",
                                                   ec, limit.limit);
        }
        ++stats.connections;
        if (!endpoint.tls) co_return std::nullopt;

        if (proxy) {  // a tunnel to the server; TLS runs inside it, end to end
            http::request<http::empty_body> req{http::verb::connect, endpoint.authority(), 11};
            req.set(http::field::host, endpoint.authority());
            req.set(http::field::user_agent, "rop-stdlib-model");
            co_await http::async_write(*slot.tcp, req,
                                       asio::redirect_error(asio::use_awaitable, ec));
            http::response_parser<http::empty_body> parser;
            parser.skip(true);  // a 2xx answer to CONNECT has no body: the tunnel follows
            if (!ec && !aborting) {
                co_await http::async_read(*slot.tcp, slot.buffer, parser,
                                          asio::redirect_error(asio::use_awaitable, ec));
            }
            if (ec || aborting) {
                close(slot);
                co_return aborting
                    ? aborted()
                    : transport_failure("CONNECT via " + proxy_text, ec, limit.limit);
            }
            const int status = static_cast<int>(parser.get().result_int());
            if (status / 100 != 2) {
                close(slot);
                Attempt refused;
                refused.failure = proxy_text + " refused CONNECT " + endpoint.authority() +
                                  ": HTTP " + std::to_string(status);
                refused.setup = !retryable_status(status);
                co_return refused;
            }
            slot.buffer.clear();
        }

        slot.tls.emplace(std::move(*slot.tcp), *tls_context);
        slot.tcp.reset();
        try {
            expect_peer(slot.tls->native_handle(), endpoint.host);
        } catch (const std::runtime_error& refused) {
            close(slot);
            co_return setup_failure(refused.what());
        }
        co_await slot.tls->async_handshake(asio::ssl::stream_base::client,
                                           asio::redirect_error(asio::use_awaitable, ec));
        if (aborting) {
            close(slot);
            co_return aborted();
        }
        if (ec) {
            if (ec == beast::error::timeout) {
                close(slot);
                co_return transport_failure("TLS handshake", ec, limit.limit);
            }
            TlsFailure failure = tls_failure(slot.tls->native_handle(), ec, endpoint.authority());
            close(slot);
            Attempt attempt;
            attempt.failure = std::move(failure.message);
            attempt.setup = failure.setup;
            co_return attempt;
        }
        co_return std::nullopt;
    }

    template <class Stream>
    asio::awaitable<error_code> exchange(Stream& stream, Slot& slot,
                                         const http::request<http::string_body>& req,
                                         http::response_parser<http::string_body>& parser) {
        error_code ec;
        co_await http::async_write(stream, req, asio::redirect_error(asio::use_awaitable, ec));
        if (!ec && !aborting) {
            co_await http::async_read(stream, slot.buffer, parser,
                                      asio::redirect_error(asio::use_awaitable, ec));
        }
        co_return ec;
    }

    // One HTTP exchange on the slot's connection (opened if needed). A kept-alive connection the
    // server closed while idle fails before any answer byte arrives: that is retried once at once
    // on a fresh connection, not counted as a retry.
    asio::awaitable<Attempt> send(Slot& slot, const std::string& body, Limit limit) {
        InFlight outstanding(*this);
        ++stats.attempts;
        for (bool first = true;; first = false) {
            // an aborted batch's connections are closed but still held
            if (slot.connected() && !slot.lowest().socket().is_open()) close(slot);
            const bool reused = slot.connected();
            if (!reused) {
                if (auto failed = co_await connect(slot, limit)) co_return std::move(*failed);
            }
            slot.lowest().expires_at(limit.deadline);

            // Through a proxy, plain http goes in absolute form; https is tunnelled and doesn't.
            const std::string target = proxy && !endpoint.tls ? endpoint.url : endpoint.target;
            http::request<http::string_body> req{http::verb::post, target, 11};
            req.set(http::field::host, endpoint.authority());
            req.set(http::field::user_agent, "rop-stdlib-model");
            req.set(http::field::content_type, "application/json");
            req.set(http::field::accept, "application/json");
            if (!authorization.empty()) req.set(http::field::authorization, authorization);
            req.keep_alive(true);
            req.body() = body;
            req.prepare_payload();
            ++stats.requests;
            http::response_parser<http::string_body> parser;
            parser.body_limit(kMaxResponseBytes);
            error_code ec;
            if (slot.tls)
                ec = co_await exchange(*slot.tls, slot, req, parser);
            else
                ec = co_await exchange(*slot.tcp, slot, req, parser);
            if (aborting) {
                close(slot);
                co_return aborted();
            }
            if (ec) {
                const bool closed_by_peer =
                    ec == http::error::end_of_stream || ec == asio::error::eof ||
                    ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
                    ec == asio::ssl::error::stream_truncated;
                close(slot);
                if (reused && first && closed_by_peer && !parser.got_some()) {
                    ++stats.stale_reconnects;
                    continue;
                }
                co_return transport_failure(
                    parser.got_some() ? "reading the answer" : "waiting for the answer", ec,
                    limit.limit);
            }
            http::response<http::string_body> res = parser.release();
            if (!res.keep_alive()) close(slot);
            Attempt attempt;
            attempt.answered = true;
            attempt.status = static_cast<int>(res.result_int());
            if (auto it = res.find(http::field::retry_after); it != res.end()) {
                attempt.retry_after =
                    retry_after(std::string_view(it->value().data(), it->value().size()));
            }
            attempt.body = std::move(res.body());
            co_return attempt;
        }
    }

    // An item that gets no answer: why, with what it spent ("failed after 2 attempt(s) in 250 ms
    // (its budget: 250 ms): timed out after 30 ms (waiting for the answer)"; "not sent: ..." for
    // an item that made no attempt), and the status of its last answer (0: none).
    static Completion unanswered(const Ledger::Spent& spent, const std::string& why, int status) {
        Completion completion;
        completion.status = status;
        if (spent.attempts == 0) {
            completion.error = "not sent: " + why;
        } else {
            completion.error = "failed after " + std::to_string(spent.attempts) +
                               " attempt(s) in " + time_text(spent.time) +
                               (why.empty() ? "" : " (" + why + ")") + ": " + spent.last;
        }
        return completion;
    }

    // One item: attempts until an answer that is not retryable, or until its attempts, its time
    // budget or its document's run out, or the circuit is open; those end as the item's error.
    // What it spent is the ledger's, so a batch the runtime replays does not start it afresh.
    asio::awaitable<Completion> complete(BatchState& batch, Slot& slot, std::size_t index,
                                         const std::string& body) {
        using Clock = std::chrono::steady_clock;
        const ItemId id = (*batch.id)(index);
        const int attempts = settings.retries + 1;
        int status = 0;
        for (;;) {
            Ledger::Spent spent = ledger->item(id.item);
            if (const std::string open = ledger->open(); !open.empty()) {
                co_return unanswered(spent, "the circuit is open: " + open, status);
            }
            if (settings.root_budget.count() > 0) {
                const Ledger::Duration root = ledger->root(id.root);
                if (root >= settings.root_budget) {
                    co_return unanswered(
                        spent,
                        "its document's budget of " + time_text(settings.root_budget) +
                            " is spent: its items' failed attempts took " + time_text(root),
                        status);
                }
            }
            if (spent.attempts >= attempts) co_return unanswered(spent, "", status);
            Limit limit{Clock::now() + settings.timeout, settings.timeout};
            if (settings.budget.count() > 0) {
                const Ledger::Duration left = settings.budget - spent.time;
                const auto budget = "its budget: " + time_text(settings.budget);
                if (left <= Ledger::Duration::zero()) co_return unanswered(spent, budget, status);
                if (left < settings.timeout) {
                    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left);
                    limit = Limit{Clock::now() + left, ms};
                }
            }
            const Clock::time_point start = Clock::now();
            Attempt result = co_await send(slot, body, limit);
            const Ledger::Duration took = Clock::now() - start;
            if (batch.fatal || result.aborted) co_return Completion{};
            std::string failure;
            if (result.answered) {
                ledger->outcome(true, "", "", settings.breaker);
                if (result.status >= 200 && result.status < 300) {
                    ledger->settle(id.item);
                    Completion completion = parse_completion(result.body);
                    if (!completion.ok()) completion = parse_completion(redact(result.body));
                    co_return completion;
                }
                failure = "HTTP " + std::to_string(result.status) + ": " +
                          error_message(redact(result.body));
                if (!retryable_status(result.status)) {
                    ledger->settle(id.item);
                    Completion rejected;
                    rejected.status = result.status;
                    rejected.error = std::move(failure);
                    co_return rejected;
                }
                status = result.status;
            } else {
                failure = std::move(result.failure);
                if (!result.setup) {
                    ledger->outcome(false, endpoint.url, failure, settings.breaker);
                }
            }
            if (result.setup) {
                // Retrying cannot fix it: the item fails now, and the runtime does not replay it
                // (the batch's other items run again, each trying once in turn).
                throw rop::PermanentFailure(
                    "model: POST " + endpoint.url + " (item " + std::to_string(index) + " of " +
                        std::to_string(batch.count) + "): " + failure + " [not retried]",
                    index);
            }
            ledger->failed(id.item, id.root, took, failure);
            spent = ledger->item(id.item);
            if (spent.attempts >= attempts) co_return unanswered(spent, "", status);
            const std::chrono::milliseconds delay =
                backoff_delay(spent.attempts - 1, result.retry_after);
            if (settings.budget.count() > 0 && spent.time + delay >= settings.budget) {
                co_return unanswered(spent, "its budget: " + time_text(settings.budget), status);
            }
            ++stats.retries;
            rop::count("http_retries");  // the run report's udf_counters of this Call
            const Clock::time_point wait = Clock::now();
            slot.timer.expires_after(delay);
            error_code ec;
            co_await slot.timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            ledger->waited(id.item, Clock::now() - wait);
            if (batch.fatal) co_return Completion{};
        }
    }

    asio::awaitable<void> worker(BatchState& batch, Slot& slot) {
        // (Refused: the batch is failing; its other items need no request body.)
        while (!batch.fatal && first_connect != FirstConnect::Refused && batch.next < batch.count) {
            const std::size_t index = batch.next++;
            std::string body;
            try {
                body = (*batch.body)(index);
            } catch (const rop::RecordFailure& failure) {
                batch.results[index].error = failure.reason();
                continue;
            }
            batch.results[index] = co_await complete(batch, slot, index, body);
        }
    }
};

Client::Client(Settings settings) : impl_(std::make_unique<Impl>()) {
    validate(settings);
    impl_->endpoint = parse_base_url(settings.base_url);
    impl_->proxy = proxy_for(impl_->endpoint);
    if (impl_->endpoint.tls) {
        if (settings.ca_bundle.empty()) {
            if (auto bundle = process_environment("ROP_CA_BUNDLE")) settings.ca_bundle = *bundle;
        }
        impl_->tls_context = make_tls_context(settings.ca_bundle);
    }
    impl_->request.model = settings.model;
    impl_->request.system = settings.system_prompt;
    impl_->request.prompt = settings.prompt;
    impl_->request.max_tokens = settings.max_tokens;
    impl_->request.temperature = settings.temperature;
    // The key's variable: the .rop's api_key_env, else the one $ROP_MODEL_API_KEY_ENV names (a
    // deployed binary picks its key without a rebuild). Messages name the variable, never its
    // value.
    std::string key_variable = settings.api_key_env;
    std::string named_by = "api_key_env";
    if (key_variable.empty()) {
        key_variable = process_environment("ROP_MODEL_API_KEY_ENV").value_or("");
        named_by = "$ROP_MODEL_API_KEY_ENV";
    }
    if (!key_variable.empty()) {
        const char* key = std::getenv(key_variable.c_str());
        if (key == nullptr || *key == '\0') {
            throw std::invalid_argument("model: " + named_by + " names '" + key_variable +
                                        "', which is not set in the environment");
        }
        impl_->api_key = key;
        for (const char c : impl_->api_key) {
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                throw std::invalid_argument("model: the key in $" + key_variable +
                                            " holds a control character (a trailing newline?)");
            }
        }
        impl_->authorization = "Bearer " + impl_->api_key;
    }
    for (int i = 0; i < settings.max_in_flight; ++i) {
        impl_->slots.push_back(std::make_unique<Impl::Slot>(impl_->io));
    }
    impl_->ledger = Ledger::of(impl_->endpoint.url + '\n' + settings.model + '\n' +
                               settings.system_prompt + '\n' + settings.prompt);
    impl_->settings = std::move(settings);
    if (impl_->settings.probe) probe();
}

void Client::probe() {
    Impl& impl = *impl_;
    const std::chrono::milliseconds limit = std::min(impl.settings.timeout, kProbeTimeout);
    const std::string& host = impl.proxy ? impl.proxy->host : impl.endpoint.host;
    const std::string& port = impl.proxy ? impl.proxy->port : impl.endpoint.port;
    std::string failure;
    auto attempt = [&]() -> asio::awaitable<void> {
        error_code ec;
        tcp::resolver resolver(impl.io);
        auto results = co_await resolver.async_resolve(
            host, port, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            failure = "resolve " + host + ": " + ec.message();
            co_return;
        }
        beast::tcp_stream stream(impl.io);
        stream.expires_after(limit);
        co_await stream.async_connect(results, asio::redirect_error(asio::use_awaitable, ec));
        if (ec == beast::error::timeout) {
            failure = "connect: no answer within " + ms_text(limit);
        } else if (ec) {
            failure = "connect: " + ec.message();
        }
        error_code ignored;
        stream.socket().close(ignored);
    };
    impl.io.restart();
    asio::co_spawn(impl.io, attempt(), asio::detached);
    impl.io.run();
    if (failure.empty()) {
        impl.ledger->close();  // the server is up: a circuit an earlier actor opened closes
        return;
    }
    const std::string via = impl.proxy ? " through proxy " + impl.proxy->authority() + " (from $" +
                                             impl.proxy->variable + ")"
                                       : "";
    throw std::runtime_error("model: cannot reach " + impl.endpoint.url + via + ": " + failure +
                             " (is the server up? the probe: false argument skips this check)");
}

Client::~Client() = default;

const RequestOptions& Client::request_options() const { return impl_->request; }

std::vector<Completion> Client::run(std::size_t count,
                                    const std::function<std::string(std::size_t)>& body,
                                    const std::function<ItemId(std::size_t)>& id) {
    Impl& impl = *impl_;
    Impl::BatchState batch;
    batch.count = count;
    batch.body = &body;
    batch.id = &id;
    batch.results.resize(count);
    const std::size_t workers = std::min(count, impl.slots.size());
    impl.io.restart();
    impl.aborting = false;
    const bool open = std::any_of(impl.slots.begin(), impl.slots.end(), [](const auto& slot) {
        return slot->connected() && slot->lowest().socket().is_open();
    });
    impl.first_connect = open ? Impl::FirstConnect::Done : Impl::FirstConnect::Needed;
    impl.first_connect_done.expires_at(asio::steady_timer::time_point::max());
    for (std::size_t i = 0; i < workers; ++i) {
        asio::co_spawn(impl.io, impl.worker(batch, *impl.slots[i]),
                       [&impl, &batch](std::exception_ptr error) {
                           if (error) impl.abort_batch(batch, std::move(error));
                       });
    }
    impl.io.run();
    if (batch.error) std::rethrow_exception(batch.error);
    return std::move(batch.results);
}

ClientStats Client::stats() const { return impl_->stats; }

}  // namespace rop::stdlib::model::detail
