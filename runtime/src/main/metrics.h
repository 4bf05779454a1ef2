// Prometheus metrics of a pipeline run, in the text exposition format 0.0.4, built from the
// Progress snapshots the driver publishes (docs/runtime.md "Observability"): written to a
// node-exporter textfile (--metrics-file) and/or served over HTTP (--metrics-port).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "rop/runtime/pipeline_main.h"

namespace rop::runtime::detail {

// Roots this run finished so far, by status (RunOptions::on_root_finished).
struct RootTally {
    std::uint64_t ok = 0, dropped = 0, failed = 0;
};

// The metrics text: HELP and TYPE for every family, samples labeled pipeline="NAME" and, per
// Call, call="NAME" (`calls` as --set names them).
std::string render_metrics(std::string_view pipeline, const Progress& progress,
                           const RootTally& roots, std::span<const ProgressCall> calls);

// GET /metrics on 127.0.0.1:PORT from its own thread (Boost.Beast), answering with the text
// last given to set(). The constructor binds (throws std::runtime_error with the reason when it
// cannot); the destructor, or stop(), closes the socket and joins the thread.
class MetricsServer {
  public:
    explicit MetricsServer(std::uint16_t port);
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;
    std::uint16_t port() const;  // the bound one (port 0 asks for any free one)
    void set(std::string text);
    void stop();

    struct State;

  private:
    std::shared_ptr<State> state_;
};

}  // namespace rop::runtime::detail
