#!/usr/bin/env python3
"""B7 structure corpus: three born-digital PDFs whose structure is known, and its ground truth.

Each document below is a list of blocks (headings with their levels, paragraphs, bulleted,
numbered and lettered list items, code listings, tables with and without rules). From that one
list the generator writes groff `ms` source (`groff -Tpdf -ms -t -P-e`: tbl for the tables,
fonts embedded, the URW Type 1 fonts of Debian's fonts-urw-base35), runs groff, and writes the
ground truth: NAME.truth.json holds every block as the source gave it plus the page (0-based) it
landed on. The page is found in the PDF's own text (`pdftotext`, reading order): the blocks are
looked up in order in the document's word stream, each at or after the one before it.

The paragraphs are sentences drawn with a fixed seed from SENTENCES; everything else is written
out below. Hyphenation is off, so every word of the truth is a word of the text layer.

Documents (US letter, 10 pt body, code in Courier 9 pt; "allbox" = every cell ruled, "box" = a
frame and one rule under the head row):
  guide   Times, with an outline (gropdf's .pdfhref O): headings 14/12/10 pt (the third level
          bold at the body size, as LaTeX's \\subsubsection), shell, config and JSON listings,
          two allbox tables and two without rules, bulleted and numbered lists.
  report  Helvetica, no outline: headings 16/14/12 pt, one box, one allbox and one table without
          rules, log, switch config, SQL and Python listings, lettered items "a)".
  notes   Palatino, no outline: headings 19/16/13 pt, a grammar and a C listing (indented
          displays) and a Python one, one allbox, one box and one table without rules, en-dash
          bullets.

Usage: make_corpus.py OUTDIR   (writes OUTDIR/NAME.ms, NAME.pdf, NAME.truth.json, corpus.jsonl)
"""
import json
import os
import random
import re
import subprocess
import sys
import unicodedata

WORD = re.compile(r"[^\W_]+")

SENTENCES = [
    "The tool reads each input file once and keeps only the fields that the current task needs.",
    "Most users start with the default settings and change them only when a run becomes slow.",
    "A record that cannot be parsed is written to the reject file together with its line number.",
    "The summary at the end of a run lists the number of files, records and errors it has seen.",
    "Large inputs are split into chunks so that memory use stays flat while the run goes on.",
    "Every chunk is checked against the schema before any of its records reach the counters.",
    "When two sources disagree, the newer one wins and the older value is kept in the history.",
    "The history can be printed for a single key, which helps when a number looks wrong.",
    "Times in the logs are given in universal time, with the offset written after the seconds.",
    "A failed step does not stop the others; it is reported at the end with the reason it gave.",
    "Settings given on the command line override the same settings in the configuration file.",
    "The cache directory may be shared by several users as long as they run the same version.",
    "Old entries are removed from the cache when it grows past the size limit set by the user.",
    "Each team reviews its own numbers once a month and files a ticket for anything unexpected.",
    "The figures in this section were taken on the last working day of the quarter.",
    "Hardware was replaced during the maintenance window without taking the service offline.",
    "The monitoring system keeps one sample per minute for a week and one per hour after that.",
    "Alerts go to the person on call first and to the whole team if nobody answers in ten minutes.",
    "Capacity planning uses the average growth of the last four quarters, not the peak week.",
    "A short review meeting follows every incident, and its notes are kept with the ticket.",
    "The parser reads the input from left to right and never looks back more than one token.",
    "Error messages name the line and the column where the problem was found.",
    "A name may contain letters, digits and the underscore, but it may not start with a digit.",
    "Whitespace between tokens is ignored, except inside quoted strings where it is kept.",
    "The grammar below is small enough to read in a few minutes and to test by hand.",
    "Each rule of the grammar maps to one function in the implementation.",
    "Operators of the same level are grouped from the left unless the table says otherwise.",
    "The test suite holds one file per rule, with inputs that should pass and inputs that fail.",
    "Performance was never a goal of the first version, but it has turned out to be adequate.",
    "Some of the questions at the end of these notes are still open and need more thought.",
    "The examples in this guide were run on a small laptop with the default configuration.",
    "Output is written to a temporary file first and renamed once it is complete.",
    "A lock file prevents two runs from writing the same output directory at the same time.",
    "The documentation for every option is also available from the built-in help command.",
    "Counting is exact for small inputs and uses a compact sketch when the input is very large.",
    "Numbers in the report are rounded to one decimal place unless stated otherwise.",
]

