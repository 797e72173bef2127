//! Sections 1 and 2: crash safety under SIGKILL and the power-loss states.

use crate::records::Records;
use crate::{mb, per_thousand, thousands};
use serde_json::Value;
use std::fmt::Write as _;

/// Section 1: SIGKILL during edits, by `editref` and by writers on the named temp file.
pub(crate) fn crash(w: &mut String, r: &Records) {
    let c = r.figures("crash", "sigkill_during_edit");
    let g = |k: &str| c.get(k).and_then(Value::as_u64).unwrap_or(0);
    let measured = |tool: &str| {
        c.get("measured_edit_ms")
            .map_or(0, |m| m[tool].as_u64().unwrap_or(0))
    };
    let n = r.figures("crash", "sigkill_named_temp_file");
    let window = |tool: &str| {
        n.get("named_window_calls")
            .map_or(0, |m| m[tool].as_u64().unwrap_or(0))
    };
    let _ = writeln!(w, "\n## 1. Crash safety (DISK-5, DISK-1)\n");
    let _ = writeln!(
        w,
        "**Promise.** A process killed at any instant leaves the old or the new content at the \
         path — never a mix, never a truncated file. The new content is written into a file \
         without a name (`O_TMPFILE`), which is named only just before the rename, so a kill \
         leaves a temp file `.<name>.editref-<pid>-<hex>.tmp` next to the target only when it \
         falls between those two calls (or on a file system without unnamed files). Such an \
         orphan is never read back, and the next edit in the directory removes it: its \
         writer's PID is gone and nobody holds its lock (D24).\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_crash.rs`). A {} file is edited over and over — by \
         `editref edit`, by `editref call` running MultiEdit (two distant spans, one write) and \
         by `editref call` running Write (the whole content on stdin), fsync on — and each \
         editing process is killed with SIGKILL at an instant drawn from a seeded RNG, uniformly \
         over the duration of that kind of edit as measured first on the machine \
         ({} ms for Edit, {} ms for MultiEdit, {} ms for Write). After every kill the file is \
         compared byte for byte with the old and the new content, every other entry of the \
         directory must be a temp file named after the target and a killed process, and the \
         temp files each kill left are counted. Orphans stay in place for the next edits; every \
         50 kills and at the end an edit runs to completion among them, must give exactly the \
         expected bytes and must leave no temp file of a dead process (one whose PID another \
         process has taken since is kept, as a live writer's would be, and counted).\n",
        mb(g("file_bytes")),
        measured("edit"),
        measured("multi_edit"),
        measured("write"),
    );
    let _ = writeln!(
        w,
        "Where the file system makes unnamed files, as the test directory's does (its type is \
         in the table above), those kills leave hardly an orphan, and the clean-up would go \
         untested. So the run is made a second time by writers on the named temp file: the test \
         binary started again, making the same calls through the library on a seam whose \
         `O_TMPFILE` create fails with EOPNOTSUPP, as on a file system without unnamed files \
         (D10). Each of these writers is killed — by a SIGKILL it sends itself — just before a \
         file-system call drawn at random among those it makes while its temp file has a name \
         ({} for Edit, {} for MultiEdit, {} for Write, the last being the rename), so that \
         every kill leaves a real orphan for the next edit to remove.\n",
        window("edit"),
        window("multi_edit"),
        window("write"),
    );
    let _ = writeln!(w, "| writer | kills | old content | new content | finished before the kill | temp files left by kills | per 1,000 kills | edits completed among orphans | orphans before those edits | left after them (PID reused) | other entries | corrupted |");
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (test, label) in [
        (
            "sigkill_during_edit",
            "`editref`, killed at a random instant",
        ),
        (
            "sigkill_named_temp_file",
            "named temp file (no `O_TMPFILE`), killed while the file has its name",
        ),
    ] {
        let k = |key: &str| r.cell("crash", test, key);
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} |",
            k("kills"),
            k("left_old"),
            k("left_new"),
            k("finished_before_kill"),
            k("orphans"),
            per_thousand(r.n("crash", test, "orphans"), r.n("crash", test, "kills")),
            k("completed_edits_among_orphans"),
            k("orphans_before_next_edit"),
            k("orphans_left_after_next_edit"),
            k("orphans_kept_pid_reused"),
            k("unexpected_entries"),
            k("corrupted")
        );
    }
}

