// result_cache.h: keys, the wrapped actors and the reasons of a run with the result store.
#include "result_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cache/result_store.h"
#include "placement/actor_placement.h"
#include "placement/pool_actor.h"
#include "placement/process_wire.h"

namespace rop::runtime::detail {
namespace {

using NotCacheable = ResultCache::NotCacheable;

// An input's content into the key's hash: its bytes, or a file's.
class KeySink final : public rop::ContentSink {
  public:
    KeySink(Hasher& hash, FileDigests& files) : hash_(hash), files_(files) {}

    void bytes(std::string_view data) override {
        hash_.add_u64(data.size());
        hash_.add(data);
    }
    void file(const std::string& path) override { bytes(files_.content(path)); }

  private:
    Hasher& hash_;
    FileDigests& files_;
};

void add_value(Hasher& hash, const Value& value, FileDigests& files) {
    if (!value) {
        hash.add_u64(0);
        return;
    }
    if (const ReduceGroup* group = value.try_get<ReduceGroup>()) {
        hash.add_u64(1);
        hash.add_u64(group->values.size());
        for (std::size_t i = 0; i < group->values.size(); ++i) {
            hash.add_u64(group->ordinals[i]);
            add_value(hash, group->values[i], files);
        }
        hash.add_u64(group->skipped.size());
        for (const SkippedChild& s : group->skipped) {
            hash.add_u64(s.ordinal);
            hash.add(s.reason);
        }
        return;
    }
    if (value.try_get<wire::RemoteItem>()) throw NotCacheable{"an input is held on another rank"};
    hash.add_u64(2);
    hash.add(value.type()->name);
    KeySink sink(hash, files);
    try {
        value.add_content(sink);
    } catch (const ContractError&) {
        throw NotCacheable{"no codec for " + std::string(value.type()->name)};
    }
}

// What an entry holds, by the Call's kind: the outputs (map, reduce), the verdict (filter) or
// the children (expand), as the process wire writes items.
// A whole root's answer (ResultCache::RootAnswer) is tagged 'R'.
enum class EntryTag : std::uint8_t { Outputs = 'O', Keep = 'F', Children = 'X', Root = 'R' };

// What the wrapped actor did with one Grain, kept to store it.
struct Record {
    std::vector<Value> outputs;
    std::optional<bool> keep;
    std::vector<Value> children;
    bool failed = false;
};

// The Grains that missed, as a Batch of their own for the Call's actor: everything goes
// through to the real batch and is recorded on the way.
class MissBatch final : public Batch {
  public:
    MissBatch(Batch& outer, std::vector<std::size_t> grains, std::size_t outputs)
        : outer_(outer), grains_(std::move(grains)), records_(grains_.size()) {
        for (Record& r : records_) r.outputs.resize(outputs);
    }
    std::size_t size() const override { return grains_.size(); }
    CallId call() const override { return outer_.call(); }
    GrainInfo info(std::size_t g) const override { return outer_.info(grains_[g]); }
    const Value& input(std::size_t g, std::size_t i) const override {
        return outer_.input(grains_[g], i);
    }
    const Value& parent(std::size_t g) const override { return outer_.parent(grains_[g]); }
    void set_output(std::size_t g, std::size_t o, Value value) override {
        if (o < records_[g].outputs.size()) records_[g].outputs[o] = value;
        outer_.set_output(grains_[g], o, std::move(value));
    }
    void set_keep(std::size_t g, bool keep) override {
        records_[g].keep = keep;
        outer_.set_keep(grains_[g], keep);
    }
    void emit_child(std::size_t g, Value child) override {
        records_[g].children.push_back(child);
        outer_.emit_child(grains_[g], std::move(child));
    }
    void finish_children(std::size_t g) override { outer_.finish_children(grains_[g]); }
    void fail_record(std::size_t g, std::string reason) override {
        records_[g].failed = true;
        outer_.fail_record(grains_[g], std::move(reason));
    }
    void fail_group(std::size_t g, std::string reason) override {
        records_[g].failed = true;
        outer_.fail_group(grains_[g], std::move(reason));
    }
    bool wanted(std::size_t g) const override { return outer_.wanted(grains_[g]); }

