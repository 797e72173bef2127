"""The command line of `scripts/bench-floor` (its usage is the entry script's docstring)."""
import argparse
import datetime
import json
import os
import subprocess
import sys

from cargo_target import release_bin

from . import ROOT
from .cases import build_cases, build_durable_copy
from .charts import svg, trend_svg
from .inputs import generate
from .record import git, history_record, machine_facts, read_history
from .tables import (HEAD, TARGET_HEAD, markdown, markdown_table, print_table, table,
                     target_rows, update_readme)

def main(doc):
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--runs", type=int)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--editref")
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "bench-floor"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "perf"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--redraw-trend", action="store_true")
    args = ap.parse_args()
    history = os.path.join(args.out, "history.jsonl")
    if args.redraw_trend:
        with open(os.path.join(args.out, "trend.svg"), "w") as f:
            f.write(trend_svg(read_history(history)))
        return 0
    if args.record and args.no_write:
        ap.error("--record writes docs/perf; it cannot go with --no-write")
    runs = args.runs or (3 if args.quick else 11)
    editref = os.path.abspath(args.editref) if args.editref else None
    if not editref:
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "editref"], cwd=ROOT,
                       check=True)
        editref = release_bin(ROOT, "editref")
    durable_copy = build_durable_copy(args.work)
    paths = generate(args.work)
    only = set(args.only.split(",")) if args.only else None
    cases = build_cases(paths, args.work, editref, durable_copy, only)
    load = " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists(
        "/proc/loadavg") else "n/a"
    try:
        for case in cases:
            print(f"{case.name} ...", file=sys.stderr)
            for c in case.cmds:  # warm-up: page cache and binaries
                c.run_once()
                c.runs.clear()
            for _ in range(runs):
                for c in case.cmds:
                    c.run_once()
            for c in case.cmds:
                c.measure_rss()
    finally:
        for case in cases:
            for c in case.cmds:
                c.close()
    print_table(table(cases), HEAD)
    print()
    print_table(target_rows(cases), TARGET_HEAD)
    if not args.no_write:
        commit = git("rev-parse", "HEAD") or "unknown"
        dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", ".",
                         ":!docs/perf", ":!README.md"))
        facts = machine_facts(args.work)
        now = datetime.datetime.now(datetime.timezone.utc)
        meta = {
            "date": now.date().isoformat(),
            "datetime": now.isoformat(timespec="seconds"),
            "commit": commit,
            "commit_short": f"`{commit[:9]}`" + (" (with local changes)" if dirty else ""),
            "dirty": dirty,
            "facts": facts,
            "machine": f"{facts['cpu_model']}, {facts['cores']} cores, {facts['kernel']}, "
                       f"bench directory on {facts['bench_dir_fs']}, {facts['python']}",
            "runs": runs,
            "load": load,
        }
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "bench-floor.md"), "w") as f:
            f.write(markdown(cases, meta))
        if not args.only:
            # The tables between the bench-floor markers: the perf page and the project README.
            block = markdown_table(cases, meta)
            update_readme(os.path.join(args.out, "README.md"), block)
            update_readme(os.path.join(ROOT, "README.md"), block)
        with open(os.path.join(args.out, "bench-floor.svg"), "w") as f:
            f.write(svg(cases))
        print(f"wrote {args.out}/bench-floor.md and bench-floor.svg", file=sys.stderr)
        if args.record:
            with open(history, "a") as f:
                f.write(json.dumps(history_record(cases, meta), ensure_ascii=False) + "\n")
            with open(os.path.join(args.out, "trend.svg"), "w") as f:
                f.write(trend_svg(read_history(history)))
            print(f"appended to {history}; wrote {args.out}/trend.svg", file=sys.stderr)
    return 0 if all(c.verdict() for c in cases) else 1
