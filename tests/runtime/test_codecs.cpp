// Codecs (rop/codec.h): every builtin codec round-trips, empty and nested values included; every
// strict prefix of an encoding and every garbled count, flag or index is rejected with
// rop::CodecError (never a read past the end, never a huge allocation); a struct's FieldsCodec
// (what ropc generates) round-trips; a user's rop::Codec specialization is the one Value uses.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <cstring>
#include <functional>
#include <random>

#include "rop/udf.h"
#include "runtime_test_util.h"

using Catch::Matchers::ContainsSubstring;
using rop::CodecError;
using rop::runtime::ContractError;
using rop::runtime::Value;

namespace codec_test {

enum class Color : std::uint8_t { red, green, blue };
enum Plain { one = 1, two = 2 };

struct Inner {
    std::string name;
    std::optional<int> score;

    bool operator==(const Inner&) const = default;
};

struct Outer {
    int id = 0;
    Inner inner;
    std::vector<Inner> items;
    std::map<std::string, std::vector<double>> series;
    Color color = Color::red;

    bool operator==(const Outer&) const = default;
};

struct Empty {};

// A type ropc could not derive a codec for (a private field): the user writes one.
class Opaque {
  public:
    Opaque() = default;
    explicit Opaque(std::string secret) : secret_(std::move(secret)) {}
    const std::string& secret() const { return secret_; }

  private:
    std::string secret_;
};

}  // namespace codec_test

// What ropc generates for Inner and Outer (rop::FieldsCodec), and a hand-written opaque codec.
template <>
struct rop::Codec<codec_test::Inner>
    : rop::FieldsCodec<codec_test::Inner, &codec_test::Inner::name, &codec_test::Inner::score> {};
template <>
struct rop::Codec<codec_test::Outer>
    : rop::FieldsCodec<codec_test::Outer, &codec_test::Outer::id, &codec_test::Outer::inner,
                       &codec_test::Outer::items, &codec_test::Outer::series,
                       &codec_test::Outer::color> {};
template <>
struct rop::Codec<codec_test::Empty> : rop::FieldsCodec<codec_test::Empty> {};
template <>
struct rop::Codec<codec_test::Opaque> {
    static void encode(const codec_test::Opaque& value, std::string& out) {
        rop::Codec<std::string>::encode(value.secret(), out);
    }
    static codec_test::Opaque decode(std::string_view& in) {
        return codec_test::Opaque(rop::Codec<std::string>::decode(in));
    }
};

namespace {

using namespace codec_test;

template <class T>
std::string encode(const T& value) {
    std::string bytes;
    rop::Codec<T>::encode(value, bytes);
    return bytes;
}

// Decodes all of `bytes` (nothing may be left over).
template <class T>
T decode(std::string_view bytes) {
    T value = rop::Codec<T>::decode(bytes);
    CHECK(bytes.empty());
    return value;
}

// Round-trips `value` and checks that every strict prefix of its encoding is rejected.
template <class T>
T round_trip(const T& value) {
    const std::string bytes = encode(value);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        std::string_view prefix(bytes.data(), n);
        CHECK_THROWS_AS(rop::Codec<T>::decode(prefix), CodecError);
    }
    return decode<T>(bytes);
}

std::string u64(std::uint64_t n) {
    std::string out(sizeof n, '\0');
    std::memcpy(out.data(), &n, sizeof n);
    return out;
}

}  // namespace

TEST_CASE("codecs: numbers, bool, enums and durations round-trip", "[runtime][codec]") {
    CHECK(round_trip<int>(-7) == -7);
    CHECK(round_trip<std::uint64_t>(~0ULL) == ~0ULL);
    CHECK(round_trip<double>(2.5) == 2.5);
    CHECK(round_trip<float>(-0.25F) == -0.25F);
    CHECK(round_trip<char>('x') == 'x');
    CHECK(round_trip<bool>(true));
    CHECK_FALSE(round_trip<bool>(false));
    CHECK(encode(true).size() == 1);
    CHECK(round_trip(Color::blue) == Color::blue);
    CHECK(encode(Color::blue).size() == 1);  // by underlying value
    CHECK(round_trip(two) == two);
    CHECK(round_trip(std::chrono::milliseconds(1500)) == std::chrono::milliseconds(1500));
    CHECK(round_trip(std::chrono::duration<double>(0.5)) == std::chrono::duration<double>(0.5));
}

