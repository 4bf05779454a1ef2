// RootSinks (root_sinks.h): per-root sink buffers, ordinal-order writes, the journal.
#include "root_sinks.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <stdexcept>

#include "crash.h"

namespace rop::runtime::detail {

RootSinks::RootSinks(const Plan& plan, const RunOptions& options, const LineageStore& store)
    : plan_(plan), options_(options), store_(store) {}

RootSinks::~RootSinks() {
    if (journal_) {
        set_crash_journal(-1);
        set_crash_journal_identity("", "");
    }
}

void RootSinks::open() {
    for (std::size_t i = 0; i < options_.root_sinks.size(); ++i) {
        const RootSinkBinding& sink = options_.root_sinks[i];
        names_.push_back(sink.name.empty() ? plan_.ports[sink.port].name : sink.name);
    }
    std::vector<std::string> tokens(options_.root_sinks.size());  // "" = a fresh run
    if (!options_.journal_path.empty()) {
        journal_ = std::make_unique<Journal>(
            options_.journal_path, names_, options_.resume,
            JournalOwner{options_.pipeline_name, options_.pipeline_hash, options_.resume_rebuilt});
        set_crash_journal(journal_->fd());
        std::error_code error;
        const std::filesystem::path absolute =
            std::filesystem::absolute(options_.journal_path, error);
        set_crash_journal_identity(error ? options_.journal_path : absolute.string(),
                                   journal_->header());
        if (!journal_->entries().empty()) tokens = journal_->entries().back().tokens;
        // A root journaled twice (run again by --retry-failed) counts as its last line says.
        for (const JournalEntry& e : journal_->entries()) journaled_[e.ordinal] = e;
        if (options_.retry_failed) {  // failed roots run again, their crashes forgotten
            std::erase_if(journaled_, [&](const auto& entry) {
                if (entry.second.status != RootStatus::Failed) return false;
                journal_->forget_crashes(entry.first);
                return true;
            });
        }
        resumed_at_open_ = journaled_.size();
    } else if (options_.resume) {
        throw std::invalid_argument("run: resume needs RunOptions::journal_path");
    }
    if (options_.retry_failed && !options_.resume) {
        throw std::invalid_argument("run: retry_failed needs RunOptions::resume");
    }
    for (std::size_t i = 0; i < options_.root_sinks.size(); ++i) {
        const RootSinkBinding& sink = options_.root_sinks[i];
        if (!sink.restore) continue;
        try {
            sink.restore(tokens[i]);
        } catch (const std::exception& e) {
            throw std::runtime_error("sink " + names_[i] + ": restore: " + e.what());
        }
    }
}

void RootSinks::buffer(const std::vector<std::uint32_t>& sinks, EntityId entity,
                       const Value& value) {
    SinkBuffer& buffer = buffers_[store_.root_ordinal(entity)];
    for (std::uint32_t sink : sinks) {
        buffer.items.push_back({sink, entity, value});
        const std::size_t bytes = value.byte_size();
        buffer.bytes += bytes;
        buffered_bytes_ += bytes;
    }
}

const JournalEntry* RootSinks::journaled(std::uint32_t ordinal, const std::string& name) {
    auto it = journaled_.find(ordinal);
    if (it == journaled_.end()) return nullptr;
    if (it->second.name != name) {
        throw std::runtime_error("journal '" + options_.journal_path + "': root " +
                                 std::to_string(ordinal) + " is '" + it->second.name +
                                 "' there but '" + name +
                                 "' in the source (did the input change? run without --resume)");
    }
    taken_ = std::move(it->second);
    journaled_.erase(it);
    return &taken_;
}

std::optional<std::string> RootSinks::write(const RootState& root,
                                            std::vector<std::vector<Value>>* kept) {
    const std::uint32_t ordinal = store_.ordinal(root.entity);
    std::vector<BufferedItem> items;
    if (auto it = buffers_.find(ordinal); it != buffers_.end()) {
        items.swap(it->second.items);
        buffered_bytes_ -= it->second.bytes;
        buffers_.erase(it);
    }
    // A failed root leaves nothing in any sink, as a root one sink failed (below): its output
    // is all or nothing, so --retry-failed can run it again without writing any of it twice.
    if (root.result.status == RootStatus::Failed) items.clear();
    std::vector<std::vector<Value>> values(options_.root_sinks.size());
    if (!items.empty()) {
        // Ordinal order: by sink, then by the entity path (child ordinals from the root down).
        // Children of one parent are created in ordinal order, so equal-parent runs are sorted
        // already; the general sort handles interleaved parents and deeper Domains.
        std::vector<EntityPath>& paths = path_scratch_;
        paths.clear();
        for (const BufferedItem& item : items) paths.push_back(store_.path(item.entity));
        std::vector<std::uint32_t> order(items.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            if (items[a].sink != items[b].sink) return items[a].sink < items[b].sink;
            return paths[a] < paths[b];
        });
        paths.clear();
        for (const std::uint32_t i : order) {
            values[items[i].sink].push_back(std::move(items[i].value));
        }
    }
    if (kept) *kept = values;
    return write_values(RootKey{ordinal, root.result.name}, values);
}

