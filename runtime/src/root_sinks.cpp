// Per-root sinks and the journal (docs/runtime.md "Sinks, journal and resume"): PRESENT items at
// a root sink's port are buffered per root; when the root is done each sink gets them in
// ordinal order (driver thread), then one journal line records the root and every sink's
// checkpoint token. On resume the sinks are restored to the last journaled tokens and the
// roots the journal lists are not admitted again.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "engine.h"

namespace rop::runtime::detail {

void Engine::open_root_sinks() {
    for (std::size_t i = 0; i < options_.root_sinks.size(); ++i) {
        const RootSinkBinding& sink = options_.root_sinks[i];
        root_sink_names_.push_back(sink.name.empty() ? plan_.ports[sink.port].name : sink.name);
    }
    std::vector<std::string> tokens(options_.root_sinks.size());  // "" = a fresh run
    if (!options_.journal_path.empty()) {
        journal_ = std::make_unique<Journal>(options_.journal_path, root_sink_names_,
                                             options_.resume);
        if (!journal_->entries().empty()) tokens = journal_->entries().back().tokens;
        for (const JournalEntry& e : journal_->entries()) journaled_[e.ordinal] = e;
    } else if (options_.resume) {
        throw std::invalid_argument("run: resume needs RunOptions::journal_path");
    }
    for (std::size_t i = 0; i < options_.root_sinks.size(); ++i) {
        const RootSinkBinding& sink = options_.root_sinks[i];
        if (!sink.restore) continue;
        try {
            sink.restore(tokens[i]);
        } catch (const std::exception& e) {
            throw std::runtime_error("sink " + root_sink_names_[i] + ": restore: " + e.what());
        }
    }
}

void Engine::buffer_for_sinks(const PortState& ps, EntityId entity, const Value& value) {
    SinkBuffer& buffer = sink_buffers_[ordinal_[root_[entity]]];
    for (std::uint32_t sink : ps.root_sinks) {
        buffer.items.push_back({sink, entity, value});
        const std::size_t bytes = value.byte_size();
        buffer.bytes += bytes;
        live_bytes_ += bytes;
    }
}

bool Engine::skip_journaled(std::uint32_t ordinal, const std::string& name) {
    auto it = journaled_.find(ordinal);
    if (it == journaled_.end()) return false;
    const JournalEntry& e = it->second;
    if (e.name != name) {
        throw std::runtime_error("journal '" + options_.journal_path + "': root " +
                                 std::to_string(ordinal) + " is '" + e.name +
                                 "' there but '" + name +
                                 "' in the source (did the input change? run without --resume)");
    }
    RootState& root = roots_.emplace_back();
    root.done = true;
    root.result.name = name;
    root.result.status = e.status;
    root.result.failed_call = e.failed_call;
    root.result.reason = e.reason;
    root.result.attempts = e.attempts;
    root.result.resumed = true;
    ++roots_done_;
    journaled_.erase(it);
    return true;
}

void Engine::write_root_sinks(RootState& root) {
    const std::uint32_t ordinal = ordinal_[root.entity];
    std::vector<BufferedItem> items;
    if (auto it = sink_buffers_.find(ordinal); it != sink_buffers_.end()) {
        items.swap(it->second.items);
        live_bytes_ -= it->second.bytes;
        sink_buffers_.erase(it);
    }
    if (!items.empty()) {
        // Ordinal order: by sink, then by the entity path (child ordinals from the root down).
        // Children of one parent are created in ordinal order, so equal-parent runs are sorted
        // already; the general sort handles interleaved parents and deeper Domains.
        auto path = [this](EntityId e) {
            std::vector<std::uint32_t> p;
            for (; parent_[e] != kNoEntity; e = parent_[e]) p.push_back(ordinal_[e]);
            std::reverse(p.begin(), p.end());
            return p;
        };
        std::vector<std::vector<std::uint32_t>>& paths = path_scratch_;
        paths.clear();
        for (const BufferedItem& item : items) paths.push_back(path(item.entity));
        std::vector<std::uint32_t> order(items.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            if (items[a].sink != items[b].sink) return items[a].sink < items[b].sink;
            return paths[a] < paths[b];
        });
        paths.clear();
        const RootKey key{ordinal, root.result.name};
        std::vector<Value> values;
        std::size_t i = 0;
        while (i < order.size()) {
            const std::uint32_t sink = items[order[i]].sink;
            values.clear();
            for (; i < order.size() && items[order[i]].sink == sink; ++i) {
                values.push_back(std::move(items[order[i]].value));
            }
            const RootSinkBinding& binding = options_.root_sinks[sink];
            std::string error;
            try {
                binding.write_root(key, std::span<const Value>(values));
            } catch (const std::exception& e) {
                error = e.what();
            } catch (...) {
                error = "unknown exception";
            }
            if (!error.empty() && root.result.status != RootStatus::Failed) {
                root.result.status = RootStatus::Failed;
                root.result.failed_call.clear();
                root.result.reason = "sink " + root_sink_names_[sink] + ": " + error;
                root.result.attempts = 1;
            }
        }
    }
}

void Engine::journal_root(const RootState& root) {
    JournalEntry entry;
    entry.ordinal = ordinal_[root.entity];
    entry.name = root.result.name;
    entry.status = root.result.status;
    entry.failed_call = root.result.failed_call;
    entry.reason = root.result.reason;
    entry.attempts = root.result.attempts;
    for (std::size_t s = 0; s < options_.root_sinks.size(); ++s) {
        const RootSinkBinding& binding = options_.root_sinks[s];
        if (!binding.checkpoint) {
            entry.tokens.emplace_back();
            continue;
        }
        try {
            entry.tokens.push_back(binding.checkpoint());
        } catch (const std::exception& e) {
            throw std::runtime_error("sink " + root_sink_names_[s] + ": checkpoint: " + e.what());
        }
    }
    journal_->append(entry);
}

}  // namespace rop::runtime::detail
