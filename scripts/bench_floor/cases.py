"""The cases: commands measured side by side on the same input, each against its reference
(a durable copy of the file, or `cat`), and the targets of the performance budget they check."""
import json
import os
import shutil
import subprocess
import sys

from . import ROOT
from .commands import Cmd, ServeCmd
from .inputs import (MARKS, NEW, OLD, OLD_MISSING, TOKEN, TOKEN_HITS, TOKEN_NEW, mark_new,
                     mark_old, write_bytes)
from .stats import fmt_ms

class Target:
    """One row of the performance budget: the subject command against a reference command of
    the same case (ratio), or an absolute time (or a margin over `true`) for the 1 KB case."""

    def __init__(self, row, subject, reference=None, limit=None, rss=None, abs_ms=None,
                 over_true_ms=None):
        self.row, self.subject_label, self.reference_label = row, subject, reference
        self.limit, self.rss, self.abs_ms, self.over_true_ms = limit, rss, abs_ms, over_true_ms
        self.case = None

    def subject(self):
        return self.case.cmd(self.subject_label)

    def reference(self):
        return self.case.cmd(self.reference_label) if self.reference_label else None

    def ratio(self):
        ref = self.reference()
        return self.subject().wall / ref.wall if ref else None

    def rss_ratio(self):
        s = self.subject()
        return s.rss_kb * 1024 / self.case.file_bytes if s.rss_kb is not None else None

    def met(self):
        s = self.subject()
        ok = s.ok()
        if self.limit is not None:
            ok = ok and self.ratio() <= self.limit
        if self.abs_ms is not None:
            ms = s.wall * 1000
            t = self.case.cmd("true").wall * 1000
            ok = ok and (ms <= self.abs_ms or ms - t <= self.over_true_ms)
        if self.rss is not None and self.rss_ratio() is not None:
            ok = ok and self.rss_ratio() <= self.rss
        return ok

    def goal_text(self):
        parts = []
        if self.limit is not None:
            parts.append(f"≤ {self.limit:g}× {self.reference_label}")
        if self.abs_ms is not None:
            parts.append(f"≤ {self.abs_ms:g} ms, or within {self.over_true_ms:g} ms of `true`")
        if self.rss is not None:
            parts.append(f"RSS ≤ {self.rss:g}× file")
        return ", ".join(parts)

    def measured_text(self):
        s = self.subject()
        lo, p90, hi = s.spread()
        parts = []
        if self.limit is not None:
            parts.append(f"**{self.ratio():.2f}×** ({fmt_ms(s.wall)} ms vs "
                         f"{fmt_ms(self.reference().wall)} ms)")
        if self.abs_ms is not None:
            t = self.case.cmd("true").wall
            parts.append(f"**{fmt_ms(s.wall)} ms**, `true` + {fmt_ms(s.wall - t)} ms")
        if self.rss is not None and self.rss_ratio() is not None:
            parts.append(f"RSS {self.rss_ratio():.2f}×")
        if not s.ok():
            parts.append("exit " + ",".join(map(str, s.exit_codes)))
        return "; ".join(parts)

    def spread_text(self):
        s = self.subject()
        text = "{} / {} / {}".format(*(fmt_ms(v) for v in s.spread()))
        ref = self.reference()
        if ref is not None:
            text += " — ref {} / {} / {}".format(*(fmt_ms(v) for v in ref.spread()))
        return text

    def record(self):
        return {"row": self.row, "case": self.case.name, "subject": self.subject_label,
                "reference": self.reference_label, "goal": self.goal_text(),
                "ratio": self.ratio(), "rss_ratio": self.rss_ratio(),
                "ms": self.subject().wall * 1000, "met": self.met()}


class Case:
    def __init__(self, name, title, cmds, file_bytes, reference, targets=()):
        self.name, self.title, self.cmds, self.file_bytes = name, title, cmds, file_bytes
        self.reference_label = reference
        self.targets = list(targets)
        for t in self.targets:
            t.case = self

    def cmd(self, label):
        return next(c for c in self.cmds if c.label == label)

    @property
    def reference(self):
        return self.cmd(self.reference_label)

    def verdict(self):
        return all(t.met() for t in self.targets)


