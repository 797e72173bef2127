#!/usr/bin/env python3
"""The ledger of tested mutants: which of the core's mutants have been judged, and how.

The whole core is hours of mutants on one machine, more than one sitting gives; the ledger
(docs/mutants-ledger.tsv) keeps what each run judged, so that the next run
(`scripts/mutants --untested`) takes up only the mutants no run has judged yet, and
`scripts/mutants --status` tells how far the core is covered.

A mutant is named in the ledger by its file and cargo-mutants' description, without line and
column, so that an entry survives code moved above it: `src/text/eol.rs: replace ... with true`.
When one file holds several mutants of the same description, the second and later (in source
order) carry ` #2`, ` #3`, ...: adding a second never renames the first.

Usage:
  mutants_ledger.py select LIST LEDGER            the `--re` patterns of LIST's untested mutants
  mutants_ledger.py record LIST OUTDIR LEDGER DATE  add OUTDIR's outcomes to LEDGER
  mutants_ledger.py status LIST LEDGER            per file: mutants, judged, not yet judged
LIST is the output of `cargo mutants --list` for the files at hand (one `FILE:LINE:COL: DESC`
a line), taken from the same source the run mutated.
"""

import re
import sys
from collections import defaultdict

NAME = re.compile(r"^([^:]+):(\d+):(\d+): (.*)$")
OUTCOMES = ("caught", "timeout", "unviable", "missed")
HEADER = (
    "# Mutants judged by scripts/mutants, one a line: outcome, date of the run, FILE: DESCRIPTION.\n"
    "# Written by scripts/mutants_ledger.py after each run; read by `scripts/mutants --untested`.\n"
)


def keys(names):
    """Map each `FILE:LINE:COL: DESC` name to its ledger key, numbering repeated descriptions."""
    parsed = []
    for name in names:
        m = NAME.match(name)
        if m:
            parsed.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), name))
    seen = defaultdict(int)
    out = {}
    for file, line, col, desc, name in sorted(parsed, key=lambda p: (p[0], p[1], p[2], p[3])):
        base = f"{file}: {desc}"
        seen[base] += 1
        n = seen[base]
        out[name] = base if n == 1 else f"{base} #{n}"
    return out


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f if line.strip()]
    except FileNotFoundError:
        return []


def read_ledger(path):
    ledger = {}
    for line in read_lines(path):
        if line.startswith("#"):
            continue
        parts = line.split("\t", 2)
        if len(parts) == 3:
            ledger[parts[2]] = (parts[0], parts[1])
    return ledger


def write_ledger(path, ledger):
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for key in sorted(ledger):
            outcome, date = ledger[key]
            f.write(f"{outcome}\t{date}\t{key}\n")


def escape(text):
    """Escape `text` for a Rust regex: only its metacharacters, which every version accepts."""
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", text)


def select(list_path, ledger_path):
    ledger = read_ledger(ledger_path)
    for name, key in keys(read_lines(list_path)).items():
        if key not in ledger:
            print("^" + escape(name) + "$")


def record(list_path, outdir, ledger_path, date):
    named = keys(read_lines(list_path))
    ledger = read_ledger(ledger_path)
    added = 0
    for outcome in OUTCOMES:
        for name in read_lines(f"{outdir}/{outcome}.txt"):
            key = named.get(name)
            if key is None:
                print(f"mutants_ledger: not in the list, skipped: {name}", file=sys.stderr)
                continue
            ledger[key] = (outcome, date)
            added += 1
    write_ledger(ledger_path, ledger)
    print(f"ledger: {added} outcomes recorded, {len(ledger)} mutants judged in all")


def status(list_path, ledger_path):
    ledger = read_ledger(ledger_path)
    total = defaultdict(int)
    judged = defaultdict(int)
    for name, key in keys(read_lines(list_path)).items():
        file = key.split(": ", 1)[0]
        total[file] += 1
        if key in ledger:
            judged[file] += 1
    print(f"{'file':40} {'mutants':>8} {'judged':>8} {'left':>6}")
    for file in sorted(total, key=lambda f: (judged[f] - total[f], f)):
        print(f"{file:40} {total[file]:8} {judged[file]:8} {total[file] - judged[file]:6}")
    t, j = sum(total.values()), sum(judged.values())
    print(f"{'all':40} {t:8} {j:8} {t - j:6}")


def main(argv):
    if len(argv) == 4 and argv[1] == "select":
        select(argv[2], argv[3])
    elif len(argv) == 6 and argv[1] == "record":
        record(argv[2], argv[3], argv[4], argv[5])
    elif len(argv) == 4 and argv[1] == "status":
        status(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
