#!/usr/bin/env python3
"""`ropc lsp` end to end, as an editor drives it (docs/editor.md).

usage: test_lsp.py ROPC REPO_ROOT WORK_DIR

Opens examples/wordcount with an injected error and checks the diagnostic against what
`ropc check --format=json` reports for the same text (id, line, column, end); fixes it and sees
the diagnostics cleared; hovers a stream (Domain and C++ type), a Domain, an operator and a Call
option; asks definition of a stream, a Domain, a UDF and a stdlib operator; asks completion, a
quick fix and formatting (as `ropc fmt`); sends malformed input; shuts down and exits with status 0. A second server runs with --bind and must
report a binding error (E0500) as you type.
"""
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import LspClient  # noqa: E402

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what)


def uri_of(path):
    return "file://" + os.path.abspath(path)


def position_of(text, needle, line_hint, nth_char=0):
    """0-based (line, character) of the first `needle` on the line that contains `line_hint`."""
    for number, line in enumerate(text.split("\n")):
        if line_hint in line:
            return {"line": number, "character": line.index(needle) + nth_char}
    raise AssertionError("no line with " + line_hint)


def main():
    ropc, root, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(
        os.path.join(root, "examples", "wordcount"), work, ignore=shutil.ignore_patterns("in")
    )
    path = os.path.join(work, "wordcount.rop")
    good = open(path, encoding="utf-8").read()
    bad = good.replace("words  = map kept with", "words  = map kpet with")
    assert bad != good
    uri = uri_of(path)
    env = dict(os.environ)

    # What `ropc check` says about the broken text: the server must say the same.
    broken_path = os.path.join(work, "broken.rop")
    open(broken_path, "w", encoding="utf-8").write(bad)
    checked = subprocess.run(
        [ropc, "check", "--no-bind", "--format=json", broken_path],
        capture_output=True,
        text=True,
        env=env,
    )
    expected = json.loads(checked.stdout)
    check(len(expected) == 1 and expected[0]["id"] == "E0100", "ropc check finds one E0100")
    os.remove(broken_path)

    client = LspClient([ropc, "lsp"], cwd=work, env=env)
    init = client.request(
        "initialize", {"processId": os.getpid(), "rootUri": uri_of(work), "capabilities": {}}
    )
    caps = init["result"]["capabilities"]
    check(caps.get("hoverProvider") is True, "hover advertised")
    check(caps.get("definitionProvider") is True, "definition advertised")
    check("completionProvider" in caps, "completion advertised")
    check(caps.get("documentFormattingProvider") is True, "formatting advertised")
    check("codeActionProvider" in caps, "code actions advertised")
    check(caps.get("documentSymbolProvider") is True, "document symbols advertised")
    check(caps["textDocumentSync"]["change"] == 1, "full text sync")
    client.notify("initialized", {})

    # 1. An injected error: the same id, message and range as `ropc check`.
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "rop", "version": 1, "text": bad}},
    )
    diags = client.diagnostics(uri)
    check(len(diags) == 1, "one diagnostic for the injected error, got %r" % diags)
    if diags:
        d, e = diags[0], expected[0]
        check(d["code"] == "E0100", "diagnostic id E0100, got %s" % d["code"])
        check(d["severity"] == 1, "an error")
        check(d["message"] == e["message"], "message as ropc check: %r" % d["message"])
        start, end = d["range"]["start"], d["range"]["end"]
        check(
            (start["line"] + 1, start["character"] + 1) == (e["line"], e["column"]),
            "start %r at ropc check's %d:%d" % (start, e["line"], e["column"]),
        )
        check(
            (end["line"] + 1, end["character"] + 1) == (e["end_line"], e["end_column"]),
            "end %r at ropc check's %d:%d" % (end, e["end_line"], e["end_column"]),
        )
        # And where that is: `kpet` on the `words` line (line 12, column 14, 1-based).
        check(
            (start["line"], start["character"], end["character"]) == (11, 13, 17),
            "E0100 on `kpet` at 12:14-12:18, got %r" % d["range"],
        )

    # 2. Fixed: the diagnostics are cleared.
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": good}]},
    )
    check(client.diagnostics(uri) == [], "diagnostics cleared after the fix")

    # 2b. Columns in UTF-16 code units: after an emoji (two units, one ropc column) in a string,
    # an error on the same line is one LSP character further right than ropc's column.
    wide = good.replace(
        'wordcount.Report(title: "Word count");',
        'wordcount.Report(title: "W\u00f6rd \U0001F600 count") batch 0;',
    )
    assert wide != good
    wide_path = os.path.join(work, "wide.rop")
    open(wide_path, "w", encoding="utf-8").write(wide)
    wide_checked = json.loads(
        subprocess.run(
            [ropc, "check", "--no-bind", "--format=json", wide_path],
            capture_output=True,
            text=True,
            env=env,
        ).stdout
    )
    check([d["id"] for d in wide_checked] == ["E0304"], "ropc check: E0304 for batch 0")
    wide_uri = uri_of(wide_path)
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": wide_uri, "languageId": "rop", "version": 1, "text": wide}},
    )
    diags = client.diagnostics(wide_uri)
    check([d["code"] for d in diags] == ["E0304"], "E0304 for batch 0, got %r" % diags)
    if diags and wide_checked:
        start = diags[0]["range"]["start"]
        check(
            (start["line"] + 1, start["character"])
            == (wide_checked[0]["line"], wide_checked[0]["column"]),
            "UTF-16 character %r = ropc column %d - 1 + 1" % (start, wide_checked[0]["column"]),
        )
    at = position_of(wide, "batch 0", "batch 0", 1)
    at["character"] += 1  # the emoji's second unit
    hover = client.request(
        "textDocument/hover", {"textDocument": {"uri": wide_uri}, "position": at}
    )
    check(
        hover.get("result") and "`batch`" in hover["result"]["contents"]["value"],
        "hover finds `batch` after the emoji: %r" % hover,
    )
    client.notify("textDocument/didClose", {"textDocument": {"uri": wide_uri}})
    check(client.diagnostics(wide_uri) == [], "closing wide.rop clears its diagnostics")

    # 3. Hover: a stream's Domain and C++ type, a Domain, an operator, an option.
    at = position_of(good, "lines", "kept   = filter lines", 2)
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
    text = hover["result"]["contents"]["value"] if hover.get("result") else ""
    check("**stream** `lines`" in text, "hover names the stream: %r" % text)
    check("Domain: `Line`, child of `File`" in text, "hover gives the Domain: %r" % text)
    check("C++ type: `wordcount::Line`" in text, "hover gives the C++ type: %r" % text)
    rng = hover["result"]["range"] if hover.get("result") else {}
    check(rng.get("start") == {"line": 10, "character": 16}, "hover range on `lines`: %r" % rng)

    at = position_of(good, "File", "totals = reduce words to File")
    text = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]["contents"]["value"]
    check("**Domain** `File` (the root)" in text, "hover on a Domain: %r" % text)

    at = position_of(good, "std.text.read", "text   = map files", 5)
    text = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]["contents"]["value"]
    check(
        "read(const File & file)" in text or "read(const File &file)" in text,
        "hover on std.text.read gives its signature: %r" % text,
    )
    check("the file's bytes as UTF-8" in text, "hover on std.text.read gives its doc: %r" % text)

    at = position_of(good, "batch", "batch 16", 1)
    text = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]["contents"]["value"]
    check(
        "**Call option** `batch`: most Grains in one physical batch" in text,
        "hover on the batch option: %r" % text,
    )

    # 4. Definition: a stream, a Domain, a UDF (its header), a stdlib operator (its header).
    at = position_of(good, "lines", "kept   = filter lines", 1)
    loc = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]
    check(
        loc
        and loc["uri"] == uri
        and loc["range"]
        == {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 5}},
        "definition of `lines` is its `lines = expand` on line 10: %r" % loc,
    )

    at = position_of(good, "File", "totals = reduce words to File", 1)
    loc = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]
    check(
        loc
        and loc["range"]
        == {"start": {"line": 6, "character": 15}, "end": {"line": 6, "character": 19}},
        "definition of `File` is `source files : File`: %r" % loc,
    )

    at = position_of(good, "wordcount.split_lines", "lines  = expand", 12)
    loc = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]
    header = os.path.join(work, "udfs", "wordcount.hpp")
    header_lines = open(header, encoding="utf-8").read().split("\n")
    decl_line = next(i for i, l in enumerate(header_lines) if "split_lines(" in l)
    decl_char = header_lines[decl_line].index("split_lines")
    check(
        loc
        and loc["uri"] == uri_of(header)
        and loc["range"]["start"] == {"line": decl_line, "character": decl_char},
        "definition of wordcount.split_lines at %s:%d:%d: %r"
        % (header, decl_line + 1, decl_char + 1, loc),
    )

    at = position_of(good, "std.text.read", "text   = map files", 10)
    loc = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]
    check(
        loc and loc["uri"].endswith("/stdlib/include/rop/stdlib/text.h"),
        "definition of std.text.read in rop/stdlib/text.h: %r" % loc,
    )

    # 5. Completion: stdlib operators, Call options, the file's streams.
    end = good.index("batch 16")
    line = good.count("\n", 0, end)
    items = client.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}},
    )["result"]["items"]
    labels = {item["label"] for item in items}
    for name in [
        "std.text.read",
        "std.io.Files",
        "std.pdf.pages",
        "batch",
        "actors",
        "gpus",
        "timeout",
        "recovery",
        "map",
        "expand",
        "lines",
        "Line",
    ]:
        check(name in labels, "completion offers %s" % name)
    check("wordcount.split_lines" in labels, "completion offers the `use` header's UDFs")

    # 5a. The outline: every stream and Domain the file defines, in source order.
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})[
        "result"
    ]
    names = [(sym["name"], sym["detail"]) for sym in symbols]
    check(
        names[:4]
        == [("files", "stream"), ("File", "Domain"), ("text", "stream"), ("lines", "stream")]
        and ("Line", "Domain") in names
        and len(names) == 9,
        "document symbols: %r" % names,
    )

    # 5b. A quick fix: the fix-it of a misspelt option (E0300), as `ropc check` prints it.
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"text": good.replace("batch 16", "bacth 16")}],
        },
    )
    diags = client.diagnostics(uri)
    check([d["code"] for d in diags] == ["E0300"], "E0300 for `bacth`: %r" % diags)
    if diags:
        reply = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": diags[0]["range"],
                "context": {"diagnostics": diags},
            },
        )
        actions = reply.get("result") or []
        edits = [a["edit"]["changes"][uri] for a in actions if a.get("kind") == "quickfix"]
        check(
            len(edits) == 1
            and edits[0]
            == [
                {
                    "range": {
                        "start": {"line": 11, "character": 45},
                        "end": {"line": 11, "character": 50},
                    },
                    "newText": "batch",
                }
            ],
            "the quick fix replaces 12:46-12:51 with batch: %r" % actions,
        )

    # 5c. Formatting: `ropc fmt`'s layout as one edit; none for a canonical text; an error for
    # a text that does not parse.
    messy = good.replace("words  = map kept with", "words=map   kept with")
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": messy}]},
    )
    client.diagnostics(uri)
    messy_path = os.path.join(work, "messy.rop")
    open(messy_path, "w", encoding="utf-8").write(messy)
    formatted = subprocess.run([ropc, "fmt", messy_path], capture_output=True, text=True).stdout
    check(formatted == good, "ropc fmt restores the example's layout")
    options = {"tabSize": 4, "insertSpaces": True}
    edits = client.request(
        "textDocument/formatting", {"textDocument": {"uri": uri}, "options": options}
    )["result"]
    check(
        len(edits) == 1
        and edits[0]["newText"] == formatted
        and edits[0]["range"]["start"] == {"line": 0, "character": 0},
        "formatting: one edit to `ropc fmt`'s text: %r" % edits,
    )
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 5}, "contentChanges": [{"text": good}]},
    )
    client.diagnostics(uri)
    edits = client.request(
        "textDocument/formatting", {"textDocument": {"uri": uri}, "options": options}
    )["result"]
    check(edits == [], "formatting a canonical text changes nothing: %r" % edits)
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 6},
            "contentChanges": [{"text": good.replace("batch 16;", "batch 16")}],
        },
    )
    client.diagnostics(uri)
    reply = client.request(
        "textDocument/formatting", {"textDocument": {"uri": uri}, "options": options}
    )
    check(reply.get("error", {}).get("code") == -32803, "formatting a syntax error: %r" % reply)
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 7}, "contentChanges": [{"text": good}]},
    )
    check(client.diagnostics(uri) == [], "clean again")

    # 6. Malformed input: JSON-RPC errors, and the server still answers after them.
    client.send_raw(b"{not json")
    reply = client.wait(lambda m: "error" in m)
    check(reply["error"]["code"] == -32700 and reply["id"] is None, "parse error: %r" % reply)
    client.send_raw(b"", header=b"Content-Length: lots\r\n\r\n")
    reply = client.wait(lambda m: "error" in m)
    check(reply["error"]["code"] == -32700, "a frame without Content-Length: %r" % reply)
    reply = client.request("workspace/noSuchMethod", {})
    check(reply["error"]["code"] == -32601, "unknown method: %r" % reply)
    reply = client.request("textDocument/hover", {"textDocument": {"uri": uri}})
    check(reply["error"]["code"] == -32602, "hover without a position: %r" % reply)
    client.send({"jsonrpc": "2.0", "id": 99, "method": 7})
    reply = client.wait(lambda m: m.get("id") == 99)
    check(reply["error"]["code"] == -32600, "a method that is not a string: %r" % reply)
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    check("result" in hover, "the server answers after malformed input")

    # 7. Close, shutdown, exit: status 0.
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    check(client.diagnostics(uri) == [], "closing clears the diagnostics")
    reply = client.request("shutdown", None)
    check("result" in reply and reply["result"] is None, "shutdown answered: %r" % reply)
    reply = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    check(reply.get("error", {}).get("code") == -32600, "requests after shutdown are refused")
    client.notify("exit", None)
    status = client.finish()
    check(status == 0, "exit status 0 after shutdown and exit, got %d" % status)

    # 8. --bind: binding errors as you type (E0500 for an unknown UDF), as `ropc check` says.
    typo = good.replace("wordcount.split_lines", "wordcount.split_linez")
    client = LspClient([ropc, "lsp", "--bind"], cwd=work, env=env)
    client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "rop", "version": 1, "text": typo}},
    )
    diags = client.diagnostics(uri)
    codes = [
        (d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in diags
    ]
    check(("E0500", 9, 34) in codes, "--bind reports E0500 at 10:35: %r" % codes)
    # A UDF no header declares: its definition is the `use` line (line 5).
    at = position_of(typo, "wordcount.split_linez", "lines  = expand", 12)
    loc = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})[
        "result"
    ]
    check(
        loc and loc["uri"] == uri and loc["range"]["start"] == {"line": 4, "character": 0},
        "definition of an undeclared UDF: its `use` line: %r" % loc,
    )
    client.notify("exit", None)
    status = client.finish()
    check(status == 1, "exit without shutdown: status 1, got %d" % status)

    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("lsp: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
