#!/usr/bin/env bash
# tools/ship/chroot_test.sh [ROPC]
# Ships examples/mineru (poppler + Tesseract) to a bare Debian 12 and runs it there: a minbase
# bookworm (`debootstrap --variant=minbase`: no -dev packages, no poppler, no Tesseract, no
# language data) is made once in $ROP_CHROOT (default /var/tmp/rop-chroot, kept as a cache), the
# bundle of mineru is copied in, and inside the chroot `--selfcheck` must pass and the pipeline's
# outputs must equal a run of the same binary on this host. Needs root (chroot, mount) and, the
# first time, debootstrap and Debian's mirror ($ROP_DEBIAN_MIRROR). docs/shipping.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ropc=${1:-$src/build/ci/bin/ropc}
root=${ROP_CHROOT:-/var/tmp/rop-chroot}
mirror=${ROP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d /tmp/rop-chroot-test.XXXXXX)
trap 'umount "$root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT

if [ ! -x "$root/bin/sh" ] || [ ! -f "$root/.rop-debootstrap-done" ]; then
    echo "chroot_test: debootstrap --variant=minbase bookworm $root (once; a few minutes)"
    rm -rf "$root"
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
        {
            tail -20 "$work/debootstrap.log"
            exit 1
        }
    touch "$root/.rop-debootstrap-done"
fi
# The node really is bare: none of the libraries the bundle carries.
for lib in libpoppler libtesseract liblept libstdc++; do
    if chroot "$root" sh -c "ls /usr/lib/x86_64-linux-gnu/$lib.so* >/dev/null 2>&1"; then
        [ "$lib" = libstdc++ ] && continue # apt needs it; the bundle brings its own anyway
        echo "chroot_test: FAIL: $root has $lib (not a bare node)"
        exit 1
    fi
done
if [ -d "$root/usr/share/tesseract-ocr" ]; then
    echo "chroot_test: FAIL: tessdata in $root"
    exit 1
fi

# Build the bundle on this host.
cp -r "$src/examples/mineru" "$work/mineru"
cd "$work/mineru"
"$ropc" build mineru.rop -o mineru --bundle "$work/mineru.tar.gz"
./mineru --no-progress >host.log 2>&1 || {
    cat host.log
    exit 1
}

# Into the chroot: the tarball and the inputs, nothing else.
node=$root/opt/rop-test
rm -rf "$node" && mkdir -p "$node"
tar -xzf "$work/mineru.tar.gz" -C "$node"
cp -r "$work/mineru/in" "$node/in"
mount -t proc proc "$root/proc"
echo "chroot_test: --selfcheck in the chroot"
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin sh -c \
    'cd /opt/rop-test && ./mineru/bin/mineru --selfcheck' | tee "$work/selfcheck.txt" | grep -v '^  '
grep -q "^selfcheck: passed$" "$work/selfcheck.txt"
grep -q "language data: ok (eng in /opt/rop-test/mineru/share/tessdata/)" "$work/selfcheck.txt"
# As tools/ship/Dockerfile runs it: through a symlink on PATH, from another folder.
ln -sfn /opt/rop-test/mineru/bin/mineru "$root/usr/local/bin/pipeline"
mkdir -p "$root/data"
chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin sh -c \
    'cd /data && pipeline --selfcheck' >"$work/symlink.txt"
grep -q "language data: ok (eng in /opt/rop-test/mineru/share/tessdata/)" "$work/symlink.txt"
grep -q "^selfcheck: passed$" "$work/symlink.txt"
rm -f "$root/usr/local/bin/pipeline"
echo "chroot_test: mineru in the chroot"
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin sh -c \
    'cd /opt/rop-test && ./mineru/bin/mineru --no-progress'
umount "$root/proc"
# .rop-names lists the roots in completion order: compared sorted.
diff -r -x '*.journal' -x .rop-names "$work/mineru/out" "$node/out"
for names in "$node"/out/*/.rop-names; do
    diff <(sort "$names") <(sort "$work/mineru/out/${names#"$node"/out/}")
done
echo "chroot_test: ok: outputs in the chroot equal the host's ($(find "$node/out" -type f | wc -l) files)"
