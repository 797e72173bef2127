//! Renders RELIABILITY.md from the figures the reliability suites wrote (one JSON line per
//! test in `target/reliability/`, see `reliability_support`).
//!
//! Run by `scripts/reliability` after the suites, as
//! `EDITREF_RELIABILITY_RENDER=RELIABILITY.md cargo test --test reliability_report -- --ignored`.
//! It fails — after writing the document, so that the figures can be seen — when a suite did
//! not report, or when any test lost or corrupted anything.

#[path = "reliability_report/records.rs"]
mod records;
mod reliability_support;
#[path = "reliability_report/structure.rs"]
mod structure;
use records::Records;

use reliability_support as rs;
use serde_json::Value;
use std::fmt::Write as _;
use structure::assert_same_structure;

/// Every test that must have reported, by suite.
const EXPECTED: [(&str, &[&str]); 7] = [
    ("crash", &["sigkill_during_edit"]),
    ("power", &["crash_states"]),
    ("faults", &["named", "races", "sweep"]),
    (
        "concurrency",
        &[
            "processes_call_session",
            "processes_one_shot_edit",
            "threads_shared_session",
            "threads_own_sessions",
        ],
    ),
    (
        "paths",
        &[
            "escapes",
            "parent_swapped_before_write",
            "hard_links",
            "special_files",
            "fifo_swapped_in",
            "nul_and_empty",
            "long_paths",
            "non_utf8_names",
            "adversary_swap_openat2",
            "adversary_swap_walk",
        ],
    ),
    (
        "content",
        &[
            "single_line",
            "sparse_2gib",
            "deep_nesting",
            "multi_edit_1001",
            "huge_old_string",
            "huge_protocol_line",
        ],
    ),
    ("load", &["mcp_http"]),
];

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mb(bytes: u64) -> String {
    let v = bytes as f64 / 1048576.0;
    if v >= 10.0 || v.fract() == 0.0 {
        format!("{v:.0} MiB")
    } else {
        format!("{v:.1} MiB")
    }
}

/// `n` per 1,000 of `of`, to one decimal ("–" when `of` is 0).
fn per_thousand(n: u64, of: u64) -> String {
    if of == 0 {
        return "–".to_string();
    }
    format!("{:.1}", n as f64 * 1000.0 / of as f64)
}