# Blocks: ("h", level, text), ("p", sentences), ("ul", marker, [items]), ("ol", style,
# [items]) with style "1." or "a)", ("code", indented, text), ("table", rules, [rows]) with
# rules "allbox", "box" (a frame and a rule under the head row) or "none"; row 0 is the head.
GUIDE = [
    ("h", 1, "Tallyho User Guide"),
    ("p", 4),
    ("h", 2, "1 Introduction"),
    ("p", 5),
    ("p", 4),
    (
        "ul",
        "bu",
        [
            "Counts records in plain text, CSV and JSON lines files.",
            "Groups the counts by any field and sorts the groups by size.",
            "Writes its results as a table on the terminal or as JSON for other programs.",
            "Runs on a laptop as well as on a server with many cores.",
        ],
    ),
    ("h", 2, "2 Getting Started"),
    ("p", 3),
    ("h", 3, "2.1 Installing"),
    ("p", 3),
    (
        "code",
        False,
        "$ sudo apt-get install tallyho\n"
        "$ tallyho --version\n"
        "tallyho 2.4.1 (built 2026-03-02)\n"
        "$ tallyho --help | head -n 3\n"
        "usage: tallyho [options] FILE...",
    ),
    ("p", 3),
    ("h", 3, "2.2 Configuration"),
    ("p", 4),
    (
        "code",
        False,
        "[input]\n"
        'format = "csv"\n'
        'separator = ","\n'
        "header = true\n"
        "\n"
        "[output]\n"
        'format = "table"\n'
        "limit = 20",
    ),
    ("p", 2),
    (
        "table",
        "allbox",
        [
            ["Option", "Default", "Meaning"],
            ["format", "csv", "how the input is read"],
            ["separator", "comma", "the field separator of CSV input"],
            ["header", "true", "whether the first line names the fields"],
            ["limit", "20", "how many groups are printed"],
            ["cache", "off", "where parsed chunks are kept"],
        ],
    ),
    ("p", 3),
    ("h", 3, "Before You Begin"),
    ("p", 2),
    (
        "ol",
        "1.",
        [
            "Check that the input files are readable by your user.",
            "Decide which field the records should be grouped by.",
            "Make a small sample of the input and try the command on it first.",
            "Keep the configuration file next to the data so that runs can be repeated later.",
        ],
    ),
    ("h", 2, "3 Counting Records"),
    ("p", 4),
    (
        "code",
        False,
        "$ tallyho --by country orders.csv\n"
        "country   records\n"
        "DE           4211\n"
        "FR           3120\n"
        "IT           1873\n"
        "(3 groups, 9204 records, 0 errors)",
    ),
    ("p", 3),
    ("h", 3, "3.1 Filters"),
    ("p", 4),
    (
        "table",
        "none",
        [
            ["Filter", "Matches", "Example"],
            ["equals", "the exact value", "country=DE"],
            ["prefix", "values that start with it", "city^Ber"],
            ["range", "numbers between two bounds", "price=10..99"],
            ["missing", "records without the field", "email?"],
        ],
    ),
    ("p", 3),
    (
        "ul",
        "bu",
        [
            "Filters are applied before grouping, so a filtered record is never counted and "
            "never reaches the output of a run.",
            "Several filters on one command line must all match for a record to be kept.",
            "A filter on a field that the input does not have is reported as an error before the "
            "run starts.",
        ],
    ),
    ("h", 3, "3.2 Output Formats"),
    ("p", 3),
    (
        "code",
        False,
        "$ tallyho --by country --json orders.csv\n"
        "{\n"
        '  "groups": [\n'
        '    {"country": "DE", "records": 4211},\n'
        '    {"country": "FR", "records": 3120}\n'
        "  ],\n"
        '  "errors": 0\n'
        "}",
    ),
    ("p", 3),
    ("h", 2, "4 Troubleshooting"),
    ("p", 4),
    (
        "ol",
        "1.",
        [
            "Run the command again with the verbose option to see each file as it is read.",
            "Look at the reject file for records that could not be parsed.",
            "Compare the field names in the header with the names used in the filters.",
            "If the counts still look wrong, send the log and a small sample to the maintainers.",
        ],
    ),
    ("p", 3),
    ("h", 2, "5 Reference"),
    ("p", 3),
    ("h", 3, "5.1 Exit Codes"),
    ("p", 2),
    (
        "table",
        "none",
        [
            ["Code", "Meaning"],
            ["0", "every file was read and counted"],
            ["1", "some records were rejected"],
            ["2", "the command line or the configuration is wrong"],
            ["3", "an input file could not be opened"],
        ],
    ),
    ("p", 3),
    ("h", 3, "5.2 Environment"),
    ("p", 3),
    (
        "table",
        "allbox",
        [
            ["Variable", "Used for"],
            ["TALLYHO_CONFIG", "the configuration file to read"],
            ["TALLYHO_CACHE", "the cache directory"],
            ["TMPDIR", "where temporary output is written"],
        ],
    ),
    ("p", 3),
    (
        "code",
        False,
        "export TALLYHO_CONFIG=$HOME/.config/tallyho.toml\n"
        "export TALLYHO_CACHE=/var/cache/tallyho\n"
        "tallyho --by status --limit 5 access.log",
    ),
    ("p", 4),
    ("h", 2, "Acknowledgements"),
    ("p", 3),
]

