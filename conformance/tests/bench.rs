//! `editref conform --bench`: every workload runs and is checked before it is timed, a tool
//! that answers wrongly is reported as wrong and never timed, and a baseline comparison fails
//! the run exactly when a median grew past the allowed percentage.

use editref_conform::adapter::{Adapter, AdapterError, Builtin, Hello, ReadFormat, Reply};
use editref_conform::bench::report::BenchReport;
use editref_conform::bench::{run, workloads};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn features() -> Vec<String> {
    editref_protocol::FEATURES.map(String::from).to_vec()
}

#[test]
fn the_reference_runs_every_workload_right() {
    let mut adapter = Builtin::new(Duration::from_secs(60)).without_fsync();
    let set = workloads::all(false);
    let mut ticks = 0;
    let results = run(
        &mut adapter,
        &features(),
        ReadFormat::Tab,
        &set,
        1,
        None,
        &mut |_| ticks += 1,
    );
    assert_eq!(ticks, set.len() * 2, "one warm-up and one timed round");
    for r in &results {
        assert_eq!(r.status, "ok", "{}: {}", r.workload, r.detail);
        assert_eq!(r.samples_ms.len(), 1, "{}", r.workload);
        let (min, med, max) = (r.min_ms.unwrap(), r.median_ms.unwrap(), r.max_ms.unwrap());
        assert!(min <= med && med <= max, "{}", r.workload);
    }
    // Features not declared skip their workloads.
    let mut adapter = Builtin::new(Duration::from_secs(60)).without_fsync();
    let few = vec!["read".to_string(), "edit".to_string()];
    let results = run(
        &mut adapter,
        &few,
        ReadFormat::Tab,
        &set,
        1,
        None,
        &mut |_| {},
    );
    let skipped: Vec<&str> = results
        .iter()
        .filter(|r| r.status == "skipped")
        .map(|r| r.workload.as_str())
        .collect();
    assert_eq!(
        skipped,
        [
            "edit-1m-crlf",
            "edit-1m-utf16le",
            "replace-all-10k",
            "multi-edit-100"
        ]
    );
}

/// A tool whose Edit writes LF where the file had CRLF (after doing the edit right).
struct LosesCr {
    inner: Builtin,
}

impl Adapter for LosesCr {
    fn hello(&mut self) -> Result<Hello, AdapterError> {
        self.inner.hello()
    }
    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.inner.case_start(id, sandbox)
    }
    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        let reply = self.inner.call(seq, tool, input)?;
        if tool == "Edit" {
            let path = input["file_path"].as_str().unwrap_or_default();
            if let Ok(bytes) = std::fs::read(path) {
                let lf: Vec<u8> = bytes.into_iter().filter(|b| *b != b'\r').collect();
                let _ = std::fs::write(path, lf);
            }
        }
        Ok(reply)
    }
    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.inner.case_end()
    }
}

#[test]
fn a_wrong_result_is_reported_and_never_timed() {
    let mut adapter = LosesCr {
        inner: Builtin::new(Duration::from_secs(60)).without_fsync(),
    };
    let set: Vec<_> = workloads::all(false)
        .into_iter()
        .filter(|w| matches!(w.name, "edit-1k" | "edit-1m-crlf"))
        .collect();
    let results = run(
        &mut adapter,
        &features(),
        ReadFormat::Tab,
        &set,
        2,
        None,
        &mut |_| {},
    );
    let by = |n: &str| results.iter().find(|r| r.workload == n).unwrap();
    assert_eq!(by("edit-1k").status, "ok");
    let crlf = by("edit-1m-crlf");
    assert_eq!(crlf.status, "wrong");
    assert!(
        crlf.detail.contains("differs from the expected bytes"),
        "{}",
        crlf.detail
    );
    assert!(crlf.samples_ms.is_empty() && crlf.median_ms.is_none());
}

fn run_cli(args: &[&str]) -> u8 {
    editref_conform::run_cli(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

#[test]
fn a_baseline_fails_the_run_only_past_the_allowed_growth() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("now");
    let o = out.to_str().unwrap();
    let bench = |extra: &[&str]| {
        let mut a = vec!["--bench", "--builtin", "-q", "--repetitions", "1"];
        a.extend(["--only", "edit-1k", "--only", "read-*"]);
        a.extend(extra);
        run_cli(&a)
    };
    assert_eq!(bench(&["--report", o]), 0);
    let report: BenchReport =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    assert_eq!(report.set, workloads::SET);
    assert_eq!(report.results.len(), 3);
    assert!(std::fs::read_to_string(out.join("bench.md"))
        .unwrap()
        .contains("| read-1m-tail |"));
    // A baseline a thousand times faster than anything real: every workload regressed.
    let mut fast = report.clone();
    for r in &mut fast.results {
        r.median_ms = r.median_ms.map(|m| m / 1000.0);
    }
    let fast_path = dir.path().join("fast.json");
    std::fs::write(&fast_path, serde_json::to_string(&fast).unwrap()).unwrap();
    assert_eq!(bench(&["--baseline", fast_path.to_str().unwrap()]), 1);
    // A baseline a thousand times slower: nothing regressed.
    let mut slow = report;
    for r in &mut slow.results {
        r.median_ms = r.median_ms.map(|m| m * 1000.0);
    }
    let slow_path = dir.path().join("slow.json");
    std::fs::write(&slow_path, serde_json::to_string(&slow).unwrap()).unwrap();
    assert_eq!(bench(&["--baseline", slow_path.to_str().unwrap()]), 0);
    // Usage errors, and a selection of nothing.
    assert_eq!(run_cli(&["--bench", "--builtin", "--repetitions", "0"]), 2);
    assert_eq!(
        run_cli(&["--bench", "--builtin", "--baseline", "/nonexistent.json"]),
        2
    );
    assert_eq!(
        run_cli(&["--bench", "--builtin", "-q", "--only", "nothing-*"]),
        editref_conform::EXIT_NO_CASES
    );
}
