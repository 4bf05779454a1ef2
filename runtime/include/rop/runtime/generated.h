// The fixed support code of every pipeline ropc generates: the actor bases its Call classes
// derive from, the source and sink adapters, and the builder its make_pipeline() fills.
//
// Only generated code includes this header (after the runtime's and before the user's), so it
// may include <rop/udf.h> from the stdlib include directory: `ropc build`, rop_add_pipeline and
// an installed tree put both directories on the include path. The generated file stays thin:
// what differs between pipelines (types, UDF calls, the plan) is written there; what never does
// lives here, once. codegen_templates/README.md shows how the two fit.
#pragma once

#include <charconv>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "rop/runtime/pipeline_main.h"
#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"
#include "rop/runtime/udf.h"
#include "rop/runtime/value.h"
#include "rop/udf.h"

namespace rop::gen {

// One Grain of a Batch, as a Call's code reads its inputs and writes its results.
class Grain {
  public:
    Grain(rop::runtime::Batch& batch, std::size_t index) : batch_(&batch), index_(index) {}

    // Input `input` (a required one: its item is there).
    template <class T>
    const T& in(std::size_t input) const {
        return batch_->input(index_, input).get<T>();
    }
    // An optional input (`x?`) taken as std::optional<T>: the item, or std::nullopt when it was
    // dropped.
    template <class T>
    std::optional<T> in_optional(std::size_t input) const {
        if (const T* item = batch_->input(index_, input).try_get<T>()) return *item;
        return std::nullopt;
    }
    // An optional input taken as `const T*`: nullptr when it was dropped.
    template <class T>
    const T* in_pointer(std::size_t input) const {
        return batch_->input(index_, input).try_get<T>();
    }
    // A reduce Grain's parent item (what its children were expanded from).
    template <class T>
    rop::Parent<T> parent() const {
        return rop::Parent<T>(batch_->parent(index_).get<T>());
    }

    // Publishes `value` on output port `output` as a T (the port's type).
    template <class T, class U>
    void out(std::size_t output, U&& value) const {
        batch_->set_output(index_, output, rop::runtime::Value::of<T>(std::forward<U>(value)));
    }
    // A filter's verdict.
    void keep(bool keep) const { batch_->set_keep(index_, keep); }
    // A UDF's rop::ItemResult for this Grain: a failure fails the Grain (or its group) and returns
    // true; a value returns false and is published by the caller.
    template <class T>
    bool failed(const rop::ItemResult<T>& result) const {
        if (result.ok()) return false;
        if (result.failure().group) {
            batch_->fail_group(index_, result.failure().reason);
        } else {
            batch_->fail_record(index_, result.failure().reason);
        }
        return true;
    }

    rop::runtime::Batch& batch() const { return *batch_; }
    std::size_t index() const { return index_; }

  private:
    rop::runtime::Batch* batch_;
    std::size_t index_;
};

// A whole physical batch, for a batch UDF that takes std::spans.
class Grains {
  public:
    explicit Grains(rop::runtime::Batch& batch) : batch_(&batch) {}

    std::size_t size() const { return batch_->size(); }
    Grain operator[](std::size_t grain) const { return Grain(*batch_, grain); }

    // Input `input` of every Grain, copied into contiguous storage for the UDF's span: as T,
    // as std::optional<T>, or as `const T*` (the Grain::in, in_optional, in_pointer forms).
    template <class T>
    std::vector<T> gather(std::size_t input) const {
        std::vector<T> items;
        items.reserve(size());
        for (std::size_t i = 0; i < size(); ++i) items.push_back((*this)[i].in<T>(input));
        return items;
    }
    template <class T>
    std::vector<std::optional<T>> gather_optional(std::size_t input) const {
        std::vector<std::optional<T>> items;
        items.reserve(size());
        for (std::size_t i = 0; i < size(); ++i) items.push_back((*this)[i].in_optional<T>(input));
        return items;
    }
    template <class T>
    std::vector<const T*> gather_pointer(std::size_t input) const {
        std::vector<const T*> items;
        items.reserve(size());
        for (std::size_t i = 0; i < size(); ++i) items.push_back((*this)[i].in_pointer<T>(input));
        return items;
    }

