//! Every finding the differential fuzzer writes replays as written; the kinds of file every
//! tool meets are fuzzed whatever the tool declares; hard links and notebooks are generated,
//! observed and compared; a result is held to the protocol's shape.
//!
//! The example adapters (`conformance/adapters/`) are fuzzed from a fixed seed for a fixed
//! number of cases; each finding's case is then loaded from the findings directory and run
//! again, on a fresh reference and a fresh adapter: the reference passes it, and the adapter
//! fails it with a failure of the finding's class.

// Shared with the other fuzzing tests, which use other faults.
#[allow(dead_code)]
mod broken_tools;

use broken_tools::{Chatty, CrlfToLf, Faulty, ReindentsNotebooks, SplitsHardLinks};
use editref_conform::adapter::{Adapter, Builtin};
use editref_conform::fuzz::{campaign, Known, Outcome, Settings};
use editref_conform::run::{run_case, Status};
use editref_conform::subprocess::Subprocess;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn reference() -> Builtin {
    Builtin::new(Duration::from_secs(20)).without_fsync()
}

fn adapter(name: &str) -> Subprocess {
    let script = format!("{}/adapters/{name}.py", env!("CARGO_MANIFEST_DIR"));
    Subprocess::new(&format!("python3 {script}"), Duration::from_secs(10), true)
}

fn settings(seed: u64, cases: u64, findings: &Path) -> Settings {
    Settings {
        seed,
        cases: Some(cases),
        time: None,
        shrink_budget: 200,
        findings: Some(findings.to_path_buf()),
        known: Known::default(),
        read_format: editref_conform::adapter::ReadFormat::Tab,
        tmp: None,
    }
}

/// Fuzzes the example adapter `name`; the outcome and the features it declared.
fn fuzz_example(name: &str, seed: u64, cases: u64, dir: &Path) -> (Outcome, Vec<String>) {
    let mut tool = adapter(name);
    let hello = tool.hello().unwrap();
    let mut s = settings(seed, cases, dir);
    s.read_format = hello.read_format;
    let out = campaign(
        &mut reference(),
        &mut tool,
        &hello.features,
        &s,
        &mut |_| {},
    );
    tool.shutdown();
    (out, hello.features)
}

/// Loads every written finding and runs it on a fresh reference and a fresh `tool`: the
/// reference passes each, the tool fails each with a failure of the finding's class.
fn replay_from_disk(out: &Outcome, dir: &Path, declared: &[String], tool: &mut dyn Adapter) {
    let corpus = editref_conform::load::load_dir(dir).unwrap();
    assert!(corpus.broken.is_empty(), "{:?}", corpus.broken);
    assert_eq!(corpus.cases.len(), out.findings.len());
    let all: Vec<String> = editref_protocol::FEATURES.map(String::from).to_vec();
    for f in &out.findings {
        let file: &PathBuf = f.file.as_ref().unwrap();
        let case = corpus
            .cases
            .iter()
            .find(|c| file.ends_with(format!("{}.yaml", c.id)))
            .unwrap();
        let want = run_case(&mut reference(), &all, case, None, false);
        assert_eq!(want.status, Status::Pass, "{}: {}", f.kind, want.reason);
        let got = run_case(tool, declared, case, None, false);
        assert_eq!(got.status, Status::Fail, "{}: {}", f.kind, got.reason);
        assert!(
            got.failed_classes.contains(&f.class),
            "{}: fails {:?}, found {}: {}",
            f.kind,
            got.failed_classes,
            f.class,
            got.reason
        );
    }
}

#[test]
fn every_finding_on_the_naive_adapter_replays_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let (out, declared) = fuzz_example("naive", 1, 120, dir.path());
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    eprintln!("{} cases: {kinds:?}", out.cases);
    assert_eq!(out.harness_errors, 0);
    assert!(out.findings.len() >= 4, "{kinds:?}");
    for f in &out.findings {
        assert_eq!(f.replays, Some(true), "{f:?}");
    }
    let mut tool = adapter("naive");
    tool.hello().unwrap();
    replay_from_disk(&out, dir.path(), &declared, &mut tool);
    tool.shutdown();
}

/// The case the issue was about: a temp file made with 0600 and renamed over a 0644 file. The
/// written case gives the file its mode and expects the reference's.
#[test]
fn every_finding_on_the_safe_adapter_replays_as_written_the_lost_mode_included() {
    let dir = tempfile::tempdir().unwrap();
    let (out, declared) = fuzz_example("safe", 1, 120, dir.path());
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    eprintln!("{} cases: {kinds:?}", out.cases);
    assert_eq!(out.harness_errors, 0);
    for f in &out.findings {
        assert_eq!(f.replays, Some(true), "{f:?}");
    }
    let mode = out
        .findings
        .iter()
        .find(|f| f.kind == "the file's mode differs")
        .unwrap_or_else(|| panic!("{kinds:?}"));
    let text = std::fs::read_to_string(mode.file.as_ref().unwrap()).unwrap();
    assert!(text.contains("mode: \"0644\"}"), "{text}");
    let expect = &text[text.find("expect_files:").unwrap()..];
    assert!(expect.contains("mode: \"0644\""), "{text}");
    let mut tool = adapter("safe");
    tool.hello().unwrap();
    replay_from_disk(&out, dir.path(), &declared, &mut tool);
    tool.shutdown();
}

