#!/usr/bin/env python3
"""Keeps the pipelines in the docs true to the compiler.

usage: check_doc_blocks.py ROPC REPO_ROOT [WORK_DIR]

Every ```rop block of README.md and docs/*.md is written to its own folder and checked with
`ropc check --format=json` (binding included), and must come out exactly as its marker says:

    <!-- rop-check: -I examples/wordcount -->          clean, with `use` headers found under
                                                       that folder (relative to the repo root)
    <!-- rop-check: expect E0300 at 4:42 -->           exactly these diagnostics (id, line:col in
                                                       the block), several joined by ", "
    <!-- rop-check: skip (why it cannot be checked) --> not checked; counted, and capped below
    <!-- rop-check: expect ...; transcript -->          and the next fenced block, a transcript
                                                       `$ ropc check NAME.rop` + what it prints,
                                                       is what ropc prints for it as NAME.rop

A marker is an HTML comment on the line right before the fence; directives combine with "; ".
A block without one must check clean: no error and no warning.

Two more checks keep what is not a ```rop block honest:
- a fence that holds a whole pipeline (a `pipeline` and a `source` line) must be tagged
  ```rop, so it cannot dodge the check (fragments, a statement or a few, may stay untagged);
- every stdlib name written in code (`std.io.Files`, in any fenced block or `inline code`) must
  be one the stdlib declares: all of them are bound in one generated pipeline, and an E0500
  (unknown UDF) for one of them is a failure at the doc line that wrote it.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Fragments that cannot be checked on their own. Raise this only with a reason in the marker.
MAX_SKIPS = 3

MARKER = re.compile(r"^\s*<!--\s*rop-check:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+)\s*([A-Za-z0-9_+-]*)\s*$")
EXPECT = re.compile(r"^([EWF]\d{4}) at (\d+):(\d+)$")
STD_NAME = re.compile(r"(?<![\w.])std\.[a-z_][a-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
INLINE_CODE = re.compile(r"`([^`\n]+)`")


class Block:
    def __init__(self, doc, line, lang, marker, marker_line):
        self.doc, self.line, self.lang = doc, line, lang  # line: the opening fence's, 1-based
        self.marker, self.marker_line = marker, marker_line
        self.text = []


def read_docs(root):
    docs = ["README.md"]
    docs += sorted(
        os.path.join("docs", n) for n in os.listdir(os.path.join(root, "docs")) if n.endswith(".md")
    )
    return docs


def parse(root, doc, failures):
    """The fenced blocks of one Markdown file, and (line, code) for every piece of code in it."""
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, code, block, fence = [], [], None, None
    pending = None  # (directives, line) of a marker waiting for its fence
    for number, line in enumerate(lines, 1):
        if block is not None:
            m = FENCE.match(line)
            if m and m.group(2) == fence and not m.group(3):
                blocks.append(block)
                block = None
            else:
                block.text.append(line)
                code.append((number, line))
            continue
        m = FENCE.match(line)
        if m:
            marker = pending if pending and pending[1] == number - 1 else None
            if pending and not marker:
                failures.append(f"{doc}:{pending[1]}: rop-check marker not right before a fence")
            pending = None
            block, fence = Block(doc, number, m.group(3), *(marker or (None, None))), m.group(2)
            if marker and block.lang != "rop":
                failures.append(f"{doc}:{number}: rop-check marker on a ```{block.lang} block")
            continue
        m = MARKER.match(line)
        if m:
            if pending:
                failures.append(f"{doc}:{pending[1]}: rop-check marker not right before a fence")
            pending = (m.group(1), number)
            continue
        for span in INLINE_CODE.findall(line):
            code.append((number, span))
    if pending:
        failures.append(f"{doc}:{pending[1]}: rop-check marker not right before a fence")
    if block is not None:
        failures.append(f"{doc}:{block.line}: fence never closed")
    return blocks, code


def directives(block, failures):
    """(skip reason or None, -I dirs, expected {(id, line, col)}, transcript?) from the marker."""
    skip, includes, expected, transcript = None, [], set(), False
    if not block.marker:
        return skip, includes, expected, transcript
    where = f"{block.doc}:{block.marker_line}"
    for part in (p.strip() for p in block.marker.split(";")):
        if part == "transcript":
            transcript = True
        elif part.startswith("skip"):
            skip = part[4:].strip().strip("()").strip()
            if not skip:
                failures.append(f"{where}: a skip needs a reason: skip (why)")
        elif part.startswith("-I "):
            includes.append(part[3:].strip())
        elif part.startswith("expect "):
            for item in part[len("expect ") :].split(","):
                m = EXPECT.match(item.strip())
                if not m:
                    failures.append(f"{where}: cannot read '{item.strip()}' (want: E0300 at 4:42)")
                    continue
                expected.add((m.group(1), int(m.group(2)), int(m.group(3))))
        else:
            failures.append(f"{where}: unknown rop-check directive '{part}'")
    return skip, includes, expected, transcript


def ropc_check(ropc, folder, rop_file, args, failures, where):
    """The diagnostics of `ropc check --format=json`, or None when it did not answer in JSON."""
    run = subprocess.run(
        [ropc, "check", "--format=json", rop_file] + args,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError:
        failures.append(
            f"{where}: ropc check exited {run.returncode} without JSON:\n"
            f"{run.stdout}{run.stderr}"
        )
        return None


def check_transcript(ropc, folder, args, shown, failures):
    """`shown` is a transcript block: `$ ropc check NAME.rop` and then exactly its stderr."""
    where = f"{shown.doc}:{shown.line}"
    command = shown.text[0].split() if shown.text else []
    if (
        len(command) != 4
        or command[:3] != ["$", "ropc", "check"]
        or not command[3].endswith(".rop")
        or "/" in command[3]
    ):
        failures.append(f"{where}: a transcript starts with '$ ropc check NAME.rop'")
        return
    shutil.copy(os.path.join(folder, "block.rop"), os.path.join(folder, command[3]))
    run = subprocess.run(
        [ropc, "check", command[3]] + args, cwd=folder, capture_output=True, text=True, timeout=300
    )
    want = "\n".join(shown.text[1:]) + "\n"
    if run.stderr != want:
        failures.append(f"{where}: the transcript is not what ropc prints now:\n{run.stderr}")


def check_block(ropc, root, work, block, shown, failures, counts):
    skip, includes, expected, transcript = directives(block, failures)
    where = f"{block.doc}:{block.line}"
    if skip is not None:
        counts["skipped"].append(f"{where} ({skip})")
        return
    folder = os.path.join(work, re.sub(r"[^A-Za-z0-9]+", "_", block.doc) + f"_{block.line}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "block.rop"), "w", encoding="utf-8") as f:
        f.write("\n".join(block.text) + "\n")
    args = []
    for folder_in_repo in includes:
        path = os.path.join(root, folder_in_repo)
        if not os.path.isdir(path):
            failures.append(f"{where}: -I {folder_in_repo} is not a folder of the repository")
        args += ["-I", path]
    if transcript:
        if shown is None or shown.lang:
            failures.append(f"{where}: 'transcript' needs an untagged fence right after the block")
        else:
            check_transcript(ropc, folder, args, shown, failures)
    diags = ropc_check(ropc, folder, "block.rop", args, failures, where)
    if diags is None:
        return
    got = {(d["id"], d["line"], d["column"]) for d in diags if d["severity"] != "note"}
    counts["expect" if expected else "clean"] += 1
    if got == expected:
        return

    # Doc line of block line L: the fence is on block.line, the block's first line after it.
    def shown(items):
        return (
            ", ".join(f"{i} at {l}:{c} ({block.doc}:{block.line + l})" for i, l, c in sorted(items))
            or "nothing"
        )

    messages = "".join(f"\n    {d['id']} {d['line']}:{d['column']}: {d['message']}" for d in diags)
    failures.append(
        f"{where}: ```rop block: expected {shown(expected)}, "
        f"ropc reported {shown(got)}{messages}"
    )


def check_untagged(block, failures):
    starts = {line.split(" ", 1)[0] for line in block.text}
    if "pipeline" in starts and "source" in starts:
        failures.append(
            f"{block.doc}:{block.line}: a whole pipeline in a fence not tagged rop; "
            "tag it ```rop so tests/check_doc_blocks.py checks it"
        )


def check_std_names(ropc, root, work, code, failures):
    """Binds every std.* name written in code; an unknown one fails at the doc line."""
    uses = {}  # name -> [doc:line, ...]
    for where, text in code:
        for name in STD_NAME.findall(text):
            uses.setdefault(name, []).append(where)
    if not uses:
        return 0
    # `std.pdf` alone names a module, not an operator
    modules = {
        "std." + n[:-2]
        for n in os.listdir(os.path.join(root, "stdlib", "include", "rop", "stdlib"))
        if n.endswith(".h")
    }
    names = sorted(name for name in uses if name not in modules)
    lines = ["pipeline doc_names;", 'source s : Doc = std.io.Files(glob: "*");']
    first = len(lines) + 1
    lines += [f"_n{i} = map s with {name};" for i, name in enumerate(names)]
    folder = os.path.join(work, "std_names")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "names.rop"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    diags = ropc_check(ropc, folder, "names.rop", [], failures, "std names")
    if diags is None:
        return len(names)
    for d in diags:
        if d["id"] != "E0500":
            continue
        name = names[d["line"] - first]
        for where in uses[name]:
            failures.append(f"{where}: '{name}' is not a stdlib operator: {d['message']}")
    return len(names)


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().split("\n\n")[1])
        return 2
    ropc, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = sys.argv[3] if len(sys.argv) == 4 else tempfile.mkdtemp(prefix="rop-doc-blocks-")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []
    counts = {"clean": 0, "expect": 0, "skipped": []}
    code = []
    for doc in read_docs(root):
        blocks, doc_code = parse(root, doc, failures)
        code += [(f"{doc}:{line}", text) for line, text in doc_code]
        for i, block in enumerate(blocks):
            if block.lang == "rop":
                shown = blocks[i + 1] if i + 1 < len(blocks) else None
                check_block(ropc, root, work, block, shown, failures, counts)
            else:
                check_untagged(block, failures)
    names = check_std_names(ropc, root, work, code, failures)
    skipped = counts["skipped"]
    if len(skipped) > MAX_SKIPS:
        failures.append(
            f"{len(skipped)} ```rop blocks skipped, at most {MAX_SKIPS}: make the "
            "new ones whole pipelines, or raise MAX_SKIPS with a reason"
        )
    for failure in failures:
        print("FAIL:", failure)
    print(
        f"doc blocks: {counts['clean']} clean, {counts['expect']} with expected diagnostics, "
        f"{len(skipped)} skipped{': ' if skipped else ''}{'; '.join(skipped)}; "
        f"{names} stdlib names bound"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