    std::size_t outer_index(std::size_t g) const { return grains_[g]; }
    const Record& record(std::size_t g) const { return records_[g]; }

  private:
    Batch& outer_;
    std::vector<std::size_t> grains_;
    std::vector<Record> records_;
};

// The entry for a Grain that ran to a result: its bytes; none when it failed or was left
// without one, or when it made an item that cannot be stored (`unstorable` says why).
struct Entry {
    std::optional<std::string> bytes;
    std::string unstorable;
};

Entry entry_of(const Record& r, CallKind kind) {
    if (r.failed) return {};
    wire::Writer out(wire::Kind::Done);
    std::string why;
    const auto item = [&out, &why](const Value& v) {
        if (!v) return false;
        if (v.try_get<wire::RemoteItem>()) {
            why = "an output is held on another rank";
            return false;
        }
        try {
            out.value(v);
        } catch (const ContractError&) {
            why = "no codec for " + std::string(v.type()->name);
            return false;
        }
        return true;
    };
    switch (kind) {
        case CallKind::Filter:
            if (!r.keep) return {};
            out.u8(static_cast<std::uint8_t>(EntryTag::Keep));
            out.u8(*r.keep ? 1 : 0);
            break;
        case CallKind::Expand:
            out.u8(static_cast<std::uint8_t>(EntryTag::Children));
            out.u32(static_cast<std::uint32_t>(r.children.size()));
            for (const Value& c : r.children) {
                if (!item(c)) return {std::nullopt, why};
            }
            break;
        default:
            out.u8(static_cast<std::uint8_t>(EntryTag::Outputs));
            out.u32(static_cast<std::uint32_t>(r.outputs.size()));
            for (const Value& v : r.outputs) {
                if (!item(v)) return {std::nullopt, why};
            }
    }
    return {out.frame(), {}};
}

// Applies a stored entry to Grain `g` of `batch`; false (nothing applied) when it does not
// decode as this Call's entry.
bool apply_entry(Batch& batch, std::size_t g, std::string_view bytes, CallKind kind,
                 std::size_t outputs) {
    std::vector<Value> items;
    bool keep = false;
    try {
        wire::Reader in(bytes.substr(1));
        const auto tag = static_cast<EntryTag>(in.u8());
        if (kind == CallKind::Filter) {
            if (tag != EntryTag::Keep) return false;
            keep = in.u8() != 0;
        } else {
            if (tag != (kind == CallKind::Expand ? EntryTag::Children : EntryTag::Outputs))
                return false;
            const std::uint32_t n = in.u32();
            if (kind != CallKind::Expand && n != outputs) return false;
            for (std::uint32_t i = 0; i < n; ++i) items.push_back(in.value());
        }
        if (!in.done()) return false;
    } catch (const std::exception&) {
        return false;
    }
    switch (kind) {
        case CallKind::Filter: batch.set_keep(g, keep); break;
        case CallKind::Expand:
            for (Value& child : items) batch.emit_child(g, std::move(child));
            batch.finish_children(g);
            break;
        default:
            for (std::size_t o = 0; o < items.size(); ++o)
                batch.set_output(g, o, std::move(items[o]));
    }
    return true;
}

class CachingActor final : public Actor {
  public:
    CachingActor(const CallSpec& spec, CallCache& cache, std::shared_ptr<ResultStore> store,
                 FileDigests& files, const ActorFactory& inner)
        : spec_(spec), cache_(cache), store_(std::move(store)), files_(files), inner_(inner()) {}

