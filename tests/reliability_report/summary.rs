//! The "Last run" table: the headline figures of every suite and the description of the run.

use crate::records::Records;
use crate::{ms, per_thousand, thousands};
use serde_json::Value;
use std::fmt::Write as _;

/// The title, the introduction and the "Last run" table.
pub(crate) fn last_run(w: &mut String, r: &Records, run: &Value) {
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
    let named = "sigkill_named_temp_file";
    let _ = writeln!(
        w,
        "| writers on the named temp file killed while it had its name (orphans they left) | {} \
         ({}) |",
        thousands(r.n("crash", named, "kills")),
        thousands(r.n("crash", named, "orphans"))
    );
    let crash_sum = |key: &str| r.n("crash", "sigkill_during_edit", key) + r.n("crash", named, key);
    let _ = writeln!(
        w,
        "| temp files of dead writers before the next edit, and left after it | {}, {} |",
        thousands(crash_sum("orphans_before_next_edit")),
        thousands(
            crash_sum("orphans_left_after_next_edit")
                .saturating_sub(crash_sum("orphans_kept_pid_reused"))
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
    let _ = writeln!(
        w,
        "| largest peak RSS per handled byte, inputs of 1 MiB and more (above the program's \
         baseline) | {:.2} ({:.2}) |",
        r.max_f64("content", "worst_rss_per_input_byte"),
        r.max_f64("content", "worst_rss_above_baseline_per_input_byte")
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
        ("build_s", "build time (s)"),
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
    let file_system = r
        .figures("crash", "sigkill_during_edit")
        .get("file_system")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let _ = writeln!(
        w,
        "| file system of the test directories | `{file_system}` |"
    );
    let _ = writeln!(w, "| counts | {} |", counts(r));
}

/// The counts and sizes the run used, as the tests recorded them (not as the options asked):
/// what the figures above were measured with.
fn counts(r: &Records) -> String {
    let crash = |k: &str| r.n("crash", "sigkill_during_edit", k);
    let load = |k: &str| r.n("load", "mcp_http", k);
    let mib = |suite: &str, test: &str, k: &str| r.n(suite, test, k) as f64 / 1048576.0;
    let workers = |test: &str| {
        format!(
            "{} × {}",
            r.n("concurrency", test, "workers"),
            r.n("concurrency", test, "edits_per_worker")
        )
    };
    format!(
        "{} kills of a {:.0} MiB file and {} on the named temp file; concurrent edits {} \
         (processes) and {} (threads); {} calls raced per resolver; a {:.0} MiB line, a {:.0} MiB \
         old_string and a {:.0} MiB protocol line; MCP load {} sessions × {}; seed {}",
        thousands(crash("kills")),
        mib("crash", "sigkill_during_edit", "file_bytes"),
        thousands(r.n("crash", "sigkill_named_temp_file", "kills")),
        workers("processes_call_session"),
        workers("threads_shared_session"),
        thousands(r.n("paths", "adversary_swap_openat2", "attempts")),
        mib("content", "single_line", "line_bytes"),
        mib("content", "huge_old_string", "old_string_bytes"),
        mib("content", "huge_protocol_line", "line_bytes"),
        load("sessions"),
        if load("seconds") > 0 {
            format!("{} s", load("seconds"))
        } else {
            format!("{} operations", load("ops_per_session"))
        },
        r.by_test
            .values()
            .next()
            .and_then(|v| v["seed"].as_u64())
            .unwrap_or(0)
    )
}
