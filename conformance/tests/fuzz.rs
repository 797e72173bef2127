//! Checks of the checker: the differential fuzzer finds a deliberately broken tool within a
//! bounded number of cases from a fixed seed and shrinks the case to a few lines, never
//! reports the reference against itself, and generates cases that reach the behaviour the
//! spec is about (successful edits, each refusal, each repair).

use editref_conform::adapter::{Adapter, AdapterError, Builtin, Hello, ReadFormat, Reply};
use editref_conform::fuzz::observe::{observe, Answer};
use editref_conform::fuzz::parts::Allowed;
use editref_conform::fuzz::{campaign, campaign::as_case, from_seed, Known, Settings};
use editref_conform::run::{run_case, Status};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn settings(seed: u64, cases: u64, findings: Option<PathBuf>) -> Settings {
    Settings {
        seed,
        cases: Some(cases),
        time: None,
        shrink_budget: 400,
        findings,
        known: Known::default(),
        read_format: ReadFormat::Tab,
        tmp: None,
    }
}

fn fresh() -> Builtin {
    Builtin::new(Duration::from_secs(20)).without_fsync()
}

fn features() -> Vec<String> {
    editref_protocol::FEATURES.map(String::from).to_vec()
}

/// A tool with one bug: after an Edit succeeds, the line break at the end of the line where
/// the new text ends loses its CR (only that line; UTF-8 files only).
struct DropsCr {
    inner: Builtin,
}

impl Adapter for DropsCr {
    fn hello(&mut self) -> Result<Hello, AdapterError> {
        self.inner.hello()
    }
    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.inner.case_start(id, sandbox)
    }
    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        let reply = self.inner.call(seq, tool, input)?;
        if tool == "Edit" && matches!(reply, Reply::Ok(_)) {
            let path = input["file_path"].as_str().unwrap_or_default();
            let new = input["new_string"].as_str().unwrap_or_default();
            let new = new.replace("\r\n", "\n");
            if let Ok(mut bytes) = std::fs::read(path) {
                let hit = (!new.is_empty())
                    .then(|| memchr::memmem::find(&bytes, new.as_bytes()))
                    .flatten();
                if let Some(at) = hit {
                    let end = at + new.len();
                    if let Some(nl) = memchr::memchr(b'\n', &bytes[end..]) {
                        let nl = end + nl;
                        if nl > 0 && bytes[nl - 1] == b'\r' {
                            bytes.remove(nl - 1);
                            let _ = std::fs::write(path, &bytes);
                        }
                    }
                }
            }
        }
        Ok(reply)
    }
    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.inner.case_end()
    }
}

#[test]
fn a_tool_that_drops_one_cr_is_found_shrunk_and_written_as_a_replayable_case() {
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut broken = DropsCr { inner: fresh() };
    let s = settings(0, 300, Some(dir.path().to_path_buf()));
    let out = campaign(&mut reference, &mut broken, &features(), &s, &mut |_| {});
    assert_eq!(out.harness_errors, 0);
    let found: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    let f = out
        .findings
        .iter()
        .find(|f| f.kind.starts_with("bytes: line endings"))
        .unwrap_or_else(|| panic!("not found in 300 cases; found {found:?}"));
    assert!(
        out.findings.iter().all(|f| f.kind.starts_with("bytes:")),
        "only byte differences can come from this bug: {found:?}"
    );
    assert!(
        f.steps.1 <= 2,
        "shrunk to {} steps: {:?}",
        f.steps.1,
        f.case
    );
    assert!(
        f.lines.1 <= 3,
        "shrunk to {} lines: {:?}",
        f.lines.1,
        f.case
    );
    assert_eq!(f.replays, Some(true), "{f:?}");
    // The written case is an ordinary corpus case: it loads from the findings directory, the
    // reference passes it and the broken tool fails it.
    let corpus = editref_conform::load::load_dir(dir.path()).unwrap();
    assert!(corpus.broken.is_empty(), "{:?}", corpus.broken);
    let file = f.file.as_ref().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains("spec: [TEXT-4, TEXT-6"), "{text}");
    assert!(text.contains("expect_files:"), "{text}");
    let case = corpus
        .cases
        .iter()
        .find(|c| file.ends_with(format!("{}.yaml", c.id)))
        .unwrap();
    let feats = features();
    assert_eq!(
        run_case(&mut reference, &feats, case, None, false).status,
        Status::Pass
    );
    assert_eq!(
        run_case(&mut broken, &feats, case, None, false).status,
        Status::Fail
    );
}

#[test]
fn the_reference_never_disagrees_with_itself() {
    let mut a = fresh();
    let mut b = fresh();
    let out = campaign(
        &mut a,
        &mut b,
        &features(),
        &settings(7, 1500, None),
        &mut |_| {},
    );
    assert_eq!(out.cases, 1500);
    assert_eq!(out.harness_errors, 0);
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    assert!(kinds.is_empty(), "{kinds:?}");
}

