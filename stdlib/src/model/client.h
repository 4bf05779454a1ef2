// The model client's engine: one event loop per actor, up to max_in_flight keep-alive
// connections, per-attempt timeouts and retries with exponential backoff. The class UDFs in
// udfs.cpp turn their items into request bodies and hand them to Client::run.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "protocol.h"
#include "rop/stdlib/model.h"

namespace rop::stdlib::model::detail {

// The constructor arguments every model class UDF takes (see model.h for their meaning).
struct Settings {
    std::string base_url;
    std::string model;
    std::string prompt;
    int max_tokens = 0;
    double temperature = 0.0;
    std::chrono::milliseconds timeout{0};
    int max_in_flight = 1;
    int retries = 0;
    std::chrono::milliseconds backoff{0};
    std::string api_key_env;
    std::string system_prompt;
    std::string ca_bundle;                     // "": $ROP_CA_BUNDLE, else the system's CAs
    bool probe = true;                         // connect once at construction (Client::probe)
    std::chrono::milliseconds budget{0};       // an item's time, all attempts; 0: none
    std::chrono::milliseconds root_budget{0};  // a document's failed time; 0: none
    int breaker = 0;  // unanswered requests in a row that open the circuit; 0: never
};

// Who an item is, for the budgets: `item` names it across batches (a page: its document and its
// number), `root` its document ("": none, as for text).
struct ItemId {
    std::string item;
    std::string root;
};

class Client {
  public:
    // Validates the settings (throws std::invalid_argument with the reason), reads the API key
    // and the proxy variables from the environment and, for https, loads the trusted CAs.
    // With settings.probe, checks that the server (or the proxy) accepts a connection (probe()),
    // so that a server that is down stops the run before its first batch; otherwise connects
    // lazily, on the first batch.
    explicit Client(Settings settings);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    const RequestOptions& request_options() const;

    // Completes `count` items concurrently and returns their completions in order. body(i) is
    // called right before item i's first attempt (so encoding overlaps the other requests); a
    // rop::RecordFailure from it becomes that item's Completion::error. An item whose attempts,
    // time budget or document's budget run out, or that meets an open circuit, gets its
    // Completion::error too, and the batch goes on: the runtime has nothing to replay. Throws
    // rop::PermanentFailure naming the item for what retrying cannot fix (a certificate that does
    // not verify); every other exception from body() is passed on. id(i) names item i for the
    // budgets, which the Call's clients share (ledger.h).
    std::vector<Completion> run(std::size_t count,
                                const std::function<std::string(std::size_t)>& body,
                                const std::function<ItemId(std::size_t)>& id);

    ClientStats stats() const;

    // Resolves the server's host (the proxy's, through one) and opens one TCP connection to it
    // within min(timeout, kProbeTimeout), then closes it. Throws std::runtime_error naming the
    // URL and the reason ("model: cannot reach http://...: connect: Connection refused").
    void probe();
    static constexpr std::chrono::milliseconds kProbeTimeout{5'000};

    // The longest wait between two attempts, whatever backoff or Retry-After say.
    static constexpr std::chrono::milliseconds kMaxBackoff{30'000};

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rop::stdlib::model::detail
