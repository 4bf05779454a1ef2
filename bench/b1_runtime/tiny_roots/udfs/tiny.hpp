// UDFs of the tiny-roots memory benchmark (bench/b1_runtime/tiny_roots.sh): one root per JSONL
// line, a map that doubles its number, one output line per root.
#pragma once

#include <rop/stdlib/io.h>
#include <rop/udf.h>

namespace tiny {

struct Row {
    long n = 0;
};

using Rows = rop::stdlib::io::JsonlSource<Row>;
using Out = rop::stdlib::io::JsonlSink<Row>;

inline Row twice(const Row& row) { return Row{2 * row.n}; }

}  // namespace tiny
