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
    std::string ca_bundle;  // "": $ROP_CA_BUNDLE, else the system's CAs
    bool probe = true;      // connect once at construction (Client::probe)
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
    // rop::RecordFailure from it becomes that item's Completion::error. Throws std::runtime_error
    // when an item's retries run out (the batch fails as a whole); every other exception from
    // body() is passed on.
    std::vector<Completion> run(std::size_t count,
                                const std::function<std::string(std::size_t)>& body);

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
