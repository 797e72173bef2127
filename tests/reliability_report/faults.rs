//! Sections 3 and 4: injected faults and concurrent editors.

use crate::records::Records;
use std::fmt::Write as _;

/// Section 3: faults injected through the file-system seam.
pub(crate) fn faults(w: &mut String, r: &Records) {
    // 3. Faults.
    let _ = writeln!(w, "\n## 3. Injected faults (DISK-1, SESSION-3)\n");
    let _ = writeln!(
        w,
        "**Promise.** When the file system fails — full disk, I/O error on write or fsync, \
         permission denied on the directory, a failing rename — or when another program \
         deletes, replaces or modifies the file between editref's checks and its write, the call \
         is refused with a stable code (`io`, `permission_denied`, `stale`), the original bytes \
         are intact and no temp file remains. The same session can then complete the call.\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_faults/`), through `editref::disk::FaultFs` behind a \
         library `Session`, for Edit, MultiEdit, Write (update and create), Edit creating a file \
         and NotebookEdit:\n"
    );
    let _ = writeln!(
        w,
        "- *named faults*: ENOSPC (outright and after half the bytes), EIO on write and on \
         fsync, EACCES creating the temp file, EPERM on fchmod, EIO / EBUSY / EXDEV on the rename \
         — each with its exact code, the whole tree unchanged, then a successful retry;"
    );
    let _ = writeln!(
        w,
        "- *races*: the file deleted, replaced by another file with the same bytes, modified in \
         place, or replaced by a symlink to a file outside the root — just after validation and \
         again at the write-time lock — and a file created at the path being created, just \
         before the rename: always `stale`, the other program's work intact;"
    );
    let _ = writeln!(
        w,
        "- *sweep*: every file-system call each tool makes, failed in turn with EIO, ENOSPC, \
         EACCES, a short write and a simulated crash (that call and every later one fail, so no \
         clean-up runs). Each outcome is either the exact new bytes, or a coded refusal with \
         everything unchanged followed by a successful retry, or — after a simulated crash — old \
         or new bytes with at most an orphan temp file.\n"
    );
    let _ = writeln!(w, "| | runs | faults injected | refused with the right code | absorbed (call still correct) | simulated crashes | orphans after crashes | wrong code | lost | corrupted |");
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|---|");
    let c = |test: &str, key: &str| r.cell("faults", test, key);
    let _ = writeln!(
        w,
        "| named faults | {} | {} | {} | – | – | – | {} | {} | {} |",
        c("named", "calls"),
        c("named", "faults_injected"),
        c("named", "refused_with_code"),
        c("named", "wrong_code"),
        c("named", "lost"),
        c("named", "corrupted"),
    );
    let _ = writeln!(
        w,
        "| races | {} | {} | {} | – | – | – | {} | {} | {} |",
        c("races", "runs"),
        c("races", "races"),
        c("races", "refused_with_code"),
        c("races", "wrong_code"),
        c("races", "lost"),
        c("races", "corrupted"),
    );
    let _ = writeln!(
        w,
        "| sweep | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        c("sweep", "runs"),
        c("sweep", "faults_injected"),
        c("sweep", "refused_with_code"),
        c("sweep", "absorbed"),
        c("sweep", "simulated_crashes"),
        c("sweep", "crash_orphans"),
        c("sweep", "wrong_code"),
        c("sweep", "lost"),
        c("sweep", "corrupted"),
    );
}

/// Section 4: concurrent editors.
pub(crate) fn concurrency(w: &mut String, r: &Records) {
    // 4. Concurrency.
    let _ = writeln!(w, "\n## 4. Concurrent editors (SESSION-4)\n");
    let _ = writeln!(
        w,
        "**Promise.** Concurrent editref processes (and threads) editing one file lose no \
         update: each edit either lands or fails with `stale`, and the final file holds every \
         edit reported as successful, once.\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_concurrency.rs`). Workers edit disjoint lines of one \
         shared file at the same time, each edit retried after `stale` (Read again, Edit again). \
         Afterwards the file must be byte for byte the original with exactly the landed edits \
         applied; an edit reported as failed must not be there, one reported as landed must be \
         there once.\n"
    );
    let _ = writeln!(w, "| set-up | workers × edits | attempts | landed | stale | other errors | lost | duplicated | landed but reported failed | corrupted |");
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|---|");
    for (test, label) in [
        (
            "processes_call_session",
            "`editref call --session` processes, a session file each",
        ),
        (
            "processes_one_shot_edit",
            "one-shot `editref edit` processes",
        ),
        (
            "threads_shared_session",
            "threads sharing one library `Session`",
        ),
        ("threads_own_sessions", "threads with a `Session` each"),
    ] {
        let n = |k: &str| r.cell("concurrency", test, k);
        let _ = writeln!(
            w,
            "| {label} | {} × {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            n("workers"),
            n("edits_per_worker"),
            n("attempts"),
            n("landed"),
            n("stale"),
            n("other_errors"),
            n("lost"),
            n("duplicated"),
            n("landed_but_reported_failed"),
            n("corrupted")
        );
    }
}
