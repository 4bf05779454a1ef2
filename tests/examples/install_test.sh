#!/usr/bin/env bash
# install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
# `cmake --install` into a prefix, move the prefix elsewhere, and build an example from there:
# once with bin/ropc directly, once from a user's CMake project with find_package(rop) and
# rop_add_pipeline. The installed ropc must use the installed headers and libraries.
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/first" >"$work/install.log"
# The installed ropc made the installation's seed of precompiled headers (cmake/Install.cmake):
# a check with an empty cache binds with it and precompiles nothing of its own.
ls "$work/first"/lib/rop/cache/pch/*/rop_pch.h.gch >/dev/null
ls "$work/first"/lib/rop/cache/bind/rop-bind-prelude-*.pch >/dev/null
ROP_CACHE_DIR=$work/seeded "$work/first/bin/ropc" check "$src/examples/wordcount/wordcount.rop"
if ls "$work"/seeded/bind/rop-bind-prelude-* 2>/dev/null; then
    echo "FAIL: the installed seed was not used"
    exit 1
fi
mv "$work/first" "$work/moved"
prefix=$work/moved
test -x "$prefix/bin/ropc"
test -f "$prefix/lib/librop_runtime.a"
test -f "$prefix/include/rop/udf.h"
test -f "$prefix/include/rop/runtime/pipeline_main.h"
test -f "$prefix/lib/cmake/rop/ropConfig.cmake"
# include/rop is the source tree's four header homes merged, file for file.
diff <(cd "$prefix/include" && find rop -type f | sort) \
    <(for home in api vocab runtime stdlib; do (cd "$src/$home/include" && find rop -type f); done |
        sort) || {
    echo "FAIL: include/rop differs from api, vocab, runtime and stdlib"
    exit 1
}
export ROP_CACHE_DIR=$work/cache

# 1. ropc from the moved tree (-v shows the include and library paths it uses).
cp -r "$src/examples/wordcount" "$work/wordcount"
cd "$work/wordcount" && rm -rf out
"$prefix/bin/ropc" build wordcount.rop -o wordcount -O1 -v 2>build.log || {
    cat build.log
    exit 1
}
grep -q -- "-I$prefix/include" build.log || {
    echo "FAIL: installed headers not used"
    cat build.log
    exit 1
}
grep -q "$prefix/lib/librop_runtime.a" build.log || {
    echo "FAIL: installed runtime not used"
    exit 1
}
if grep -qE -- "-I$src/(runtime|api|vocab|stdlib)/include" build.log; then
    echo "FAIL: source tree headers used"
    exit 1
fi
./wordcount >/dev/null 2>&1
diff -r -x .rop-names "$src/tests/examples/wordcount/expected" out

# 2. A user's CMake project.
mkdir -p "$work/user"
cp -r "$src/examples/wordcount/." "$work/user/"
rm -rf "$work/user/out"
cat >"$work/user/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(user_pipeline LANGUAGES CXX)
find_package(rop REQUIRED)
rop_add_pipeline(wordcount wordcount.rop OPT_LEVEL 1)
CM
cmake -S "$work/user" -B "$work/user/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$work/user.log"
cmake --build "$work/user/build" >>"$work/user.log" 2>&1 || {
    cat "$work/user.log"
    exit 1
}
test -x "$work/user/build/wordcount"
cd "$work/user" && ./build/wordcount >/dev/null 2>&1
diff -r -x .rop-names "$src/tests/examples/wordcount/expected" out
echo "ok"
