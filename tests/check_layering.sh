#!/usr/bin/env bash
# Fails when an #include crosses a layer the wrong way (STYLE.md: dependencies point one way):
#   runtime/ never includes compiler headers; compiler/ never includes the runtime, except the
#   header-only vocabulary both share (rop/vocab/), which itself includes neither side;
#   support <- frontend <- sema <- ropc inside the compiler.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0
check() {  # check DIR PATTERN WHY
    local hits
    hits=$(grep -rnE "^\s*#\s*include\s*[<\"]($2)" "$root/$1" 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "layering violation: $3"; echo "$hits" | sed "s|$root/||"; fail=1
    fi
}
check runtime 'support/|frontend/|sema/|bind/|codegen/' "runtime/ must not include compiler headers"
check compiler 'rop/runtime/' "compiler/ must not include runtime headers"
check compiler 'rop/[^v]|rop/v[^o]|rop/vo[^c]|rop/voc[^a]|rop/voca[^b]|rop/vocab[^/]' \
    "compiler/ may include only rop/vocab/ of the runtime's headers"
check runtime/include/rop/vocab 'rop/|support/|frontend/|sema/|bind/|codegen/|driver/|ropc/' \
    "rop/vocab/ is shared by compiler and runtime: it includes only the standard library"
check compiler/support 'frontend/|sema/|bind/|codegen/|driver/' "support is the bottom layer"
check compiler/frontend 'sema/|bind/|codegen/|driver/' "frontend must not depend on later passes"
check compiler/format 'sema/|bind/|codegen/|driver/|ropc/' "format (ropc fmt) needs only the frontend"
[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
