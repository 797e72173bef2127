//! Section 7: the MCP server under load.

use crate::records::Records;
use crate::{mb, ms, thousands};
use serde_json::Value;
use std::fmt::Write as _;

/// Section 7: the MCP server under load.
pub(crate) fn load(w: &mut String, r: &Records) {
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
         as the client sees it, reported and not asserted on. The server's peak RSS (`VmHWM`) \
         is read halfway through the run and at its end, and must not grow with the run's \
         length: by halfway every session has connected and worked on every file, so a server \
         whose memory is bounded has its working set, while one that grows with the calls it \
         serves (a leak, a cache or a history without bound) adds in the second half about \
         what it added in the first. The peak at the end may exceed the halfway peak by a \
         quarter, or 16 MiB if that is more — room for the allocator's fragmentation, not for \
         growth.\n"
    );
    let _ = writeln!(w, "| sessions | time limit (s; 0: none) | operations per session | run time (s) | calls | Reads / Edits / MultiEdits | landed | stale | other errors | lost | applied twice | corrupted | p50 | p99 | max | server peak RSS halfway | at the end (allowed) |");
    let _ = writeln!(
        w,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let f = r.figures("load", "mcp_http");
    let g = |k: &str| f.get(k).and_then(Value::as_u64).unwrap_or(0);
    let c = |k: &str| r.cell("load", "mcp_http", k);
    let per_session = g("operations") / g("sessions").max(1);
    let _ = writeln!(
        w,
        "| {} | {} | {} | {:.0} | {} | {} / {} / {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) |",
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
        mb(g("half_peak_rss_kib") * 1024),
        mb(g("peak_rss_kib") * 1024),
        mb(g("allowed_peak_rss_kib") * 1024),
    );
}
