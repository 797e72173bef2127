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

The page (docs/mutants.md) judges the survivors in its table "Survivors": one row per verdict,
its first cell the exact key of each mutant it judges (` #2` and all), its second cell starting
with the verdict in bold — **killed**, **equivalent** or **gone with its code**. A mutant is
judged by one row only: two rows for one key are a contradiction, whatever they say.

Usage:
  mutants_ledger.py select LIST LEDGER            the `--re` patterns of LIST's untested mutants
  mutants_ledger.py record LIST OUTDIR LEDGER DATE  add OUTDIR's outcomes to LEDGER
  mutants_ledger.py status LIST LEDGER            per file: mutants, judged, not yet judged
  mutants_ledger.py page PAGE LEDGER              exit 1 unless PAGE judges each mutant once,
                                                  agrees with LEDGER and judges its survivors
  mutants_ledger.py check LIST MISSED PAGE        exit 1 unless every mutant named in MISSED
                                                  (cargo-mutants' missed.txt) has exactly the
                                                  verdict "equivalent" on PAGE
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


VERDICTS = ("killed", "equivalent", "gone with its code", "gone with its code, and its case tested")
TABLE_HEAD = "| mutant | verdict |"
NAMES = re.compile(r"^`([^`]+)`(?:, `([^`]+)`)*$")
VERDICT = re.compile(r"^\*\*([^*]+)\*\*")


def cells(row):
    """The cells of a Markdown table row, `\\|` inside a cell read as `|`."""
    inner = row.strip()[1:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def page_verdicts(path):
    """Reads the page's table of survivors: ({key: (verdict, line)}, [problem, ...])."""
    verdicts, problems = {}, []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = next((n for n, line in enumerate(lines, 1) if line.strip() == TABLE_HEAD), None)
    if start is None:
        return verdicts, [f"{path} has no table headed {TABLE_HEAD}"]
    for n, line in enumerate(lines[start:], start + 1):
        if not line.startswith("|"):
            break
        if line.startswith("|---"):
            continue
        parts = cells(line)
        if len(parts) != 2:
            problems.append(f"line {n}: a row of the survivors' table has {len(parts)} cells, not 2")
            continue
        names = re.findall(r"`([^`]+)`", parts[0])
        if not NAMES.match(parts[0]):
            problems.append(f"line {n}: the first cell must name mutants only, each in backticks: {parts[0]}")
            continue
        m = VERDICT.match(parts[1])
        if not m or m.group(1) not in VERDICTS:
            problems.append(f"line {n}: the verdict must start the cell, in bold, one of "
                            f"{', '.join(VERDICTS[:3])}: {parts[1][:60]}")
            continue
        for key in names:
            if key in verdicts:
                first, at = verdicts[key]
                problems.append(f"line {n}: `{key}` is judged twice (line {at}: {first}; "
                                f"line {n}: {m.group(1)}): one verdict per mutant")
            else:
                verdicts[key] = (m.group(1), n)
    return verdicts, problems


def page(page_path, ledger_path):
    """Exit 1 when the page contradicts itself or the ledger: a mutant judged twice, one the
    ledger saw caught called equivalent, or one the ledger saw survive that no row judges."""
    verdicts, problems = page_verdicts(page_path)
    for key, (outcome, _) in sorted(read_ledger(ledger_path).items()):
        verdict = verdicts.get(key, (None, 0))[0]
        if outcome == "caught" and verdict == "equivalent":
            problems.append(f"`{key}` is called equivalent, but the ledger's run caught it")
        if outcome == "missed" and verdict not in ("killed", "equivalent"):
            problems.append(f"`{key}` survived the ledger's run, and no row says it is killed or equivalent")
    for p in problems:
        print(p)
    return 1 if problems else 0


def check(list_path, missed_path, page_path):
    """Exit 1 unless every missed mutant's exact key is judged "equivalent" on the page: a
    mutant the page calls killed, or that only shares a description with an equivalent one,
    has survived a test meant to catch it."""
    named = keys(read_lines(list_path))
    verdicts, problems = page_verdicts(page_path)
    for p in problems:
        print(p)
    unexplained = []
    for name in read_lines(missed_path):
        key = named.get(name, NAME.sub(r"\1: \4", name))
        verdict = verdicts.get(key, (None, 0))[0]
        if verdict != "equivalent":
            unexplained.append(f"{key}" + (f" (the page says {verdict})" if verdict else ""))
    if unexplained:
        print("survivors not explained in docs/mutants.md (kill each with a test or explain it):")
        for u in unexplained:
            print(u)
    return 1 if problems or unexplained else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "select":
        select(argv[2], argv[3])
    elif len(argv) == 6 and argv[1] == "record":
        record(argv[2], argv[3], argv[4], argv[5])
    elif len(argv) == 4 and argv[1] == "status":
        status(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "page":
        return page(argv[2], argv[3])
    elif len(argv) == 5 and argv[1] == "check":
        return check(argv[2], argv[3], argv[4])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
