#!/usr/bin/env bash
# cache_command.sh ROPC FIXTURE_DIR WORK_DIR
# `ropc cache` and the size limit builds keep (docs/build.md, "The cache"), with real builds of
# the two_uses fixture in a cache of the test's own: usage errors name the problem (exit 2);
# info counts each part; a build marks what it reuses, so pruning by age removes exactly the
# entries no build used since (a fast-path rebuild keeps what its next fast path needs, an
# edited pipeline keeps its UDF objects but not its old generated code); a build past ROP_CACHE_MAX_SIZE removes the least
# recently used entries and never its own (0: no limit); an interrupted build's leftovers go,
# a running one's stay; clear empties it and the next build works; rop's seed is never touched.
set -uo pipefail
ropc=$1 fixture=$2 work=$3
rm -rf "$work" && mkdir -p "$work/rop/bin"
source "$(dirname "$0")/fixture_build.sh" # fail, build, has, hasnt

# A symbolic link: ropc finds rop's headers, libraries and seed where the real one is.
ln -s "$ropc" "$work/rop/bin/ropc"
rop=$work/rop/bin/ropc
export ROP_CACHE_DIR=$work/cache
unset ROP_CACHE_MAX_SIZE
seed=$(cd "$(dirname "$ropc")/.." && pwd)/lib/rop/cache
snapshot() { [ -d "$seed" ] && find "$seed" -printf '%p %s %T@ %i\n' | sort; }
snapshot >"$work/seed.before"

# 1. Usage errors (exit 2, the message).
usage() { # usage EXPECTED ARGS...
    local expected=$1
    shift
    "$rop" "$@" >"$work/out.txt" 2>"$work/stderr.txt"
    [ $? = 2 ] || fail "ropc $* did not exit 2: $(cat "$work/out.txt")"
    grep -qF -- "$expected" "$work/stderr.txt" || fail "ropc $*: no '$expected'"
}
usage "unknown cache action 'frob' (expected info, prune or clear)" cache frob
usage "unknown cache action 'prunee' (expected info, prune or clear); did you mean 'prune'?" \
    cache prunee
usage "ropc cache takes one action" cache info prune
usage "--dry-run is for \`ropc cache prune\` and \`ropc cache clear\`" cache --dry-run
usage "--max-size is for \`ropc cache prune\`" cache clear --max-size 1G
usage "--older-than is for \`ropc cache prune\`" cache info --older-than 1d
usage "--max-size takes a size (e.g. 5G, 500M, 0), found '5Q'" cache prune --max-size 5Q
usage "--older-than takes an age (e.g. 30d, 12h, 45m), found '3y'" cache prune --older-than 3y
usage "--older-than needs an age, e.g. 30d" cache prune --older-than
usage "unknown option '--max-sise'; did you mean '--max-size'?" cache prune --max-sise 1G
ROP_CACHE_MAX_SIZE=lots usage "ROP_CACHE_MAX_SIZE is 'lots', not a size" cache
# A build refuses it before doing anything.
cp -r "$fixture/." "$work/refused"
(cd "$work/refused" && ROP_CACHE_MAX_SIZE=lots "$rop" build two_uses.rop -o bin) \
    >/dev/null 2>"$work/stderr.txt"
[ $? = 2 ] || fail "a build with ROP_CACHE_MAX_SIZE=lots did not exit 2"
grep -qF "ropc: error: ROP_CACHE_MAX_SIZE is 'lots', not a size (e.g. 5G, 500M; 0 for no limit)" \
    "$work/stderr.txt" || fail "the build's message: $(cat "$work/stderr.txt")"
[ ! -e "$work/refused/bin" ] || fail "the refused build wrote a binary"

# info PART: the number of PART's entries `ropc cache info` lists.
info() {
    "$rop" cache info >"$work/info.txt" 2>&1 || fail "ropc cache info: $(cat "$work/info.txt")"
    awk -v part="$1" '$1 == part { print $2 }' "$work/info.txt"
}
total() {
    "$rop" cache info >"$work/info.txt" 2>&1 || fail "ropc cache info: $(cat "$work/info.txt")"
    sed -n 's/^total: \([0-9]*\) entr.*/\1/p' "$work/info.txt"
}
age_all() { find "$ROP_CACHE_DIR" -exec touch -h -d '3 days ago' {} +; }
# prune_matches ARGS... LINE: `ropc cache prune ARGS` prints a line matching LINE (a basic
# regular expression, whole line).
prune_matches() {
    local expected=${*: -1}
    "$rop" cache prune "${@:1:$#-1}" >"$work/prune.txt" 2>&1 ||
        fail "ropc cache prune ${*:1:$#-1}: $(cat "$work/prune.txt")"
    grep -qx -- "$expected" "$work/prune.txt" ||
        fail "ropc cache prune ${*:1:$#-1}: no line '$expected' in: $(cat "$work/prune.txt")"
}

# 2. An empty cache; then `ropc warm` (so that the precompiled headers are the cache's own, seed
#    or not) and one build's entries, part by part.
[ "$(total)" = 0 ] || fail "a new cache has entries: $(cat "$work/info.txt")"
grep -qx "limit: 5.0 GiB (the default; ROP_CACHE_MAX_SIZE sets it)" "$work/info.txt" ||
    fail "the default limit: $(cat "$work/info.txt")"
