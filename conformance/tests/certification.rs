//! "Certified: core" means safe: the core cases hold at least one case of every rule family
//! whose breach loses or corrupts data, and tools with such a breach are not certified — not
//! overall, and not in the data class.
//!
//! Broken tools are built from the reference itself, each with one classic flaw that loses
//! data — it reads every file again just before writing it, so a change made since the model's
//! Read is never noticed (staleness check skipped); it writes a file it never read (no
//! read-before-write); it replaces only the first hit of a `replace_all` edit; it edits the
//! first of two hits where it should refuse; it writes CRLF back as LF — and each is run over
//! the core cases of the built-in corpus. The reference itself is the control, and a tool that
//! refuses every call is the other end: it damages nothing, so data is certified, but it is not
//! capable, so nothing else is.

use editref_conform::adapter::{Adapter, AdapterError, Builtin, Hello, Reply};
use editref_conform::case::{Case, Class, Level};
use editref_conform::load;
use editref_conform::run::{self, CaseRecord, Status};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

/// The rule families whose breach loses or corrupts data, and the SPEC.md rules that make each
/// one up: core must cite at least one rule of each.
const DATA_LOSS_FAMILIES: &[(&str, &[&str])] = &[
    ("exact match and uniqueness", &["MATCH-1", "MATCH-3"]),
    ("staleness", &["SESSION-2"]),
    ("read before write, partial reads", &["SESSION-1"]),
    ("dry runs", &["EDIT-7"]),
    ("devices and FIFOs", &["READ-5", "PATH-3"]),
    ("curly quotes", &["MATCH-2", "MATCH-4"]),
    ("BOMs", &["TEXT-3"]),
    ("encodings", &["TEXT-1", "TEXT-2"]),
    ("line endings", &["TEXT-6"]),
    ("binary files", &["TEXT-7"]),
    ("notebooks", &["NOTEBOOK-1", "NOTEBOOK-2"]),
    ("atomic replace", &["DISK-1"]),
    ("symlinks", &["DISK-2"]),
    ("hard links", &["DISK-3"]),
    ("read-only files", &["DISK-4"]),
    ("root confinement", &["PATH-2"]),
    ("MultiEdit all or nothing", &["MULTI-3"]),
];

fn core_cases() -> Vec<Case> {
    load::load_embedded()
        .cases
        .into_iter()
        .filter(|c| c.level == Level::Core)
        .collect()
}

#[test]
fn core_holds_a_case_of_every_data_loss_family() {
    let cases = core_cases();
    let mut missing = Vec::new();
    for (family, rules) in DATA_LOSS_FAMILIES {
        if !cases
            .iter()
            .any(|c| c.spec.iter().any(|r| rules.contains(&r.as_str())))
        {
            missing.push(*family);
        }
    }
    assert!(missing.is_empty(), "no core case for: {missing:?}");
    // The areas people name first, by area too (replace_all cites MATCH-3 like unique/).
    for area in [
        "stale",
        "read_before_write",
        "replace_all",
        "quotes",
        "bom",
        "notebook",
    ] {
        assert!(
            cases.iter().any(|c| c.area == area),
            "no core case in {area}/"
        );
    }
}

/// What a flawed tool does with a call instead of the reference (`None`: as the reference).
type Rewrite = fn(&mut Flawed, u64, &str, &Value) -> Option<Result<Reply, AdapterError>>;

/// A tool with one flaw: `rewrite` turns each call into what the flawed tool does.
struct Flawed {
    inner: Builtin,
    rewrite: Rewrite,
    /// The paths the model read in this case (for the flaws that need to know).
    read: BTreeSet<String>,
}

impl Flawed {
    fn new(rewrite: Rewrite) -> Flawed {
        Flawed {
            inner: Builtin::new(TIMEOUT),
            rewrite,
            read: BTreeSet::new(),
        }
    }
}

impl Adapter for Flawed {
    fn hello(&mut self) -> Result<Hello, AdapterError> {
        self.inner.hello()
    }
    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.read.clear();
        self.inner.case_start(id, sandbox)
    }
    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        match (self.rewrite)(self, seq, tool, input) {
            Some(r) => r,
            None => self.inner.call(seq, tool, input),
        }
    }
    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.inner.case_end()
    }
}

