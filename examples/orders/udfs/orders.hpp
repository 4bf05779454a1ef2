// UDFs of examples/orders, the failure demo: parse `item,quantity,unit_price` lines, price them,
// and total them per file. Bad input fails with rop::RecordFailure (one line) or
// rop::GroupFailure (the whole file).
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <span>
#include <string>
#include <vector>

namespace orders {

struct Line {
    std::string text;
};

struct Priced {
    std::string item;
    long quantity = 0;
    long unit_cents = 0;  // may be negative: check_price rejects it
};

struct Total {
    long lines = 0;
    long cents = 0;
};

// expand: the non-empty lines after the header line.
std::vector<Line> lines(const std::string& csv);

// map: parses one line; throws rop::RecordFailure for a malformed line.
Priced price(const Line& line);

// map: throws rop::GroupFailure for a negative price (the whole file is rejected).
Priced check_price(const Priced& priced);

// reduce: the file's total.
Total total(std::span<const Priced> lines);

// map: one JSON line per file.
rop::stdlib::JsonText to_json(const rop::stdlib::File& file, const Total& total);

}  // namespace orders