TEST_CASE("codecs: strings and sequences round-trip, empty ones too", "[runtime][codec]") {
    CHECK(round_trip(std::string()).empty());
    CHECK(round_trip(std::string("a\0b", 3)) == std::string("a\0b", 3));
    CHECK(round_trip(std::vector<std::string>{"a", "", "ccc"}) ==
          std::vector<std::string>{"a", "", "ccc"});
    CHECK(round_trip(std::vector<int>{}).empty());
    const std::vector<std::uint8_t> pixels{0, 1, 254, 255};
    CHECK(round_trip(pixels) == pixels);
    CHECK(encode(pixels).size() == 8 + 4);  // a count, then the bytes in bulk
    CHECK(round_trip(std::vector<char>{'a', '\0'}) == std::vector<char>{'a', '\0'});
    CHECK(round_trip(std::vector<double>{1.5, -2}) == std::vector<double>{1.5, -2});
    CHECK(round_trip(std::vector<bool>{true, false, true}) == std::vector<bool>{true, false, true});
    CHECK(round_trip(std::array<int, 3>{1, 2, 3}) == std::array<int, 3>{1, 2, 3});
    CHECK(encode(std::array<int, 3>{}).size() == 3 * sizeof(int));  // no count
    CHECK(round_trip(std::vector<std::vector<int>>{{}, {1}, {2, 3}}) ==
          std::vector<std::vector<int>>{{}, {1}, {2, 3}});
}

TEST_CASE("codecs: optional, shared, variant, pair and tuple round-trip", "[runtime][codec]") {
    CHECK_FALSE(round_trip(std::optional<std::string>()).has_value());
    CHECK(round_trip(std::optional<std::string>("x")) == std::optional<std::string>("x"));
    CHECK(round_trip(std::optional<std::optional<int>>(std::optional<int>())) ==
          std::optional<std::optional<int>>(std::optional<int>()));
    const auto shared = std::make_shared<const std::vector<std::uint8_t>>(3, 9);
    const auto back = round_trip(shared);
    REQUIRE(back != nullptr);
    CHECK(*back == *shared);
    CHECK(back != shared);  // the far side's own copy
    CHECK(round_trip(std::shared_ptr<const int>()) == nullptr);
    using V = std::variant<std::monostate, int, std::string>;
    CHECK(round_trip(V()) == V());
    CHECK(round_trip(V(std::string("s"))) == V(std::string("s")));
    CHECK(round_trip(V(4)) == V(4));
    CHECK(round_trip(std::pair<std::string, int>("k", 2)) == std::pair<std::string, int>("k", 2));
    CHECK(round_trip(std::tuple<>()) == std::tuple<>());
    CHECK(round_trip(std::tuple<int, std::string, bool>(1, "two", true)) ==
          std::tuple<int, std::string, bool>(1, "two", true));
}

TEST_CASE("codecs: maps and sets round-trip", "[runtime][codec]") {
    const std::map<std::string, std::vector<int>> map{{"a", {1}}, {"b", {}}, {"", {2, 3}}};
    CHECK(round_trip(map) == map);
    CHECK(round_trip(std::map<int, int>()).empty());
    const std::unordered_map<std::string, double> hashed{{"x", 1}, {"y", 2}};
    CHECK(round_trip(hashed) == hashed);
    CHECK(round_trip(std::set<std::string>{"b", "a"}) == std::set<std::string>{"a", "b"});
    CHECK(round_trip(std::unordered_set<int>{3, 1}) == std::unordered_set<int>{1, 3});
    const std::map<std::string, std::map<int, std::optional<std::string>>> nested{
        {"outer", {{1, "one"}, {2, std::nullopt}}}, {"empty", {}}};
    CHECK(round_trip(nested) == nested);
}

TEST_CASE("codecs: structs by their fields, nested and empty", "[runtime][codec]") {
    Outer outer;
    outer.id = 42;
    outer.inner = {"in", 3};
    outer.items = {{"a", std::nullopt}, {"", -1}};
    outer.series = {{"s", {0.5, 1.5}}, {"t", {}}};
    outer.color = Color::green;
    CHECK(round_trip(outer) == outer);
    CHECK(round_trip(Outer()) == Outer());
    CHECK(round_trip(std::vector<Empty>(3)).size() == 3);
    CHECK(encode(Empty()).size() == 1);  // so that a count of them is bounded by the bytes left
    std::string bad = u64(1u << 30);     // a billion Empty structs, zero bytes behind them
    std::string_view in = bad;
    CHECK_THROWS_AS(rop::Codec<std::vector<Empty>>::decode(in), CodecError);
}

