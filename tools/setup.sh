#!/usr/bin/env bash
# Installs every Debian package rop needs to build, test and run its examples.
# Idempotent: packages already present are skipped; safe to run on every invocation.
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config git
    patch         # tests/mutation: applies the mutation suite's patches
    libcatch2-dev # Catch2 v3 (bookworm-backports)
    nlohmann-json3-dev
    libxxhash-dev   # ropc build's cache keys (XXH3-128)
    libcli11-dev    # ropc's and the generated binaries' command lines
    clang-format-19 # the format gate (tests/check_format.sh): C++
    shfmt black     # ... shell (shfmt 3.6) and Python (black 23.1)
    libboost1.81-dev
    zlib1g-dev libpng-dev # std.model: PNG data URLs (libpng on zlib)
    libssl-dev openssl    # std.model: https (OpenSSL); its tests make certificates (openssl)
    llvm-19-dev libclang-19-dev clang-19 libclang-rt-19-dev
    libpoppler-cpp-dev poppler-utils
    libpoppler-private-dev # std.pdf: poppler's core API (a page's drawing operators, a budget)
    libtesseract-dev tesseract-ocr-eng
    libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
    libswresample-dev # std.video: a clip's audio resampled to PCM
    ffmpeg            # std.video's test and demo videos (lavfi sources), ffprobe in the checks
    libtbb-dev
    libopenmpi-dev openmpi-bin
    libcairo2-dev
    gnuplot-nox
    chromium                      # tests/runtime/html: the --report-html page rendered in headless Chromium
    python3                       # tools/demo.sh summary, benchmark reports
    libtasn1-doc shared-mime-info # real PDFs (libtasn1.pdf, shared-mime-info-spec.pdf) for the document demo and B4
    glpk-doc xorg-docs            # real PDFs (graphs.pdf, icccm.pdf) for test_layout's tables and drawings
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#packages[@]} packages present"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages (${missing[*]}); run tools/setup.sh as root" >&2
    exit 1
fi

# Catch2 v3 lives in bookworm-backports; add that suite once if apt cannot see it.
backports=/etc/apt/sources.list.d/rop-bookworm-backports.list
if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "deb http://deb.debian.org/debian bookworm-backports main" >"$backports"
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
