#!/usr/bin/env bash
# build_pch.sh ROPC SOURCE_DIR FIXTURE_DIR WORK_DIR
# The generated file is compiled with a precompiled rop/runtime/generated.h kept in the cache's
# pch/ folder (docs/build.md, "The cache"). Against a copy of rop's headers laid out as an
# install (so the test can edit one): the first build makes the image (while it binds), a second
# pipeline with the same flags reuses it (not remade, its file untouched), other flags (-O1) make
# another one, an edited header makes it again, and a damaged image never fails a build: one the
# compiler rejects is dropped with a -v note, one it crashes on is compiled without, and both are
# made again by the next build.
set -uo pipefail
ropc=$1 src=$2 fixture=$3 work=$4
rm -rf "$work" && mkdir -p "$work/rop/bin" "$work/rop/include"
source "$(dirname "$0")/fixture_build.sh" # fail, build, has, hasnt, gen_compile

# The installed layout find_toolchain recognizes: bin/ropc, include/ (runtime and stdlib headers
# merged, as `cmake --install` writes them), lib/ (the build tree's libraries).
ln "$ropc" "$work/rop/bin/ropc" 2>/dev/null || cp "$ropc" "$work/rop/bin/ropc"
ln -s "$(cd "$(dirname "$ropc")/../lib" && pwd)" "$work/rop/lib"
cp -r "$src/runtime/include/." "$src/api/include/." "$src/vocab/include/." \
    "$src/stdlib/include/." "$work/rop/include/"
export ROP_CACHE_DIR=$work/cache

# 1. The first build makes the image while it binds, and uses it only if it is ready by the
#    time the generated file compiles (it does not wait); the image is there when ropc exits.
build one
has "cache: making precompiled header $work/cache/pch/.*/rop_pch.h.gch"
pch=$(sed -n "s|^ropc: cache: making precompiled header \(.*\)$|\1|p" "$work/stderr.txt")
[ -s "$pch" ] || fail "no image at $pch"
if ! gen_compile | grep -q -- "-include $(dirname "$pch")/rop_pch.h -Winvalid-pch"; then
    has "precompiled header not made yet, compiling without it"
fi
# The user's sources are compiled without it (it would change what they include).
grep -- " -c .*/extra.cpp" "$work/stderr.txt" | grep -q -- "-include" && fail "extra.cpp got it"
# Its -MMD list holds rop's headers: editing one invalidates it and the objects built with it.
grep -q "$work/rop/include/rop/runtime/generated.h" "$(dirname "$pch")/manifest" ||
    fail "the image's manifest does not list generated.h"
inode=$(stat -c %i "$pch")

# 2. Another pipeline, the same flags: the image is reused, not remade; a found one is always
#    used (with -j 1 it is looked up just before the generated file's compile).
build two
has "cache: precompiled header $pch unchanged"
hasnt "making precompiled header"
gen_compile | grep -q -- "-include $(dirname "$pch")/rop_pch.h -Winvalid-pch" ||
    fail "two did not use it"
[ "$(stat -c %i "$pch")" = "$inode" ] || fail "the image was rewritten"
build two_j1 -j 1
has "cache: precompiled header $pch unchanged"
gen_compile | grep -q -- "-include $(dirname "$pch")/rop_pch.h" || fail "-j 1 did not use it"

# 3. Other flags: another image (never the -O2 one), the first one kept. With -j 1 it is made
#    just before the generated file's compile, which then uses it.
build two -O1 -j 1
has "cache: making precompiled header"
pch_o1=$(sed -n "s|^ropc: cache: making precompiled header \(.*\)$|\1|p" "$work/stderr.txt")
[ -n "$pch_o1" ] && [ "$pch_o1" != "$pch" ] || fail "-O1 made '$pch_o1', the -O2 one is $pch"
[ -s "$pch_o1" ] || fail "no -O1 image at $pch_o1"
gen_compile | grep -q -- "-include $(dirname "$pch_o1")/rop_pch.h" || fail "-O1 did not use it"
[ -s "$pch" ] || fail "the -O2 image is gone"

# 4. An edited header: the image is stale and made again; the generated file recompiles.
echo "// edited" >>"$work/rop/include/rop/runtime/generated.h"
build one
has "cache: precompiled header $pch is stale, making it again"
gen_compile >/dev/null || fail "one's generated file was not recompiled"
build one
has "cache: unchanged"

# 5. A damaged image its manifest does not catch (its own line removed): a build still works.
# a) Not an image at all: GCC warns (-Winvalid-pch) and reads the headers; ropc shows a -v
#    note instead of the warning and drops the image.
manifest=$(dirname "$pch")/manifest
head -c 4096 /dev/urandom >"$pch"
sed -i "\| $pch$|d" "$manifest"
build three
has "precompiled header $pch not used"
grep -v "^ropc: " "$work/stderr.txt" | grep -q "rop_pch" && fail "the compiler's warning is shown"
[ ! -e "$pch" ] || fail "the rejected image was kept"
build four
has "cache: making precompiled header $pch"
# b) A real image's header with zeros after it: GCC crashes reading it (an internal compiler
#    error that names no file); the generated file is compiled again without it.
dd if=/dev/zero of="$pch" bs=1M seek=1 count=$(($(stat -c %s "$pch") / 1048576)) conv=notrunc \
    status=none
sed -i "\| $pch$|d" "$manifest"
build five
has "precompiled header $pch unusable"
[ "$(gen_compile | grep -c -- "-include")" = 1 ] || fail "not one compile with the image"
[ "$(gen_compile | grep -vc -- "-include")" = 1 ] || fail "not one compile without it"
build six
has "cache: making precompiled header $pch"
echo "ok"
