// The result store's side of a run (`--cache DIR`, docs/runtime.md "Re-runs"): each Call's actors
// wrapped so that a Grain whose key is in the store is answered from it, and a Grain that ran is
// stored under its key. The key of a Grain is
//   the Call's identity (its name without the `.rop` location, its kind, its inputs' ports),
//   ropc's code fingerprint of its UDF (CallSpec::code), its effective arguments
//   (CallSpec::arguments), what the operator declares about itself (CallSpec::identity),
//   and the content of each input (rop::ContentKey, else the Codec bytes), plus the ordinal of a
//   child Grain under its parent (a reduce: its members' contents in ordinal order).
// So a Grain whose inputs came out byte for byte as before hits the store even when the Call
// upstream of it ran again: the early cutoff. Scheduling options (batch, actors, isolation, ...)
// are not in it. Failures are never stored: a Grain that failed runs again next time.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cache/digest.h"
#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::runtime::detail {

class ResultStore;
namespace wire {
class Writer;
class Reader;
}  // namespace wire

// A file's content for the keys (rop::ContentSink::file): "file SIZE DIGEST" of its bytes,
// hashed once per run while its inode, size and mtime stay; with trust_mtime its path, size and
// mtime; "unreadable: why" when it cannot be read. Thread-safe.
class FileDigests {
  public:
    explicit FileDigests(bool trust_mtime) : trust_mtime_(trust_mtime) {}
    std::string content(const std::string& path);

  private:
    bool trust_mtime_;
    std::mutex mutex_;
    std::map<std::string, std::pair<std::string, std::string>> digests_;  // path: stamp, digest
};

// One Call's counts: written by its actors' threads, read by the Engine for CallCounters.
struct CallCacheCounts {
    std::atomic<std::uint64_t> hits{0};
    std::atomic<std::uint64_t> misses{0};
    std::atomic<std::uint64_t> stored{0};
    std::atomic<std::uint64_t> corrupt{0};  // entries whose bytes did not match their hash
    mutable std::mutex mutex;
    std::map<std::string, std::uint64_t> miss_reasons;  // under mutex
    std::uint64_t write_errors = 0;                     // under mutex
    std::string first_write_error;                      // under mutex
    std::string unstorable;  // under mutex: why a result could not be stored (the first)
    void miss(const std::string& reason, std::uint64_t n = 1);
    void write_failed(const std::string& what);
    void not_stored(const std::string& why);
};

// Per Call: what its keys start with and why a miss happened when its inputs are known.
struct CallCache {
    bool enabled = false;
    std::string disabled_reason;  // when !enabled: "cache off", "volatile UDF (W0500)", ...
    std::string prefix;           // digest of the Call's identity, code, arguments, operator
    std::string manifest_key;     // its manifest's name in the store: pipeline and identity
    std::string manifest;         // this run's manifest (JSON text), written at the end
    // Why a Grain whose key is not in the store missed, from the manifest of the previous run:
    // "code changed in f at file:line", "arguments changed: dpi", ... or "new input".
    std::string change_reason;
    CallCacheCounts counts;
};

class ResultCache {
  public:
    // Which process of a run: the driver (one process, or rank 0 under MPI), or a rank that
    // hosts actors under MPI. Under MPI each hosting rank keys, reads and writes the Grains its
    // actors run (their inputs are there, fetched from the rank that keeps them) and counts
    // them; rank 0 wraps no actor, writes the manifests, answers whole roots and adds the
    // ranks' counts to its report when they say Bye (add_rank_counts).
    enum class Role { Driver, RankHost };
    // Opens options.cache_dir (a ContractError naming it when it cannot be used) and works out
    // each Call's prefix and change reason against the manifests the last run left.
    ResultCache(const Plan& plan, const RunOptions& options, Role role = Role::Driver);
    ~ResultCache();

    // `placed` with each cacheable Call's factory wrapped (the others counted); a shared pool's
    // factory too, each of its Calls' batches through that Call's wrapper.
    Plan wrap(const Plan& placed);
    // Folds the counts into `counters` (cache_hits, cache_misses, cache_miss_reasons).
    void add_counts(CallId call, CallCounters& counters) const;
    // Writes the manifests the next run's reasons come from (the driver); called once the run
    // ended. What the run should say: entries found damaged, results that could not be stored.
    std::vector<std::string> finish();
    // A hosting rank's counts of every Call (none when `cache` is null: the rank could not open
    // the store) and what it has to say, into its Bye frame; rank 0 adds them to the report's
    // Calls and cache_notes.
    static void write_rank_counts(const ResultCache* cache, wire::Writer& out,
                                  const std::vector<std::string>& notes);
    static void add_rank_counts(wire::Reader& in, RunReport& report);

    // The key digest of one Grain, exposed for tests: throws NotCacheable when an input cannot
    // be keyed (no codec, an item held on another rank).
    struct NotCacheable {
        std::string reason;
    };

    // Whole roots from the store (docs/runtime.md "Whole roots"). When every Call with a UDF is
    // stored, a root's outcome follows from its source item and the Calls' prefixes alone: a
    // root that finished (ok or dropped, nothing left out) is stored under that root key with
    // what its sinks took, and a later run whose root has the key writes the sinks from it
    // without creating a Grain.
    struct RootAnswer {
        RootStatus status = RootStatus::Ok;
        std::vector<std::vector<Value>> sinks;  // per root sink, its items in ordinal order
        std::vector<std::uint32_t> grains;      // per Call, the root's Grains (its hits)
    };
    bool answers_roots() const { return answers_roots_; }
    // The root key of a source item; nothing when it cannot be keyed (no codec).
    std::optional<Digest> root_key(const Value& root);
    // The answer stored under `key`; nothing when none is (or it did not decode: counted).
    // A found answer's Grains are counted as their Calls' hits.
    std::optional<RootAnswer> find_root(const Digest& key);
    // Stores a finished root's answer; an item without a codec, or a store that cannot be
    // written, leaves it unstored (the root's Grains are stored on their own anyway).
    void store_root(const Digest& key, const RootAnswer& answer);
    std::uint64_t roots_answered() const { return roots_answered_; }

  private:
    ActorFactory wrap_call(CallId call, ActorFactory inner);  // what wrap() does to one Call

    const Plan& plan_;
    Role role_;
    bool on_ranks_ = false;  // the driver of an MPI run: the ranks store and count
    std::shared_ptr<ResultStore> store_;
    FileDigests files_;
    std::vector<std::unique_ptr<CallCache>> calls_;
    // Whole roots; the driver thread's alone (find_root and store_root run there).
    bool answers_roots_ = false;
    std::size_t root_sinks_ = 0;
    std::string root_prefix_;  // every Call's identity and prefix, the root sinks' ports
    std::uint64_t roots_answered_ = 0;
    std::uint64_t roots_undecoded_ = 0;
    std::uint64_t root_write_errors_ = 0;
    std::string first_root_write_error_;
};

}  // namespace rop::runtime::detail
