// process_wire.h: frames and items on the process worker's socket.
#include "process_wire.h"

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <typeinfo>

#include "pool_actor.h"

namespace rop::runtime::detail::wire {
namespace {

enum class ValueTag : std::uint8_t { Empty, Item, Group, Remote };

// The longest frame a peer may announce (1 TiB): a corrupt length must not become an allocation.
constexpr std::uint64_t kMaxFrame = std::uint64_t{1} << 40;

const TypeInfo& registered(const std::string& name) {
    const TypeInfo* type = find_type(name);
    if (!type) {
        throw WireError("process worker: item type '" + name +
                        "' is unknown to this binary (the worker must be started from the "
                        "pipeline's own binary)");
    }
    return *type;
}

}  // namespace

void Writer::value(const Value& v) {
    if (!v.has_value()) {
        u8(static_cast<std::uint8_t>(ValueTag::Empty));
        return;
    }
    if (const ReduceGroup* group = v.try_get<ReduceGroup>()) {
        u8(static_cast<std::uint8_t>(ValueTag::Group));
        u32(static_cast<std::uint32_t>(group->values.size()));
        for (std::size_t i = 0; i < group->values.size(); ++i) {
            value(group->values[i]);
            u32(group->ordinals[i]);
        }
        u32(static_cast<std::uint32_t>(group->skipped.size()));
        for (const SkippedChild& s : group->skipped) {
            u32(s.ordinal);
            str(s.reason);
        }
        return;
    }
    if (const RemoteItem* item = v.try_get<RemoteItem>()) {
        remote(item->ref);
        return;
    }
    std::string bytes = v.encode();  // ContractError when the type has no Codec
    if (stash_ && *stash_) {
        if (const std::optional<RemoteRef> ref = (*stash_)(v, bytes.size())) {
            remote(*ref);
            return;
        }
    }
    u8(static_cast<std::uint8_t>(ValueTag::Item));
    str(v.type()->type->name());
    str(bytes);
}

void Writer::remote(const RemoteRef& ref) {
    u8(static_cast<std::uint8_t>(ValueTag::Remote));
    u32(ref.owner);
    u64(ref.id);
    u64(ref.bytes);
}

Value Reader::value() {
    switch (static_cast<ValueTag>(u8())) {
        case ValueTag::Empty: return Value();
        case ValueTag::Item: {
            const std::string name = str();
            const std::string bytes = str();
            return Value::decode(registered(name), bytes);
        }
        case ValueTag::Group: {
            ReduceGroup group;
            const std::uint32_t n = u32();
            for (std::uint32_t i = 0; i < n; ++i) {
                group.values.push_back(value());
                group.ordinals.push_back(u32());
            }
            const std::uint32_t skipped = u32();
            for (std::uint32_t i = 0; i < skipped; ++i) {
                SkippedChild s;
                s.ordinal = u32();
                s.reason = str();
                group.skipped.push_back(std::move(s));
            }
            return Value::of<ReduceGroup>(std::move(group));
        }
        case ValueTag::Remote: {
            RemoteRef ref;
            ref.owner = u32();
            ref.id = u64();
            ref.bytes = u64();
            if (!resolve_ || !*resolve_) {
                throw WireError("process worker: an item held by rank " +
                                std::to_string(ref.owner) + ", where no rank can hold one");
            }
            return (*resolve_)(ref);
        }
    }
    throw WireError("process worker: unknown item tag");
}

std::vector<CallId> target_calls(const Plan& plan, std::uint32_t target) {
    if ((target & kPoolTarget) != 0) {
        const std::uint32_t pool = target & ~kPoolTarget;
        if (pool >= plan.pools.size() || plan.pools[pool].calls.empty()) {
            throw WireError("bad pool index " + std::to_string(pool));
        }
        return plan.pools[pool].calls;
    }
    if (target >= plan.calls.size()) throw WireError("bad call index " + std::to_string(target));
    return {target};
}

std::string target_name(const Plan& plan, std::uint32_t target) {
    if ((target & kPoolTarget) != 0 && (target & ~kPoolTarget) < plan.pools.size()) {
        return "pool '" + plan.pools[target & ~kPoolTarget].name + "'";
    }
    if (target < plan.calls.size()) return "call '" + plan.calls[target].name + "'";
    return "target " + std::to_string(target);
}

std::unique_ptr<Actor> make_target_actor(const Plan& placed, std::uint32_t target) {
    (void)target_calls(placed, target);  // a bad index throws
    if ((target & kPoolTarget) != 0) {
        const PoolId pool = target & ~kPoolTarget;
        const PoolSpec& spec = placed.pools[pool];
        return spec.factory ? spec.factory() : make_pool_actor(placed, pool)();
    }
    const CallSpec& spec = placed.calls[target];
    return spec.factory ? spec.factory() : nullptr;
}

TargetShapes::TargetShapes(const Plan& plan, std::uint32_t target) {
    for (const CallId c : target_calls(plan, target)) {
        const CallSpec& spec = plan.calls[c];
        shapes_.push_back({c, spec.kind, static_cast<std::uint32_t>(spec.inputs.size()),
                           static_cast<std::uint32_t>(spec.outputs.size())});
    }
}

const TargetShapes::Shape& TargetShapes::of(const Batch& batch) const {
    const CallId call = batch.call();
    if (call == kNoCall && shapes_.size() == 1) return shapes_.front();
    for (const Shape& shape : shapes_) {
        if (shape.call == call) return shape;
    }
    throw ContractError("an out-of-process actor got a batch of a call it does not serve");
}

Writer encode_batch(const Batch& batch, const TargetShapes::Shape& shape) {
    Writer out(Kind::Batch);
    const CallKind kind = shape.kind;
    const std::uint32_t num_inputs = shape.inputs;
    out.u32(shape.call);
    const auto n = static_cast<std::uint32_t>(batch.size());
    out.u32(n);
    for (std::uint32_t g = 0; g < n; ++g) {
        const GrainInfo info = batch.info(g);
        out.u32(info.entity);
        out.u32(info.parent);
        out.u32(info.ordinal);
        for (std::uint32_t i = 0; i < num_inputs; ++i) out.value(batch.input(g, i));
        if (kind == CallKind::Reduce) out.value(batch.parent(g));
    }
    return out;
}

void apply_done(Batch& batch, Reader& in, std::uint32_t num_outputs) {
    const std::uint32_t n = in.u32();
    for (std::uint32_t g = 0; g < n; ++g) {
        const std::uint8_t flags = in.u8();
        for (std::uint32_t o = 0; o < num_outputs; ++o) {
            Value v = in.value();
            if (v.has_value()) batch.set_output(g, o, std::move(v));
        }
        if (flags & kKeepSet) batch.set_keep(g, (flags & kKeep) != 0);
        if (flags & kFinished) batch.finish_children(g);
    }
    const std::uint32_t failures = in.u32();
    for (std::uint32_t f = 0; f < failures; ++f) {
        const std::uint32_t grain = in.u32();
        const bool group = in.u8() != 0;
        std::string reason = in.str();
        if (group) {
            batch.fail_group(grain, std::move(reason));
        } else {
            batch.fail_record(grain, std::move(reason));
        }
    }
    const auto ending = static_cast<Ending>(in.u8());
    const std::uint64_t index = in.u64();
    const std::string message = in.str();
    switch (ending) {
        case Ending::Ok: return;
        case Ending::Opaque: throw std::runtime_error(message);
        case Ending::Infra: throw InfraFailure(message);
        case Ending::Contract: throw ContractError(message);
        case Ending::Record: throw RecordFailure(message, index);
        case Ending::Group: throw GroupFailure(message, index);
    }
    throw WireError("process worker: unknown ending");
}

void send(Socket& socket, const Writer& frame) {
    const std::uint64_t size = frame.frame().size();
    const std::array<boost::asio::const_buffer, 2> buffers{boost::asio::buffer(&size, sizeof size),
                                                           boost::asio::buffer(frame.frame())};
    boost::asio::write(socket, buffers);
}

std::string receive(Socket& socket) {
    std::uint64_t size = 0;
    boost::asio::read(socket, boost::asio::buffer(&size, sizeof size));
    if (size == 0 || size > kMaxFrame) throw WireError("process worker: bad frame length");
    std::string frame(size, '\0');
    boost::asio::read(socket, boost::asio::buffer(frame));
    return frame;
}

}  // namespace rop::runtime::detail::wire