REPORT = [
    ("h", 1, "Storage Cluster Report"),
    ("p", 3),
    ("h", 2, "Summary"),
    ("p", 4),
    (
        "ul",
        "bu",
        [
            "Usable capacity grew by 18 percent after the new shelves were added.",
            "Two disks failed and were replaced without data loss.",
            "The archive pool is close to its limit and needs attention next quarter.",
            "Average read latency stayed below four milliseconds.",
        ],
    ),
    ("h", 2, "1 Capacity"),
    ("p", 4),
    (
        "table",
        "box",
        [
            ["Pool", "Size (TB)", "Used (TB)", "Free (%)"],
            ["fast", "120", "84", "30"],
            ["bulk", "640", "402", "37"],
            ["archive", "900", "811", "10"],
            ["scratch", "60", "12", "80"],
            ["backup", "480", "300", "38"],
        ],
    ),
    ("p", 3),
    ("h", 3, "1.1 Growth by Team"),
    ("p", 4),
    (
        "table",
        "none",
        [
            ["Team", "Second quarter", "Third quarter", "Change"],
            ["search", "96 TB", "118 TB", "+23%"],
            ["billing", "40 TB", "44 TB", "+10%"],
            ["media", "310 TB", "355 TB", "+15%"],
            ["research", "150 TB", "171 TB", "+14%"],
        ],
    ),
    ("p", 3),
    ("h", 2, "2 Incidents"),
    ("p", 4),
    (
        "ol",
        "1.",
        [
            "A disk in the bulk pool reported read errors and was taken out of service.",
            "A second disk in the same shelf failed during the rebuild two days later.",
            "A network switch restarted after a firmware update and two nodes lost contact.",
        ],
    ),
    ("h", 3, "2.1 Disk Failures"),
    ("p", 3),
    (
        "code",
        False,
        "2026-08-14 03:12:09 bulk-07 sd 4:0:3:0 read error, sector 88213440\n"
        "2026-08-14 03:12:11 bulk-07 md2 disk sdq marked faulty\n"
        "2026-08-14 03:15:40 bulk-07 md2 rebuild started, 0.0%\n"
        "2026-08-16 11:02:55 bulk-07 sd 4:0:5:0 medium error, sector 1022904\n"
        "2026-08-16 11:03:01 bulk-07 md2 disk sds marked faulty\n"
        "2026-08-17 19:40:12 bulk-07 md2 rebuild finished",
    ),
    ("p", 3),
    ("h", 3, "Lessons Learned"),
    ("p", 2),
    (
        "ul",
        "bu",
        [
            "Spare disks should be kept in every rack and not only in the storage room.",
            "A rebuild should not run at full speed while the pool serves nightly backups.",
            "Firmware updates need a second person to watch the switch while it restarts.",
        ],
    ),
    ("h", 3, "2.2 Network Restart"),
    ("p", 4),
    (
        "table",
        "allbox",
        [
            ["Time", "Event"],
            ["02:00", "firmware update started on switch sw-3"],
            ["02:07", "switch restarted, nodes bulk-03 and bulk-04 lost contact"],
            ["02:09", "cluster marked both nodes as down"],
            ["02:21", "links back, nodes rejoined the cluster"],
        ],
    ),
    ("p", 3),
    (
        "code",
        False,
        "interface ethernet 1/12\n"
        "  description bulk-03\n"
        "  mtu 9000\n"
        "  channel-group 12 mode active\n"
        "  no shutdown",
    ),
    ("p", 3),
    ("h", 2, "3 Queries Used"),
    ("p", 3),
    (
        "code",
        False,
        "SELECT pool,\n"
        "       sum(size_tb) AS size,\n"
        "       sum(used_tb) AS used\n"
        "FROM volumes\n"
        "WHERE sampled_at >= '2026-07-01'\n"
        "  AND sampled_at <  '2026-10-01'\n"
        "GROUP BY pool\n"
        "ORDER BY size DESC;",
    ),
    ("p", 3),
    (
        "code",
        False,
        "def growth(before, after):\n"
        '    """Change in percent, rounded to a whole number."""\n'
        "    if before == 0:\n"
        "        return None\n"
        "    return round(100 * (after - before) / before)\n"
        "\n"
        "print(growth(96, 118))",
    ),
    ("p", 3),
    ("h", 2, "4 Next Steps"),
    ("p", 2),
    (
        "ol",
        "a)",
        [
            "Order two more shelves for the archive pool before the end of October.",
            "Move the scratch pool to the older hardware that the media team has released.",
            "Limit the rebuild speed during the backup window.",
            "Repeat this report for the fourth quarter with the same queries.",
        ],
    ),
    ("p", 4),
]

