// UDFs of examples/records: orders read from a JSONL file as a struct of yours (std.io's record
// source), priced, and written as invoices to a JSONL file in source order (the ordered record
// sink), though later orders finish first.
#pragma once

#include <rop/stdlib/io.h>
#include <rop/udf.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace shop {

struct Customer {
    std::string name;
    std::optional<std::string> email;
};

struct Order {
    std::string id;  // "o1", "o2", ...
    Customer customer;
    std::vector<std::string> items;
    int quantity = 0;
    double unit_price = 0;
    std::optional<std::string> coupon;
};

struct Invoice {
    std::string order;
    std::string customer;
    int quantity = 0;
    double total = 0;
    bool discounted = false;
};

// The record source and sink: one root per line of the file, one line per invoice.
using OrderRows = rop::stdlib::io::JsonlSource<Order>;
using InvoiceOut = rop::stdlib::io::JsonlSink<Invoice>;

// map: prices one order. An order of nothing fails by itself (its root is reported failed and
// writes nothing). The later the order, the sooner it is done, so roots finish out of order.
inline Invoice invoice(const Order& order) {
    if (order.quantity <= 0) {
        throw rop::RecordFailure("order " + order.id + " has quantity " +
                                 std::to_string(order.quantity));
    }
    const int position = std::stoi(order.id.substr(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * (10 - position)));
    Invoice out;
    out.order = order.id;
    out.customer = order.customer.name;
    out.quantity = order.quantity;
    out.total = order.quantity * order.unit_price;
    if (order.coupon == "HALF") {
        out.total /= 2;
        out.discounted = true;
    }
    return out;
}

// filter: invoices under 5 are not shipped (their roots are dropped at the sink).
inline bool worth_shipping(const Invoice& invoice) { return invoice.total >= 5; }

}  // namespace shop
