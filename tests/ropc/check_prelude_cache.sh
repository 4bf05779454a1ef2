#!/usr/bin/env bash
# check_prelude_cache.sh ROPC SOURCE_DIR WORK_DIR
# Binding's precompiled prelude (rop/udf.h, the standard headers rop's headers include and the
# stdlib's operator headers, kept in the cache's bind/ folder; docs/build.md, "The cache")
# changes no answer: against a copy of rop's headers laid out as an install (so the test can
# edit one), `ropc check` prints the same bytes and exit status with the prelude as with a cache
# it cannot write (a full parse each time): clean, after a `use` header's edit (the new
# signature's diagnostic), after an edit of rop/udf.h or of a stdlib header (both in the
# prelude: stale, made again), with a damaged cached file (made again), and with a C++ error in
# a stdlib header (no prelude can hold it; the error as a full parse reports it).
set -uo pipefail
ropc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/rop/bin" "$work/rop/include" "$work/p"
fail() {
    echo "FAIL: $*"
    exit 1
}

# The installed layout find_toolchain recognizes (`ropc check` needs no libraries).
ln "$ropc" "$work/rop/bin/ropc" 2>/dev/null || cp "$ropc" "$work/rop/bin/ropc"
cp -r "$src/runtime/include/." "$src/api/include/." "$src/vocab/include/." \
    "$src/stdlib/include/." "$work/rop/include/"

cat >"$work/p/p.rop" <<'EOF'
pipeline p;
use "p.hpp";

source files : File = std.io.Files(glob: "in/*.txt");

text  = map files with std.text.read;
sizes = map text with p.size;

sink sizes -> std.io.Jsonl(path: "out.jsonl");
EOF
write_header() { # write_header PARAMETER_TYPE [EXTRA_LINE]
    cat >"$work/p/p.hpp" <<EOF
#pragma once

#include <string>

#include <rop/stdlib/types.h>
#include <rop/udf.h>

namespace p {
${2:-}
rop::stdlib::JsonText size($1 text);

}  // namespace p
EOF
}

# check NAME: `ropc check p.rop` with the cache in $work/cache, its stderr, stdout and exit
# status in NAME.txt; then the same with a cache it cannot create (below a regular file), which
# must print the same bytes.
: >"$work/not-a-dir"
check() {
    (
        cd "$work/p" && ROP_CACHE_DIR=$work/cache "$work/rop/bin/ropc" check --color=never p.rop \
            >"$work/$1.txt" 2>&1
        echo "exit $?" >>"$work/$1.txt"
    )
    (
        cd "$work/p" && ROP_CACHE_DIR=$work/not-a-dir/cache "$work/rop/bin/ropc" check \
            --color=never p.rop >"$work/$1.full.txt" 2>&1
        echo "exit $?" >>"$work/$1.full.txt"
    )
    cmp -s "$work/$1.txt" "$work/$1.full.txt" ||
        fail "$1: the output with the prelude differs from a full parse's:
$(diff "$work/$1.full.txt" "$work/$1.txt")"
}
prelude() { # the one cached prelude
    local files=("$work"/cache/bind/rop-bind-prelude-*.pch)
    [ "${#files[@]}" = 1 ] && [ -f "${files[0]}" ] || fail "not one prelude: ${files[*]}"
    [ "$(head -c 4 "${files[0]}")" = "CPCH" ] || fail "${files[0]} is not a Clang PCH"
    echo "${files[0]}"
}
# Not the modification time: a check marks the prelude used (`ropc cache prune` keeps it).
stamp() { echo "$(stat -c "%i %s" "$1") $(md5sum <"$1")"; }

# 1. Clean: the first check makes the prelude, the second uses it as it is.
write_header "const std::string&"
check clean
[ "$(cat "$work/clean.txt")" = "exit 0" ] || fail "clean: $(cat "$work/clean.txt")"
pch=$(prelude)
before=$(stamp "$pch")
check clean2
[ "$(stamp "$pch")" = "$before" ] || fail "the prelude was made again for an unchanged check"
[ ! -e "$work/not-a-dir/cache" ] || fail "a cache below a regular file"

# 2. A `use` header's new signature: its diagnostic, not the old answer; the prelude (which does
#    not read p.hpp) is unchanged.
write_header "int"
check use_edit
grep -qxF "p.rop:7:13: error: input 'text' of 'p.size' has the wrong item type: expected \
'int', got 'std::string' [E0502]" "$work/use_edit.txt" ||
    fail "no E0502 for p.size's int parameter at p.rop:7:13: $(cat "$work/use_edit.txt")"
grep -q "^exit 1$" "$work/use_edit.txt" || fail "use_edit: not exit 1"
[ "$(stamp "$pch")" = "$before" ] || fail "a use header's edit made the prelude again"