def build_durable_copy(work):
    """Compiles scripts/durable-copy.rs (standard library only) into the work directory."""
    src = os.path.join(ROOT, "scripts", "durable-copy.rs")
    exe = os.path.join(work, "durable-copy")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        os.makedirs(work, exist_ok=True)
        subprocess.run(["rustc", "--edition", "2021", "-O", src, "-o", exe], check=True)
    return exe


DURABLE = "durable copy"


def build_cases(paths, work, editref, durable_copy, only):
    py = [sys.executable, os.path.join(ROOT, "scripts", "safe_edit.py")]
    scratch = os.path.join(work, "scratch")
    w = lambda name: os.path.join(scratch, name)
    os.makedirs(scratch, exist_ok=True)
    Cmd.cwd = scratch
    os.environ["XDG_STATE_HOME"] = os.path.join(work, "state")
    size = lambda k: os.path.getsize(paths[k])

    def floors(key, dst):
        return [
            Cmd(DURABLE, [durable_copy, paths[key], dst], paths[key], dst),
            Cmd("cp", ["cp", paths[key], dst], paths[key], dst),
        ]

    def edit_case(name, title, key, targets, peer_note="", extra=()):
        dst = w(name + ".txt")
        cmds = floors(key, dst) + [
            Cmd("editref edit", [editref, "edit", dst, "--old-string", OLD, "--new-string", NEW],
                paths[key], dst),
            *[Cmd(label, [editref, "edit", dst, "--old-string", OLD, "--new-string", NEW]
                  + flags, paths[key], dst) for label, flags in extra],
            Cmd("python safe_edit", py + [dst, OLD, NEW], paths[key], dst, note=peer_note),
        ]
        return Case(name, title, cmds, size(key), DURABLE, targets)

    all10 = w("all.txt")
    call_json = w("replace-all-call.json")
    all_input = {"file_path": all10, "old_string": TOKEN, "new_string": TOKEN_NEW,
                 "replace_all": True}
    write_bytes(call_json, json.dumps({"tool": "Edit", "input": all_input}).encode())
    serve_dir = w("serve")
    os.makedirs(serve_dir, exist_ok=True)
    served = os.path.join(serve_dir, "all.txt")
    lf10 = w("nf.txt")
    rd = w("read.txt")
    shutil.copyfile(paths["lf10"], rd)
    total_lines = sum(1 for _ in open(paths["lf10"], "rb"))
    marks = w("marks.txt")
    one = w("one-edit.txt")
    small = w("small.txt")
    cases = [
        edit_case("edit-lf-100M", "one unique Edit, 100 MB UTF-8 LF", "lf100", [
            Target("one unique Edit, 100 MB UTF-8 LF", "editref edit", DURABLE, 1.15, rss=1.1),
            Target("the same, `--no-fsync`", "editref edit --no-fsync", "cp", 1.2),
        ], extra=[("editref edit --no-fsync", ["--no-fsync"])]),
        edit_case("edit-crlf-100M", "one unique Edit, 100 MB CRLF", "crlf100", [
            Target("the same, CRLF", "editref edit", DURABLE, 1.25, rss=1.2),
        ], peer_note="writes the file back with LF endings"),
        edit_case("edit-utf16le-100M", "one unique Edit, 100 MB as UTF-16LE (200 MB)", "u16_100", [
            Target("the same, UTF-16LE", "editref edit", DURABLE, 1.4, rss=1.2),
        ], peer_note="refuses: read_text() fails on UTF-16"),
        Case("replace-all-10M", f"replace_all, {TOKEN_HITS:,} hits in 10 MB", floors("all10", all10) + [
            Cmd("editref edit --replace-all",
                [editref, "edit", all10, "--old-string", TOKEN, "--new-string", TOKEN_NEW,
                 "--replace-all"], paths["all10"], all10),
            Cmd("editref edit --replace-all --no-undo",
                [editref, "edit", all10, "--old-string", TOKEN, "--new-string", TOKEN_NEW,
                 "--replace-all", "--no-undo"], paths["all10"], all10,
                note="without the undo journal's copy of the old content: what it costs"),
            Cmd("editref call (JSON)", [editref, "call"], paths["all10"], all10, stdin=call_json),
            ServeCmd("editref serve (JSON, per call)", [editref, "serve"], paths["all10"], served,
                     "Edit", dict(all_input, file_path=served),
                     note="one call to a running server; its peak RSS is the server's"),
        ], size("all10"), DURABLE, [
            Target(f"replace_all, {TOKEN_HITS:,} hits in 10 MB, CLI", "editref edit --replace-all",
                   DURABLE, 2.5),
            Target("the same through `call` (the JSON path)", "editref call (JSON)", DURABLE, 3.5),
            Target("the same through `serve` (the JSON path)", "editref serve (JSON, per call)",
                   DURABLE, 3.5),
        ]),
        Case("edit-1K", "one unique Edit, 1 KB, whole process", floors("lf1k", small) + [
            Cmd("editref edit", [editref, "edit", small, "--old-string", OLD, "--new-string", NEW],
                paths["lf1k"], small),
            Cmd("editref edit --no-undo", [editref, "edit", small, "--old-string", OLD,
                                           "--new-string", NEW, "--no-undo"], paths["lf1k"],
                small, note="without the undo journal: what it costs"),
            Cmd("python safe_edit", py + [small, OLD, NEW], paths["lf1k"], small),
            Cmd("true", ["true"], note="starting a process that does nothing: the floor of "
                "any whole-process time"),
        ], size("lf1k"), DURABLE, [
            Target("1 KB Edit, whole process", "editref edit", abs_ms=1.5, over_true_ms=0.5),
        ]),
        Case("read-tail-10M", "Read of 10 lines near the end of 10 MB vs reading it once", [
            Cmd("cat", ["cat", rd]),
            Cmd("editref read", [editref, "read", rd, "--offset", str(total_lines - 20),
                                 "--limit", "10"]),
        ], size("lf10"), "cat", [
            Target("Read 10 lines near the end of 10 MB", "editref read", "cat", 1.2),
        ]),
        Case("multiedit-10M", f"MultiEdit of {MARKS:,} edits in 10 MB vs a single Edit",
             floors("marks10", marks) + [
            Cmd("editref edit", [editref, "edit", one, "--old-string", mark_old(MARKS // 2),
                                 "--new-string", mark_new(MARKS // 2)], paths["marks10"], one),
            Cmd(f"editref multi-edit ({MARKS:,})",
                [editref, "multi-edit", marks, "--edits", "@" + paths["edits"]],
                paths["marks10"], marks),
        ], size("marks10"), DURABLE, [
            Target(f"MultiEdit of {MARKS:,} edits in 10 MB", f"editref multi-edit ({MARKS:,})",
                   "editref edit", 2.0),
        ]),
        Case("not-found-10M", "not_found with hint vs the found case, 10 MB", floors("lf10", lf10)
             + [
            Cmd("editref edit (found)", [editref, "edit", lf10, "--old-string", OLD,
                                         "--new-string", NEW], paths["lf10"], lf10),
            Cmd("editref edit (not_found)", [editref, "edit", lf10, "--old-string", OLD_MISSING,
                                             "--new-string", NEW], paths["lf10"], lf10,
                expect=1),
        ], size("lf10"), DURABLE, [
            Target("not_found with its hint, 10 MB (earlier budget)",
                   "editref edit (not_found)", "editref edit (found)", 3.0),
        ]),
    ]
    if only:
        unknown = only - {c.name for c in cases}
        if unknown:
            sys.exit(f"bench-floor: unknown case(s): {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c.name in only]
    return cases
