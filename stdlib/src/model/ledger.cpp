// The shared ledger of a Call's model clients (ledger.h).
#include "ledger.h"

#include <map>

namespace rop::stdlib::model::detail {

std::shared_ptr<Ledger> Ledger::of(const std::string& scope) {
    // Kept for the process: a replayed batch's fresh actor may be built after the last one died.
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<Ledger>> ledgers;
    std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<Ledger>& ledger = ledgers[scope];
    if (!ledger) ledger = std::make_shared<Ledger>();
    return ledger;
}

Ledger::Spent Ledger::item(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = items_.find(key);
    return it == items_.end() ? Spent{} : it->second;
}

Ledger::Duration Ledger::root(const std::string& key) const {
    if (key.empty()) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = roots_.find(key);
    return it == roots_.end() ? Duration{} : it->second;
}

void Ledger::failed(const std::string& item, const std::string& root, Duration took,
                    const std::string& failure) {
    std::lock_guard<std::mutex> lock(mutex_);
    Spent& spent = items_[item];
    ++spent.attempts;
    spent.time += took;
    spent.last = failure;
    if (!root.empty()) roots_[root] += took;
}

void Ledger::waited(const std::string& item, Duration wait) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_[item].time += wait;
}

void Ledger::settle(const std::string& item) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.erase(item);
}

void Ledger::outcome(bool answered, const std::string& url, const std::string& failure,
                     int breaker) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (answered) {
        unanswered_ = 0;
        open_.clear();
        return;
    }
    ++unanswered_;
    if (breaker > 0 && unanswered_ >= breaker && open_.empty()) {
        open_ = std::to_string(unanswered_) + " requests in a row to " + url +
                " got no answer (the last: " + failure + ")";
    }
}

std::string Ledger::open() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return open_;
}

void Ledger::close() {
    std::lock_guard<std::mutex> lock(mutex_);
    unanswered_ = 0;
    open_.clear();
}

}  // namespace rop::stdlib::model::detail