fn render(r: &Records, run: &Value) -> String {
    let mut d = String::new();
    let w = &mut d;
    let kills = r.n("crash", "sigkill_during_edit", "kills");
    let faults = r.n("faults", "named", "faults_injected")
        + r.n("faults", "sweep", "faults_injected")
        + r.n("faults", "races", "races");
    let attempts = r.sum("concurrency", "attempts");
    let landed = r.sum("concurrency", "landed");
    let stale = r.sum("concurrency", "stale");
    let hostile = r.sum("paths", "hostile_calls") + r.sum("content", "hostile_inputs");
    let bad = r.lost_or_corrupted();
    let missing = r.missing();

    let _ = writeln!(w, "# Reliability\n");
    let _ = writeln!(
        w,
        "What editref promises about crashes, faults, concurrent editors and hostile input, how \
         each promise is tested, and the figures of the last run. **This file is generated** by \
         `scripts/reliability` from the figures the tests in `tests/reliability_*` record; do \
         not edit it by hand — run the script.\n"
    );
    let _ = writeln!(w, "## Last run\n");
    let _ = writeln!(w, "| | |\n|---|---|");
    let _ = writeln!(
        w,
        "| kills survived (SIGKILL at random instants of an edit) | {} |",
        thousands(kills)
    );
    let _ = writeln!(
        w,
        "| temp files left per 1,000 kills | {} |",
        per_thousand(r.n("crash", "sigkill_during_edit", "orphans"), kills)
    );
    let _ = writeln!(
        w,
        "| temp files of dead writers left after the next edit | {} |",
        thousands(
            r.n(
                "crash",
                "sigkill_during_edit",
                "orphans_left_after_next_edit"
            )
            .saturating_sub(r.n(
                "crash",
                "sigkill_during_edit",
                "orphans_kept_pid_reused"
            ))
        )
    );
    let _ = writeln!(
        w,
        "| power-cut states explored (broke a promise) | {} ({}) |",
        thousands(r.n("power", "crash_states", "states")),
        thousands(r.n("power", "crash_states", "broken"))
    );
    let _ = writeln!(
        w,
        "| faults injected (and races staged) through the file-system seam | {} |",
        thousands(faults)
    );
    let _ = writeln!(
        w,
        "| concurrent edit attempts (landed / stale) | {} ({} / {}) |",
        thousands(attempts),
        thousands(landed),
        thousands(stale)
    );
    let _ = writeln!(
        w,
        "| hostile paths and inputs tried | {} |",
        thousands(hostile)
    );
    let _ = writeln!(
        w,
        "| calls raced by a directory swapped for a symlink to the outside (escapes) | {} ({}) |",
        thousands(r.sum("paths", "attempts")),
        thousands(r.sum("paths", "escapes"))
    );
    let _ = writeln!(
        w,
        "| MCP calls under load (sessions at once; p50 / p99 latency) | {} ({}; {} / {}) |",
        thousands(r.n("load", "mcp_http", "calls")),
        thousands(r.n("load", "mcp_http", "sessions")),
        ms(r.n("load", "mcp_http", "p50_us")),
        ms(r.n("load", "mcp_http", "p99_us"))
    );
    let _ = writeln!(w, "| **lost or corrupted** | **{bad}** |");
    if !missing.is_empty() {
        let _ = writeln!(
            w,
            "| **suites that did not report** | **{}** |",
            missing.join(", ")
        );
    }
    for (k, label) in [
        ("date", "date"),
        ("commit", "commit"),
        ("command", "command"),
        ("machine", "machine"),
        ("profile", "build profile"),
        ("elapsed_s", "run time (s), build excluded"),
    ] {
        if let Some(v) = run.get(k).filter(|v| !v.is_null()) {
            let v = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            let _ = writeln!(w, "| {label} | `{v}` |");
        }
    }
    let _ = writeln!(
        w,
        "| counts | {} (seed {}) |",
        r.levels().join(", "),
        r.by_test
            .values()
            .next()
            .and_then(|v| v["seed"].as_u64())
            .unwrap_or(0)
    );

    // 1. Crash safety.
    let c = r.figures("crash", "sigkill_during_edit");
    let g = |k: &str| c.get(k).and_then(Value::as_u64).unwrap_or(0);
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
        c.get("measured_edit_ms")
            .map_or(0, |m| m["edit"].as_u64().unwrap_or(0)),
        c.get("measured_edit_ms")
            .map_or(0, |m| m["multi_edit"].as_u64().unwrap_or(0)),
        c.get("measured_edit_ms")
            .map_or(0, |m| m["write"].as_u64().unwrap_or(0)),
    );
    let _ = writeln!(w, "| kills | old content | new content | finished before the kill | temp files left by kills | per 1,000 kills | edits completed among orphans | orphans before those edits | left after them (PID reused) | other entries | corrupted |");
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|---|---|---|");
    let k = |key: &str| r.cell("crash", "sigkill_during_edit", key);
    let _ = writeln!(
        w,
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} |",
        k("kills"),
        k("left_old"),
        k("left_new"),
        k("finished_before_kill"),
        k("orphans"),
        per_thousand(g("orphans"), g("kills")),
        k("completed_edits_among_orphans"),
        k("orphans_before_next_edit"),
        k("orphans_left_after_next_edit"),
        k("orphans_kept_pid_reused"),
        k("unexpected_entries"),
        k("corrupted")
    );

    power(w, r);

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

    // 5. Paths.
    let _ = writeln!(
        w,
        "\n## 5. Hostile paths (PATH-1, PATH-2, PATH-3, DISK-2, DISK-3, READ-5)\n"
    );
    let _ = writeln!(
        w,
        "**Promise.** With a root configured, nothing outside it is read or written, whatever \
         the path: `..`, absolute paths, symlinks pointing outside directly, through a chain or \
         through a symlinked parent directory, and a parent directory swapped for a symlink \
         between the checks and the write. Hard-linked files are refused (`hard_link`), FIFOs, \
         sockets and devices are refused without ever blocking (`blocked_path`, \
         `not_regular_file`), NUL bytes and empty paths are `invalid_path`, over-long names and \
         paths are refused with a code, and names that are not UTF-8 work where they can be \
         named.\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_paths/`). Every tool (Read, Edit, Edit creating, \
         MultiEdit, Write, NotebookEdit) is aimed at every hostile path in a sandbox holding a \
         root and an outside directory; after each call the whole sandbox is compared with a \
         snapshot (bytes, modes, inodes, link targets). Special files are driven through \
         `editref call` in a child process under a watchdog, so that a hang fails the test \
         instead of stalling it.\n"
    );
    let _ = writeln!(w, "| test | hostile calls | wrong code | sandbox changed |");
    let _ = writeln!(w, "|---|---|---|---|");
    for (test, label) in [
        (
            "escapes",
            "`..`, absolute, symlink (direct, chain, parent dir), via library and binary",
        ),
        (
            "parent_swapped_before_write",
            "parent directory swapped for a symlink before the write",
        ),
        (
            "hard_links",
            "hard links inside the root and to a file outside",
        ),
        (
            "special_files",
            "FIFOs, sockets, device nodes, /dev and /proc paths",
        ),
        (
            "fifo_swapped_in",
            "a FIFO swapped in before the file is opened",
        ),
        ("nul_and_empty", "NUL bytes, empty paths, lone surrogates"),
        (
            "long_paths",
            "names over 255 bytes, paths over PATH_MAX, and the longest valid ones",
        ),
        ("non_utf8_names", "names that are not UTF-8"),
    ] {
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} |",
            r.cell("paths", test, "hostile_calls"),
            r.cell("paths", test, "wrong_code"),
            r.cell("paths", test, "corrupted")
        );
    }

    let _ = writeln!(
        w,
        "\n**Live adversary** (`tests/reliability_paths/adversary.rs`, D30). While Reads, Edits \
         and Writes run one after another on `d/…` inside the root, a second thread swaps the \
         directory `d` for a symlink to a directory outside the root and back in a tight loop \
         (`RENAME_EXCHANGE` of the real directory and a symlink, relative `../outside` and \
         absolute in turn). The outside directory holds a canary and a file the edits would \
         match, and is watched with inotify: any open, read, change or new entry there counts as \
         an escape, and so does any change of its bytes, mtimes or inodes. Every call must be \
         done inside — a Read returns the inside bytes, the inside file ends holding exactly the \
         Edits reported done, every Write reported done is inside — or refused with a code, \
         leaving no temp file. Run once with `openat2` and once with the `O_NOFOLLOW` walk that \
         replaces it on kernels without it.\n"
    );
    let _ = writeln!(
        w,
        "| resolution | calls | swaps | done inside | refused `outside_root` | refused `stale` | \
         refused, other codes | escapes |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|");
    for (test, label) in [
        ("adversary_swap_openat2", "`openat2` (`RESOLVE_BENEATH`)"),
        ("adversary_swap_walk", "`O_NOFOLLOW` walk"),
    ] {
        let n = |k: &str| r.n("paths", test, k);
        let other = n("refused")
            .saturating_sub(n("refused_outside_root"))
            .saturating_sub(n("refused_stale"));
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} | {} | {} | {} | {} |",
            r.cell("paths", test, "attempts"),
            r.cell("paths", test, "swaps"),
            r.cell("paths", test, "done"),
            thousands(n("refused_outside_root")),
            thousands(n("refused_stale")),
            thousands(other),
            r.cell("paths", test, "escapes")
        );
    }

    // 6. Content.
    let _ = writeln!(w, "\n## 6. Hostile content (PATH-4)\n");
    let _ = writeln!(
        w,
        "**Promise.** No input — file, string, JSON, notebook, protocol line — makes editref \
         panic, hang or use memory beyond a small multiple of what it handles: every call is \
         answered with a coded error or a correct result.\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_content.rs`). Each input runs in its own `editref` \
         process under a watchdog; a signal, a panic or a stack overflow fails the test. Peak \
         memory is the child's own `ru_maxrss`, taken by a small launcher process with `wait4` \
         (a child started straight from the test process would inherit the test's memory in \
         that figure), and must stay within 64 MiB + 12 × (request + file + reply). Successful \
         calls are checked byte for byte on disk.\n"
    );
    let _ = writeln!(w, "| input | handled | peak RSS | time |");
    let _ = writeln!(w, "|---|---|---|---|");
    for test in EXPECTED[5].1 {
        let f = r.figures("content", test);
        if let Some(cases) = f.get("cases").and_then(Value::as_array) {
            for case in cases {
                let handled = case["handled_mb"].as_f64().unwrap_or(0.0);
                let _ = writeln!(
                    w,
                    "| {} | {} | {:.1} MiB | {} ms |",
                    case["input"].as_str().unwrap_or(""),
                    if handled < 0.01 {
                        "< 0.01 MiB".to_string()
                    } else {
                        format!("{handled:.2} MiB")
                    },
                    case["peak_rss_mb"].as_f64().unwrap_or(0.0),
                    thousands(case["elapsed_ms"].as_u64().unwrap_or(0))
                );
            }
        }
    }
    let worst = r
        .by_test
        .iter()
        .filter(|((s, _), _)| s == "content")
        .filter_map(|(_, v)| v["figures"]["worst_rss_per_input_byte"].as_f64())
        .fold(0.0_f64, f64::max);
    let _ = writeln!(
        w,
        "\nLargest peak RSS per handled byte (inputs of 1 MiB and more): {worst:.1}."
    );

    load(w, r);

    let _ = writeln!(w, "\n## Known limits\n");
    let _ = writeln!(
        w,
        "- The last check before a rename (the target is still the file that was read) and the \
         rename itself are two system calls; a program replacing the file in exactly that gap is \
         not detected. A directory of the path swapped for a symlink in that gap no longer leads \
         outside the root: with a root, the rename is made on the directory's handle, opened \
         beneath the root (D30). Without a root, nothing confines the path.\n\
         - A file rewritten in place with its size kept and its mtime restored to the nanosecond \
         between the checks and the write cannot be told from an untouched one without reading \
         it again.\n\
         - A temp file is removed as an orphan only by a later edit in its own directory, only \
         when its writer's PID is no live process and nobody holds its lock, and only where \
         the directory is small enough to list on every write (`st_size` up to 256 KiB, \
         several thousand entries); in a larger directory, or when the PID has been reused, \
         an orphan stays until removed by hand.\n\
         - Power cuts are explored in a model (section 2), not on hardware: the states checked \
         are those the model permits for the calls editref makes through its file-system seam. \
         A disk or file system that does not keep the promises of fsync (a volatile write \
         cache that acknowledges a flush it has not done) is outside the model.\n\
         - A batch of several files (`apply_patch`) is all or none for failures and kills, not \
         for power cuts: no file system makes several renames durable as one, so a cut during \
         its commit can leave some files old and others new, each whole (BATCH-2).\n\
         - EACCES on the directory is injected through the seam: the suite runs as any user, \
         and root ignores directory permissions.\n\
         - Linux only (device nodes, `/proc`, `wait4`)."
    );
    let _ = writeln!(w, "\n## Running it\n");
    let _ = writeln!(
        w,
        "```sh\n\
         scripts/reliability                 # CI counts (500 kills, …), renders this file\n\
         scripts/reliability --kills 5000    # more kills; see --help for every option\n\
         scripts/reliability --load-secs 60  # the MCP load run for 60 s\n\
         cargo test --test 'reliability_*'   # quick smoke counts, no rendering\n\
         ```\n\n\
         A failing run can be replayed exactly with `--seed N` (the seed of the run is shown \
         above)."
    );
    d
}