    // A batch UDF must return one result per item; otherwise it broke the contract, and the run
    // stops at once (SEMANTICS.md: a contract error fails fast; replaying halves of the batch
    // would only hide the bug).
    template <class Results>
    void check_size(const Results& results, const char* udf) const {
        if (results.size() != size()) {
            throw rop::runtime::ContractError(std::string("batch UDF ") + udf + " returned " +
                                              std::to_string(results.size()) + " results for " +
                                              std::to_string(size()) + " items");
        }
    }

  private:
    rop::runtime::Batch* batch_;
};

// The actor bases. A generated Call class derives from one of them (naming itself, CRTP) and
// defines run(...): the UDF call for one Grain (or one batch) and the publishing of its result.
// The base loops over the batch and turns the UDF's typed failures into the Batch's: a
// rop::RecordFailure fails the Grain, a rop::GroupFailure its group. Any other exception leaves
// process(), and the Call's recovery policy handles it.

// map, filter: one UDF call per Grain.
template <class Call>
class ElementActor : public rop::runtime::Actor {
  public:
    void process(rop::runtime::Batch& batch) final {
        for (std::size_t grain = 0; grain < batch.size(); ++grain) {
            try {
                static_cast<Call&>(*this).run(Grain(batch, grain));
            } catch (const rop::RecordFailure& failure) {
                batch.fail_record(grain, failure.what());
            } catch (const rop::GroupFailure& failure) {
                batch.fail_group(grain, failure.what());
            }
        }
    }
};

// batch map, batch filter: one UDF call per physical batch. Its typed failure names no item, so
// it leaves process() as it is: the runtime replays the batch in halves until the item it was
// about is alone, and only that item fails (docs/udfs.md).
template <class Call>
class BatchActor : public rop::runtime::Actor {
  public:
    void process(rop::runtime::Batch& batch) final { static_cast<Call&>(*this).run(Grains(batch)); }
};

// The UDF's rop::Emitter, bound to Batch::emit_child: a child may be scheduled before the UDF
// returns.
template <class T>
class ChildEmitter final : public rop::Emitter<T> {
  public:
    explicit ChildEmitter(Grain grain) : grain_(grain) {}

    void emit(T child) override {
        grain_.batch().emit_child(grain_.index(), rop::runtime::Value::of<T>(std::move(child)));
    }

