// The commit-group benchmark's UDFs: a source of N tiny roots and their JSON line.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstdint>
#include <optional>
#include <string>

namespace count {

struct Number {
    std::uint64_t value = 0;
};

// Roots 0..n-1, named by their value; the input is n, as text (`--input numbers=N`).
class Numbers {
  public:
    explicit Numbers(const std::string& count) : n_(std::stoull(count)) {}
    std::optional<Number> next() {
        if (next_ == n_) return std::nullopt;
        return Number{next_++};
    }
    std::optional<std::size_t> size_hint() const { return n_; }
    std::string name_of(const Number& number) const { return std::to_string(number.value); }

  private:
    std::uint64_t n_;
    std::uint64_t next_ = 0;
};

inline rop::stdlib::JsonText to_json(const Number& number) {
    return {"{\"n\":" + std::to_string(number.value) + "}"};
}

}  // namespace count
