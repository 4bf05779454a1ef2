// A record type std.io cannot map, for tests/diagnostics/E0511_unmappable_record.rop. The golden
// quotes lines of this file: append, do not insert.
#pragma once

#include <map>
#include <string>

#include <rop/stdlib/io.h>

namespace golden {

struct Tagged {
    std::string id;
    std::map<std::string, int> tags;
};

using TaggedRows = rop::stdlib::io::JsonlSource<Tagged>;
using TaggedOut = rop::stdlib::io::JsonlSink<Tagged>;

}  // namespace golden
