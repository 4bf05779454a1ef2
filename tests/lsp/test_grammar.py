#!/usr/bin/env python3
"""The TextMate grammar and the VS Code extension folder (tools/editor, docs/editor.md).

usage: test_grammar.py REPO_ROOT

The grammar is valid JSON whose regular expressions compile; its keyword list is exactly the
lexer's keywords (the Kw* entries of compiler/frontend/token.h's token table) and its option list
exactly the Call option table (vocab/include/rop/vocab/call_options.h), so a keyword or option
added to the compiler without the grammar fails here. Each keyword pattern matches its words and
no longer identifier. The extension's package.json and language-configuration.json are valid,
name the grammar (the same file) and a comment prefix the lexer accepts, and extension.js starts
`ropc lsp` (checked with node when it is installed).
"""
import json
import os
import re
import shutil
import subprocess
import sys

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what)


def words_of(patterns):
    """The words of every `\\b(a|b|c)\\b` alternation in `patterns`."""
    words = set()
    for pattern in patterns:
        for group in re.findall(r"\\b\(([A-Za-z_|]+)\)\\b", pattern.get("match", "")):
            words.update(group.split("|"))
    return words


def all_regexes(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("match", "begin", "end") and isinstance(value, str):
                yield value
            else:
                yield from all_regexes(value)
    elif isinstance(node, list):
        for value in node:
            yield from all_regexes(value)


def main():
    root = sys.argv[1]
    grammar_path = os.path.join(root, "tools", "editor", "rop.tmLanguage.json")
    with open(grammar_path, encoding="utf-8") as f:
        grammar = json.load(f)  # a JSON error fails the test here
    check(grammar.get("scopeName") == "source.rop", "scopeName source.rop")
    for regex in all_regexes(grammar):
        try:
            re.compile(regex)
        except re.error as e:
            check(False, "regex %r does not compile: %s" % (regex, e))

    # The lexer's keywords: `X(KwMap, "kw_map", "'map'")` in the token table.
    token_h = open(os.path.join(root, "compiler", "frontend", "token.h"), encoding="utf-8").read()
    lexer_keywords = set(re.findall(r"X\(Kw\w+,\s*\"kw_(\w+)\"", token_h))
    check(len(lexer_keywords) >= 10, "found the lexer's keywords: %r" % lexer_keywords)
    grammar_keywords = words_of(grammar["repository"]["keywords"]["patterns"])
    check(
        grammar_keywords == lexer_keywords,
        "grammar keywords == lexer keywords; missing %r, extra %r"
        % (sorted(lexer_keywords - grammar_keywords), sorted(grammar_keywords - lexer_keywords)),
    )
    for pattern in grammar["repository"]["keywords"]["patterns"]:
        regex = re.compile(pattern["match"])
        for word in words_of([pattern]):
            check(regex.search("x = %s y" % word), "%s matches %r" % (pattern["match"], word))
            check(
                not regex.search("%s_x" % word), "%s does not match %s_x" % (pattern["match"], word)
            )

    # The Call options: `{"batch", OptionKind::Int, ...}` in the vocabulary's table.
    vocab = open(
        os.path.join(root, "vocab", "include", "rop", "vocab", "call_options.h"), encoding="utf-8"
    ).read()
    table_options = set(re.findall(r"\{\"(\w+)\",\s*OptionKind::", vocab))
    check(len(table_options) >= 8, "found the Call option table: %r" % table_options)
    grammar_options = words_of(grammar["repository"]["options"]["patterns"])
    check(
        grammar_options == table_options,
        "grammar options == Call option table; missing %r, extra %r"
        % (sorted(table_options - grammar_options), sorted(grammar_options - table_options)),
    )

    # The VS Code extension folder.
    ext = os.path.join(root, "tools", "editor", "vscode")
    package = json.load(open(os.path.join(ext, "package.json"), encoding="utf-8"))
    languages = package["contributes"]["languages"]
    check(
        any(l["id"] == "rop" and ".rop" in l["extensions"] for l in languages),
        "package.json contributes the rop language for .rop files",
    )
    grammars = package["contributes"]["grammars"]
    check(
        len(grammars) == 1 and grammars[0]["scopeName"] == grammar["scopeName"],
        "package.json contributes the grammar's scope",
    )
    linked = os.path.join(ext, grammars[0]["path"])
    check(
        os.path.isfile(linked) and os.path.samefile(linked, grammar_path),
        "package.json's grammar path is tools/editor/rop.tmLanguage.json",
    )
    check(
        "vscode-languageclient" in package.get("dependencies", {}),
        "the extension's one dependency is the language client",
    )
    config_path = os.path.join(ext, languages[0]["configuration"])
    config = json.load(open(config_path, encoding="utf-8"))
    check(
        config["comments"]["lineComment"] in ("#", "//"),
        "a line comment the lexer accepts (# or //)",
    )
    check(["(", ")"] in config["brackets"] and ["[", "]"] in config["brackets"], "brackets")
    extension = open(os.path.join(ext, package["main"]), encoding="utf-8").read()
    check("'lsp'" in extension and "LanguageClient" in extension, "extension.js runs `ropc lsp`")
    if shutil.which("node"):
        result = subprocess.run(
            ["node", "--check", os.path.join(ext, package["main"])], capture_output=True, text=True
        )
        check(result.returncode == 0, "extension.js parses: %s" % result.stderr)

    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print(
        "grammar: %d keywords, %d options, extension ok" % (len(lexer_keywords), len(table_options))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
