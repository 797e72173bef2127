//! SESSION-3, SESSION-4 and DISK-1 under load, through the MCP server: many MCP sessions on
//! one `editref mcp --http` process on loopback, each doing Read, Edit and MultiEdit on files it
//! shares with other sessions and on a file of its own, for a number of operations or for a
//! number of seconds (bounded either way, then it stops by itself).
//!
//! Every session owns two lines in one of the shared files and two in its own file, each a
//! counter it increments: Edit increments one line, MultiEdit both at once. An edit refused as
//! `stale` (another session changed the shared file since this one read it) is retried after a
//! new Read. Afterwards every file on disk must hold exactly every counter at the number of
//! increments reported as landed — none lost, none twice — and nothing else. The only refusal
//! expected is `stale`, and only on shared files. Each call's round trip is timed (client side)
//! and reported, never asserted on. The server's peak RSS is read from `/proc` halfway through
//! the run and before it is stopped, and must not grow with the run's length
//! ([`MEMORY_GROWTH`]).
//!
//! `cargo test` runs a few sessions and operations; `scripts/reliability` runs 50 sessions, and
//! `scripts/reliability --load-secs N` keeps them going for N seconds.

#[path = "../reliability_support/mod.rs"]
mod reliability_support;

mod http;
mod worker;

use reliability_support as rs;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use worker::{Halfway, Plan, Tally};

/// Files shared between sessions (session `i` owns lines in shared file `i % SHARED`).
pub const SHARED: usize = 5;

/// How much the server's peak RSS may grow from halfway through the run to its end: a quarter
/// of the halfway peak, or [`MEMORY_GROWTH_MIN_KIB`] if that is more.
///
/// Memory bounded means memory that does not grow with the number of calls served. By halfway
/// through, every session has connected and read and edited every file it works on, so a
/// bounded server has reached its working set; one whose memory grows with the calls — a
/// leak, a cache or a per-session history without bound — adds in the second half about what
/// it added in the first. The allowance absorbs what is not growth: the allocator's
/// fragmentation and late first uses (a blocking thread started for the first time). This is a
/// property of the run, not a performance threshold: it compares the server with itself.
const MEMORY_GROWTH: u64 = 4;
/// The least growth allowed (see [`MEMORY_GROWTH`]), in KiB.
const MEMORY_GROWTH_MIN_KIB: u64 = 16 << 10;

/// `editref mcp --http 127.0.0.1:0` on `dir`, and the address it announced.
fn start_server(dir: &Path) -> (Child, SocketAddr) {
    let mut child = Command::new(rs::BIN)
        .args(["mcp", "--http", "127.0.0.1:0", "--root"])
        .arg(dir)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start editref mcp --http");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the server ended before listening")
            .expect("read the server's stderr");
        if let Some(rest) = line.split("listening on http://").nth(1) {
            let addr = rest.trim().trim_end_matches("/mcp");
            break addr.parse().expect("the announced address");
        }
    };
    // Keep draining stderr so that the server never blocks on it.
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}

/// `VmHWM` (peak RSS) and `VmRSS` of a live process, in KiB.
pub fn rss_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Many MCP sessions editing shared and separate files at once: nothing lost, nothing
/// corrupted, no refusal but `stale` on shared files.
#[test]
fn mcp_sessions_under_load_lose_nothing() {
    let sessions = rs::count("LOAD_SESSIONS", 8, 50) as usize;
    let secs = rs::count("LOAD_SECS", 0, 0);
    let ops = rs::count("LOAD_OPS", 6, 10);
    let dir = rs::sandbox();
    let root = std::fs::canonicalize(dir.path()).expect("canonical sandbox");
    worker::lay_out(&root, sessions);
    let (mut server, addr) = start_server(&root);
    let started = Instant::now();
    let deadline = (secs > 0).then(|| started + Duration::from_secs(secs));
    let halfway = Arc::new(Halfway::new(
        server.id(),
        (secs == 0).then_some(ops * sessions as u64),
        started,
        deadline,
    ));
    let plan = Plan {
        ops: if secs > 0 { u64::MAX } else { ops },
        deadline,
        seed: rs::seed(),
        sessions,
        halfway: halfway.clone(),
    };
    let handles: Vec<_> = (0..sessions)
        .map(|id| {
            let plan = plan.clone();
            std::thread::spawn(move || worker::run(id, addr, &plan))
        })
        .collect();
    let mut total = Tally::default();
    for h in handles {
        total.merge(h.join().expect("a session thread panicked"));
    }
    let elapsed = started.elapsed();
    let alive = matches!(server.try_wait(), Ok(None));
    let (peak_kib, rss_end_kib) = rss_kib(server.id());
    let half_peak_kib = halfway.peak_kib();
    let allowed_kib = half_peak_kib
        .map(|h| h + (h / MEMORY_GROWTH).max(MEMORY_GROWTH_MIN_KIB))
        .unwrap_or(0);
    // SIGINT: the server shuts down gracefully.
    // SAFETY: kill on the pid of a child this test started and has not reaped.
    unsafe {
        libc::kill(server.id() as libc::pid_t, libc::SIGINT);
    }
    let _ = server.wait();

    let check = worker::check_files(&root, sessions, &total);
    let residue = rs::residue(&root);
    let mut lat = total.latencies_us.clone();
    lat.sort_unstable();
    let mut rec = rs::Record::new("load", "mcp_http");
    rec.set("sessions", sessions as u64)
        .set("seconds", secs)
        .set("ops_per_session", if secs > 0 { 0 } else { ops })
        .set("elapsed_ms", elapsed.as_millis() as u64)
        .set("operations", total.ops)
        .set("calls", total.calls)
        .set("reads", total.reads)
        .set("edits", total.edits)
        .set("multi_edits", total.multi_edits)
        .set("landed", total.landed)
        .set("stale", total.stale)
        .set("other_errors", total.other_errors.len() as u64)
        .set("lost", check.lost)
        .set("duplicated", check.duplicated)
        .set("corrupted", check.corrupted + residue.len() as u64)
        .set("p50_us", percentile(&lat, 0.50))
        .set("p99_us", percentile(&lat, 0.99))
        .set("max_us", lat.last().copied().unwrap_or(0))
        .set("peak_rss_kib", peak_kib)
        .set("half_peak_rss_kib", half_peak_kib.unwrap_or(0))
        .set("allowed_peak_rss_kib", allowed_kib)
        .set("end_rss_kib", rss_end_kib)
        .set("server_alive", json!(alive));
    rec.write();

    assert!(alive, "the server died under load");
    assert!(
        total.other_errors.is_empty(),
        "{} unexpected errors, e.g. {:?}",
        total.other_errors.len(),
        &total.other_errors[..total.other_errors.len().min(5)]
    );
    assert_eq!(check.lost, 0, "lost updates: {:?}", check.problems);
    assert_eq!(
        check.duplicated, 0,
        "updates applied twice: {:?}",
        check.problems
    );
    assert_eq!(check.corrupted, 0, "corrupted files: {:?}", check.problems);
    assert!(residue.is_empty(), "temp files left: {residue:?}");
    assert!(total.landed > 0, "nothing landed");
    assert!(
        half_peak_kib.is_some(),
        "the run never got halfway (the server's memory was not measured there)"
    );
    assert!(
        peak_kib <= allowed_kib,
        "the server's peak RSS grew from {} KiB halfway through the run to {peak_kib} KiB at its \
         end, above the {allowed_kib} KiB allowed: its memory grows with the calls it serves",
        half_peak_kib.unwrap_or(0)
    );
}
