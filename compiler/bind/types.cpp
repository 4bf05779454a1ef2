#include "bind/types.h"

namespace rop::bind {

bool same_type(const CxxType& a, const CxxType& b) { return a.canonical == b.canonical; }

std::string display_name(const CxxType& type) {
    return type.name.empty() ? type.canonical : type.name;
}

std::string describe_mismatch(const CxxType& expected, const CxxType& got) {
    std::string want = display_name(expected);
    std::string have = display_name(got);
    if (want == have) {
        want = expected.canonical;
        have = got.canonical;
    }
    return "expected '" + want + "', got '" + have + "'";
}

}  // namespace rop::bind
