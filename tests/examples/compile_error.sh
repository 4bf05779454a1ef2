#!/usr/bin/env bash
# compile_error.sh ROPC FIXTURE_DIR WORK_DIR CACHE_DIR
# A pipeline that binds but whose generated C++ does not compile (a constructor argument of a
# type bind leaves to the C++ compiler): ropc build exits 1 and shows the error at the .rop line.
# --keep-cpp keeps the generated file even then, and --emit=cpp prints it without building.
set -uo pipefail
ropc=$1 fixture=$2 work=$3 cache=$4
rm -rf "$work" && mkdir -p "$work" && cp -r "$fixture/." "$work/" && cd "$work"
ROP_CACHE_DIR=$cache "$ropc" build bad.rop -o bad --keep-cpp kept 2>stderr.txt
code=$?
cat stderr.txt
[ "$code" = 1 ] || {
    echo "FAIL: exit $code, expected 1"
    exit 1
}
grep -q "^bad.rop:9:[0-9]*: error: " stderr.txt || {
    echo "FAIL: no error at bad.rop:9"
    exit 1
}
grep -q "does not compile" stderr.txt || {
    echo "FAIL: no summary line"
    exit 1
}
[ ! -e bad ] || {
    echo "FAIL: a binary was written"
    exit 1
}
[ -f kept/bad.generated.cpp ] || {
    echo "FAIL: --keep-cpp wrote nothing"
    exit 1
}
ROP_CACHE_DIR=$cache "$ropc" build bad.rop --emit=cpp >emitted.cpp 2>/dev/null
cmp emitted.cpp kept/bad.generated.cpp || {
    echo "FAIL: --emit=cpp differs from --keep-cpp"
    exit 1
}
grep -q '#line 9 "bad.rop"' emitted.cpp || {
    echo "FAIL: no #line into bad.rop"
    exit 1
}
echo "ok"
