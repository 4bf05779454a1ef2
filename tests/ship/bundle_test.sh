#!/usr/bin/env bash
# bundle_test.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR
# `ropc build --bundle` on examples/mineru (poppler + Tesseract): the layout, the RPATH, which
# libraries are in lib/ and which are not, manifest.json's hashes and packages, --selfcheck
# passing (and failing, naming the check), the bundle run with LD_LIBRARY_PATH cleared giving the
# host run's outputs, the .tar.gz form, and --static refused naming the missing archive (and
# working for a pipeline whose libraries have archives). The bare-node test is
# tools/ship/chroot_test.sh (docs/shipping.md).
set -uo pipefail
ropc=$1 src=$2 work=$3 cache=$4
export ROP_CACHE_DIR=$cache
fail() {
    echo "FAIL: $*"
    exit 1
}
rm -rf "$work" && mkdir -p "$work" && cp -r "$src/examples/mineru" "$work/mineru" && cd "$work/mineru"
bundle=$work/bundle

"$ropc" build mineru.rop -o mineru -O0 --bundle "$bundle" 2>build.txt || {
    cat build.txt
    fail "bundle build"
}
for f in bin/mineru manifest.json mineru.rop share/tessdata/eng.traineddata lib/libstdc++.so.6 \
    lib/libpoppler-cpp.so.0 lib/libtesseract.so.5 lib/libgomp.so.1; do
    [ -f "$bundle/$f" ] || fail "no $f in the bundle"
done
ls "$bundle"/lib/libpoppler.so.* >/dev/null 2>&1 || fail "no libpoppler in lib/"
for base in libc.so.6 libm.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2; do
    [ ! -e "$bundle/lib/$base" ] || fail "lib/ has the base system's $base"
done
readelf -d "$bundle/bin/mineru" | grep -q '(RPATH) *Library rpath: \[\$ORIGIN/\.\./lib\]$' ||
    fail "bin/mineru has no RPATH \$ORIGIN/../lib: $(readelf -d "$bundle/bin/mineru" | grep -i path)"
cmp -s "$bundle/mineru.rop" "$src/examples/mineru/mineru.rop" || fail "mineru.rop is not the pipeline"

# Every file is in the manifest with its sha256, and nothing else is.
python3 - "$bundle" "$src/examples/mineru/mineru.rop" <<'PY' || fail "manifest.json"
import hashlib, json, os, sys
root, rop = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(root, "manifest.json")))
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
on_disk = sorted(os.path.relpath(os.path.join(d, f), root)
                 for d, _, fs in os.walk(root) for f in fs if f != "manifest.json")
listed = [f["path"] for f in m["files"]]
assert listed == on_disk, (set(listed) ^ set(on_disk))
for f in m["files"]:
    assert f["sha256"] == sha(os.path.join(root, f["path"])), f["path"]
    assert f["size"] == os.path.getsize(os.path.join(root, f["path"])), f["path"]
assert m["rop_sha256"] == sha(rop) and m["rop_file"] == "mineru.rop"
assert m["binary"] == "bin/mineru" and m["pipeline"] == "mineru"
assert m["ocr_languages"] == ["eng"], m["ocr_languages"]
assert m["modules"] == ["io", "pdf", "ocr", "assemble", "rules"], m["modules"]
assert "libc.so.6" in m["base_system_libraries"]
poppler = [f for f in m["files"] if f["path"].startswith("lib/libpoppler.so.")][0]
assert poppler["package"].startswith("libpoppler1") and poppler["version"], poppler
eng = [f for f in m["files"] if f["path"] == "share/tessdata/eng.traineddata"][0]
assert eng["package"].startswith("tesseract-ocr-eng"), eng
assert m["rop_version"] and m["built_at"].endswith("Z")
PY

# --selfcheck: each check named, the bundle's own libraries and language data used.
env -u LD_LIBRARY_PATH -u TESSDATA_PREFIX "$bundle/bin/mineru" --selfcheck >selfcheck.txt 2>&1
code=$?
[ "$code" = 0 ] || {
    cat selfcheck.txt
    fail "--selfcheck exit $code, expected 0"
}
for line in "^selfcheck: libraries: ok ([0-9]* shared libraries loaded, [1-9][0-9]* from $bundle/lib)$" \
    "^  stdlib libraries linked: io pdf ocr assemble rules$" \
    "^selfcheck: language data: ok (eng in $bundle/share/tessdata/)$" \
    "^selfcheck: gpus: ok (no CUDA in this build; NVIDIA driver: " \
    "^selfcheck: output 'md' out/markdown: ok ($work/mineru is writable)$" \
    "^selfcheck: output 'list' out/content_list: ok (" \
    "^selfcheck: output --journal out/markdown.journal: ok (" \
    "^selfcheck: passed$"; do
    grep -q -- "$line" selfcheck.txt || {
        cat selfcheck.txt
        fail "--selfcheck lacks '$line'"
    }