// Each sink with items gets them (write_root), the others skip_root; all or nothing.
std::optional<std::string> RootSinks::write_values(const RootKey& key,
                                                   const std::vector<std::vector<Value>>& values) {
    // Each sink written so far, with its checkpoint from before this root ("" when it has
    // no checkpoint or restore: it cannot be put back).
    std::vector<std::pair<std::uint32_t, std::string>> written;
    std::optional<std::string> failure;
    for (std::uint32_t sink = 0; sink < values.size() && !failure; ++sink) {
        if (values[sink].empty()) continue;
        const RootSinkBinding& binding = options_.root_sinks[sink];
        std::string error;
        try {
            std::string before;
            if (binding.checkpoint && binding.restore) before = binding.checkpoint();
            written.emplace_back(sink, std::move(before));
            binding.write_root(key, std::span<const Value>(values[sink]));
        } catch (const std::exception& e) {
            error = e.what();
        } catch (...) {
            error = "unknown exception";
        }
        if (!error.empty()) failure = "sink " + names_[sink] + ": " + error;
    }
    // The sinks this root wrote to (skip_root goes to the others).
    std::vector<bool> wrote(options_.root_sinks.size(), false);
    if (failure) {
        undo(written);
    } else {
        for (const auto& [sink, before] : written) wrote[sink] = true;
    }
    for (std::size_t s = 0; s < options_.root_sinks.size(); ++s) {
        if (!wrote[s] && options_.root_sinks[s].skip_root) options_.root_sinks[s].skip_root(key);
    }
    return failure;
}

void RootSinks::skip(std::uint32_t ordinal, const std::string& name) {
    const RootKey key{ordinal, name};
    for (const RootSinkBinding& binding : options_.root_sinks) {
        if (binding.skip_root) binding.skip_root(key);
    }
}

// All or nothing across the sinks: a root one sink failed leaves nothing in the others (nor a
// part of itself in the failing one). A sink that cannot be put back ends the run: its output
// would hold a root the journal calls failed.
void RootSinks::undo(const std::vector<std::pair<std::uint32_t, std::string>>& written) {
    for (const auto& [sink, before] : written) {
        const RootSinkBinding& binding = options_.root_sinks[sink];
        if (before.empty()) continue;
        try {
            binding.restore(before);
        } catch (const std::exception& e) {
            throw std::runtime_error("sink " + names_[sink] +
                                     ": cannot take back a failed root's output: " + e.what());
        }
    }
}

void RootSinks::journal(const RootState& root) {
    journal_entry(store_.ordinal(root.entity), root.result);
}

// One journal line, kept for the commit group, with every sink's checkpoint after the root.
void RootSinks::journal_entry(std::uint32_t ordinal, const RootResult& result) {
    if (pending_++ == 0) first_pending_ = std::chrono::steady_clock::now();
    if (!journal_) return;
    JournalEntry entry;
    entry.ordinal = ordinal;
    entry.name = result.name;
    entry.status = result.status;
    entry.failed_call = result.failed_call;
    entry.reason = result.reason;
    entry.attempts = result.attempts;
    for (std::size_t s = 0; s < options_.root_sinks.size(); ++s) {
        const RootSinkBinding& binding = options_.root_sinks[s];
        if (!binding.checkpoint) {
            entry.tokens.emplace_back();
            continue;
        }
        try {
            entry.tokens.push_back(binding.checkpoint());
        } catch (const std::exception& e) {
            throw std::runtime_error("sink " + names_[s] + ": checkpoint: " + e.what());
        }
    }
    journal_->add(entry);
}

const Journal::Crashes* RootSinks::crashes(std::uint32_t ordinal) const {
    if (!journal_) return nullptr;
    auto it = journal_->crashes().find(ordinal);
    return it == journal_->crashes().end() ? nullptr : &it->second;
}

void RootSinks::flush() {
    if (pending_ == 0) return;
    for (std::size_t s = 0; s < options_.root_sinks.size(); ++s) {
        const RootSinkBinding& binding = options_.root_sinks[s];
        if (!binding.sync) continue;
        try {
            binding.sync();
        } catch (const std::exception& e) {
            throw std::runtime_error("sink " + names_[s] + ": sync: " + e.what());
        }
    }
    if (journal_) journal_->flush();
    pending_ = 0;
}

void RootSinks::sync() {
    flush();
    if (journal_) journal_->sync();
}

void RootSinks::flush_if_due() {
    if (pending_ == 0) return;
    if (group_full() ||
        std::chrono::steady_clock::now() >= first_pending_ + options_.commit_window) {
        flush();
    }
}

}  // namespace rop::runtime::detail
