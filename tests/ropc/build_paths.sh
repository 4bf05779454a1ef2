#!/usr/bin/env bash
# build_paths.sh ROPC FIXTURE_DIR WORK_DIR CACHE_DIR
# `ropc build` runs the compiler and linker without a shell: a pipeline whose two `use` headers
# each have a sibling .cpp, plus a --src file, all in folders whose names hold a space and a
# quote, built to an -o path with a space and a quote, links and runs; without the --src file
# the link fails. With -j 2, exactly two compiles run at once.
set -uo pipefail
ropc=$1 fixture=$2 work=$3 cache=$4
rm -rf "$work" && mkdir -p "$work" && cp -r "$fixture/." "$work/" && cd "$work"
mkdir -p "src dir \"x\"" "out dir"
mv extra.cpp "src dir \"x\"/it's extra.cpp"
rm -rf "$cache"
fail() {
    echo "FAIL: $*"
    cat stderr.txt
    exit 1
}

# Without the --src file, count::tag() is undefined: the link fails (exit 1), naming it.
ROP_CACHE_DIR=$cache "$ropc" build two_uses.rop -o "out dir/it's bin" 2>stderr.txt
code=$?
[ "$code" = 1 ] || fail "exit $code without --src, expected 1"
grep -q "count::tag" stderr.txt || fail "the link error does not name count::tag"
grep -q "^ropc: error: linking 'out dir/it's bin' failed$" stderr.txt || fail "no link summary"
[ ! -e "out dir/it's bin" ] || fail "a failed link wrote a binary"

ROP_CACHE_DIR=$cache "$ropc" build two_uses.rop -o "out dir/it's bin" \
    --src "src dir \"x\"/it's extra.cpp" -j 4 -v 2>stderr.txt
code=$?
[ "$code" = 0 ] || fail "exit $code with --src, expected 0"
compiles=$(grep -c -- " -c " stderr.txt)
# The two siblings come from the cache of the first build; --src is new, and so is the generated
# C++: its code fingerprints now see count::tag's definition (docs/build.md, "Code
# fingerprints"; without --src they fell back, naming the call).
[ "$compiles" = 2 ] || fail "$compiles compile commands, expected 2 (the generated C++, the --src file)"
grep -q "cache: .*/upper/upper.cpp unchanged" stderr.txt || fail "upper.cpp not compiled before"
grep -q "cache: .*/count/count.cpp unchanged" stderr.txt || fail "count.cpp not compiled before"
grep -q -- "-c '.*/src dir \"x\"/it'\\\\''s extra.cpp'" stderr.txt || fail "-v quoting of --src"
[ -x "out dir/it's bin" ] || fail "no binary at 'out dir/it's bin'"
# LLVM's linker links when it is on PATH.
if command -v ld.lld >/dev/null; then
    grep -q -- "-pthread -fuse-ld=lld -o " stderr.txt || fail "ld.lld is on PATH, not linked with it"
fi

rm -f out.jsonl
"./out dir/it's bin" >run.txt 2>&1 || {
    cat run.txt
    fail "the binary failed"
}
expected='{"length":11,"tag":"from --src","text":"HELLO WORLD"}'
[ "$(cat out.jsonl)" = "$expected" ] || fail "out.jsonl is '$(cat out.jsonl)', expected '$expected'"

# Concurrency, bounded by -j: a compiler (itself at a path with a space) that logs when each
# compile starts and ends, and holds each compile until a second one has started beside it (the
# first and second, the third and fourth: no sleep decides it, and a driver that ran them one at
# a time would leave the first waiting out the 60 s guard); with -j 2, the four compiles (not
# cached: the compiler is part of each object's key) overlap exactly two at a time. It also
# refuses -fuse-ld=lld, as a compiler without that option does: the link is done without it.
cat >"slow c++" <<'SLOW'
#!/usr/bin/env bash
log="$(dirname "$0")/compile.log"
case " $* " in
    *" -fuse-ld=lld "*) echo "c++: error: unrecognized command-line option '-fuse-ld=lld'" >&2
                        exit 1 ;;
    *" -c "*)
        echo start >> "$log"
        started=$(grep -c start "$log")
        partner=$(( (started + 1) / 2 * 2 ))  # this compile's pair has started
        for _ in $(seq 600); do
            [ "$(grep -c start "$log")" -ge "$partner" ] && break
            sleep 0.1
        done
        c++ "$@"; code=$?; echo end >> "$log"; exit $code ;;
esac
exec c++ "$@"
SLOW
chmod +x "slow c++"
rm -f compile.log
ROP_CACHE_DIR=$cache "$ropc" build two_uses.rop -o "out dir/slow bin" --cxx "$work/slow c++" \
    --src "src dir \"x\"/it's extra.cpp" -j 2 -v 2>stderr.txt || fail "the -j 2 build failed"
if command -v ld.lld >/dev/null; then
    grep -q "^ropc: the C++ compiler does not take -fuse-ld=lld: " stderr.txt ||
        fail "no note on linking without lld"
fi
"./out dir/slow bin" --help >/dev/null 2>&1 || fail "the binary linked without lld does not run"
now=0 most=0 count=0
while read -r event; do
    if [ "$event" = start ]; then
        now=$((now + 1))
        count=$((count + 1))
    else now=$((now - 1)); fi
    ((now > most)) && most=$now
done <compile.log
[ "$count" = 4 ] || fail "$count compiles, expected 4"
[ "$most" = 2 ] || fail "at most $most compiles ran at once with -j 2, expected 2"
echo "ok"
