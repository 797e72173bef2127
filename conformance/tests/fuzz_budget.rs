//! A case budget makes a differential fuzzing run the same on every machine: the same seed and
//! `--cases` generate and judge the same cases and shrink the same findings to the same files,
//! whether the machine is idle or busy and whatever `--jobs` says. A busy machine is stood for
//! by a tool that misses the limit on the first attempt of some cases (deterministically, with
//! no clock): such an observation is made again with patient limits, so it finds nothing the
//! idle run does not. The broken tool drops a CR after an Edit (TEXT-6) and miscounts
//! replacements (EDIT-5), so the runs have findings to compare.

// Shared with the fuzzer's other tests, which use the faults this file does not.
#[allow(dead_code)]
mod broken_tools;

use broken_tools::{DropsCr, Faulty, Miscounts};
use editref_conform::adapter::{Adapter, AdapterError, Builtin, Hello, ReadFormat, Reply};
use editref_conform::fuzz::{campaign, Known, Outcome, Settings};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn fresh() -> Builtin {
    Builtin::new(Duration::from_secs(60)).without_fsync()
}

fn features() -> Vec<String> {
    editref_protocol::FEATURES.map(String::from).to_vec()
}

fn settings(findings: PathBuf) -> Settings {
    Settings {
        seed: 11,
        cases: Some(120),
        time: None,
        shrink_budget: 100,
        findings: Some(findings),
        known: Known::default(),
        read_format: ReadFormat::Tab,
        tmp: None,
    }
}

/// A tool on a busy machine: at normal patience, the first call of every third case it starts
/// is not answered (a timeout, decided by counting, not by a clock); with patience it answers
/// every call. Everything else goes to `inner`.
struct Stalls<A> {
    inner: A,
    started: u64,
    patience: u32,
    stall_next_call: bool,
}

impl<A: Adapter> Adapter for Stalls<A> {
    fn hello(&mut self) -> Result<Hello, AdapterError> {
        self.inner.hello()
    }
    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.started += 1;
        self.stall_next_call = self.patience == 1 && self.started.is_multiple_of(3);
        self.inner.case_start(id, sandbox)
    }
    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        if std::mem::take(&mut self.stall_next_call) {
            return Err(AdapterError::Timeout(
                "no reply: the machine is busy".into(),
            ));
        }
        self.inner.call(seq, tool, input)
    }
    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.inner.case_end()
    }
    fn set_patience(&mut self, factor: u32) {
        self.patience = factor;
    }
}

/// Everything a run found, without its wall time: what must not depend on the machine.
fn found(o: &Outcome) -> String {
    let findings: Vec<String> = o
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} [{}] seed {} hits {} steps {:?} lines {:?} replays {:?}\n{}\n{:?}",
                f.kind, f.class, f.seed, f.hits, f.steps, f.lines, f.replays, f.detail, f.case
            )
        })
        .collect();
    format!(
        "{} cases, {} harness errors, known {:?} ({} cases)\n{}",
        o.cases,
        o.harness_errors,
        o.known,
        o.known_cases,
        findings.join("\n")
    )
}

/// The finding files under `dir` (the run's summary left out: it has the wall time), by
/// relative path, as text.
fn files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.file_name().is_some_and(|n| n != "fuzz-summary.json") {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_same_seed_and_case_budget_find_the_same_on_an_idle_and_a_busy_machine() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("idle"), dir.path().join("busy"));

    let mut reference = fresh();
    let mut tool = Faulty::new(fresh(), (DropsCr, Miscounts));
    let idle = campaign(
        &mut reference,
        &mut tool,
        &features(),
        &settings(a.clone()),
        &mut |_| {},
    );

    let mut reference = fresh();
    let mut tool = Stalls {
        inner: Faulty::new(fresh(), (DropsCr, Miscounts)),
        started: 0,
        patience: 1,
        stall_next_call: false,
    };
    let busy = campaign(
        &mut reference,
        &mut tool,
        &features(),
        &settings(b.clone()),
        &mut |_| {},
    );

    assert!(
        idle.findings.len() >= 2,
        "the broken tool is found: {}",
        found(&idle)
    );
    assert_eq!(idle.patient, 0);
    assert!(busy.patient > 0, "the busy tool missed the limit");
    assert_eq!(found(&idle), found(&busy));
    let (fa, fb) = (files(&a), files(&b));
    assert!(!fa.is_empty());
    assert_eq!(fa, fb, "the same finding files, byte for byte");
}

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

/// `editref conform --fuzz` against the example naive adapter, with `--jobs`.
fn cli_run(findings: &Path, jobs: &str) -> (Option<i32>, Value) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let run = Command::new(BIN)
        .current_dir(root)
        .args([
            "--fuzz",
            "--seed",
            "5",
            "--cases",
            "25",
            "--shrink-budget",
            "30",
        ])
        .args(["--quiet", "--jobs", jobs, "--findings"])
        .arg(findings)
        .args(["--impl", "python3 conformance/adapters/naive.py"])
        .output()
        .unwrap();
    let text = std::fs::read_to_string(findings.join("fuzz-summary.json")).unwrap_or_else(|e| {
        panic!(
            "no fuzz-summary.json ({e}): {}",
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let mut summary: Value = serde_json::from_str(&text).unwrap();
    // What a machine may change: the wall time, and how many observations needed a second,
    // patient attempt (a busy moment); the findings' paths name the run's directory.
    let fields = summary.as_object_mut().unwrap();
    fields.remove("seconds");
    fields.remove("patient");
    let shown = summary
        .to_string()
        .replace(&findings.display().to_string(), "<findings>");
    (run.status.code(), serde_json::from_str(&shown).unwrap())
}

#[test]
fn the_command_line_with_a_case_budget_repeats_itself_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("one"), dir.path().join("three"));
    let (code_a, sum_a) = cli_run(&a, "1");
    let (code_b, sum_b) = cli_run(&b, "3");
    assert_eq!(code_a, Some(1), "the naive tool disagrees: {sum_a}");
    assert_eq!(code_b, code_a);
    assert_eq!(sum_a["cases"], 25);
    assert_eq!(sum_a, sum_b);
    assert_eq!(
        files(&a),
        files(&b),
        "the same finding files, byte for byte"
    );
    // A case budget and a time budget are alternatives.
    let both = Command::new(BIN)
        .args(["--fuzz", "--builtin", "--cases", "5", "--time", "5"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&both.stderr).contains("cannot be used with"),
        "{}",
        String::from_utf8_lossy(&both.stderr)
    );
}
