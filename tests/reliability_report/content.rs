//! Section 6: hostile content and the memory it takes.

use crate::records::Records;
use crate::{thousands, EXPECTED};
use serde_json::Value;
use std::fmt::Write as _;

/// Section 6: hostile content.
pub(crate) fn content(w: &mut String, r: &Records) {
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
}
