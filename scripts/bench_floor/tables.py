"""The results as tables: plain text for the terminal, Markdown for docs/perf and the
sections between the bench-floor markers of a README."""
import os

from .stats import fmt_ms

HEAD = ["case", "command", "median ms", "min / p90 / max ms", "× ref", "CPU ms",
        "peak RSS MB", "RSS / file", "note"]


def table(cases):
    rows = []
    for case in cases:
        ref = case.reference
        for c in case.cmds:
            rss = f"{c.rss_kb / 1024:.1f}" if c.rss_kb is not None else "n/a"
            rss_x = (f"{c.rss_kb * 1024 / case.file_bytes:.2f}"
                     if c.rss_kb is not None else "n/a")
            status = "ok" if c.ok() else "exit " + ",".join(map(str, c.exit_codes))
            note = c.note + (f" ({status})" if status != "ok" else "")
            if c is ref:
                note = ("reference; " + note) if note else "reference"
            rows.append([case.name, c.label, fmt_ms(c.wall),
                         " / ".join(fmt_ms(v) for v in c.spread()),
                         f"{c.wall / ref.wall:.2f}×", fmt_ms(c.cpu), rss, rss_x, note.strip()])
    return rows


TARGET_HEAD = ["target (issue 19)", "goal", "measured (median)", "spread ms: min / p90 / max",
               ""]


def target_rows(cases):
    return [[t.row, t.goal_text(), t.measured_text(), t.spread_text(),
             "✅ met" if t.met() else "❌ missed"] for case in cases for t in case.targets]


def print_table(rows, head):
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: "  ".join(str(v).ljust(widths[i]) for i, v in enumerate(r))
    print(line(head))
    print("  ".join("-" * w for w in widths))
    last = None
    for r in rows:
        print(line([r[0] if r[0] != last else ""] + r[1:]))
        last = r[0]


def md_rows(head, rows, bold_first=False):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    last = None
    for r in rows:
        shown = list(r)
        if bold_first:
            shown[0] = f"**{r[0]}**" if r[0] != last else ""
            last = r[0]
        out.append("| " + " | ".join(str(v).replace("|", "\\|") for v in shown) + " |")
    return out


def busy_note(meta):
    """A warning when the machine was busy at the start: more runnable work than cores."""
    try:
        load = float(meta["load"].split()[0])
    except (ValueError, IndexError):
        return ""
    cores = meta["facts"].get("cores") or 1
    if load <= cores:
        return ""
    return (f" **The machine was busy** (load {load:g} on {cores} cores): every time, the "
            "floors' included, is inflated by waiting for a core and the disk, and the ratios "
            "with them; compare with runs taken on a quiet machine with care.")


def markdown_table(cases, meta):
    """The results as Markdown: where and how they were taken, the targets, every command."""
    out = [f"Measured by `scripts/bench-floor` on {meta['date']} at {meta['commit_short']} — "
           f"{meta['machine']}; {meta['runs']} interleaved runs per command; load average at "
           f"start {meta['load']}. Write cases are measured against a **durable copy** of the "
           "same file in the same run (`copy_file_range` into a new file, fsync, rename over, "
           "fsync of the directory: the floor of a durable atomic rewrite); Read against `cat`. "
           "editref runs with fsync on unless marked; `cp` and the Python peer do not fsync. "
           "Times are whole process, median with the spread (min / p90 / max); memory is the "
           "peak RSS of one extra run." + busy_note(meta), ""]
    out += md_rows(TARGET_HEAD, target_rows(cases))
    out += ["", "<details><summary>Every command</summary>", ""]
    out += md_rows(HEAD, table(cases), bold_first=True)
    out += ["", "</details>"]
    return "\n".join(out)


def markdown(cases, meta):
    return "\n".join(["# bench-floor: editref against a durable copy, `cp` and a Python peer",
                      "", markdown_table(cases, meta), "",
                      "![bench-floor chart](bench-floor.svg)", "",
                      "Over time: [trend.svg](trend.svg) (from [history.jsonl](history.jsonl)).",
                      ""])


BEGIN, END = "<!-- bench-floor:begin -->", "<!-- bench-floor:end -->"


def update_readme(path, block):
    """Replaces the text between the bench-floor markers of a README, if it has them."""
    if not os.path.exists(path):
        return
    text = open(path).read()
    if BEGIN not in text or END not in text:
        return
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w") as f:
        f.write(head + BEGIN + "\n" + block + "\n" + END + tail)
