#!/usr/bin/env python3
"""The bash completion for ropc (tools/completion/ropc.bash, docs/editor.md) against ropc itself.

usage: test_completion.py ROPC REPO_ROOT

The subcommands `ropc --help` lists and the flags each `ropc SUBCOMMAND --help` lists (in its
usage lines and its option lines) must be exactly the script's, so neither can change without
the other. Then the completion function runs in bash on a few command lines.
"""
import os
import re
import subprocess
import sys

FAILURES = []
FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)")


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what)


def help_of(ropc, *args):
    result = subprocess.run([ropc, *args, "--help"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def listed_flags(text):
    """Flags in the usage paragraph (up to the first blank line) and at the start of the option
    lines (`  -i, --in-place   ...`), where a help text lists what a command takes."""
    usage, _, rest = text.partition("\n\n")
    flags = set(FLAG.findall(usage))
    for line in rest.split("\n"):
        m = re.match(r"^  (-[^\s,]*(?:, -[^\s,]*)*)", line)
        if m:
            flags.update(FLAG.findall(m.group(1)))
    flags.add("--help")  # every subcommand takes it; the usage lines leave it out
    return flags


def script_words(script, name):
    m = re.search(r"^%s=\"([^\"]*)\"" % re.escape(name), script, re.M)
    assert m, "no %s in the script" % name
    return {w.rstrip("=") for w in m.group(1).split()}


def complete(script_path, words, cword):
    """COMPREPLY of _ropc for the command line `words` with the cursor on word `cword`."""
    quoted = " ".join("'%s'" % w for w in words)
    code = (
        'source "%s"; COMP_WORDS=(%s); COMP_CWORD=%d; _ropc; printf "%%s\\n" "${COMPREPLY[@]}"'
        % (script_path, quoted, cword)
    )
    result = subprocess.run(["bash", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return [w for w in result.stdout.split("\n") if w]


def main():
    ropc, root = sys.argv[1], sys.argv[2]
    script_path = os.path.join(root, "tools", "completion", "ropc.bash")
    script = open(script_path, encoding="utf-8").read()

    top = help_of(ropc)
    commands_block = top.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    commands = set(re.findall(r"^  ([a-z]+) ", commands_block, re.M))
    top_flags = set(re.findall(r"^  (--[a-z-]+)", commands_block, re.M)) | {"--help"}
    check(
        commands == script_words(script, "_ropc_commands"),
        "subcommands: ropc --help lists %r, the script %r"
        % (sorted(commands), sorted(script_words(script, "_ropc_commands"))),
    )
    check(
        top_flags == script_words(script, "_ropc_flags_top"),
        "top-level flags: ropc --help lists %r, the script %r"
        % (sorted(top_flags), sorted(script_words(script, "_ropc_flags_top"))),
    )
    check({"check", "build", "fmt", "lsp"} <= commands, "found the subcommands: %r" % commands)

    for command in sorted(commands):
        helped = listed_flags(help_of(ropc, command))
        scripted = script_words(script, "_ropc_flags_" + command)
        check(
            helped == scripted,
            "ropc %s: --help lists %r, the script %r (missing %r, extra %r)"
            % (
                command,
                sorted(helped),
                sorted(scripted),
                sorted(helped - scripted),
                sorted(scripted - helped),
            ),
        )
        # And each of them is one ropc takes: an unknown option says so.
        for flag in sorted(helped - {"--help"}):
            result = subprocess.run(
                [ropc, command, flag],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=60,
            )
            check(
                "unknown option" not in result.stderr,
                "ropc %s takes %s: %s" % (command, flag, result.stderr.strip()),
            )

    # The function itself.
    check(complete(script_path, ["ropc", "ch"], 1) == ["check"], "ropc ch<TAB> -> check")
    check("lsp" in complete(script_path, ["ropc", ""], 1), "ropc <TAB> offers lsp")
    check(
        complete(script_path, ["ropc", "check", "--fo"], 2) == ["--format="],
        "ropc check --fo<TAB> -> --format=",
    )
    check(
        complete(script_path, ["ropc", "check", "--format=s"], 2) == ["--format=sarif"],
        "ropc check --format=s<TAB> -> --format=sarif",
    )
    check(
        complete(script_path, ["ropc", "check", "--format", "=", "j"], 4) == ["json"],
        "ropc check --format=j<TAB> (split at '=') -> json",
    )
    check(
        complete(script_path, ["ropc", "lsp", "--"], 2) == ["--bind", "--help"],
        "ropc lsp --<TAB> -> --bind --help",
    )
    check(
        complete(script_path, ["ropc", "emit", ""], 2) == ["tokens", "ast", "plan"],
        "ropc emit <TAB> -> the stages",
    )
    check(
        complete(script_path, ["ropc", "build", "--emit="], 2) == ["--emit=cpp", "--emit=plan"],
        "ropc build --emit=<TAB> -> build's stages (the generated C++ is build's)",
    )
    check(
        complete(script_path, ["ropc", "cache", ""], 2) == ["info", "prune", "clear"],
        "ropc cache <TAB> -> the actions",
    )
    check(
        complete(script_path, ["ropc", "cache", "prune", "--o"], 3) == ["--older-than"],
        "ropc cache prune --o<TAB> -> --older-than",
    )
    os.chdir(os.path.join(root, "examples", "wordcount"))
    check(
        "wordcount.rop" in complete(script_path, ["ropc", "check", "word"], 2),
        "ropc check word<TAB> -> wordcount.rop",
    )

    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("completion: %d subcommands, their flags equal to --help" % len(commands))
    return 0


if __name__ == "__main__":
    sys.exit(main())
