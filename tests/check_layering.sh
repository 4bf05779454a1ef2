#!/usr/bin/env bash
# Fails when an #include crosses a layer the wrong way (STYLE.md: dependencies point one way).
# Two header-only homes sit under everything and include only the standard library:
#   api/include/rop/*.h         the UDF API (rop::api): udf.h, codec.h, fields.h, records.h,
#                               byte_size.h; among themselves only records.h -> fields.h
#   vocab/include/rop/vocab/    the vocabulary (rop::vocab) the compiler and the runtime share
# Above them, in both directions:
#   runtime/ includes the API and the vocabulary, never the stdlib's or the compiler's headers;
#   stdlib/ includes the API, never the runtime's headers (rop/runtime/; its src/ is on no
#     stdlib target's include path), the vocabulary or the compiler's;
#   compiler/ includes rop/vocab/ only: not the runtime, and not the API either (binding reads
#     the API and the stdlib's headers with Clang at run time, where ropc finds them:
#     compiler/driver/toolchain.h);
#   support <- frontend <- sema <- ropc inside the compiler.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0
includes() { # the #include lines under DIR, as file:line:text
    grep -rnE '^\s*#\s*include' "$root/$1" 2>/dev/null
}
check() { # check DIR PATTERN WHY: no #include under DIR names PATTERN
    local hits
    hits=$(includes "$1" | grep -E ":\s*#\s*include\s*[<\"]($2)")
    if [ -n "$hits" ]; then
        echo "layering violation: $3"
        echo "$hits" | sed "s|$root/||"
        fail=1
    fi
}
only() {       # only DIR PATTERN WHY: every #include under DIR is a standard header or names PATTERN
    local hits # (an empty PATTERN: standard headers only)
    hits=$(includes "$1" | grep -vE ":\s*#\s*include\s*<[a-z_]+>")
    [ -n "$2" ] && hits=$(echo "$hits" | grep -vE ":\s*#\s*include\s*[<\"]($2)[>\"]")
    if [ -n "$hits" ]; then
        echo "layering violation: $3"
        echo "$hits" | sed "s|$root/||"
        fail=1
    fi
}
for dir in api/include/rop vocab/include/rop/vocab; do
    [ -d "$root/$dir" ] || {
        echo "layering: $dir is missing"
        fail=1
    }
done
api='rop/(udf|codec|fields|records|byte_size)\.h'
only api/include "$api" "the UDF API (api/) includes only the standard library and itself"
hits=$(includes api/include | grep -E "[<\"]$api" |
    grep -vE '/rop/records\.h:[0-9]+:\s*#\s*include\s*<rop/fields\.h>')
if [ -n "$hits" ]; then
    echo "layering violation: the UDF API's headers include each other only records.h -> fields.h"
    echo "$hits" | sed "s|$root/||"
    fail=1
fi
only vocab/include '' \
    "rop/vocab/ is shared by compiler and runtime: it includes only the standard library"
check runtime 'support/|frontend/|sema/|bind/|codegen/' "runtime/ must not include compiler headers"
check runtime 'rop/stdlib/' "runtime/ must not include the stdlib's headers (the UDF API is api/)"
check stdlib 'rop/runtime/|rop/vocab/|support/|frontend/|sema/|bind/|codegen/|driver/' \
    "stdlib/ includes the UDF API, not the runtime's, the vocabulary's or the compiler's headers"
check compiler 'rop/runtime/' "compiler/ must not include runtime headers"
check compiler 'rop/[^v]|rop/v[^o]|rop/vo[^c]|rop/voc[^a]|rop/voca[^b]|rop/vocab[^/]' \
    "compiler/ may include only rop/vocab/ of rop's headers (not the runtime's, not the UDF API)"
check compiler/support 'frontend/|sema/|bind/|codegen/|driver/' "support is the bottom layer"
check compiler/frontend 'sema/|bind/|codegen/|driver/' "frontend must not depend on later passes"
check compiler/format 'sema/|bind/|codegen/|driver/|ropc/' "format (ropc fmt) needs only the frontend"
[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
