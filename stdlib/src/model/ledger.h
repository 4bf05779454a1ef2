// ledger.h (internal to rop_stdlib_model): what an item, its document and the server have spent,
// shared by the clients of one Call in the process (its actors, and the fresh actor a batch is
// replayed on), so that an item's attempt and time budget holds across batches and the circuit
// opens once for all of them.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace rop::stdlib::model::detail {

class Ledger {
  public:
    using Duration = std::chrono::steady_clock::duration;

    // The ledger of one Call: the clients whose `scope` (server URL, model, prompt) is the same
    // share it, for the whole process. Its items are forgotten once answered; what failed stays
    // (a few bytes an item), so that a batch replayed later does not start them afresh.
    static std::shared_ptr<Ledger> of(const std::string& scope);

    // What one item spent: its attempts and their time, waits between them included.
    struct Spent {
        int attempts = 0;
        Duration time{};
        std::string last;  // the last attempt's failure
    };
    Spent item(const std::string& key) const;
    // The time the failed attempts of a document's items took, summed.
    Duration root(const std::string& key) const;

    // An attempt of `item` took `took` and failed with `failure`, counted against its document
    // `root` ("" for none).
    void failed(const std::string& item, const std::string& root, Duration took,
                const std::string& failure);
    // A wait of `item` between its attempts.
    void waited(const std::string& item, Duration wait);
    // The item has its answer (or a rejection): nothing more to remember of it.
    void settle(const std::string& item);

    // The circuit: a request without an answer (`answered` false: refused, reset, timed out)
    // adds to a run of them, which opens the circuit at `breaker` (0: never); any answer ends the
    // run and closes it. While open, why: "8 requests in a row to <url> got no answer (the last:
    // <failure>)"; else "".
    void outcome(bool answered, const std::string& url, const std::string& failure, int breaker);
    std::string open() const;
    void close();

  private:
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Spent> items_;
    std::unordered_map<std::string, Duration> roots_;
    int unanswered_ = 0;
    std::string open_;
};

}  // namespace rop::stdlib::model::detail
