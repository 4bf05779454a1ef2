#!/usr/bin/env bash
# Keeps the mutation suite from rotting (it runs in full from tools/test.sh, or by hand with
# tests/mutation/run_mutations.sh): every patch in mutations/ names its rule and the tests that
# kill it, still applies to the current sources, and every killed-by filter matches tests.
# Usage: check_patches.sh BIN_DIR   (where rop_runtime_tests and friends were built)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:?usage: check_patches.sh BIN_DIR}
fail=0
n=0
for p in "$root"/tests/mutation/mutations/*.patch; do
    name=$(basename "$p" .patch)
    n=$((n + 1))
    grep -q "^mutation: $name$" "$p" || {
        echo "$name: no 'mutation: $name' line"
        fail=1
    }
    grep -q '^rule: ' "$p" || {
        echo "$name: no 'rule:' line"
        fail=1
    }
    grep -q '^killed-by: ' "$p" || {
        echo "$name: no 'killed-by:' line"
        fail=1
    }
    if ! patch -d "$root" -p1 -s --dry-run <"$p" >/dev/null 2>&1; then
        echo "$name: does not apply to the current sources (update the patch)"
        fail=1
    fi
    while IFS= read -r spec; do
        [ -n "$spec" ] || continue
        exe=${spec%% *}
        filter=${spec#"$exe"}
        if [ ! -x "$bin/$exe" ]; then
            echo "$name: killed-by names $exe, not found in $bin"
            fail=1
            continue
        fi
        matched=$(cd "$bin" && eval "./$exe --list-tests $filter" | grep -oE '^[0-9]+ matching test case' |
            grep -oE '^[0-9]+')
        if [ "${matched:-0}" -eq 0 ]; then
            echo "$name: killed-by '$spec' matches no test"
            fail=1
        fi
    done < <(sed -n 's/^killed-by: //p' "$p")
done
[ $n -gt 0 ] || {
    echo "no mutations found"
    exit 1
}
[ $fail -eq 0 ] && echo "mutation patches: $n apply and name existing tests"
exit $fail
