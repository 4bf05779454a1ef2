#!/usr/bin/env bash
# run_doc_example.sh NAME ROPC SOURCE_DIR WORK_DIR DATA_DIR CACHE_DIR
# Builds examples/NAME (mineru, docling) with ropc, runs it on the generated test PDFs (docs/, and
# text/mixed.pdf with its scanned page) plus the corrupt-file folder, and checks exit code,
# per-document outputs (text and order) and the run report's failure reasons with
# check_doc_example.py.
set -euo pipefail
name=$1 ropc=$2 src=$3 work=$4 data=$5 cache=$6
rm -rf "$work"
mkdir -p "$work"
cp -r "$src/examples/$name/." "$work/"
rm -rf "$work/out" "$work/in"
mkdir -p "$work/in"
cp "$data"/docs/*.pdf "$data"/text/*.pdf "$data"/corrupt/*.pdf "$work/in/"
cd "$work"
# docling's content list with rop's extras, so the check sees each page's text source; mineru's
# stays MinerU's shape exactly.
if [ "$name" = docling ]; then
    sed -i 's/with std\.assemble\.content_list;/with std.assemble.content_list(extras: true);/' \
        "$name.rop"
    grep -q 'content_list(extras: true)' "$name.rop"
fi
export ROP_CACHE_DIR=$cache
export OMP_THREAD_LIMIT=1 # libgomp reads it at process start (docs/stdlib.md)
"$ropc" build "$name.rop" -o "./$name" -O1
set +e
"./$name" --report report.json >stdout.txt 2>stderr.txt
code=$?
set -e
if [ "$code" != 3 ]; then # 3: some roots failed (the corrupt ones), the rest ok
    echo "FAIL: exit $code, expected 3"
    cat stderr.txt
    exit 1
fi
python3 "$src/tests/stdlib/check_doc_example.py" "$name" "$work"