    void process(Batch& batch) override {
        std::vector<std::size_t> misses;
        std::vector<std::optional<Digest>> keys;  // per miss; none: not to be stored
        for (std::size_t g = 0; g < batch.size(); ++g) {
            if (!batch.wanted(g)) {  // suppressed whatever it returns: the actor may skip it
                misses.push_back(g);
                keys.emplace_back();
                continue;
            }
            Digest key;
            try {
                key = key_of(batch, g);
            } catch (const NotCacheable& no) {
                cache_.counts.miss(no.reason);
                misses.push_back(g);
                keys.emplace_back();
                continue;
            }
            if (std::optional<std::string> bytes = store_->get(key)) {
                if (apply_entry(batch, g, *bytes, spec_.kind, spec_.outputs.size())) {
                    cache_.counts.hits.fetch_add(1, std::memory_order_relaxed);
                    continue;
                }
                cache_.counts.corrupt.fetch_add(1, std::memory_order_relaxed);
                cache_.counts.miss("an entry that did not decode");
            } else {
                cache_.counts.miss(cache_.change_reason);
            }
            misses.push_back(g);
            keys.push_back(std::move(key));
        }
        if (misses.empty()) return;
        const bool none_stored = std::all_of(keys.begin(), keys.end(),
                                             [](const std::optional<Digest>& k) { return !k; });
        if (misses.size() == batch.size() && none_stored) {
            inner_->process(batch);
            return;
        }
        MissBatch run(batch, misses, spec_.outputs.size());
        bool stored_any = false;
        inner_->process(run);  // an exception leaves as it came: nothing of this batch is stored
        for (std::size_t i = 0; i < run.size(); ++i) {
            if (!keys[i]) continue;
            const Entry entry = entry_of(run.record(i), spec_.kind);
            if (!entry.unstorable.empty()) cache_.counts.not_stored(entry.unstorable);
            if (entry.bytes) {
                try {
                    store_->put(*keys[i], *entry.bytes);
                    stored_any = true;
                    cache_.counts.stored.fetch_add(1, std::memory_order_relaxed);
                } catch (const std::exception& e) {  // a full disk: the result stands, unstored
                    cache_.counts.write_failed(e.what());
                }
            }
        }
        // A batch's small results go to disk together (one write): a process killed later
        // keeps them, as it keeps an entry file.
        if (stored_any) {
            try {
                store_->flush();
            } catch (const std::exception& e) {
                cache_.counts.write_failed(e.what());
            }
        }
    }

    void cancel() noexcept override { inner_->cancel(); }
    bool reentrant() const override { return inner_->reentrant(); }

  private:
    Digest key_of(const Batch& batch, std::size_t g) const {
        Hasher hash;
        hash.add(cache_.prefix);
        const GrainInfo info = batch.info(g);
        // A child's place under its parent is part of what it is (page 3 of this PDF); a root's
        // source position is not: adding a file moves the others.
        if (info.parent != kNoEntity) hash.add_u64(info.ordinal);
        const std::size_t inputs = spec_.kind == CallKind::Reduce ? 1 : spec_.inputs.size();
        for (std::size_t i = 0; i < inputs; ++i) add_value(hash, batch.input(g, i), files_);
        if (spec_.kind == CallKind::Reduce) add_value(hash, batch.parent(g), files_);
        return hash.digest();
    }

