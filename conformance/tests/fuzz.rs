//! Checks of the checker: the differential fuzzer finds a deliberately broken tool within a
//! bounded number of cases from a fixed seed and shrinks the case to a few lines, never
//! reports the reference against itself, and generates cases that reach the behaviour the
//! spec is about (successful edits, each refusal, each repair).

// Shared with the other fuzzing tests, which use other faults.
#[allow(dead_code)]
mod broken_tools;

use broken_tools::{AlwaysShows, CachesLinks, DropsCr, Faulty, LfDialects, MarksReads, Miscounts};
use editref_conform::adapter::{Builtin, ReadFormat};
use editref_conform::fuzz::observe::{observe, Answer};
use editref_conform::fuzz::parts::Allowed;
use editref_conform::fuzz::{campaign, campaign::as_case, from_seed, Known, Settings};
use editref_conform::run::{run_case, Status};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
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

#[test]
fn a_tool_that_drops_one_cr_is_found_shrunk_and_written_as_a_replayable_case() {
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut broken = Faulty::new(fresh(), DropsCr);
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
    let mut broken = Faulty::new(fresh(), DropsCr);
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
    // The five tools only, so that every step is one of them.
    let five: Vec<String> = features()
        .into_iter()
        .filter(|f| !editref_protocol::EXTRA_FEATURES.contains(&f.as_str()))
        .collect();
    let allowed = Allowed::new(&five);
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

/// Generated dialect steps are meaningful too: on the reference, each dialect's calls mostly
/// succeed, and are refused for the reasons its rules give.
#[test]
fn generated_dialect_steps_mostly_succeed_and_are_refused_for_their_reasons() {
    let allowed = Allowed::new(&features());
    let mut reference = fresh();
    let mut seen: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for seed in 0..400 {
        let gen = from_seed(seed, &allowed);
        let case = as_case(&gen, &format!("fuzz/s{seed}")).unwrap();
        let obs = observe(&mut reference, &case, None);
        assert_eq!(obs.harness_error, None, "seed {seed}");
        let calls = case.steps.iter().filter_map(|s| match s {
            editref_conform::case::Step::Call { tool, input, .. } => Some((tool, input)),
            _ => None,
        });
        for ((tool, input), a) in calls.zip(&obs.answers) {
            let name = editref_conform::fuzz::compare::label(tool, input);
            let outcome = match a {
                Answer::Ok(_) => "ok".to_string(),
                Answer::Err { code } => code.clone(),
                other => panic!("seed {seed}: {other:?}"),
            };
            *seen.entry(name).or_default().entry(outcome).or_default() += 1;
        }
    }
    eprintln!("{seen:#?}");
    let want: [(&str, &[&str]); 6] = [
        ("apply_patch", &["not_found"]),
        ("search_replace", &["not_found", "ambiguous", "no_change"]),
        ("LineEdit", &["invalid_input", "stale", "not_read"]),
        ("text editor str_replace", &["not_found"]),
        ("text editor insert", &["not_read"]),
        ("text editor view", &[]),
    ];
    for (tool, codes) in want {
        let outcomes = seen.get(tool).unwrap_or_else(|| panic!("no {tool} call"));
        let all: usize = outcomes.values().sum();
        let ok = outcomes.get("ok").copied().unwrap_or(0);
        assert!(ok * 100 / all >= 40, "{tool}: {outcomes:?}");
        for code in codes {
            assert!(
                outcomes.contains_key(*code),
                "{tool} never {code}: {outcomes:?}"
            );
        }
    }
}

#[test]
fn a_read_the_reference_answers_file_unchanged_is_written_so_that_it_replays() {
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut tool = Faulty::new(fresh(), AlwaysShows);
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

/// A kind the divergences file accepts does not hide a new kind later in
/// the same case. Every case of this tool starts with an accepted Read difference; the CR it
/// drops in an Edit after it is still found, shrunk and written — with the Read's output left
/// unchecked, so the written case fails the tool for the new kind only.
#[test]
fn an_accepted_kind_does_not_hide_a_new_one_later_in_the_case() {
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut broken = Faulty::new(fresh(), (MarksReads, DropsCr));
    let mut s = settings(0, 300, Some(dir.path().to_path_buf()));
    s.known = Known::parse("# our Read marks its end\nRead: shows other content\n");
    let out = campaign(&mut reference, &mut broken, &features(), &s, &mut |_| {});
    let found: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    assert!(
        out.known
            .iter()
            .any(|(k, _, n)| k == "Read: shows other content" && *n > 100),
        "{:?}",
        out.known
    );
    let f = out
        .findings
        .iter()
        .find(|f| f.kind.starts_with("bytes: line endings"))
        .unwrap_or_else(|| panic!("hidden behind the accepted kind; found {found:?}"));
    assert_eq!(f.class, editref_conform::class::Class::Data);
    assert_eq!(f.replays, Some(true), "{f:?}");
    let text = std::fs::read_to_string(f.file.as_ref().unwrap()).unwrap();
    assert!(text.contains("tool: Read"), "{text}");
    assert!(!text.contains("output: {file:"), "{text}");
    let name = f
        .file
        .as_ref()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    let case =
        editref_conform::load::parse_case("x", &format!("fuzz/{name}"), text.as_bytes()).unwrap();
    let feats = features();
    assert_eq!(
        run_case(&mut reference, &feats, &case, None, false).status,
        Status::Pass
    );
    let mut only_reads = Faulty::new(fresh(), (MarksReads, DropsCr));
    let rec = run_case(&mut only_reads, &feats, &case, None, false);
    assert_eq!(rec.status, Status::Fail);
}

/// The result fields the corpus compares for Edit are compared, named as a contract kind, and
/// written as the finding's expectations.
#[test]
fn a_wrong_result_field_is_a_contract_finding_written_as_an_expectation() {
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut tool = Faulty::new(fresh(), Miscounts);
    let s = settings(0, 100, Some(dir.path().to_path_buf()));
    let out = campaign(&mut reference, &mut tool, &features(), &s, &mut |_| {});
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(kinds, ["Edit: result field replacements differs"]);
    let f = &out.findings[0];
    assert_eq!(f.class, editref_conform::class::Class::Contract);
    assert_eq!(f.replays, Some(true), "{f:?}");
    assert!(f.steps.1 <= 2, "{:?}", f.case);
    let text = std::fs::read_to_string(f.file.as_ref().unwrap()).unwrap();
    assert!(text.contains("spec: [EDIT-5]"), "{text}");
    assert!(
        text.contains("replacements: 1, repairs: []}}"),
        "the reference's fields are the expectation: {text}"
    );
}

/// Dialect steps are generated, run by the reference in process, shrunk, written, loaded and
/// replayed like the five tools' steps.
#[test]
fn a_dialect_that_drops_crs_is_found_in_generated_patches_and_blocks() {
    use editref_conform::fuzz::gen::GenStep;
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut tool = Faulty::new(fresh(), LfDialects::default());
    let s = settings(0, 300, Some(dir.path().to_path_buf()));
    let out = campaign(&mut reference, &mut tool, &features(), &s, &mut |_| {});
    assert_eq!(out.harness_errors, 0);
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    eprintln!("{} cases: {kinds:?}", out.cases);
    assert!(!out.findings.is_empty(), "not found in 300 cases");
    assert!(
        out.findings.iter().all(|f| f.kind.starts_with("bytes:")),
        "{kinds:?}"
    );
    for f in &out.findings {
        assert_eq!(f.replays, Some(true), "{f:?}");
        assert!(
            f.case
                .steps
                .iter()
                .any(|s| matches!(s, GenStep::Patch { .. } | GenStep::Blocks { .. })),
            "{f:?}"
        );
        assert!(f.steps.1 <= 3, "{:?}", f.case);
    }
    let corpus = editref_conform::load::load_dir(dir.path()).unwrap();
    assert!(corpus.broken.is_empty(), "{:?}", corpus.broken);
    assert_eq!(corpus.cases.len(), out.findings.len());
}

/// A symlink made or swapped between two calls is part of the generated cases, and the
/// shrinker keeps it where the disagreement needs it.
#[test]
fn a_link_swapped_between_calls_finds_a_tool_that_resolves_paths_once() {
    use editref_conform::fuzz::gen::GenStep;
    let dir = tempfile::tempdir().unwrap();
    let mut reference = fresh();
    let mut tool = Faulty::new(fresh(), CachesLinks::default());
    let s = settings(0, 400, Some(dir.path().to_path_buf()));
    let out = campaign(&mut reference, &mut tool, &features(), &s, &mut |_| {});
    assert_eq!(out.harness_errors, 0);
    let kinds: Vec<&str> = out.findings.iter().map(|f| f.kind.as_str()).collect();
    eprintln!("{} cases: {kinds:?}", out.cases);
    assert!(!out.findings.is_empty(), "not found in 400 cases");
    for f in &out.findings {
        assert_eq!(f.replays, Some(true), "{f:?}");
        let links = f
            .case
            .steps
            .iter()
            .filter(|s| matches!(s, GenStep::Link { .. }))
            .count();
        assert!(links >= 1, "{kinds:?}: {:?}", f.case);
        let text = std::fs::read_to_string(f.file.as_ref().unwrap()).unwrap();
        assert!(text.contains("  - link: {path: "), "{text}");
    }
}