NOTES = [
    ("h", 1, "Notes on the Expression Parser"),
    ("p", 4),
    ("h", 2, "1 Grammar"),
    ("p", 4),
    (
        "code",
        True,
        "expr    = term , { ( '+' | '-' ) , term } ;\n"
        "term    = factor , { ( '*' | '/' ) , factor } ;\n"
        "factor  = unary , [ '^' , factor ] ;\n"
        "unary   = [ '-' ] , primary ;\n"
        "primary = number | name | call | '(' , expr , ')' ;\n"
        "call    = name , '(' , [ expr , { ',' , expr } ] , ')' ;",
    ),
    ("p", 3),
    ("h", 3, "1.1 Precedence"),
    ("p", 3),
    (
        "table",
        "allbox",
        [
            ["Operator", "Associativity", "Level"],
            ["unary minus", "right", "4"],
            ["power", "right", "3"],
            ["times and divide", "left", "2"],
            ["plus and minus", "left", "1"],
        ],
    ),
    ("p", 4),
    ("h", 2, "2 Tokens"),
    ("p", 4),
    (
        "ul",
        "en",
        [
            "Numbers are decimal, with an optional fraction and exponent.",
            "Names start with a letter or an underscore.",
            "Operators are single characters, so no lookahead is needed.",
            "Comments run from a hash sign to the end of the line.",
        ],
    ),
    ("h", 3, "2.1 Numbers and Names"),
    ("p", 3),
    (
        "code",
        True,
        "static int next_token(struct lexer *lx) {\n"
        "    int c = skip_space(lx);\n"
        "    if (isdigit(c) || c == '.')\n"
        "        return read_number(lx, c);\n"
        "    if (isalpha(c) || c == '_')\n"
        "        return read_name(lx, c);\n"
        "    if (c == EOF)\n"
        "        return TOK_END;\n"
        "    return c;\n"
        "}",
    ),
    ("p", 3),
    (
        "table",
        "none",
        [
            ["Input", "Token", "Value"],
            ["42", "number", "42"],
            ["3.5e2", "number", "350"],
            ["rate_1", "name", "rate_1"],
        ],
    ),
    ("p", 2),
    ("h", 2, "3 Error Recovery"),
    ("p", 4),
    (
        "ol",
        "1.",
        [
            "Report the first error with its line and column and stop reading that statement.",
            "Skip tokens until a semicolon or a closing bracket at the outer level.",
            "Continue with the next statement and count the errors found on the way.",
        ],
    ),
    ("h", 3, "Open Questions"),
    ("p", 2),
    (
        "ul",
        "en",
        [
            "Should the power operator accept a negative exponent without brackets?",
            "Is a separate token for integers worth the extra code?",
            "How should the parser report an error inside a nested call?",
        ],
    ),
    ("h", 2, "4 Evaluation"),
    ("p", 4),
    (
        "code",
        False,
        "import pytest\n"
        "from parser import parse\n"
        "\n"
        '@pytest.mark.parametrize("text, value", [\n'
        '    ("1 + 2 * 3", 7),\n'
        '    ("2 ^ 3 ^ 2", 512),\n'
        '    ("-(4 - 6)", 2),\n'
        "])\n"
        "def test_value(text, value):\n"
        "    assert parse(text).value() == value",
    ),
    ("p", 3),
    ("h", 3, "4.1 Results"),
    ("p", 3),
    (
        "table",
        "box",
        [
            ["Suite", "Cases", "Passed", "Time (s)"],
            ["grammar", "212", "212", "0.8"],
            ["errors", "95", "93", "0.4"],
            ["numbers", "140", "140", "0.3"],
        ],
    ),
    ("p", 3),
    (
        "ol",
        "1.",
        [
            "The two failing cases in the error suite expect a column one to the right.",
            "Both come from a tab in the input, which the lexer counts as one column.",
        ],
    ),
    ("p", 3),
    ("h", 2, "References"),
    ("p", 3),
]