    const CallSpec& spec_;
    CallCache& cache_;
    std::shared_ptr<ResultStore> store_;
    FileDigests& files_;
    std::unique_ptr<Actor> inner_;
};

std::string identity_of(const Plan& plan, const CallSpec& spec) {
    std::string id = bare_name(spec.name) + " " + to_string(spec.kind) + " (";
    for (const CallInput& input : spec.inputs) id += plan.ports[input.port].name + " ";
    id += ") -> (";
    for (PortId port : spec.outputs) id += plan.ports[port].name + " ";
    return id + ")";
}

nlohmann::json manifest_of(const std::string& identity, const CallSpec& spec,
                           const std::string& arguments, const std::string& operator_identity) {
    nlohmann::json functions = nlohmann::json::array();
    for (const CodeFunction& f : spec.code.functions)
        functions.push_back({{"name", f.name}, {"location", f.location}, {"hash", f.hash}});
    return {{"identity", identity},          {"digest", spec.code.digest},
            {"functions", functions},        {"flags", spec.code.flags},
            {"arguments", arguments},        {"operator", operator_identity},
            {"fallback", spec.code.fallback}};
}

// Why this Call's Grains miss, against the manifest the last run of it left.
std::string change_reason(const nlohmann::json& before, const nlohmann::json& now) {
    if (before.value("digest", "") != now.value("digest", "")) {
        std::map<std::string, std::string> old;
        for (const auto& f : before.value("functions", nlohmann::json::array()))
            old[f.value("name", "")] = f.value("hash", "");
        std::vector<std::string> changed;
        for (const auto& f : now["functions"]) {
            const auto it = old.find(f.value("name", ""));
            if (it == old.end() || it->second != f.value("hash", ""))
                changed.push_back(f.value("name", "") + " at " + f.value("location", ""));
        }
        if (changed.empty() && before.value("flags", "") != now.value("flags", ""))
            return "compile flags changed";
        if (changed.empty()) return "code changed";
        std::string reason = "code changed in " + changed.front();
        if (changed.size() > 1) reason += " and " + std::to_string(changed.size() - 1) + " more";
        return reason;
    }
    if (before.value("arguments", "") != now.value("arguments", ""))
        return "arguments changed (" + before.value("arguments", "") + " -> " +
               now.value("arguments", "") + ")";
    if (before.value("operator", "") != now.value("operator", ""))
        return "operator version changed (" + before.value("operator", "") + " -> " +
               now.value("operator", "") + ")";
    if (const std::string why = before.value("unstorable", ""); !why.empty())
        return "not stored by the last run (" + why + ")";
    return "new or changed input";
}

}  // namespace

void CallCacheCounts::miss(const std::string& reason, std::uint64_t n) {
    misses.fetch_add(n, std::memory_order_relaxed);
    std::lock_guard lock(mutex);
    miss_reasons[reason] += n;
}

std::string FileDigests::content(const std::string& path) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return "unreadable: " + std::string(std::strerror(errno));
    const std::uint64_t mtime_ns = static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000u +
                                   static_cast<std::uint64_t>(st.st_mtim.tv_nsec);
    if (trust_mtime_) {
        return path + '\n' + std::to_string(st.st_size) + '\n' + std::to_string(mtime_ns);
    }
    const std::string stamp = std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' +
                              std::to_string(st.st_size) + ':' + std::to_string(mtime_ns);
    {
        std::lock_guard lock(mutex_);
        const auto it = digests_.find(path);
        if (it != digests_.end() && it->second.first == stamp) return it->second.second;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return "unreadable: " + std::string(std::strerror(errno));
    Hasher hash;
    std::string chunk(std::size_t{1} << 20, '\0');
    std::uint64_t total = 0;
    while (in) {
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const auto n = static_cast<std::size_t>(in.gcount());
        hash.add(std::string_view(chunk.data(), n));
        total += n;
    }
    if (in.bad()) return "unreadable: read error";
    const std::string digest = "file " + std::to_string(total) + ' ' + hash.hex();
    std::lock_guard lock(mutex_);
    digests_[path] = {stamp, digest};
    return digest;
}

ResultCache::ResultCache(const Plan& plan, const RunOptions& options, Role role)
    : plan_(plan),
      role_(role),
      on_ranks_(role == Role::Driver && options.placement && options.placement->ranks),
      files_(options.trust_mtime) {
    ResultStoreOptions store_options;
    if (options.cache_max_bytes) store_options.max_bytes = options.cache_max_bytes;
    try {
        store_ = ResultStore::open(options.cache_dir, store_options);
    } catch (const ResultStoreError& e) {
        throw ContractError(std::string("--cache: ") + e.what());
    }
    for (const CallSpec& spec : plan.calls) {
        auto& cache = *calls_.emplace_back(std::make_unique<CallCache>());
        if (!spec.factory) continue;  // broadcast, a reduce without a UDF: nothing to store
        const std::string identity = identity_of(plan, spec);
        std::string op = spec.identity ? spec.identity() : std::string();
        std::string arguments = spec.arguments;
        if (spec.pool != kNoPool) {  // the pool's class and constructor are the Call's too
            const PoolSpec& pool = plan.pools[spec.pool];
            arguments +=
                (arguments.empty() ? "" : " ") + std::string("pool(") + pool.arguments + ")";
            if (op.empty() && pool.identity) op = pool.identity();
        }
        const nlohmann::json now = manifest_of(identity, spec, arguments, op);
        cache.manifest = now.dump();
        cache.manifest_key = options.pipeline_name + ": " + identity;
        using vocab::Cache;
        if (spec.options.cache == Cache::Off) {
            cache.disabled_reason = "cache off";
            continue;
        }
        if (spec.options.cache == Cache::Auto && spec.code.volatile_udf) {
            cache.disabled_reason = "volatile UDF (W0500; `cache on` to store it)";
            continue;
        }
        Hasher prefix;
        prefix.add("rop result 1");
        prefix.add(identity);
        prefix.add(spec.code.digest);
        prefix.add(spec.code.flags);
        prefix.add(arguments);
        prefix.add(op);
        cache.prefix = prefix.hex();
        cache.enabled = true;
        cache.change_reason = "not in the store (first run of this Call)";
        if (std::optional<nlohmann::json> before = store_->get_manifest(cache.manifest_key)) {
            if (before->is_object()) cache.change_reason = change_reason(*before, now);
        }
    }
    // Whole roots: only when no Call re-runs by choice (cache off, a volatile UDF), and no
    // observer wants the items one by one as they commit.
    answers_roots_ =
        role == Role::Driver && options.sinks.empty() && !options.observer && !plan.calls.empty();
    root_sinks_ = options.root_sinks.size();
    Hasher root;
    root.add("rop root 1");
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const CallSpec& spec = plan.calls[c];
        if (spec.factory && !calls_[c]->enabled) answers_roots_ = false;
        root.add(identity_of(plan, spec));
        root.add(calls_[c]->prefix);
    }
    for (const RootSinkBinding& sink : options.root_sinks) root.add(plan.ports[sink.port].name);
    root_prefix_ = root.hex();
}

