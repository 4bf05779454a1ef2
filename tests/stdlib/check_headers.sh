#!/usr/bin/env bash
# Keeps the stdlib module headers slim (INTERFACES A): each includes only standard headers,
# <rop/udf.h>, <rop/stdlib/types.h>, <rop/content_key.h> and the record templates
# (<rop/records.h>, <rop/fields.h>: standard headers only), and carries one `// rop-link:` line
# in its first 40 lines whose first token is its own library.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
for header in "$root"/stdlib/include/rop/stdlib/*.h; do
    module=$(basename "$header" .h)
    rel=${header#"$root"/}
    bad=$(grep -nE '^\s*#\s*include' "$header" |
        grep -vE '#\s*include\s*<[a-z_]+>' |
        grep -vE '#\s*include\s*<rop/(udf|stdlib/types|content_key|records|fields)\.h>')
    if [ -n "$bad" ]; then
        echo "$rel: includes more than standard headers and rop types:"
        echo "$bad"
        fail=1
    fi
    [ "$module" = types ] && continue
    links=$(head -n 40 "$header" | grep -c '^// rop-link: ')
    if [ "$links" != 1 ]; then
        echo "$rel: expected one '// rop-link:' line in its first 40 lines, found $links"
        fail=1
    elif ! head -n 40 "$header" | grep -qE "^// rop-link: rop_stdlib_$module( |$)"; then
        echo "$rel: the link line must list rop_stdlib_$module first"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "stdlib headers: ok"
exit $fail
