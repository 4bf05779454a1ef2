#include "orders.hpp"

#include <charconv>
#include <sstream>

namespace orders {
namespace {

long parse_number(const std::string& field, const std::string& what, const std::string& line) {
    long value = 0;
    const char* begin = field.data();
    const char* end = begin + field.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || field.empty()) {
        throw rop::RecordFailure("bad " + what + " '" + field + "' in line '" + line + "'");
    }
    return value;
}

}  // namespace

std::vector<Line> lines(const std::string& csv) {
    std::vector<Line> out;
    std::istringstream in(csv);
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
        if (header) {
            header = false;
            continue;
        }
        if (!line.empty()) out.push_back({line});
    }
    return out;
}

Priced price(const Line& line) {
    std::vector<std::string> fields;
    std::istringstream in(line.text);
    std::string field;
    while (std::getline(in, field, ',')) fields.push_back(field);
    if (fields.size() != 3) {
        throw rop::RecordFailure("expected 3 fields in line '" + line.text + "'");
    }
    return {fields[0], parse_number(fields[1], "quantity", line.text),
            parse_number(fields[2], "unit price", line.text)};
}

Priced check_price(const Priced& priced) {
    if (priced.unit_cents < 0) {
        throw rop::GroupFailure("negative unit price for '" + priced.item +
                                "': the whole sheet is rejected");
    }
    return priced;
}

Total total(std::span<const Priced> lines) {
    Total t;
    for (const Priced& p : lines) {
        ++t.lines;
        t.cents += p.quantity * p.unit_cents;
    }
    return t;
}

rop::stdlib::JsonText to_json(const rop::stdlib::File& file, const Total& total) {
    return {"{\"file\": \"" + file.name + "\", \"lines\": " + std::to_string(total.lines) +
            ", \"cents\": " + std::to_string(total.cents) + "}"};
}

}  // namespace orders
