#!/usr/bin/env python3
"""--report-html in a real browser: runs a pipeline binary with --report-html, opens the page in
headless Chromium (screenshot and DOM) with the network pointed nowhere, and checks that it
rendered: one timeline row per Call in the DOM, the failure, a screenshot that is not blank (the
Calls' colours in it, read from the PNG with zlib alone) and no request made by the page (its
net log, checked against a control page that does fetch).

usage: report_html_browser.py PIPELINE_BINARY
Exit 77 (ctest: skipped) when no chromium is installed (tools/setup.sh installs it)."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

CALLS = ["split", "m", "sum"]  # tests/runtime/process/process_pipeline.cpp
COLORS = [(0x4E, 0x79, 0xA7), (0xF2, 0x8E, 0x2B), (0x59, 0xA1, 0x4F)]  # report_html.cpp, in order


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def chromium(work, page, *flags):
    """Runs headless Chromium on `page` with the network unreachable; returns its stdout."""
    command = [
        shutil.which("chromium"),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--user-data-dir=" + os.path.join(work, "profile"),
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=127.0.0.1:9",
        "--window-size=1200,1600",
        *flags,
        "file://" + page,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        fail("chromium exited %d: %s" % (done.returncode, done.stderr[-2000:]))
    return done.stdout


def page_requests(net_log):
    """The URLs a page loaded from file:// asked the network for (Chromium's own requests, its
    updater's, have no file:// isolation key and are not counted)."""
    with open(net_log) as f:
        log = json.load(f)
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = set()
    for event in log["events"]:
        params = event.get("params", {})
        if event["type"] == start and "file://" in params.get("network_isolation_key", ""):
            if not params["url"].startswith(("file:", "data:")):
                urls.add(params["url"])
    return urls


def png_colors(path):
    """The set of RGB colours in an 8-bit RGB or RGBA PNG (no interlace), decoded with zlib."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    at, idat = 8, b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        body = data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    if depth != 8 or color_type not in (2, 6) or interlace != 0:
        fail("unexpected PNG format: depth %d, colour type %d" % (depth, color_type))
    bpp = 3 if color_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    colors = set()
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:  # Up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        previous = line
        if len(set(line)) == 1:  # one byte value: one grey (most rows of a page)
            colors.add(bytes(line[0:3]))
        else:
            for x in range(0, stride, bpp):
                colors.add(bytes(line[x : x + 3]))
    return width, height, colors


def main():
    if len(sys.argv) != 2:
        fail(__doc__)
    binary = os.path.abspath(sys.argv[1])
    if shutil.which("chromium") is None:
        print("SKIP: no chromium (tools/setup.sh installs it)")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="rop_report_html_") as work:
        with open(os.path.join(work, "docs.txt"), "w") as f:
            f.write("".join("doc%d %d\n" % (i, i) for i in range(1, 9)))
        page = os.path.join(work, "run.html")
        env = dict(os.environ, ROP_TEST_POISON="3001:throw")  # doc3's second page fails
        run = subprocess.run(
            [binary, "--input", "docs.txt", "--output", "totals.txt", "--report-html", page],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if run.returncode != 3:  # finished, one root failed
            fail("the pipeline exited %d, not 3: %s" % (run.returncode, run.stderr))
        with open(page) as f:
            html = f.read()
        for fetch in ("http://", "https://", "<script", "<link", "<img", "url("):
            if fetch in html:
                fail("the page holds '%s'" % fetch)

        dom = chromium(work, page, "--dump-dom")
        rows = dom.count('class="timeline-row"')
        if rows != len(CALLS):
            fail("the DOM has %d timeline rows, not %d" % (rows, len(CALLS)))
        for call in CALLS:
            if 'class="timeline-row" data-call="%s"' % call not in dom:
                fail("no timeline row for Call " + call)
        if "page 3001 is bad" not in dom:
            fail("the failure is not in the DOM")

        shot, net_log = os.path.join(work, "shot.png"), os.path.join(work, "net.json")
        chromium(work, page, "--screenshot=" + shot, "--log-net-log=" + net_log)
        width, height, colors = png_colors(shot)
        if (width, height) != (1200, 1600) or len(colors) < 2:
            fail("the screenshot is %dx%d with %d colours" % (width, height, len(colors)))
        for call, rgb in zip(CALLS, COLORS):
            if bytes(rgb) not in colors:
                fail("the screenshot lacks Call %s's colour #%02x%02x%02x" % ((call,) + rgb))
        requests = page_requests(net_log)
        if requests:
            fail("the page asked the network for " + ", ".join(sorted(requests)))

        # The net log does show a page's requests: a control page that fetches is caught.
        control, control_log = os.path.join(work, "control.html"), os.path.join(work, "c.json")
        with open(control, "w") as f:
            f.write('<!DOCTYPE html><p>x</p><img src="http://example.invalid/x.png">')
        chromium(work, control, "--screenshot=" + shot, "--log-net-log=" + control_log)
        if page_requests(control_log) != {"http://example.invalid/x.png"}:
            fail("the net log did not show the control page's request")
        print(
            "ok: %d timeline rows, %d colours in the screenshot, no request" % (rows, len(colors))
        )


if __name__ == "__main__":
    main()
