#!/usr/bin/env bash
# Keeps the docs true to the code: every diagnostic id in the catalogue appears in the language
# reference's table (docs/language.md) and has its own section in docs/diagnostics.md.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0
ids=$(grep -oE '^ROP_DIAG\([A-Za-z]+, "[EWF][0-9]{4}"' "$root/compiler/support/diag_catalog.def" |
    grep -oE '[EWF][0-9]{4}')
[ -n "$ids" ] || {
    echo "no ids found in diag_catalog.def"
    exit 1
}
for id in $ids; do
    grep -q "| \[$id\]" "$root/docs/language.md" || {
        echo "docs/language.md lacks $id"
        fail=1
    }
    grep -q "^### $id:" "$root/docs/diagnostics.md" || {
        echo "docs/diagnostics.md lacks $id"
        fail=1
    }
done
[ $fail -eq 0 ] && echo "docs: $(echo "$ids" | wc -l) ids documented"
exit $fail
