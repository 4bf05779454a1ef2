// A tiny HTTP CONNECT proxy for the model client's proxy tests: on 127.0.0.1, a free port, its
// own thread. It records each CONNECT target, opens the tunnel and copies bytes both ways; any
// other request gets a 405.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace rop::test::model {

class ConnectProxy {
  public:
    ConnectProxy();
    ~ConnectProxy();
    ConnectProxy(const ConnectProxy&) = delete;
    ConnectProxy& operator=(const ConnectProxy&) = delete;

    std::string url() const;                           // http://127.0.0.1:<port>
    std::vector<std::string> connect_targets() const;  // "127.0.0.1:4321", in arrival order

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rop::test::model
