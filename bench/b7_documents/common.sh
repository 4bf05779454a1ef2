#!/usr/bin/env bash
# Sourced by B7's run.sh and structure/run.sh (docs/benchmarks.md, B7).

# install_missing PACKAGE...: installs with apt-get the Debian packages not installed yet.
install_missing() {
    local missing="" p
    for p in "$@"; do
        dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -n "$missing" ] || return 0
    echo "== apt-get install$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# build_pipelines ROOT WORK ROPC: the three B7 pipelines, each built in WORK/VARIANT/pipeline:
# mineru_auto (examples/mineru as written, `text: detect`), mineru_ocr (the same with `text:
# ocr`) and docling_auto (examples/docling as written), each content list with rop's extras
# (the scorers count the pages read from the layer by them).
build_pipelines() {
    local root=$1 work=$2 ropc=$3 f v
    for f in "$root/examples/mineru/mineru.rop" "$root/examples/docling/docling.rop"; do
        grep -q 'text: detect' "$f" || {
            echo "b7: $f has no 'text: detect'" >&2
            return 2
        }
    done
    mkdir -p "$work/mineru_auto" "$work/mineru_ocr" "$work/docling_auto"
    cp "$root/examples/mineru/mineru.rop" "$work/mineru_auto/mineru.rop"
    sed 's/text: detect/text: ocr/' "$root/examples/mineru/mineru.rop" >"$work/mineru_ocr/mineru.rop"
    cp "$root/examples/docling/docling.rop" "$root/examples/docling/docling.hpp" \
        "$work/docling_auto/"
    for v in mineru_auto mineru_ocr docling_auto; do
        sed -i 's/with std\.assemble\.content_list;/with std.assemble.content_list(extras: true);/' \
            "$work/$v"/*.rop
        (cd "$work/$v" && "$ropc" build ./*.rop -o ./pipeline) || return 1
    done
}