DOCS = [
    {"name": "guide", "family": "T", "grow": 3, "incr": 2, "outline": True, "blocks": GUIDE},
    {"name": "report", "family": "H", "grow": 4, "incr": 2, "outline": False, "blocks": REPORT},
    {"name": "notes", "family": "P", "grow": 4, "incr": 3, "outline": False, "blocks": NOTES},
]


def words(text):
    """As bench/b7_documents/score.py: NFKC, case-folded, runs of letters and digits."""
    return WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def escape(text):
    """Text as a troff input line: backslashes printed, a leading control character kept."""
    text = text.replace("\\", "\\e")
    return "\\&" + text if text[:1] in (".", "'") else text


def escape_code(line):
    """A code line whose glyphs read back as the ASCII written (not hyphens and curly quotes)."""
    out = []
    for c in line:
        out.append(
            {"\\": "\\e", "-": "\\-", "'": "\\(aq", "`": "\\(ga", "~": "\\(ti", "^": "\\(ha"}.get(
                c, c
            )
        )
    return "\\&" + "".join(out)


def paragraph(rng, n):
    return " ".join(rng.sample(SENTENCES, n + 1))


def blocks_of(doc, rng):
    """The document's blocks as truth records, in order (paragraphs drawn here)."""
    out = []
    for b in doc["blocks"]:
        kind = b[0]
        if kind == "h":
            out.append(
                {
                    "type": "heading",
                    "level": b[1],
                    "text": b[2],
                    "numbered": bool(re.match(r"^\d+(\.\d+)* ", b[2])),
                    "size_pt": 10 + max(0, doc["grow"] - b[1]) * doc["incr"],
                }
            )
        elif kind == "p":
            out.append({"type": "paragraph", "text": paragraph(rng, b[1])})
        elif kind in ("ul", "ol"):
            for i, item in enumerate(b[2]):
                if kind == "ul":
                    marker = {"bu": "\u2022", "en": "\u2013"}[b[1]]
                    style = "bullet"
                elif b[1] == "1.":
                    marker, style = f"{i + 1}.", "numbered"
                else:
                    marker, style = f"{chr(ord('a') + i)})", "lettered"
                out.append(
                    {
                        "type": "list_item",
                        "list": style,
                        "marker": marker,
                        "text": item,
                        "first": i == 0,
                    }
                )
        elif kind == "code":
            out.append({"type": "code", "indented": b[1], "text": b[2]})
        elif kind == "table":
            out.append({"type": "table", "rules": b[1], "rows": b[2]})
    return out


def troff(doc, blocks):
    """The ms source of the document."""
    lines = [
        '.\\" generated by bench/b7_documents/structure/make_corpus.py; do not edit',
        ".nr PS 10",
        ".nr VS 12",
        ".nr HY 0",
        f".nr GROWPS {doc['grow']}",
        f".nr PSINCR {doc['incr']}p",
        f".fam {doc['family']}",
    ]
    for b in blocks:
        t = b["type"]
        if t == "heading":
            lines += [f".SH {b['level']}", escape(b["text"])]
            if doc["outline"]:
                lines.append(f".pdfhref O {b['level']} \"{b['text']}\"")
        elif t == "paragraph":
            lines += [".PP", escape(b["text"])]
        elif t == "list_item":
            if b["list"] == "bullet":
                mark = "\\(bu" if b["marker"] == "\u2022" else "\\(en"
                lines += [f".IP {mark} 2", escape(b["text"])]
            else:
                lines += [f".IP {b['marker']} 4", escape(b["text"])]
        elif t == "code":
            lines += [".LP", ".DS I" if b["indented"] else ".DS L", ".ft CR", ".ps 9", ".vs 11"]
            lines += [escape_code(line) for line in b["text"].split("\n")]
            lines += [".vs", ".ps", ".ft", ".DE"]
        elif t == "table":
            rows = b["rows"]
            cols = len(rows[0])
            options = {"allbox": "center allbox", "box": "center box", "none": "center"}[b["rules"]]
            lines += [".LP", ".KS", ".TS", f"{options} tab(|);", " ".join(["cb"] * cols)]
            body = ["l"] * cols
            lines.append(" ".join(body) + ".")
            lines.append("|".join(escape(c) for c in rows[0]))
            if b["rules"] == "box":
                lines.append("_")
            lines += ["|".join(escape(c) for c in row) for row in rows[1:]]
            lines += [".TE", ".KE"]
    return "\n".join(lines) + "\n"


