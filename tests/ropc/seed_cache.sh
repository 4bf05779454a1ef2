#!/usr/bin/env bash
# seed_cache.sh ROPC SOURCE_DIR FIXTURE_DIR WORK_DIR
# The seed (docs/build.md, "The cache"): `ropc warm --into <prefix>/lib/rop/cache` makes
# binding's prelude and generated.h's image once per installation; every ropc of that prefix
# uses them while its own cache has none, and never writes them. Against a copy of rop laid out
# as an install (so the test can edit a header): warm makes both and leaves them alone the second
# time; the first build and check of an empty cache use the seed's (nothing precompiled in the
# cache); a seed image the compiler refuses is noted in the cache, which makes its own from then
# on; an edited header makes the seed stale for the image (its manifest) and for the prelude
# (Clang), and the cache makes its own; through all of it, not one file of the seed changes.
set -uo pipefail
ropc=$1 src=$2 fixture=$3 work=$4
rm -rf "$work" && mkdir -p "$work/rop/bin" "$work/rop/include" "$work/rop/lib"
source "$(dirname "$0")/fixture_build.sh" # fail, build, has, hasnt, gen_compile

ln "$ropc" "$work/rop/bin/ropc" 2>/dev/null || cp "$ropc" "$work/rop/bin/ropc"
# The build tree's libraries, one by one: its lib/rop/ (the build tree's own seed) stays out.
for lib in "$(cd "$(dirname "$ropc")/../lib" && pwd)"/*.a; do ln -s "$lib" "$work/rop/lib/"; done
cp -r "$src/runtime/include/." "$src/api/include/." "$src/vocab/include/." \
    "$src/stdlib/include/." "$work/rop/include/"
seed=$work/rop/lib/rop/cache
rop=$work/rop/bin/ropc

# 1. Usage errors name the problem (exit 2).
usage() { # usage EXPECTED ARGS...
    local expected=$1
    shift
    "$rop" warm "$@" >/dev/null 2>"$work/stderr.txt"
    [ $? = 2 ] || fail "ropc warm $* did not exit 2"
    grep -q -- "$expected" "$work/stderr.txt" || fail "ropc warm $*: no '$expected'"
}
usage "ropc warm takes no files" x.rop
usage "--into needs a directory" --into
usage "unknown option '--intoo'; did you mean '--into'?" --intoo "$seed"
usage "-O needs a level" -O ""

# 2. warm makes both in the seed, world-readable; a second warm leaves them as they are.
"$rop" warm --into "$seed" >"$work/warm.txt" 2>"$work/stderr.txt" || fail "ropc warm failed"
image=$(sed -n "s|^precompiled rop/runtime/generated.h (.*, -O2): \(.*\)$|\1|p" "$work/warm.txt")
[ -n "$image" ] && [ -s "$image" ] || fail "no image: $(cat "$work/warm.txt")"
case $image in "$seed"/pch/*/rop_pch.h.gch) ;; *) fail "image $image not in the seed" ;; esac
grep -qx "binding's precompiled prelude: $seed/bind" "$work/warm.txt" || fail "$(cat "$work/warm.txt")"
prelude=("$seed"/bind/rop-bind-prelude-*.pch)
[ ${#prelude[@]} = 1 ] && [ -s "${prelude[0]}" ] || fail "no prelude in $seed/bind"
[ "$(stat -c %A "$seed/bind")" = drwxr-xr-x ] || fail "$seed/bind is $(stat -c %A "$seed/bind")"
snapshot() { find "$seed" -printf '%p %s %T@ %i\n' | sort; }
snapshot >"$work/seed.before"
"$rop" warm --into "$seed" >"$work/warm.txt" 2>"$work/stderr.txt" || fail "second warm failed"
grep -q "$image (unchanged)" "$work/warm.txt" || fail "second warm: $(cat "$work/warm.txt")"
snapshot | diff "$work/seed.before" - >/dev/null || fail "the second warm rewrote the seed"

# build_with CACHE DIR [FLAGS...]: fixture_build.sh's build of DIR with the cache $work/CACHE.
build_with() {
    local cache=$work/$1
    shift
    ROP_CACHE_DIR=$cache build "$@"
}
# check CACHE: `ropc check` of the fixture with CACHE; its output in check.txt.
check() {
    (cd "$work/one" && ROP_CACHE_DIR=$work/$1 "$rop" check two_uses.rop) >"$work/check.txt" 2>&1 ||
        fail "ropc check with $1: $(cat "$work/check.txt")"
}

# 3. An empty cache: the first build compiles the generated file with the seed's image at once
#    and binds with the seed's prelude; nothing is precompiled in the cache.
build_with empty one
has "cache: precompiled header $image from rop's installation"
hasnt "making precompiled header"
hasnt "not made yet"
gen_compile | grep -q -- "-include $(dirname "$image")/rop_pch.h -Winvalid-pch" ||
    fail "the generated file was not compiled with the seed's image"
[ -z "$(find "$work/empty" -name '*.gch' -o -name 'rop-bind-prelude-*')" ] ||
    fail "the cache precompiled its own: $(find "$work/empty" -name '*.gch' -o -name '*.pch')"
check empty_check
[ -z "$(find "$work/empty_check" -name 'rop-bind-prelude-*')" ] || fail "check made its own prelude"
grep -q "HELLO" "$work/check.txt" && fail "check printed: $(cat "$work/check.txt")"
snapshot | diff "$work/seed.before" - >/dev/null || fail "a build or check wrote into the seed"

# 4. A seed image the compiler refuses (damaged where its manifest does not look: its own line
#    removed): the build works, the seed's file stays, the cache notes the refusal and makes
#    its own image from the next build on.
cp "$image" "$work/image.saved"
head -c 4096 /dev/urandom >"$image"
sed -i "\| $image$|d" "$(dirname "$image")/manifest"
snapshot >"$work/seed.damaged"
build_with refused two
has "precompiled header $image not used"
[ -s "$image" ] || fail "the seed's image was removed"
key=$(basename "$(dirname "$image")")
[ -f "$work/refused/pch/$key/seed-refused" ] || fail "no seed-refused note in the cache"
build_with refused three
has "cache: making precompiled header $work/refused/pch/$key/rop_pch.h.gch"
hasnt "from rop's installation"
build_with refused four
has "cache: precompiled header $work/refused/pch/$key/rop_pch.h.gch unchanged"
gen_compile | grep -q -- "-include $work/refused/pch/$key/rop_pch.h" || fail "its own not used"
snapshot | diff "$work/seed.damaged" - >/dev/null || fail "the refused seed was written"
# Made again (a removed image is made again by warm): the seed is whole for what follows.
rm -rf "$(dirname "$image")"
"$rop" warm --into "$seed" >"$work/warm.txt" 2>"$work/stderr.txt" || fail "warm after damage"
[ -s "$image" ] || fail "warm did not make $image again"
snapshot >"$work/seed.before"

# 5. An edited header (in both precompiled headers): the seed is stale; the cache makes its own
#    image (the seed's manifest says so) and its own prelude (Clang refuses the seed's), the
#    check's answer unchanged.
check before_edit
cp "$work/check.txt" "$work/check.before"
echo "// edited" >>"$work/rop/include/rop/udf.h"
build_with edited five
hasnt "from rop's installation"
has "cache: making precompiled header $work/edited/pch/$key/rop_pch.h.gch"
[ -n "$(find "$work/edited/bind" -name 'rop-bind-prelude-*.pch')" ] ||
    fail "binding did not make its own prelude for the edited header"
check edited_check
diff "$work/check.before" "$work/check.txt" >/dev/null || fail "the check's answer changed"
[ -n "$(find "$work/edited_check/bind" -name 'rop-bind-prelude-*.pch')" ] ||
    fail "check did not make its own prelude"
snapshot | diff "$work/seed.before" - >/dev/null || fail "a stale seed was written"
echo "ok"
