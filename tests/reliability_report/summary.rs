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
}
