//! Renders RELIABILITY.md from the figures the reliability suites wrote (one JSON line per
//! test in `target/reliability/`, see `reliability_support`).
//!
//! Run by `scripts/reliability` after the suites, as
//! `EDITREF_RELIABILITY_RENDER=RELIABILITY.md cargo test --test reliability_report -- --ignored`.
//! It fails — after writing the document, so that the figures can be seen — when a suite did
//! not report, or when any test lost or corrupted anything.
//!
//! One module per part of the document; `records` reads the figures back, `structure` compares
//! a render with the committed document.

mod closing;
mod content;
mod disk;
mod faults;
mod load;
mod paths;
mod records;
#[path = "../reliability_support/mod.rs"]
mod reliability_support;
mod structure;
mod summary;

use records::Records;
use reliability_support as rs;
use serde_json::Value;
use structure::assert_same_structure;

/// Every test that must have reported, by suite.
const EXPECTED: [(&str, &[&str]); 7] = [
    ("crash", &["sigkill_during_edit", "sigkill_named_temp_file"]),
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

/// Microseconds as milliseconds, to one decimal.
fn ms(us: u64) -> String {
    format!("{:.1} ms", us as f64 / 1000.0)
}

/// The whole document.
fn render(r: &Records, run: &Value) -> String {
    let mut d = String::new();
    let w = &mut d;
    summary::last_run(w, r, run);
    disk::crash(w, r);
    disk::power(w, r);
    faults::faults(w, r);
    faults::concurrency(w, r);
    paths::paths(w, r);
    content::content(w, r);
    load::load(w, r);
    closing::limits(w);
    d
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