"$rop" warm >/dev/null 2>"$work/stderr.txt" || fail "ropc warm failed"
[ "$(info pch)" = 1 ] && [ "$(info bind)" = 1 ] || fail "after warm: $(cat "$work/info.txt")"
build one
[ "$(info obj)" = 4 ] ||
    fail "one build: not 4 objects (generated, 2 use siblings, --src): $(cat "$work/info.txt")"
[ "$(info bin)" = 1 ] && [ "$(info pipelines)" = 1 ] && [ "$(info gen)" = 1 ] ||
    fail "one build's entries: $(cat "$work/info.txt")"
[ "$(info temp)" = 0 ] || fail "a build left temporary files: $(cat "$work/info.txt")"

# 3. An unchanged rebuild (the fast path) marks what it needs next time used: the manifest, the
#    binary and the generated file the manifest lists. Only those stay.
age_all
build one
has "cache: unchanged"
prune_matches --older-than 1d --dry-run "would remove 6 entries (.*): 4 obj, 1 pch, 1 bind"
[ "$(info obj)" = 4 ] || fail "the dry run removed something: $(cat "$work/info.txt")"
prune_matches --older-than 1d "removed 6 entries (.*): 4 obj, 1 pch, 1 bind"
[ "$(info bin)" = 1 ] && [ "$(info pipelines)" = 1 ] && [ "$(info gen)" = 1 ] &&
    [ "$(total)" = 3 ] || fail "after pruning by age: $(cat "$work/info.txt")"
build one # the binary is still cached: nothing to compile
has "cache: unchanged"

# 4. An edited pipeline: its 3 UDF objects, the precompiled headers and binding's prelude are
#    reused and marked; its old generated code, object and binary are not.
build one --keep-cpp "$work/kept" # the full path (not the fast one): the objects again
age_all
echo "# edited" >>"$work/one/two_uses.rop"
build one
has "extra.cpp unchanged"
prune_matches --older-than 1d --dry-run "would remove 3 entries (.*): 1 obj, 1 bin, 1 gen"

# 5. Past ROP_CACHE_MAX_SIZE, a build removes the least recently used entries, never its own;
#    with 0, nothing.
age_all
before=$(total)
ROP_CACHE_MAX_SIZE=0 build zero
[ "$(total)" -gt "$before" ] || fail "ROP_CACHE_MAX_SIZE=0 pruned: $(cat "$work/info.txt")"
age_all
ROP_CACHE_MAX_SIZE=1K build small
has "is over ROP_CACHE_MAX_SIZE (1.0 KiB): removed "
prune_matches --older-than 1d --dry-run "would remove 0 entries (0 B)"
[ "$(info obj)" = 4 ] && [ "$(info bin)" = 1 ] && [ "$(info gen)" = 1 ] ||
    fail "the build past the limit lost its own entries: $(cat "$work/info.txt")"
(cd "$work/small" && ROP_CACHE_MAX_SIZE=1K "$rop" build two_uses.rop -o bin --src extra.cpp -v) \
    2>"$work/stderr.txt" || fail "a rebuild under the limit failed"
has "cache: unchanged"

# 6. Leftovers of an interrupted build go on any prune; a running build's (recent) stay.
echo partial >"$ROP_CACHE_DIR/obj/0123.o.tmp.4242"
touch -d '1 hour ago' "$ROP_CACHE_DIR/obj/0123.o.tmp.4242"
echo partial >"$ROP_CACHE_DIR/bin/4567.tmp.4343"
[ "$(info temp)" = 2 ] || fail "the leftovers are not listed: $(cat "$work/info.txt")"
prune_matches "removed 1 entry (8 B): 1 temp"
[ ! -e "$ROP_CACHE_DIR/obj/0123.o.tmp.4242" ] && [ -e "$ROP_CACHE_DIR/bin/4567.tmp.4343" ] ||
    fail "the wrong leftover went"
# Recent entries stay under --max-size 0, and are counted.
"$rop" cache prune --max-size 0 >"$work/prune.txt" || fail "prune --max-size 0"
grep -qE "^kept [0-9]+ entries used in the last 5 min, which a running build may need$" \
    "$work/prune.txt" || fail "no kept line: $(cat "$work/prune.txt")"
[ "$(info bin)" = 1 ] || fail "--max-size 0 removed a recent binary: $(cat "$work/info.txt")"

# 7. clear: nothing left (not even recent entries); the next build works from scratch.
"$rop" cache clear --dry-run >"$work/clear.txt" || fail "clear --dry-run"
[ "$(total)" -gt 0 ] || fail "clear --dry-run removed entries"
"$rop" cache clear >"$work/clear.txt" || fail "ropc cache clear: $(cat "$work/clear.txt")"
grep -qx "left: 0 entries, 0 B" "$work/clear.txt" || fail "clear: $(cat "$work/clear.txt")"
[ "$(total)" = 0 ] || fail "entries after clear: $(cat "$work/info.txt")"
build one
hasnt "cache: unchanged"

# 8. rop's seed: not one file changed.
snapshot | diff "$work/seed.before" - >/dev/null || fail "the seed changed"
echo "cache_command: ok"