/// Section 2: the power-loss states.
pub(crate) fn power(w: &mut String, r: &Records) {
    let _ = writeln!(
        w,
        "\n## 2. Power loss (DISK-5, DISK-6, BATCH-2, UNDO-1, UNDO-2)\n"
    );
    let _ = writeln!(
        w,
        "**Promise.** A power cut — which, unlike a kill, loses whatever the kernel had not yet \
         written to the disk — leaves every path a call changes with exactly its old or its new \
         bytes and mode (a new file absent or whole, a new directory absent or there), and once \
         the call has returned (fsync on, DISK-6), exactly the new ones. A call that changes \
         several files (`apply_patch`) may be left with some of them old and the others new, \
         each whole, and a file it was deleting may be left under its parked name, holding its \
         old content (BATCH-2). The undo journal never names a change that did not reach the \
         disk, and an Undo after the cut restores exactly or is refused with nothing changed.\n"
    );
    let _ = writeln!(
        w,
        "**Model.** *Data:* bytes written to a file and not yet fsynced may be lost in whole or \
         in part — the file holds its durable content followed by the first k of its pending \
         writes, or the next one only up to a 4 KiB block boundary, or its full new length \
         with the pending bytes read back as zeros; a mode set and not fsynced may be lost; \
         fsync of a file makes its data and mode durable. *Directory entries:* a create, link, \
         rename, unlink, mkdir or rmdir persists only once its parent directory is fsynced; \
         until then the operations of one directory persist in the order they were made (some \
         prefix of them), independently of other directories, and an entry made in a \
         directory whose own entry did not persist is lost with it. A stricter, ext4-like \
         variant keeps all directory operations in one order and makes every one before any \
         fsync durable; its states are a subset, counted in their own column.\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_power/`). Each call runs once on a small tree — once as \
         it runs where the file system makes unnamed temp files (`O_TMPFILE`), once on a seam \
         that refuses them, so that the named fallback is explored too — through \
         `editref::disk::RecordFs`, which records every call that changes the disk — creates, \
         writes with their offsets and bytes, fchmod, fsync, link, rename, unlink, mkdir, rmdir, \
         directory fsync. From that trace and the tree before it, every state the model permits \
         for a cut before, between or after those calls is generated — exhaustively: every cut \
         point, every combination of per-directory prefixes of the directory operations not \
         yet fsynced, every content the data model allows for every file not yet fsynced. Each \
         distinct state is written back to disk and checked: the changed paths as promised, \
         nothing else changed (temp files of the documented shape aside, counted), every unit \
         the call recorded in the undo journal matching the disk, and an Undo run on the state \
         either restoring the tree before the call exactly or refused with nothing changed. The \
         exploration found two broken promises, both fixed: a file created in new directories \
         did not fsync the directories holding them, so a cut after the call had returned could \
         lose the directories and the file (DISK-6); and a journal record could survive a cut \
         while its copy of the old bytes did not, which Undo then restored (UNDO-1) — a record \
         now keeps the copy's hash, and a damaged copy is refused.\n"
    );
    let _ = writeln!(w, "| call | temp file | states | of which ordered | after the call returned | with a temp file | batch part old, part new | Undo restored | Undo refused | broke a promise |");
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|---|");
    let f = r.figures("power", "crash_states");
    for row in f
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let n = |k: &str| thousands(row[k].as_u64().unwrap_or(0));
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row["tool"].as_str().unwrap_or(""),
            match row["temp_file"].as_str() {
                Some("named") => "named (no `O_TMPFILE`)",
                _ => "unnamed",
            },
            n("states"),
            n("ordered"),
            n("after_return"),
            n("with_temp_files"),
            n("mixed"),
            n("undo_restored"),
            n("undo_refused"),
            n("broken")
        );
    }
    let _ = writeln!(
        w,
        "| **all** | | **{}** | | | | | | | **{}** |",
        r.cell("power", "crash_states", "states"),
        r.cell("power", "crash_states", "broken")
    );
}