ResultCache::~ResultCache() = default;

Plan ResultCache::wrap(const Plan& placed) {
    if (on_ranks_) return placed;  // every actor is on another rank, which wraps its own
    Plan plan = placed;
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        CallSpec& spec = plan.calls[c];
        if (!spec.factory || spec.pool != kNoPool) continue;
        spec.factory = wrap_call(static_cast<CallId>(c), spec.factory);
    }
    // A pool's actor serves several Calls: each Call's batches go through its own wrapper, all
    // of them around the one pool actor.
    for (PoolSpec& pool : plan.pools) {
        if (pool.calls.empty() || !pool.factory) continue;
        pool.factory = [this, inner = pool.factory,
                        calls = pool.calls]() -> std::unique_ptr<Actor> {
            const std::shared_ptr<Actor> shared = inner();
            if (!shared) return nullptr;
            std::vector<std::pair<CallId, ActorFactory>> wrapped;
            for (const CallId c : calls) {
                wrapped.emplace_back(c, wrap_call(c, [shared] { return forward_to(shared); }));
            }
            return std::make_unique<PoolActor>(std::move(wrapped), shared);
        };
    }
    return plan;
}

ActorFactory ResultCache::wrap_call(CallId c, ActorFactory inner) {
    CallCache& cache = *calls_[c];
    if (!cache.enabled) {
        // Counted, not wrapped: every Grain of it is a miss for the same reason.
        return [inner, &cache]() -> std::unique_ptr<Actor> {
            class Counting final : public Actor {
              public:
                Counting(std::unique_ptr<Actor> actor, CallCache& cache)
                    : actor_(std::move(actor)), cache_(cache) {}
                void process(Batch& batch) override {
                    cache_.counts.miss(cache_.disabled_reason, batch.size());
                    actor_->process(batch);
                }
                void cancel() noexcept override { actor_->cancel(); }
                bool reentrant() const override { return actor_->reentrant(); }

              private:
                std::unique_ptr<Actor> actor_;
                CallCache& cache_;
            };
            return std::make_unique<Counting>(inner(), cache);
        };
    }
    const CallSpec* original = &plan_.calls[c];
    return [original, &cache, store = store_, files = &files_, inner]() -> std::unique_ptr<Actor> {
        return std::make_unique<CachingActor>(*original, cache, store, *files, inner);
    };
}