/// Skips the staleness check: reads the file again right before every write, so the session
/// always believes it has seen the latest version.
fn rereads_before_writing(
    t: &mut Flawed,
    seq: u64,
    tool: &str,
    input: &Value,
) -> Option<Result<Reply, AdapterError>> {
    let path = input
        .get("file_path")
        .or_else(|| input.get("notebook_path"))?;
    if tool != "Read" && Path::new(path.as_str()?).is_file() {
        let _ = t.inner.call(seq, "Read", &json!({ "file_path": path }));
    }
    None
}

/// Replaces only the first hit when asked to replace all of them (str::replacen(…, 1)).
fn replaces_only_the_first_hit(
    _: &mut Flawed,
    _seq: u64,
    tool: &str,
    input: &Value,
) -> Option<Result<Reply, AdapterError>> {
    if tool != "Edit" || input.get("replace_all") != Some(&json!(true)) {
        return None;
    }
    let path = input["file_path"].as_str()?;
    let (old, new) = (input["old_string"].as_str()?, input["new_string"].as_str()?);
    let text = std::fs::read_to_string(path).ok()?;
    if old.is_empty() || !text.contains(old) {
        return None;
    }
    std::fs::write(path, text.replacen(old, new, 1)).ok()?;
    Some(Ok(Reply::Ok(json!({"replacements": 1}))))
}

fn run_core(adapter: &mut dyn Adapter) -> Vec<CaseRecord> {
    let features = adapter.hello().unwrap().features;
    let records: Vec<CaseRecord> = core_cases()
        .iter()
        .map(|c| run::run_case(adapter, &features, c, None, false))
        .collect();
    adapter.shutdown();
    records
}

fn certified_core(records: &[CaseRecord]) -> bool {
    run::highest(&run::certification(records, |_| true)).is_some()
}

/// Whether the core cases certify `class`.
fn class_certified(records: &[CaseRecord], class: Class) -> bool {
    run::class_results(records, |_| true)
        .into_iter()
        .find(|c| c.class == class)
        .is_some_and(|c| c.certified.core)
}

/// The cases whose data class failed.
fn damaged(records: &[CaseRecord]) -> BTreeSet<&str> {
    records
        .iter()
        .filter(|r| r.failed_classes.contains(&Class::Data))
        .map(|r| r.id.as_str())
        .collect()
}

/// Writes a file it was never asked to read: before an Edit, MultiEdit or Write of an existing
/// file the session has not read, it reads it itself, so SESSION-1 never refuses. Files it did
/// read are left to the reference, staleness check included.
fn writes_without_reading(
    t: &mut Flawed,
    seq: u64,
    tool: &str,
    input: &Value,
) -> Option<Result<Reply, AdapterError>> {
    let path = input.get("file_path")?.as_str()?.to_string();
    if tool == "Read" {
        t.read.insert(path);
        return None;
    }
    if matches!(tool, "Edit" | "MultiEdit" | "Write")
        && Path::new(&path).is_file()
        && t.read.insert(path.clone())
    {
        let _ = t.inner.call(seq, "Read", &json!({ "file_path": path }));
    }
    None
}

/// Edits the first of several hits where it should refuse as ambiguous (MATCH-3).
fn edits_the_first_of_two_hits(
    t: &mut Flawed,
    seq: u64,
    tool: &str,
    input: &Value,
) -> Option<Result<Reply, AdapterError>> {
    if tool != "Edit" {
        return None;
    }
    match t.inner.call(seq, tool, input) {
        Ok(Reply::Err(e)) if e["code"] == "ambiguous" => {
            let path = input["file_path"].as_str()?;
            let (old, new) = (input["old_string"].as_str()?, input["new_string"].as_str()?);
            let text = std::fs::read_to_string(path).ok()?;
            std::fs::write(path, text.replacen(old, new, 1)).ok()?;
            Some(Ok(Reply::Ok(json!({"replacements": 1}))))
        }
        other => Some(other),
    }
}

/// Writes every line ending as LF: after a write succeeds, the file's CRLFs become LFs, as
/// text-mode I/O does.
fn writes_crlf_as_lf(
    t: &mut Flawed,
    seq: u64,
    tool: &str,
    input: &Value,
) -> Option<Result<Reply, AdapterError>> {
    let reply = t.inner.call(seq, tool, input);
    if tool != "Read" && matches!(reply, Ok(Reply::Ok(_))) {
        if let Some(path) = input.get("file_path").and_then(Value::as_str) {
            if let Ok(bytes) = std::fs::read(path) {
                if bytes.windows(2).any(|w| w == b"\r\n") {
                    let text = String::from_utf8_lossy(&bytes).replace("\r\n", "\n");
                    let _ = std::fs::write(path, text);
                }
            }
        }
    }
    Some(reply)
}