  private:
    Grain grain_;
};

// Emits every element of what a vector expand returned, in order.
template <class T, class Range>
void emit_each(rop::Emitter<T>& emitter, Range&& children) {
    for (auto&& child : children) emitter.emit(std::move(child));
}

// expand: each Grain's children, emitted in order; the count is sealed unless the UDF failed.
template <class Call, class Child>
class ExpandActor : public rop::runtime::Actor {
  public:
    // A function UDF (no udf_ member: no state of its own) may run nested on its actor, which a
    // streaming expand then lends to other roots' batches (docs/runtime.md, priority rule 6).
    bool reentrant() const final {
        return !requires(Call& call) { call.udf_; };
    }
    void process(rop::runtime::Batch& batch) final {
        for (std::size_t grain = 0; grain < batch.size(); ++grain) {
            ChildEmitter<Child> emitter(Grain(batch, grain));
            try {
                static_cast<Call&>(*this).run(Grain(batch, grain), emitter);
            } catch (const rop::RecordFailure& failure) {
                batch.fail_record(grain, failure.what());
                continue;
            } catch (const rop::GroupFailure& failure) {
                batch.fail_group(grain, failure.what());
                continue;
            }
            batch.finish_children(grain);
        }
    }
};

// A reduce Grain's children (a ReduceGroup), copied once into contiguous storage for the UDF's
// std::span (the Batch holds them as separate Values).
template <class T>
std::vector<T> children(const rop::runtime::ReduceGroup& group) {
    std::vector<T> values;
    values.reserve(group.values.size());
    for (const rop::runtime::Value& value : group.values) values.push_back(value.get<T>());
    return values;
}

// The children a reduce with `on_failure skip` left out, as the UDF's rop::Skipped entries.
inline std::vector<rop::SkippedChild> skipped(const rop::runtime::ReduceGroup& group) {
    std::vector<rop::SkippedChild> entries;
    entries.reserve(group.skipped.size());
    for (const rop::runtime::SkippedChild& s : group.skipped)
        entries.push_back({s.ordinal, s.reason});
    return entries;
}

// reduce with a UDF: one Grain per parent, run(grain, children, ordinals, skipped) folds the
// parent's children in ordinal order (dropped ones left out; with `on_failure skip`, failed ones
// too, listed in `skipped`, which is empty otherwise: no allocation).
template <class Call, class Child>
class ReduceActor : public rop::runtime::Actor {
  public:
    void process(rop::runtime::Batch& batch) final {
        for (std::size_t grain = 0; grain < batch.size(); ++grain) {
            const auto& group = batch.input(grain, 0).get<rop::runtime::ReduceGroup>();
            const std::vector<Child> values = children<Child>(group);
            const std::vector<rop::SkippedChild> skipped_children = skipped(group);
            try {
                static_cast<Call&>(*this).run(Grain(batch, grain), std::span<const Child>(values),
                                              rop::Ordinals(group.ordinals),
                                              rop::Skipped(skipped_children));
            } catch (const rop::RecordFailure& failure) {
                batch.fail_record(grain, failure.what());
            } catch (const rop::GroupFailure& failure) {
                batch.fail_group(grain, failure.what());
            }
        }
    }
};

// reduce without a UDF: a parent's children as one std::vector<Child>, in ordinal order.
template <class Child>
class CollectActor final : public rop::runtime::Actor {
  public:
    void process(rop::runtime::Batch& batch) override {
        for (std::size_t grain = 0; grain < batch.size(); ++grain) {
            const auto& group = batch.input(grain, 0).get<rop::runtime::ReduceGroup>();
            Grain(batch, grain).out<std::vector<Child>>(0, children<Child>(group));
        }
    }
};

// A pooled Call's actor holds its class through a std::shared_ptr (its pool's instance): the
// class is what speaks for it.
template <class Udf>
struct HeldClass {
    using type = Udf;
};
template <class Udf>
struct HeldClass<std::shared_ptr<Udf>> {
    using type = Udf;
};

// A UDF class's static cache_identity(), or nothing without one: a pool's identity
// (`.identity = rop::gen::class_identity<ns::Model>`) and, through identity_of, a Call's.
template <class Udf>
std::string class_identity() {
    if constexpr (requires {
                      { Udf::cache_identity() } -> std::convertible_to<std::string>;
                  }) {
        return Udf::cache_identity();
    }
    return {};
}

// What a Call's operator says about itself for the result store's keys
// (`.identity = rop::gen::identity_of<Call_ocr>`): its UDF class's static cache_identity() (a
// library's version and data, a model's name), or nothing for a function or a class without one.
template <class Call>
std::string identity_of() {
    if constexpr (requires(Call& call) { call.udf_; }) {
        using Member = std::remove_cvref_t<decltype(std::declval<Call&>().udf_)>;
        return class_identity<typename HeldClass<Member>::type>();
    }
    return {};
}

// A Call's actor factory: `.factory = rop::gen::make_actor<Call_ocr>`.
template <class Actor>
std::unique_ptr<rop::runtime::Actor> make_actor() {
    return std::make_unique<Actor>();
}

// A pooled Call's view of its pool's instance (`.view = rop::gen::pool_view<Call_layout,
// ns::Model>`): its actor on one pool actor, calling its method on the instance that pool actor
// made (and sharing it with the pool's other Calls there).
template <class Actor, class Class>
std::unique_ptr<rop::runtime::Actor> pool_view(const rop::runtime::PoolInstance& instance) {
    return std::make_unique<Actor>(std::static_pointer_cast<Class>(instance));
}

// Text written as adjacent pieces so that generated lines stay short (a pool's arguments).
inline std::string text(std::initializer_list<std::string_view> pieces) {
    std::string out;
    for (std::string_view piece : pieces) out += piece;
    return out;
}

// The effective run-time arguments of one Call (after --set and $ROP_SET_*), as its actor's
// constructor reads them: `udf_(arguments.get<std::string>("base_url"), ...)`. The values were
// checked against their types when the flags were parsed.
class Arguments {
  public:
    explicit Arguments(const std::vector<rop::runtime::CallArgument>& arguments)
        : arguments_(&arguments) {}