void ResultCache::add_counts(CallId call, CallCounters& counters) const {
    const CallCacheCounts& counts = calls_[call]->counts;
    counters.cache_hits = counts.hits.load(std::memory_order_relaxed);
    counters.cache_misses = counts.misses.load(std::memory_order_relaxed);
    counters.cache_corrupt = counts.corrupt.load(std::memory_order_relaxed) + 0;
    std::lock_guard lock(counts.mutex);
    counters.cache_miss_reasons = counts.miss_reasons;
}

void CallCacheCounts::not_stored(const std::string& why) {
    std::lock_guard lock(mutex);
    if (unstorable.empty()) unstorable = why;
}

void CallCacheCounts::write_failed(const std::string& what) {
    std::lock_guard lock(mutex);
    if (write_errors++ == 0) first_write_error = what;
}

std::optional<Digest> ResultCache::root_key(const Value& root) {
    Hasher hash;
    hash.add(root_prefix_);
    try {
        add_value(hash, root, files_);
    } catch (const NotCacheable&) {
        return std::nullopt;
    }
    return hash.digest();
}

std::optional<ResultCache::RootAnswer> ResultCache::find_root(const Digest& key) {
    std::optional<std::string> bytes = store_->get(key);
    if (!bytes) return std::nullopt;
    RootAnswer answer;
    try {
        wire::Reader in(std::string_view(*bytes).substr(1));
        if (static_cast<EntryTag>(in.u8()) != EntryTag::Root) throw std::runtime_error("tag");
        const std::uint8_t status = in.u8();
        if (status > static_cast<std::uint8_t>(RootStatus::Dropped))
            throw std::runtime_error("status");
        answer.status = static_cast<RootStatus>(status);
        if (in.u32() != calls_.size() || in.u32() != root_sinks_) throw std::runtime_error("shape");
        for (std::size_t c = 0; c < calls_.size(); ++c) answer.grains.push_back(in.u32());
        answer.sinks.resize(root_sinks_);
        for (std::vector<Value>& items : answer.sinks) {
            const std::uint32_t n = in.u32();
            for (std::uint32_t i = 0; i < n; ++i) items.push_back(in.value());
        }
        if (!in.done()) throw std::runtime_error("trailing bytes");
    } catch (const std::exception&) {
        // Its hash held but it is not a root's answer: the root runs, and a new one replaces it.
        ++roots_undecoded_;
        return std::nullopt;
    }
    for (std::size_t c = 0; c < calls_.size(); ++c) {
        calls_[c]->counts.hits.fetch_add(answer.grains[c], std::memory_order_relaxed);
    }
    ++roots_answered_;
    return answer;
}

void ResultCache::store_root(const Digest& key, const RootAnswer& answer) {
    wire::Writer out(wire::Kind::Done);
    out.u8(static_cast<std::uint8_t>(EntryTag::Root));
    out.u8(static_cast<std::uint8_t>(answer.status));
    out.u32(static_cast<std::uint32_t>(calls_.size()));
    out.u32(static_cast<std::uint32_t>(answer.sinks.size()));
    for (std::size_t c = 0; c < calls_.size(); ++c) {
        out.u32(c < answer.grains.size() ? answer.grains[c] : 0);
    }
    try {
        for (const std::vector<Value>& items : answer.sinks) {
            out.u32(static_cast<std::uint32_t>(items.size()));
            for (const Value& v : items) {
                if (v.try_get<wire::RemoteItem>()) return;  // held on another rank
                out.value(v);
            }
        }
    } catch (const ContractError&) {
        return;  // an item without a codec: its Grains are stored on their own
    }
    try {
        store_->put(key, out.frame());
        store_->flush();
    } catch (const std::exception& e) {
        if (root_write_errors_++ == 0) first_root_write_error_ = e.what();
    }
}