done
if grep "from the system:" selfcheck.txt | grep -v -E "/(libc|libm|libgcc_s|libresolv|ld-linux)"; then
    fail "a library outside the base system came from the system"
fi
# Failing checks: exit 1 and the list.
touch afile
TESSDATA_PREFIX=$work/nowhere "$bundle/bin/mineru" --selfcheck --output md=afile/sub \
    >bad.txt 2>&1
code=$?
[ "$code" = 1 ] || {
    cat bad.txt
    fail "failing --selfcheck exit $code, expected 1"
}
grep -q "^selfcheck: language data: FAILED (Tesseract cannot load 'eng'; TESSDATA_PREFIX=$work/nowhere;" bad.txt ||
    {
        cat bad.txt
        fail "no language data failure"
    }
grep -q "^selfcheck: output 'md' afile/sub: FAILED ($work/mineru/afile is not a folder)$" bad.txt ||
    {
        cat bad.txt
        fail "no output failure"
    }
grep -q "^selfcheck: FAILED: language data, output 'md', output --journal$" bad.txt || fail "no failure list"

# The bundle (as a tarball, without -o) runs with no LD_LIBRARY_PATH and matches the host run.
"$ropc" build mineru.rop -O0 --bundle "$work/mineru.tar.gz" 2>tar.txt || {
    cat tar.txt
    fail "tar.gz"
}
ls -a "$work" | grep -q "^.rop-bundle" && fail "the staging folder was left behind"
tar -tzf "$work/mineru.tar.gz" | grep -q '^mineru/bin/mineru$' || fail "no mineru/bin/mineru in the tarball"
mkdir -p "$work/node" && tar -xzf "$work/mineru.tar.gz" -C "$work/node"
./mineru --no-progress >host.txt 2>&1 || {
    cat host.txt
    fail "host run"
}
mv out out.host
LD_LIBRARY_PATH= env -u TESSDATA_PREFIX "$work/node/mineru/bin/mineru" --no-progress >node.txt 2>&1 ||
    {
        cat node.txt
        fail "bundle run"
    }
# .rop-names lists the roots in completion order: compared sorted.
diff -r -x '*.journal' -x .rop-names out.host out >/dev/null || fail "the outputs differ from the host's"
for names in out/*/.rop-names; do
    diff <(sort "$names") <(sort "out.host/${names#out/}") || fail "$names differs"
done
[ "$(find out -name '*.md' | wc -l)" = 2 ] || fail "expected 2 markdown files"

# Usage errors (exit 2).
"$ropc" build mineru.rop --bundle 2>usage.txt
code=$?
[ "$code" = 2 ] && grep -q "^ropc: error: --bundle needs a directory or a .tar.gz file$" usage.txt ||
    {
        cat usage.txt
        fail "--bundle without a value: exit $code"
    }
"$ropc" build mineru.rop --emit=cpp --bundle x 2>usage.txt >/dev/null
code=$?
[ "$code" = 2 ] && grep -q "^ropc: error: --emit builds nothing: it cannot be combined with --bundle or --static$" usage.txt ||
    {
        cat usage.txt
        fail "--emit with --bundle: exit $code"
    }

# Not a bundle: refused, not deleted.
mkdir -p "$work/mine" && touch "$work/mine/keep"
"$ropc" build mineru.rop -O0 --bundle "$work/mine" 2>mine.txt && fail "bundled over a folder"
grep -q "^ropc: error: --bundle $work/mine: '$work/mine' exists and is not a bundle (no manifest.json)$" mine.txt ||
    {
        cat mine.txt
        fail "message"
    }
[ -f "$work/mine/keep" ] || fail "the folder's file is gone"

# --static: refused naming the archive Debian lacks ...
"$ropc" build mineru.rop -o static -O0 --static 2>static.txt
code=$?
[ "$code" = 1 ] || fail "--static exit $code, expected 1"
grep -q "^ropc: error: --static: no static archive for libpoppler-cpp.a libpoppler.a (" static.txt ||
    {
        cat static.txt
        fail "--static message"
    }
[ ! -e static ] || fail "--static wrote a binary"
# ... and linked where every library has one (wordcount: the runtime and std.io, std.text).
cp -r "$src/examples/wordcount" "$work/wordcount" && cd "$work/wordcount"
"$ropc" build wordcount.rop -o wordcount -O0 --static 2>static.txt || {
    cat static.txt
    fail "static"
}
readelf -d wordcount | grep -q NEEDED && fail "a --static binary needs shared libraries"
./wordcount >/dev/null 2>&1 || fail "the static wordcount failed"
diff -r -x .rop-names "$src/tests/examples/wordcount/expected" out || fail "static wordcount output"
echo "ok"
