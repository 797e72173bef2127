//! Section 6: hostile content and the memory it takes.

use crate::records::Records;
use crate::{thousands, EXPECTED};
use serde_json::Value;
use std::fmt::Write as _;

/// Section 6: hostile content.
pub(crate) fn content(w: &mut String, r: &Records) {
    let _ = writeln!(w, "\n## 6. Hostile content (PATH-4)\n");
    let _ = writeln!(
        w,
        "**Promise.** No input — file, string, JSON, notebook, protocol line — makes editref \
         panic, hang or use memory beyond a small multiple of what it handles: every call is \
         answered with a coded error or a correct result.\n"
    );
    let base = |k: &str| r.n("content", "single_line", k) as f64 / 1024.0;
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_content.rs`). Each input runs in its own `editref` \
         process under a watchdog; a signal, a panic or a stack overflow fails the test. \
         Successful calls are checked byte for byte on disk. Peak memory is the child's own \
         `ru_maxrss`, taken by a small launcher process with `wait4` (a child started straight \
         from the test process would inherit the test's memory in that figure), and is compared \
         with the bytes the call handles: request, file and reply. The table gives the raw \
         ratio. The bound subtracts one thing, measured in the same run rather than assumed: \
         the baseline of the same binary answering a trivial call — {:.1} MiB for a Read of a \
         one-line file through `editref call`, {:.1} MiB for a hello and a bye through \
         `editref serve` (the least of three runs each) — which is what the program costs \
         before it handles any input. Above that baseline, peak RSS must stay within \
         {} × the handled bytes for every input of 1 MiB and more, and within {} MiB for \
         smaller ones, whose peak is the fixed cost of their code path rather than a multiple \
         of anything.\n",
        base("baseline_call_kib"),
        base("baseline_serve_kib"),
        r.cell("content", "single_line", "memory_factor"),
        r.cell("content", "single_line", "small_allowance_mib"),
    );
    let _ = writeln!(
        w,
        "| input | handled | peak RSS | peak / handled | above the baseline / handled | time |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|");
    let ratio = |v: &Value| v.as_f64().map_or("–".to_string(), |x| format!("{x:.2}"));
    for test in EXPECTED[5].1 {
        let f = r.figures("content", test);
        if let Some(cases) = f.get("cases").and_then(Value::as_array) {
            for case in cases {
                let handled = case["handled_mb"].as_f64().unwrap_or(0.0);
                let _ = writeln!(
                    w,
                    "| {} | {} | {:.1} MiB | {} | {} | {} ms |",
                    case["input"].as_str().unwrap_or(""),
                    if handled < 0.01 {
                        "< 0.01 MiB".to_string()
                    } else {
                        format!("{handled:.2} MiB")
                    },
                    case["peak_rss_mb"].as_f64().unwrap_or(0.0),
                    ratio(&case["rss_per_byte"]),
                    ratio(&case["rss_above_baseline_per_byte"]),
                    thousands(case["elapsed_ms"].as_u64().unwrap_or(0))
                );
            }
        }
    }
    let _ = writeln!(
        w,
        "\nLargest peak RSS per handled byte (inputs of 1 MiB and more): {:.2} raw, {:.2} above \
         the baseline (bound {}).",
        r.max_f64("content", "worst_rss_per_input_byte"),
        r.max_f64("content", "worst_rss_above_baseline_per_input_byte"),
        r.cell("content", "single_line", "memory_factor"),
    );
}
