# Sourced by build_pch.sh and seed_cache.sh: building the two_uses fixture with the ropc of an
# install-layout copy in $work/rop, -v kept, and asserting on what -v said. Needs $work (the
# test's scratch folder) and $fixture (tests/ropc/fixtures/two_uses); the cache is whatever
# ROP_CACHE_DIR says when `build` runs.

fail() {
    echo "FAIL: $*"
    cat "$work/stderr.txt" 2>/dev/null
    exit 1
}

# build DIR [FLAGS...]: the fixture's pipeline in $work/DIR (a copy whose `pipeline` name is
# DIR's, so each copy generates different C++), -v to $work/stderr.txt (and DIR/stderr.txt, for
# a failure's post-mortem); the binary must run and write its output.
build() {
    local dir=$work/$1
    shift
    if [ ! -d "$dir" ]; then
        cp -r "$fixture/." "$dir"
        sed -i "s/^pipeline two_uses;/pipeline $(basename "$dir");/" "$dir/two_uses.rop"
    fi
    (cd "$dir" && "$work/rop/bin/ropc" build two_uses.rop -o bin --src extra.cpp -v "$@") \
        2>"$work/stderr.txt" || fail "ropc build $dir $* failed"
    cp "$work/stderr.txt" "$dir/stderr.txt"
    rm -f "$dir/out.jsonl"
    (cd "$dir" && ./bin >run.txt 2>&1) || fail "the binary of $dir failed"
    grep -q '"text":"HELLO WORLD"' "$dir/out.jsonl" || fail "$dir/out.jsonl: $(cat "$dir/out.jsonl")"
}
has() { grep -q -- "$1" "$work/stderr.txt" || fail "no '$1' in -v"; }
hasnt() { ! grep -q -- "$1" "$work/stderr.txt" || fail "'$1' in -v"; }
# The generated file's compile command (the only one naming *.generated.cpp).
gen_compile() { grep -- " -c .*\.generated\.cpp" "$work/stderr.txt"; }