# 3. A header inside the prelude edited: the cached prelude is stale and made again (the same
#    file name: the key is the prelude's text, flags and Clang), and binding sees the edit. p.hpp
#    names rop::PreludeProbe, which only the edited rop/udf.h declares, then
#    rop::stdlib::StdlibProbe, which only the edited rop/stdlib/types.h declares.
write_header "const std::string&" "rop::PreludeProbe probe();"
check probe_missing
grep -qxF "p.rop:2:5: error: C++ error in UDF header 'p.hpp': no type named 'PreludeProbe' \
in namespace 'rop' [E0508]" "$work/probe_missing.txt" &&
    grep -qxF "p.hpp:9:6: note: Clang reports it here" "$work/probe_missing.txt" ||
    fail "no E0508 for rop::PreludeProbe at p.hpp:9:6: $(cat "$work/probe_missing.txt")"
echo "namespace rop { struct PreludeProbe {}; }" >>"$work/rop/include/rop/udf.h"
check probe_declared
[ "$(cat "$work/probe_declared.txt")" = "exit 0" ] ||
    fail "the edited rop/udf.h was not seen: $(cat "$work/probe_declared.txt")"
[ "$(prelude)" = "$pch" ] || fail "the prelude moved"
[ "$(stamp "$pch")" != "$before" ] || fail "the stale prelude was not made again"
before=$(stamp "$pch")
write_header "const std::string&" "rop::stdlib::StdlibProbe probe();"
check stdlib_probe_missing
grep -qxF "p.rop:2:5: error: C++ error in UDF header 'p.hpp': no type named 'StdlibProbe' in \
namespace 'rop::stdlib' [E0508]" "$work/stdlib_probe_missing.txt" ||
    fail "no E0508 for rop::stdlib::StdlibProbe: $(cat "$work/stdlib_probe_missing.txt")"
echo "namespace rop::stdlib { struct StdlibProbe {}; }" >>"$work/rop/include/rop/stdlib/types.h"
check stdlib_probe_declared
[ "$(cat "$work/stdlib_probe_declared.txt")" = "exit 0" ] ||
    fail "the edited rop/stdlib/types.h was not seen: $(cat "$work/stdlib_probe_declared.txt")"
[ "$(prelude)" = "$pch" ] || fail "the prelude moved"
[ "$(stamp "$pch")" != "$before" ] || fail "the stale prelude was not made again"

# 4. A damaged cached prelude (not a PCH; a PCH cut in half): the same answers, and the file is
#    made again.
write_header "int"
check reference
for damage in garbage truncated; do
    if [ $damage = garbage ]; then
        head -c 4096 /dev/urandom >"$pch"
    else
        truncate -s $(($(stat -c %s "$pch") / 2)) "$pch"
    fi
    check "$damage"
    cmp -s "$work/reference.txt" "$work/$damage.txt" ||
        fail "$damage: $(diff "$work/reference.txt" "$work/$damage.txt")"
    [ "$(prelude)" = "$pch" ] && [ "$(stat -c %s "$pch")" -gt 1000000 ] ||
        fail "$damage: the prelude was not made again ($(stat -c %s "$pch") bytes)"
done

# 5. A C++ error in a stdlib header: the prelude that would hold it cannot be made, so the plain
#    one (rop/udf.h and the standard headers) is used, with the same output as a full parse.
cp "$work/rop/include/rop/stdlib/video.h" "$work/video.h"
echo "namespace rop::stdlib { BrokenProbe broken(); }" >>"$work/rop/include/rop/stdlib/video.h"
check stdlib_error
line=$(wc -l <"$work/rop/include/rop/stdlib/video.h")
grep -q "^p.rop:4:23: error: .*video.h': unknown type name 'BrokenProbe' \[E0508\]$" \
    "$work/stdlib_error.txt" &&
    grep -qF "/rop/include/rop/stdlib/video.h:$line:25: note: Clang reports it here" \
        "$work/stdlib_error.txt" ||
    fail "no E0508 for BrokenProbe at video.h:$line:25: $(cat "$work/stdlib_error.txt")"
plain=("$work"/cache/bind/rop-bind-prelude-*.pch)
[ "${#plain[@]}" = 1 ] && [ "${plain[0]}" != "$pch" ] ||
    fail "not one plain prelude instead of $pch: ${plain[*]}"
cp "$work/video.h" "$work/rop/include/rop/stdlib/video.h"
check restored
cmp -s "$work/reference.txt" "$work/restored.txt" ||
    fail "restored: $(diff "$work/reference.txt" "$work/restored.txt")"
echo "ok"
