// Record sources and sinks (std.io's JsonlSource<T>, CsvSource<T>, JsonlSink<T>, CsvSink<T>):
// the record type maps onto records field by field (E0511 at the Call's operator, naming the
// struct and the field, with a note at the field): public, non-const fields of text, numbers,
// bool, std::optional, std::vector or structs of such; for CSV, one cell each.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_record_types(BindContext& ctx, const sema::Call& call, const BoundCall& bound);

}  // namespace rop::bind
