#!/usr/bin/env bash
# install_targets.sh BUILD_DIR SOURCE_DIR WORK_DIR
# A user's CMake project: find_package(rop) from an installed rop, rop_add_pipeline(wordcount ...)
# and install(TARGETS wordcount): the target is a real executable, so install accepts it,
# $<TARGET_FILE:wordcount> names the built binary, and the installed binary runs.
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/rop" >"$work/install.log"
export ROP_CACHE_DIR=$work/cache
mkdir -p "$work/user"
cp -r "$src/examples/wordcount/." "$work/user/"
rm -rf "$work/user/out"
cat >"$work/user/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(user_pipeline LANGUAGES CXX)
find_package(rop REQUIRED)
rop_add_pipeline(wordcount wordcount.rop OPT_LEVEL 0)
install(TARGETS wordcount RUNTIME DESTINATION bin)
add_custom_target(where COMMAND ${CMAKE_COMMAND} -E echo "built: $<TARGET_FILE:wordcount>")
CM
cmake -S "$work/user" -B "$work/user/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/rop" \
    >"$work/user.log" 2>&1 || {
    cat "$work/user.log"
    exit 1
}
cmake --build "$work/user/build" >>"$work/user.log" 2>&1 || {
    cat "$work/user.log"
    exit 1
}
cmake --build "$work/user/build" --target where | grep -q "built: $work/user/build/wordcount$" ||
    {
        echo "FAIL: \$<TARGET_FILE:wordcount> is not build/wordcount"
        exit 1
    }
cmake --install "$work/user/build" --prefix "$work/deploy" >"$work/deploy.log"
test -x "$work/deploy/bin/wordcount" || {
    echo "FAIL: install(TARGETS) installed nothing"
    exit 1
}
cmp "$work/user/build/wordcount" "$work/deploy/bin/wordcount"
cd "$work/user" && "$work/deploy/bin/wordcount" >/dev/null 2>&1
diff -r -x .rop-names "$src/tests/examples/wordcount/expected" out
echo "ok"