#[test]
fn known_divergences_are_counted_not_reported() {
    let mut reference = fresh();
    let mut broken = DropsCr { inner: fresh() };
    let mut s = settings(0, 300, None);
    s.known = Known::parse("# this tool writes LF on the edited line\nbytes: line endings*\n");
    let out = campaign(&mut reference, &mut broken, &features(), &s, &mut |_| {});
    assert!(
        out.findings
            .iter()
            .all(|f| !f.kind.starts_with("bytes: line endings")),
        "{:?}",
        out.findings.iter().map(|f| &f.kind).collect::<Vec<_>>()
    );
    assert!(out
        .known
        .iter()
        .any(|(k, p, n)| k.starts_with("bytes: line endings")
            && p == "bytes: line endings*"
            && *n >= 1));
}

/// Generated cases are meaningful: run on the reference, most edits succeed, and every
/// refusal and repair the spec describes for edits comes up.
#[test]
fn generated_cases_reach_successes_every_refusal_and_every_repair() {
    let allowed = Allowed::new(&features());
    let mut reference = fresh();
    let mut codes: BTreeMap<String, usize> = BTreeMap::new();
    let mut repairs: BTreeMap<String, usize> = BTreeMap::new();
    let (mut edits, mut ok) = (0, 0);
    for seed in 0..400 {
        let gen = from_seed(seed, &allowed);
        let case = as_case(&gen, &format!("fuzz/s{seed}")).unwrap();
        let obs = observe(&mut reference, &case, None);
        let tools: Vec<&str> = case
            .steps
            .iter()
            .filter_map(|s| match s {
                editref_conform::case::Step::Call { tool, .. } => Some(tool.as_str()),
                _ => None,
            })
            .collect();
        let inputs: Vec<&Value> = case
            .steps
            .iter()
            .filter_map(|s| match s {
                editref_conform::case::Step::Call { input, .. } => Some(input),
                _ => None,
            })
            .collect();
        for ((tool, a), input) in tools.iter().zip(&obs.answers).zip(inputs) {
            if !matches!(*tool, "Edit" | "MultiEdit") {
                continue;
            }
            edits += 1;
            match a {
                Answer::Ok(out) => {
                    ok += 1;
                    for r in editref_conform::fuzz::compare::repairs(out, input) {
                        *repairs.entry(r).or_default() += 1;
                    }
                }
                Answer::Err { code } => *codes.entry(code.clone()).or_default() += 1,
                other => panic!("seed {seed}: {other:?}"),
            }
        }
    }
    eprintln!("{ok} of {edits} edits succeed; refusals {codes:?}; repairs {repairs:?}");
    assert!(edits > 600, "{edits}");
    assert!(
        ok * 100 / edits >= 40,
        "{ok} of {edits} edits succeed; refusals {codes:?}"
    );
    for code in ["ambiguous", "not_found", "no_change", "stale", "not_read"] {
        assert!(
            codes.get(code).copied().unwrap_or(0) > 0,
            "{code}: {codes:?}"
        );
    }
    for repair in ["line_prefix", "desanitize", "quotes"] {
        assert!(
            repairs.get(repair).copied().unwrap_or(0) > 0,
            "{repair}: {repairs:?}"
        );
    }
}

/// A tool without READ-4: a Read of an unchanged file shows it again.
struct AlwaysShows {
    inner: Builtin,
}

impl Adapter for AlwaysShows {
    fn hello(&mut self) -> Result<Hello, AdapterError> {
        self.inner.hello()
    }
    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.inner.case_start(id, sandbox)
    }
    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        let reply = self.inner.call(seq, tool, input)?;
        match &reply {
            Reply::Ok(out) if out["type"] == "file_unchanged" => {
                let path = input["file_path"].as_str().unwrap_or_default();
                let text = std::fs::read_to_string(path).unwrap_or_default();
                let content: Vec<String> = text
                    .lines()
                    .enumerate()
                    .map(|(i, l)| format!("{}\t{l}", i + 1))
                    .collect();
                Ok(Reply::Ok(serde_json::json!({
                    "type": "text",
                    "file": {"filePath": path, "content": content.join("\n")}
                })))
            }
            _ => Ok(reply),
        }
    }
    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.inner.case_end()
    }
}

#[test]
fn a_read_the_reference_answers_file_unchanged_is_written_so_that_it_replays() {
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut tool = AlwaysShows { inner: fresh() };
    let s = settings(0, 200, Some(dir.path().to_path_buf()));
    let out = campaign(&mut reference, &mut tool, &features(), &s, &mut |_| {});
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["Read: shows the file again where the reference answers file_unchanged"]
    );
    let f = &out.findings[0];
    assert_eq!(f.replays, Some(true), "{f:?}");
    let text = std::fs::read_to_string(f.file.as_ref().unwrap()).unwrap();
    assert!(
        text.contains("expect: {ok: true, output: {type: \"file_unchanged\"}}"),
        "{text}"
    );
    assert!(text.contains("spec: [READ-4]"), "{text}");
}