/// Refuses every call, cleanly: an error, and nothing touched.
fn refuses_everything(
    _: &mut Flawed,
    _seq: u64,
    _tool: &str,
    _input: &Value,
) -> Option<Result<Reply, AdapterError>> {
    Some(Ok(Reply::Err(
        json!({"code": "io", "message": "this tool refuses every call"}),
    )))
}

/// A flawed tool's core run: not certified, and not in the data class.
fn loses_data(records: &[CaseRecord]) {
    assert!(!certified_core(records));
    assert!(
        !class_certified(records, Class::Data),
        "{:?}",
        damaged(records)
    );
    assert_eq!(run::exit_code(records), 1, "a core failure fails the run");
    let gate = [run::Gate::parse("data:core").unwrap()];
    assert_eq!(run::exit_code_for(records, &gate), 1, "--require data:core");
}

fn failed(records: &[CaseRecord]) -> BTreeSet<&str> {
    records
        .iter()
        .filter(|r| r.status != Status::Pass)
        .map(|r| r.id.as_str())
        .collect()
}

#[test]
fn the_reference_is_certified_at_core() {
    let records = run_core(&mut Builtin::new(TIMEOUT));
    assert!(failed(&records).is_empty(), "{:?}", failed(&records));
    assert!(certified_core(&records));
    for class in Class::ALL {
        assert!(class_certified(&records, class), "{class}");
    }
}

#[test]
fn a_tool_that_skips_the_staleness_check_is_not_certified() {
    let records = run_core(&mut Flawed::new(rereads_before_writing));
    let bad = failed(&records);
    assert!(bad.contains("stale/edit-after-external-modify"), "{bad:?}");
    assert!(
        bad.contains("stale/write-after-external-modify-keeps-other-writer"),
        "{bad:?}"
    );
    loses_data(&records);
    assert!(damaged(&records).contains("stale/edit-after-external-modify"));
}

#[test]
fn a_tool_whose_replace_all_replaces_only_the_first_hit_is_not_certified() {
    let records = run_core(&mut Flawed::new(replaces_only_the_first_hit));
    let bad = failed(&records);
    assert!(bad.contains("replace_all/basic-three-hits"), "{bad:?}");
    assert!(
        bad.iter().all(|id| id.starts_with("replace_all/")),
        "{bad:?}"
    );
    loses_data(&records);
}

#[test]
fn a_tool_that_writes_what_it_never_read_is_not_certified() {
    let records = run_core(&mut Flawed::new(writes_without_reading));
    let bad = damaged(&records);
    assert!(
        bad.contains("read_before_write/edit-without-read"),
        "{bad:?}"
    );
    assert!(
        bad.iter().all(|id| id.starts_with("read_before_write/")),
        "{bad:?}"
    );
    loses_data(&records);
}

#[test]
fn a_tool_that_edits_the_first_of_two_hits_is_not_certified() {
    let records = run_core(&mut Flawed::new(edits_the_first_of_two_hits));
    assert!(
        damaged(&records).contains("unique/ambiguous-two-hits"),
        "{:?}",
        damaged(&records)
    );
    loses_data(&records);
}

#[test]
fn a_tool_that_writes_crlf_as_lf_is_not_certified() {
    let records = run_core(&mut Flawed::new(writes_crlf_as_lf));
    let bad = damaged(&records);
    assert!(bad.contains("eol/crlf-single-line-edit"), "{bad:?}");
    loses_data(&records);
}

#[test]
fn a_tool_that_refuses_everything_is_safe_not_capable() {
    let records = run_core(&mut Flawed::new(refuses_everything));
    assert!(damaged(&records).is_empty(), "{:?}", damaged(&records));
    assert!(
        class_certified(&records, Class::Data),
        "nothing was damaged"
    );
    assert!(!class_certified(&records, Class::Capability));
    assert!(!certified_core(&records), "safe is not certified");
    let gate = |g: &str| [run::Gate::parse(g).unwrap()];
    assert_eq!(run::exit_code_for(&records, &gate("data:core")), 0);
    assert_eq!(run::exit_code_for(&records, &gate("capability:core")), 1);
    assert_eq!(run::exit_code_for(&records, &gate("core")), 1);
    // A refusal never counts as damage, even where the case wanted the file changed.
    let refused = records
        .iter()
        .find(|r| r.id == "eol/crlf-single-line-edit")
        .unwrap();
    assert_eq!(refused.failed_classes, vec![Class::Capability]);
}
