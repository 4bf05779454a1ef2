// Random-pipeline UDFs (reference/random_udf.h).
#include "reference/random_udf.h"

#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>

#include "reference/tok.h"

namespace rop::runtime::reference {
namespace {

enum class Fault { None, Record, Group, Poison, Transient, Infra };

Fault fault_of(const Faults& f, std::uint64_t digest) {
    std::uint32_t u = static_cast<std::uint32_t>(mix(digest, 0xFA17) % 1000);
    if (u < f.record) return Fault::Record;
    if ((u -= f.record) < f.group) return Fault::Group;
    if ((u -= f.group) < f.poison) return Fault::Poison;
    if ((u -= f.poison) < f.transient) return Fault::Transient;
    if ((u -= f.transient) < f.infra) return Fault::Infra;
    return Fault::None;
}

class RandomUdf final : public Actor {
  public:
    RandomUdf(const UdfParams& params, std::shared_ptr<UdfEnv> env)
        : p_(params), env_(std::move(env)) {}

    void process(Batch& batch) override {
        jitter();
        check_shape(batch);
        std::vector<std::uint64_t> digests(batch.size());
        // Batch-level faults first, before any output: a throwing attempt emits nothing. Every
        // first-attempt fault in the batch is spent at once, so a replay of the same Grains
        // succeeds whatever the batch shape.
        bool infra = false, opaque = false;
        for (std::size_t g = 0; g < batch.size(); ++g) {
            GrainInfo info = batch.info(g);
            if (info.parent == kNoEntity) env_->note_root(info.entity, info.ordinal);
            digests[g] = digest(batch, g);
            switch (fault_of(p_.faults, digests[g])) {
                case Fault::Infra: infra |= env_->fire(p_.salt ^ 0x1F, digests[g]); break;
                case Fault::Transient: opaque |= env_->fire(p_.salt ^ 0x7E, digests[g]); break;
                case Fault::Poison: opaque = true; break;
                default: break;
            }
        }
        if (infra) throw InfraFailure("injected infra failure");
        if (opaque) throw std::runtime_error("injected opaque UDF error");
        for (std::size_t g = 0; g < batch.size(); ++g) {
            bool last = g + 1 == batch.size();
            switch (fault_of(p_.faults, digests[g])) {
                case Fault::Record:
                    if (p_.faults.throw_typed && last) throw RecordFailure("injected record", g);
                    batch.fail_record(g, "injected record");
                    break;
                case Fault::Group:
                    if (p_.faults.throw_typed && last) throw GroupFailure("injected group", g);
                    batch.fail_group(g, "injected group");
                    break;
                default: produce(batch, g, digests[g]); break;
            }
        }
    }

  private:
    // "reserving a batch pops at most `batch` Grains"; single_parent: one parent per batch.
    void check_shape(const Batch& batch) const {
        if (p_.batch_cap && batch.size() > p_.batch_cap)
            env_->violation("a batch of " + std::to_string(batch.size()) + " Grains, cap " +
                            std::to_string(p_.batch_cap));
        for (std::size_t g = 1; p_.single_parent && g < batch.size(); ++g)
            if (batch.info(g).parent != batch.info(0).parent)
                return env_->violation("a single_parent batch mixes parents");
    }

    std::uint64_t digest(const Batch& batch, std::size_t g) const {
        std::uint64_t h = p_.salt;
        std::size_t inputs = p_.kind == CallKind::Map ? p_.inputs : 1;
        for (std::size_t i = 0; i < inputs; ++i) h = mix(h, content_hash(batch.input(g, i)));
        return h;
    }

    void produce(Batch& batch, std::size_t g, std::uint64_t d) const {
        switch (p_.kind) {
            case CallKind::Map:
            case CallKind::Reduce:
                for (std::uint32_t o = 0; o < p_.outputs; ++o)
                    batch.set_output(g, o, Value::of(Tok{mix(d, o + 1)}));
                break;
            case CallKind::Filter: batch.set_keep(g, mix(d, 0xF1) % 100 >= p_.drop_pct); break;
            case CallKind::Expand: {
                std::uint64_t n = mix(d, 0xE0) % 100 < 15 ? 0 : mix(d, 0xE1) % (p_.max_fanout + 1);
                EntityId parent = batch.info(g).entity;
                for (std::uint32_t i = 0; i < n; ++i)
                    batch.emit_child(g, Value::of(Tok{mix(d, 1000 + i), parent, i}));
                if (mix(d, 0xE2) & 1) batch.finish_children(g);
                break;
            }
            case CallKind::Broadcast: throw std::logic_error("broadcast has no UDF");
            case CallKind::Source:
            case CallKind::Sink: throw std::logic_error("not a plan Call");
        }
    }

    void jitter() {
        if (!env_->max_sleep_us) return;
        std::uint32_t us = static_cast<std::uint32_t>(rng_() % (env_->max_sleep_us + 1));
        if (us) std::this_thread::sleep_for(std::chrono::microseconds(us));
    }

    UdfParams p_;
    std::shared_ptr<UdfEnv> env_;
    std::minstd_rand rng_{std::random_device{}()};
};

}  // namespace

ActorFactory make_random_udf(const UdfParams& params, std::shared_ptr<UdfEnv> env) {
    return [params, env] { return std::make_unique<RandomUdf>(params, env); };
}

std::string describe(const Faults& f) {
    std::string out;
    auto add = [&](const char* tag, std::uint32_t v) {
        if (v) out += std::string(out.empty() ? "" : " ") + tag + std::to_string(v);
    };
    add("record", f.record);
    add("group", f.group);
    add("poison", f.poison);
    add("transient", f.transient);
    add("infra", f.infra);
    if (f.throw_typed) out += " (thrown)";
    return out.empty() ? "no faults" : out;
}

}  // namespace rop::runtime::reference