TEST_CASE("codecs: garbled counts, flags and indexes are rejected", "[runtime][codec]") {
    // A corrupt count is checked against the bytes left before anything is allocated.
    std::string huge = u64(std::uint64_t{1} << 60) + "abc";
    std::string_view in = huge;
    CHECK_THROWS_WITH(rop::Codec<std::string>::decode(in),
                      ContainsSubstring("count 1152921504606846976 exceeds the 3 bytes left"));
    std::string three_doubles = u64(3) + std::string(16, '\0');  // room for two
    in = three_doubles;
    CHECK_THROWS_AS(rop::Codec<std::vector<double>>::decode(in), CodecError);
    std::string strings = u64(std::uint64_t{1} << 40) + u64(0);
    in = strings;
    CHECK_THROWS_AS(rop::Codec<std::vector<std::string>>::decode(in), CodecError);
    std::string map = u64(std::uint64_t{1} << 33) + std::string(40, '\0');
    in = map;
    CHECK_THROWS_AS((rop::Codec<std::map<int, int>>::decode(in)), CodecError);

    std::string byte_two = "\x02";
    in = byte_two;
    CHECK_THROWS_WITH(rop::Codec<bool>::decode(in), ContainsSubstring("not 0 or 1"));
    in = byte_two;
    CHECK_THROWS_WITH(rop::Codec<std::optional<int>>::decode(in),
                      ContainsSubstring("presence byte 2"));
    std::string index = std::string("\x07\0\0\0", 4);
    in = index;
    CHECK_THROWS_WITH((rop::Codec<std::variant<int, std::string>>::decode(in)),
                      ContainsSubstring("alternative 7 out of range"));
    std::string dup = u64(2) + encode(1) + encode(5) + encode(1) + encode(6);
    in = dup;
    CHECK_THROWS_WITH((rop::Codec<std::map<int, int>>::decode(in)),
                      ContainsSubstring("duplicate key"));
    CHECK_THROWS_WITH(decode<std::string>(""), ContainsSubstring("rop::Codec<std::") &&
                                                   ContainsSubstring("input too short"));
}

TEST_CASE("codecs: random mutations of a valid encoding never crash", "[runtime][codec]") {
    Outer outer;
    outer.id = 7;
    outer.items = {{"abc", 1}, {"de", std::nullopt}};
    outer.series = {{"k", {1, 2, 3}}};
    const std::string bytes = encode(outer);
    std::mt19937 rng(12345);
    int decoded = 0;
    int rejected = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::string mutated = bytes;
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int f = 0; f < flips; ++f) {
            mutated[rng() % mutated.size()] = static_cast<char>(rng() % 256);
        }
        if (trial % 5 == 0) mutated.resize(rng() % mutated.size());
        std::string_view in = mutated;
        try {
            (void)rop::Codec<Outer>::decode(in);
            ++decoded;
        } catch (const CodecError&) {
            ++rejected;
        }
    }
    CHECK(decoded + rejected == 3000);
    CHECK(rejected > 0);
}

TEST_CASE("codecs: which types have one", "[runtime][codec]") {
    STATIC_CHECK(rop::has_codec<Outer>);
    STATIC_CHECK(rop::has_codec<std::map<std::string, std::vector<Inner>>>);
    STATIC_CHECK_FALSE(rop::has_codec<int*>);
    STATIC_CHECK_FALSE(rop::has_codec<std::shared_ptr<int>>);  // shared and mutable: no
    STATIC_CHECK_FALSE(rop::has_codec<std::function<void()>>);
    STATIC_CHECK_FALSE(rop::has_codec<std::vector<int*>>);
    STATIC_CHECK_FALSE(rop::has_codec<std::optional<std::function<int()>>>);
    STATIC_CHECK_FALSE((rop::has_codec<std::map<std::string, void*>>));
    STATIC_CHECK_FALSE(rop::has_codec<std::string_view>);  // points into bytes it does not own
    // One template: the runtime's Codec is rop::Codec.
    STATIC_CHECK(std::is_same_v<rop::runtime::Codec<Opaque>, rop::Codec<Opaque>>);
}

TEST_CASE("codecs: a user's rop::Codec is the one Value uses", "[runtime][codec]") {
    const Value value = Value::of(Opaque("hidden"));
    REQUIRE(value.type()->decode != nullptr);
    const Value back = Value::decode(*value.type(), value.encode());
    CHECK(back.get<Opaque>().secret() == "hidden");
    // Bytes that do not decode are a ContractError at the Value level, naming the type.
    CHECK_THROWS_AS(Value::decode(*value.type(), u64(99)), ContractError);
    CHECK_THROWS_WITH(Value::decode(*value.type(), value.encode() + "x"),
                      ContainsSubstring("trailing bytes"));
}