def page_words(pdf):
    """[(word, page)] of the PDF's text layer in reading order."""
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", pdf, "-"], capture_output=True, text=True, check=True
    ).stdout
    stream = []
    for page, chunk in enumerate(text.split("\f")):
        stream += [(w, page) for w in words(chunk)]
    return stream


def block_words(b):
    if b["type"] == "table":
        return [w for row in b["rows"] for cell in row for w in words(cell)]
    return words(b["text"])


def locate(blocks, stream, name):
    """Sets each block's page: where its first words occur in the stream, at or after the
    previous block; a table, whose cells the reading order may take column by column, on the
    first page from there that holds 90% of its words."""
    seq = [w for w, _ in stream]
    pages = max((p for _, p in stream), default=0) + 1
    at = 0
    for b in blocks:
        want = block_words(b)
        k = min(len(want), 8)
        found = None
        if b["type"] != "table":
            for i in range(at, len(seq) - k + 1):
                if seq[i : i + k] == want[:k]:
                    found = i
                    break
        if found is not None:
            b["page"] = stream[found][1]
            at = found + k
            continue
        start = stream[at][1] if at < len(stream) else pages - 1
        for p in range(start, pages):
            bag = {}
            for w, q in stream:
                if q == p:
                    bag[w] = bag.get(w, 0) + 1
            held = 0
            for w in want:
                if bag.get(w, 0) > 0:
                    bag[w] -= 1
                    held += 1
            if held >= 0.9 * len(want):
                found = p
                break
        if found is None:
            raise SystemExit(f"make_corpus: {name}: cannot find {b['type']} {want[:8]} in the PDF")
        b["page"] = found
        at = next((i for i, (_, q) in enumerate(stream) if q == found), at)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: make_corpus.py OUTDIR")
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    manifest = []
    for doc in DOCS:
        rng = random.Random(f"b7-structure-{doc['name']}")
        blocks = blocks_of(doc, rng)
        src = os.path.join(out, doc["name"] + ".ms")
        pdf = os.path.join(out, doc["name"] + ".pdf")
        with open(src, "w") as f:
            f.write(troff(doc, blocks))
        with open(pdf, "wb") as f:
            subprocess.run(["groff", "-Tpdf", "-ms", "-t", "-P-e", src], stdout=f, check=True)
        stream = page_words(pdf)
        locate(blocks, stream, doc["name"])
        info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
        n = int(re.search(r"Pages:\s+(\d+)", info).group(1))
        truth = {
            "name": doc["name"],
            "pdf": os.path.basename(pdf),
            "pages": n,
            "font_family": {"T": "Times", "H": "Helvetica", "P": "Palatino"}[doc["family"]],
            "outline": doc["outline"],
            "heading_sizes_pt": [10 + max(0, doc["grow"] - lv) * doc["incr"] for lv in (1, 2, 3)],
            "blocks": blocks,
        }
        with open(os.path.join(out, doc["name"] + ".truth.json"), "w") as f:
            json.dump(truth, f, indent=1)
            f.write("\n")
        manifest.append(pdf)
        counts = {}
        for b in blocks:
            counts[b["type"]] = counts.get(b["type"], 0) + 1
        print(f"{doc['name']}: {n} pages, " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    with open(os.path.join(out, "corpus.jsonl"), "w") as f:
        for pdf in manifest:
            f.write(json.dumps({"path": pdf}) + "\n")


if __name__ == "__main__":
    main()