    // Argument `name`'s value; one the `.rop` left out takes `fallback` (the C++ default).
    template <class T, class Fallback = T>
    T get(std::string_view name, Fallback&& fallback) const {
        const std::optional<std::string>& text = find(name).value;
        if (!text) return T(std::forward<Fallback>(fallback));
        return convert<T>(name, *text);
    }
    // Argument `name`, which the `.rop` sets.
    template <class T>
    T get(std::string_view name) const {
        const std::optional<std::string>& text = find(name).value;
        if (!text) throw std::logic_error("Call argument '" + std::string(name) + "' has no value");
        return convert<T>(name, *text);
    }

  private:
    const rop::runtime::CallArgument& find(std::string_view name) const {
        for (const rop::runtime::CallArgument& a : *arguments_) {
            if (a.name == name) return a;
        }
        throw std::logic_error("no Call argument '" + std::string(name) + "'");
    }
    template <class T>
    static T convert(std::string_view name, const std::string& text) {
        if constexpr (std::is_same_v<T, std::string>) {
            return text;
        } else if constexpr (std::is_same_v<T, bool>) {
            return text == "true";
        } else {
            T value{};
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc() || end != text.data() + text.size()) {
                throw std::invalid_argument("Call argument '" + std::string(name) + "': '" + text +
                                            "' is not a value of its type");
            }
            return value;
        }
    }

    const std::vector<rop::runtime::CallArgument>* arguments_;
};

// One run-time argument of a Call, typed by its C++ parameter type T: `value` as the `.rop`
// writes it (text), or std::nullopt with the C++ default's source text.
template <class T>
rop::runtime::CallArgument argument(std::string name, std::optional<std::string> value,
                                    std::string default_text = {}) {
    rop::runtime::CallArgument a;
    a.name = std::move(name);
    if constexpr (std::is_same_v<T, bool>) {
        a.type = rop::runtime::ArgumentType::Bool;
    } else if constexpr (std::is_integral_v<T>) {
        using Limits = std::numeric_limits<T>;
        a.type = rop::runtime::ArgumentType::Int;
        a.min = static_cast<std::int64_t>(Limits::min());
        a.max = Limits::max() > static_cast<std::uint64_t>(INT64_MAX)
                    ? INT64_MAX
                    : static_cast<std::int64_t>(Limits::max());
    } else if constexpr (std::is_floating_point_v<T>) {
        a.type = rop::runtime::ArgumentType::Float;
    } else {
        static_assert(std::is_same_v<T, std::string>, "a run-time argument is a string or number");
        a.type = rop::runtime::ArgumentType::String;
    }
    a.value = std::move(value);
    a.default_text = std::move(default_text);
    return a;
}

// A Call's factory for given arguments: `Actor` is built from rop::gen::Arguments.
template <class Actor>
rop::runtime::ActorFactory bind_arguments(const std::vector<rop::runtime::CallArgument>& values) {
    return [values]() -> std::unique_ptr<rop::runtime::Actor> {
        return std::make_unique<Actor>(Arguments(values));
    };
}

// A source class (next(), and optionally size_hint() and name_of(item)) as the runtime's
// RootSource; a root without name_of is named by its ordinal.
template <class Item, class Source>
class SourceAdapter final : public rop::runtime::RootSource {
  public:
    explicit SourceAdapter(std::unique_ptr<Source> source) : source_(std::move(source)) {}

    std::optional<Root> next() override {
        auto item = source_->next();
        if (!item) return std::nullopt;
        std::string name;
        if constexpr (requires(const Source& s, const Item& i) {
                          { s.name_of(i) } -> std::convertible_to<std::string>;
                      }) {
            name = source_->name_of(*item);
        } else {
            name = std::to_string(count_);
        }
        ++count_;
        return Root{rop::runtime::Value::of<Item>(std::move(*item)), std::move(name)};
    }

    std::optional<std::size_t> size_hint() const override {
        if constexpr (requires(const Source& s) { s.size_hint(); }) {
            return source_->size_hint();
        } else {
            return std::nullopt;
        }
    }

  private:
    std::unique_ptr<Source> source_;
    std::uint64_t count_ = 0;
};

template <class Item, class Source>
std::unique_ptr<rop::runtime::RootSource> adapt_source(std::unique_ptr<Source> source) {
    return std::make_unique<SourceAdapter<Item, Source>>(std::move(source));
}