std::vector<std::string> ResultCache::finish() {
    std::vector<std::string> notes;
    try {
        store_->flush();
    } catch (const std::exception& e) {
        notes.push_back("the last small results of the run were not stored: " +
                        std::string(e.what()));
    }
    for (std::size_t c = 0; c < calls_.size(); ++c) {
        CallCache& cache = *calls_[c];
        if (cache.manifest_key.empty()) continue;
        if (role_ == Role::Driver) {  // a hosting rank leaves the manifests to rank 0
            nlohmann::json manifest = nlohmann::json::parse(cache.manifest);
            {
                std::lock_guard lock(cache.counts.mutex);
                manifest["unstorable"] = cache.counts.unstorable;
            }
            try {
                store_->put_manifest(cache.manifest_key, manifest);
            } catch (const std::exception& e) {
                notes.push_back("the store's manifest of " + plan_.calls[c].name +
                                " was not written: " + e.what());
            }
        }
        std::lock_guard lock(cache.counts.mutex);
        if (cache.counts.write_errors) {
            notes.push_back(std::to_string(cache.counts.write_errors) + " results of " +
                            plan_.calls[c].name +
                            " were not stored: " + cache.counts.first_write_error);
        }
    }
    if (root_write_errors_) {
        notes.push_back(std::to_string(root_write_errors_) +
                        " finished roots were not stored whole: " + first_root_write_error_);
    }
    if (roots_undecoded_) {
        notes.push_back(std::to_string(roots_undecoded_) +
                        " roots' entries did not decode: not used, and the roots ran");
    }
    for (const CorruptEntry& bad : store_->corrupt_entries()) {
        notes.push_back("entry " + bad.key + " was damaged (" + bad.reason +
                        "): not used, and its Grain ran again");
    }
    return notes;
}

void ResultCache::write_rank_counts(const ResultCache* cache, wire::Writer& out,
                                    const std::vector<std::string>& notes) {
    out.u32(cache ? static_cast<std::uint32_t>(cache->calls_.size()) : 0);
    for (std::size_t c = 0; cache && c < cache->calls_.size(); ++c) {
        const std::unique_ptr<CallCache>& call = cache->calls_[c];
        const CallCacheCounts& counts = call->counts;
        out.u64(counts.hits.load(std::memory_order_relaxed));
        out.u64(counts.misses.load(std::memory_order_relaxed));
        out.u64(counts.corrupt.load(std::memory_order_relaxed));
        std::lock_guard lock(counts.mutex);
        out.u32(static_cast<std::uint32_t>(counts.miss_reasons.size()));
        for (const auto& [reason, n] : counts.miss_reasons) {
            out.str(reason);
            out.u64(n);
        }
    }
    out.u32(static_cast<std::uint32_t>(notes.size()));
    for (const std::string& note : notes) out.str(note);
}

void ResultCache::add_rank_counts(wire::Reader& in, RunReport& report) {
    const std::uint32_t calls = in.u32();
    for (std::uint32_t c = 0; c < calls; ++c) {
        const std::uint64_t hits = in.u64(), misses = in.u64(), corrupt = in.u64();
        std::map<std::string, std::uint64_t> reasons;
        for (std::uint32_t n = in.u32(); n > 0; --n) {
            std::string reason = in.str();
            reasons[std::move(reason)] += in.u64();
        }
        if (c >= report.calls.size()) continue;  // not this plan's: nothing to add it to
        CallCounters& k = report.calls[c];
        k.cache_hits += hits;
        k.cache_misses += misses;
        k.cache_corrupt += corrupt;
        for (const auto& [reason, n] : reasons) k.cache_miss_reasons[reason] += n;
    }
    for (std::uint32_t n = in.u32(); n > 0; --n) report.cache_notes.push_back(in.str());
}

}  // namespace rop::runtime::detail