/// Section 7: the MCP server under load.
fn load(w: &mut String, r: &Records) {
    let _ = writeln!(
        w,
        "\n## 7. Load held: the MCP server (SESSION-3, SESSION-4, DISK-1)\n"
    );
    let _ = writeln!(
        w,
        "**Promise.** `editref mcp` over streamable HTTP serves many MCP sessions at once \
         without losing or corrupting an update: every Edit and MultiEdit either lands or is \
         refused as `stale` (another session changed the file since this one read it), a file \
         only one session edits is never `stale`, and the server's memory stays bounded.\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_load/`). One `editref mcp --http 127.0.0.1:0` process (fsync \
         on, undo journal on), and one MCP session per client thread over a keep-alive HTTP \
         connection. Each session owns two counter lines in one of five shared files and two in \
         a file of its own, and in a seeded mix Reads a shared file, increments one of its \
         lines with Edit or both with MultiEdit — in the shared file or its own — reading again \
         and retrying after `stale`. The run is bounded by a number of operations per session \
         or by a time, and stops by itself. Afterwards every file must hold exactly every \
         counter at the number of increments reported as landed, and nothing else; any refusal \
         other than `stale` on a shared file fails the run. Latency is each call's round trip \
         as the client sees it; peak RSS is the server's `VmHWM`. Both are reported, not \
         asserted on.\n"
    );
    let _ = writeln!(w, "| sessions | time limit (s; 0: none) | operations per session | run time (s) | calls | Reads / Edits / MultiEdits | landed | stale | other errors | lost | applied twice | corrupted | p50 | p99 | max | server peak RSS |");
    let _ = writeln!(
        w,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let f = r.figures("load", "mcp_http");
    let g = |k: &str| f.get(k).and_then(Value::as_u64).unwrap_or(0);
    let c = |k: &str| r.cell("load", "mcp_http", k);
    let per_session = g("operations") / g("sessions").max(1);
    let _ = writeln!(
        w,
        "| {} | {} | {} | {:.0} | {} | {} / {} / {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        c("sessions"),
        c("seconds"),
        thousands(per_session),
        g("elapsed_ms") as f64 / 1000.0,
        c("calls"),
        c("reads"),
        c("edits"),
        c("multi_edits"),
        c("landed"),
        c("stale"),
        c("other_errors"),
        c("lost"),
        c("duplicated"),
        c("corrupted"),
        ms(g("p50_us")),
        ms(g("p99_us")),
        ms(g("max_us")),
        mb(g("peak_rss_kib") * 1024),
    );
}

/// Microseconds as milliseconds, to one decimal.
fn ms(us: u64) -> String {
    format!("{:.1} ms", us as f64 / 1000.0)
}

/// Section 2: the power-loss states.
fn power(w: &mut String, r: &Records) {
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

#[test]
#[ignore = "run by scripts/reliability after the suites"]
fn render_reliability_md() {
    let out = std::env::var_os("EDITREF_RELIABILITY_RENDER")
        .expect("set EDITREF_RELIABILITY_RENDER to the file to write (scripts/reliability does)");
    let records = Records::load();
    let run: Value = std::fs::read_to_string(rs::figures_dir().join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let doc = render(&records, &run);
    std::fs::write(&out, &doc).expect("write RELIABILITY.md");
    let missing = records.missing();
    assert!(
        missing.is_empty(),
        "suites that did not report: {missing:?}"
    );
    assert_eq!(
        records.lost_or_corrupted(),
        0,
        "a test lost or corrupted data"
    );
    let absent = records.absent.borrow();
    assert!(absent.is_empty(), "figures no test recorded: {absent:?}");
    if let Some(committed) = std::env::var_os("EDITREF_RELIABILITY_CHECK") {
        assert_same_structure(&doc, std::path::Path::new(&committed));
    }
}