// A sink class (write(root, items), and optionally checkpoint(), restore(token), sync() and
// skip(root)) as the runtime's per-root sink binding.
template <class Item, class Sink>
rop::runtime::RootSinkBinding bind_sink(std::shared_ptr<Sink> sink) {
    rop::runtime::RootSinkBinding binding;
    binding.write_root = [sink](const rop::runtime::RootKey& root,
                                std::span<const rop::runtime::Value> values) {
        std::vector<Item> items;
        items.reserve(values.size());
        for (const rop::runtime::Value& value : values) items.push_back(value.get<Item>());
        sink->write(rop::RootKey{root.ordinal, root.name}, std::span<const Item>(items));
    };
    if constexpr (requires(Sink& s) {
                      { s.checkpoint() } -> std::convertible_to<std::string>;
                  }) {
        binding.checkpoint = [sink] { return std::string(sink->checkpoint()); };
    }
    if constexpr (requires(Sink& s, const std::string& token) { s.restore(token); }) {
        binding.restore = [sink](const std::string& token) { sink->restore(token); };
    }
    if constexpr (requires(Sink& s) { s.sync(); }) binding.sync = [sink] { sink->sync(); };
    if constexpr (requires(Sink& s, const rop::RootKey& root) { s.skip(root); }) {
        binding.skip_root = [sink](const rop::runtime::RootKey& root) { sink->skip(root); };
    }
    return binding;
}

// What make_pipeline() fills: the plan (Domains, Ports, Calls, each with its options) and, next
// to it, each Call as --help and --set know it (its name, kind, UDF and run-time arguments; --set
// edits the options in the plan's CallSpec), the source and the sinks.
class PipelineBuilder {
  public:
    PipelineBuilder(std::string name, std::string version, std::string rop_path) {
        definition_.name = std::move(name);
        definition_.version = std::move(version);
        definition_.rop_path = std::move(rop_path);
    }

    // The report's rop_hash: ropc stamps "sha256:<hex>" of the `.rop` text.
    void rop_hash(std::string hash) { definition_.rop_hash = std::move(hash); }

    rop::runtime::DomainId domain(std::string name,
                                  rop::runtime::DomainId parent = rop::runtime::kNoDomain) {
        return plan_.add_domain(std::move(name), parent);
    }
    rop::runtime::PortId source_port(std::string name) { return plan_.source(std::move(name)); }
    rop::runtime::PortId port(std::string name, rop::runtime::DomainId domain) {
        return plan_.add_port(std::move(name), domain);
    }
    // `udf`: the `.rop` operator (`std.text.read`); empty for broadcast and a reduce without one.
    void call(rop::runtime::CallSpec spec, std::string udf = {}) {
        definition_.calls.push_back({spec.name, spec.kind, std::move(udf)});
        plan_.add_call(std::move(spec));
    }
    // A Call whose actor takes run-time arguments: its factory is `bind(arguments)`, again with
    // the effective arguments once the flags are parsed (`.factory = rop::gen::bind_arguments<A>`).
    using ArgumentBinder =
        rop::runtime::ActorFactory (*)(const std::vector<rop::runtime::CallArgument>&);
    void call(rop::runtime::CallSpec spec, std::string udf, ArgumentBinder bind,
              std::vector<rop::runtime::CallArgument> arguments) {
        spec.factory = bind(arguments);
        call(std::move(spec), std::move(udf));
        definition_.calls.back().arguments = std::move(arguments);
        definition_.calls.back().bind_arguments = bind;
    }
    // A shared actor pool (`pool vlm = ...;`), before the Calls that run on it.
    rop::runtime::PoolId pool(rop::runtime::PoolSpec spec) {
        return plan_.add_pool(std::move(spec));
    }
    void source(rop::runtime::SourceDefinition source) {
        definition_.sources.push_back(std::move(source));
    }
    void sink(rop::runtime::SinkDefinition sink) { definition_.sinks.push_back(std::move(sink)); }

    // Validates the plan (throws rop::runtime::ContractError on a malformed one).
    rop::runtime::PipelineDefinition finish() {
        definition_.plan = plan_.build();
        return std::move(definition_);
    }

  private:
    rop::runtime::PlanBuilder plan_;
    rop::runtime::PipelineDefinition definition_;
};

}  // namespace rop::gen
