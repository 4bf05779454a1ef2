#!/usr/bin/env python3
"""Runs the README's tour exactly as written, so its commands keep working pasted as-is.

usage: run_readme_tour.py ROPC REPO_ROOT WORK_DIR

Takes the README's ```sh block that starts with `$ cd examples/wordcount`, copies
examples/wordcount to WORK_DIR/examples/wordcount, and runs every `$ ` line of the block in
order, from WORK_DIR, in one bash with `set -e` (`ropc` is the ropc under test). A trailing
`# writes A, B` comment is checked too: each file must exist afterwards. So are the files the
README says a run leaves beside its outputs (`out.journal`, `out/.rop-names`).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

TOUR_START = "$ cd examples/wordcount"
LEFT_BEHIND = ["out.journal", "out/.rop-names"]  # README: "Beside its outputs a run leaves..."


def tour_commands(readme):
    """The `$ ` lines of the tour's sh block, each as (command, [files it says it writes])."""
    lines = readme.split("\n")
    for start, line in enumerate(lines):
        if (
            line.strip() == "```sh"
            and start + 1 < len(lines)
            and lines[start + 1].strip() == TOUR_START
        ):
            break
    else:
        raise SystemExit(f"FAIL: no ```sh block starting with '{TOUR_START}' in README.md")
    commands = []
    for line in lines[start + 1 :]:
        if line.strip().startswith("```"):
            return commands
        if not line.startswith("$ "):
            continue
        command, _, comment = line[2:].partition("  # ")  # a comment follows two spaces
        m = re.match(r"\s*writes (.*)$", comment)
        writes = [w.strip() for w in m.group(1).split(",")] if m else []
        commands.append((command.strip(), writes))
    raise SystemExit("FAIL: the tour's ```sh block is never closed")


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().split("\n\n")[1])
        return 2
    ropc, root, work = (os.path.abspath(a) for a in sys.argv[1:])
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        commands = tour_commands(f.read())
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(
        os.path.join(root, "examples", "wordcount"), os.path.join(work, "examples", "wordcount")
    )
    shutil.rmtree(os.path.join(work, "examples", "wordcount", "out"), ignore_errors=True)
    script = ["set -euo pipefail", f'ropc() {{ "{ropc}" "$@"; }}']
    for command, _ in commands:
        script += ["echo " + shlex.quote("+ " + command), command]
    run = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=work, capture_output=True, text=True, timeout=900
    )
    print(run.stdout + run.stderr)
    if run.returncode != 0:
        print(f"FAIL: the README's tour stopped with exit {run.returncode} (the last '+' line)")
        return 1
    example = os.path.join(work, "examples", "wordcount")
    missing = [
        w for _, writes in commands for w in writes if not os.path.exists(os.path.join(example, w))
    ]
    missing += [f for f in LEFT_BEHIND if not os.path.exists(os.path.join(example, f))]
    for path in missing:
        print(f"FAIL: the README says the tour leaves {path}; it does not")
    if missing:
        return 1
    print(f"ok: the README's tour, {len(commands)} commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