/// A tool that declares only Read, Edit and Write and writes every CRLF back as LF: the
/// fuzzer hands it CRLF files anyway, finds the rewrite, and writes a guard case that requires
/// only the tools, so the same tool runs it and fails it.
#[test]
fn a_tool_declaring_only_its_tools_is_fuzzed_on_crlf_and_its_rewrite_found() {
    let dir = tempfile::tempdir().unwrap();
    let declared: Vec<String> = ["read", "edit", "write"].map(String::from).to_vec();
    let mut tool = Faulty::new(reference(), CrlfToLf);
    let s = settings(0, 150, dir.path());
    let out = campaign(&mut reference(), &mut tool, &declared, &s, &mut |_| {});
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    eprintln!("{} cases: {kinds:?}", out.cases);
    assert_eq!(out.harness_errors, 0);
    let f = out
        .findings
        .iter()
        .find(|f| f.kind.starts_with("bytes: line endings"))
        .unwrap_or_else(|| panic!("not found in 150 cases: {kinds:?}"));
    assert_eq!(f.replays, Some(true), "{f:?}");
    let text = std::fs::read_to_string(f.file.as_ref().unwrap()).unwrap();
    assert!(text.contains("tags: [guard]"), "{text}");
    assert!(text.contains("\\r\\n"), "{text}");
    let requires = text.lines().find(|l| l.starts_with("requires:")).unwrap();
    assert!(!requires.contains("crlf"), "{requires}");
    replay_from_disk(&out, dir.path(), &declared, &mut tool);
}

fn all_features() -> Vec<String> {
    editref_protocol::FEATURES.map(String::from).to_vec()
}

/// A tool that edits a file with another name by renaming a temp file over it: the fuzzer's
/// hard links find it, and the written case expects the second name to stay the same file.
#[test]
fn a_tool_that_splits_hard_links_is_found_in_generated_cases() {
    let dir = tempfile::tempdir().unwrap();
    let mut tool = Faulty::new(reference(), SplitsHardLinks);
    let s = settings(0, 200, dir.path());
    let out = campaign(
        &mut reference(),
        &mut tool,
        &all_features(),
        &s,
        &mut |_| {},
    );
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    eprintln!("{} cases: {kinds:?}", out.cases);
    assert_eq!(out.harness_errors, 0);
    assert_eq!(
        kinds,
        ["Edit: accepted where the reference refuses (hard_link)"]
    );
    let f = &out.findings[0];
    assert_eq!(f.replays, Some(true), "{f:?}");
    assert!(!f.case.hardlinks.is_empty(), "{:?}", f.case);
    let text = std::fs::read_to_string(f.file.as_ref().unwrap()).unwrap();
    assert!(text.contains("{hardlink: \"a.txt\"}"), "{text}");
    assert!(text.contains("{hardlink: \"a.txt\", mode: "), "{text}");
    replay_from_disk(&out, dir.path(), &all_features(), &mut tool);
}

/// A tool that writes notebooks back with its own indentation: the generated notebooks and
/// NotebookEdit calls find it.
#[test]
fn a_tool_that_reindents_notebooks_is_found_in_generated_cases() {
    let dir = tempfile::tempdir().unwrap();
    let mut tool = Faulty::new(reference(), ReindentsNotebooks);
    let s = settings(0, 200, dir.path());
    let out = campaign(
        &mut reference(),
        &mut tool,
        &all_features(),
        &s,
        &mut |_| {},
    );
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    eprintln!("{} cases: {kinds:?}", out.cases);
    assert_eq!(out.harness_errors, 0);
    assert!(!out.findings.is_empty(), "not found in 200 cases");
    for f in &out.findings {
        assert!(f.kind.starts_with("bytes:"), "{kinds:?}");
        assert_eq!(f.replays, Some(true), "{f:?}");
        assert!(
            f.case
                .steps
                .iter()
                .any(|s| matches!(s, editref_conform::fuzz::gen::GenStep::NotebookEdit { .. })),
            "{:?}",
            f.case
        );
    }
    replay_from_disk(&out, dir.path(), &all_features(), &mut tool);
}

/// A field the protocol does not define and a field of another type are findings, each
/// written with the expectation that fails the tool (`{absent: true}`, `{shape: …}`).
#[test]
fn extra_and_wrongly_typed_result_fields_are_found_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let mut tool = Faulty::new(reference(), Chatty);
    let s = settings(0, 40, dir.path());
    let out = campaign(
        &mut reference(),
        &mut tool,
        &all_features(),
        &s,
        &mut |_| {},
    );
    let mut kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "Edit: result field replaceAll is string where the protocol has boolean",
            "Edit: the result has message, which the protocol does not define",
        ]
    );
    for f in &out.findings {
        assert_eq!(f.replays, Some(true), "{f:?}");
        assert_eq!(f.class, editref_conform::class::Class::Contract);
        let text = std::fs::read_to_string(f.file.as_ref().unwrap()).unwrap();
        assert!(
            text.contains("message: {absent: true}")
                || text.contains("replaceAll: {shape: \"boolean\"}"),
            "{text}"
        );
    }
    replay_from_disk(&out, dir.path(), &all_features(), &mut tool);
}
