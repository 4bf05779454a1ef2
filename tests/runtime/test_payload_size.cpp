// The payload budget counts what an item holds (rop::ByteSize, <rop/byte_size.h>; Value::
// byte_size): the standard types by what they own, a struct field by field through the
// rop::DerivedByteSize that ropc writes (written here by hand, as ropc writes it), a class with
// private state as sizeof, a header's own rop::ByteSize first; and a run whose roots hold
// 20 MiB each in a struct admits one at a time under a 4 MiB budget, all at once under 1 GiB.
// tests/codegen/test_payload_size.cpp checks the same through ropc's generated code.
#include <array>
#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "runtime_test_util.h"

namespace payload_test {

struct Kid {
    std::string name;
    int age = 0;
};

struct Blob {
    std::string label;
    std::vector<Kid> kids;
};

class Sealed {  // private state: ropc derives nothing, sizeof counts
  public:
    explicit Sealed(std::string text) : text_(std::move(text)) {}
    std::size_t size() const { return text_.size(); }

  private:
    std::string text_;
};

struct Stamp {  // its header's rop::ByteSize wins over the one ropc derives
    std::string data;
};

}  // namespace payload_test

// As ropc writes them into the generated file (codegen_templates/byte_size.tmpl).
template <>
struct rop::DerivedByteSize<payload_test::Kid> {
    static std::size_t of(const auto& value) {
        return rop::fields_byte_size(value, value.name, value.age);
    }
};
template <>
struct rop::DerivedByteSize<payload_test::Blob> {
    static std::size_t of(const auto& value) {
        return rop::fields_byte_size(value, value.label, value.kids);
    }
};
template <>
struct rop::DerivedByteSize<payload_test::Stamp> {
    static std::size_t of(const auto& value) { return rop::fields_byte_size(value, value.data); }
};
// As a UDF header writes one.
template <>
struct rop::ByteSize<payload_test::Stamp> {
    static std::size_t of(const payload_test::Stamp&) { return 4096; }
};

using namespace rop::runtime;
using namespace rop::runtime::test;
using payload_test::Blob;
using payload_test::Kid;

namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;

const std::string& kilobyte() {
    static const std::string text(kKiB, 'k');
    return text;
}

}  // namespace

TEST_CASE("payload size: standard types count what they own", "[runtime][payload]") {
    using rop::byte_size;
    const std::string long_text = kilobyte();
    CHECK(byte_size(long_text) == sizeof(std::string) + long_text.capacity() + 1);
    CHECK(byte_size(std::string("ab")) == sizeof(std::string));  // in the short-string buffer
    CHECK(byte_size(42) == sizeof(int));

    const std::vector<std::uint8_t> pixels(1000);
    CHECK(byte_size(pixels) == sizeof(pixels) + pixels.capacity());
    CHECK(byte_size(std::vector<std::string>(3, long_text)) >= 3 * kKiB);
    CHECK(byte_size(std::array<std::string, 2>{long_text, long_text}) >= 2 * kKiB);
    CHECK(byte_size(std::optional<std::string>(long_text)) >= kKiB);
    CHECK(byte_size(std::optional<std::string>()) == sizeof(std::optional<std::string>));
    CHECK(byte_size(std::variant<int, std::string>(long_text)) >= kKiB);
    CHECK(byte_size(std::pair<int, std::string>(1, long_text)) >= kKiB);
    CHECK(byte_size(std::tuple<std::string, int, std::string>(long_text, 1, long_text)) >=
          2 * kKiB);
    CHECK(byte_size(std::map<std::string, std::string>{{"a", long_text}, {"b", long_text}}) >=
          2 * kKiB);
    CHECK(byte_size(std::unordered_map<int, std::vector<double>>{{1, std::vector<double>(256)}}) >=
          256 * sizeof(double));
    CHECK(byte_size(std::set<std::string>{long_text}) >= kKiB);

    const auto shared = std::make_shared<const std::vector<std::uint8_t>>(kMiB);
    CHECK(byte_size(shared) >= kMiB);
    CHECK(byte_size(std::shared_ptr<const std::vector<std::uint8_t>>()) ==
          sizeof(std::shared_ptr<int>));
    CHECK(byte_size(std::make_unique<std::string>(long_text)) >= kKiB);
}

TEST_CASE("payload size: a struct counts its fields, a sealed class sizeof", "[runtime][payload]") {
    const Kid kid{kilobyte(), 7};
    CHECK(rop::byte_size(kid) >= sizeof(Kid) + kKiB);
    CHECK(rop::byte_size(std::vector<Kid>(10, kid)) >= 10 * (sizeof(Kid) + kKiB));
    Blob blob;
    blob.kids.assign(3, kid);
    CHECK(rop::byte_size(blob) >= 3 * kKiB);

    const payload_test::Sealed sealed(std::string(4 * kKiB, 's'));
    CHECK(sealed.size() == 4 * kKiB);
    CHECK(rop::byte_size(sealed) == sizeof(payload_test::Sealed));
    CHECK(rop::byte_size(payload_test::Stamp{std::string(64 * kKiB, 'x')}) == 4096);

    // Value::byte_size is what the budget reads.
    CHECK(Value::of<Kid>(kid).byte_size() == rop::byte_size(kid));
    CHECK(Value::of<Blob>(blob).byte_size() == rop::byte_size(blob));
    CHECK(Value::of<payload_test::Stamp>(payload_test::Stamp{}).byte_size() == 4096);
}

TEST_CASE("admission: a root holding 20 MiB in a struct waits under a 4 MiB budget",
          "[runtime][admission][payload]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    b.add_call({"count", CallKind::Map, doc, {{src}}, {out}, opts(1, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        const auto kids = bt.input(g, 0).get<Blob>().kids.size();
                        bt.set_output(g, 0, Value::of<long>(static_cast<long>(kids)));
                    }
                })});
    const Plan plan = b.build();
    // Three roots of 20480 kids named by 1 KiB strings: 20 MiB each, 64 bytes by sizeof.
    class Blobs final : public RootSource {
      public:
        std::optional<Root> next() override {
            if (left_ == 0) return std::nullopt;
            --left_;
            Blob blob;
            blob.kids.assign(20 * kKiB, Kid{kilobyte(), 7});
            return Root{Value::of<Blob>(std::move(blob)), "blob" + std::to_string(left_)};
        }

      private:
        int left_ = 3;
    };
    for (const std::size_t budget : {4 * kMiB, 1024 * kMiB}) {
        CAPTURE(budget);
        Blobs source;
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        options.max_payload_bytes = budget;
        const RunReport report = run(plan, source, options);
        REQUIRE(report.roots.size() == 3u);
        const std::string kids = std::to_string(20 * kKiB);
        CHECK(rec.of(out) == std::multiset<std::string>{kids, kids, kids});
        CHECK(report.peak_live_bytes >= 20 * kMiB);
        // Over the budget with one root held, the next waits until it is done; counted as
        // sizeof(Blob), all three would be admitted at once.
        CHECK(report.peak_inflight_roots == (budget == 4 * kMiB ? 1u : 3u));
    }
}
