//! A finding as a corpus case: what it is ([`Finding`]), its file name and the rules it shows,
//! the reference's outcome as its expectations, and the YAML written to `--findings` and loaded
//! back. The campaign finds and shrinks; this file only writes down what it found.

use super::compare::{expected_output, StepCall};
use super::gen::GenCase;
use super::observe::{Answer, Observation};
use super::yaml::{call_of, to_yaml, ExpectCall, ExpectEntry, Expectations, Meta};
use crate::case::Case;
use crate::class::Class;
use crate::sandbox::Actual;
use std::path::{Path, PathBuf};

/// One kind of disagreement found.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The kind (one line).
    pub kind: String,
    /// The particulars, for the shrunk case.
    pub detail: String,
    /// The class of the promise it breaks (data, contract, presentation), as the corpus
    /// harness classes the same difference.
    pub class: Class,
    /// The seed of the first case that showed it.
    pub seed: u64,
    /// How many cases showed it.
    pub hits: u64,
    /// Steps of the original case and of the shrunk one.
    pub steps: (usize, usize),
    /// Lines of the main file in the original case and in the shrunk one.
    pub lines: (usize, usize),
    /// The shrunk case.
    pub case: GenCase,
    /// Where it was written.
    pub file: Option<PathBuf>,
    /// Whether the written case replays: the reference passes it and the implementation does
    /// not (`None` when not written).
    pub replays: Option<bool>,
}

/// Each step of the case: a call's tool and input, or `None` for a harness action.
pub(super) fn steps_of(case: &GenCase) -> Vec<StepCall> {
    case.steps
        .iter()
        .map(|s| call_of(s).map(|(t, v)| (t.to_string(), v)))
        .collect()
}

/// A file name for a kind: lower-case words joined by dashes, at most 60 characters.
pub fn slug(kind: &str) -> String {
    let mut s = String::new();
    for c in kind.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
        if s.len() >= 60 {
            break;
        }
    }
    s.trim_end_matches('-').to_string()
}

/// The spec rules a finding shows, read off its kind.
pub fn rules(kind: &str) -> Vec<String> {
    let table: &[(&str, &[&str])] = &[
        ("cuts lines longer", &["READ-1"]),
        ("Edit: result field", &["EDIT-5"]),
        ("Edit: the result lacks", &["EDIT-5"]),
        ("MultiEdit: result field", &["MULTI-5", "D22"]),
        ("MultiEdit: the result lacks", &["MULTI-5", "D22"]),
        ("Write: result field", &["WRITE-4"]),
        ("LineEdit:", &["LINES-6"]),
        ("text editor view", &["EDITOR-2"]),
        ("text editor str_replace", &["EDITOR-4"]),
        ("text editor insert", &["EDITOR-5"]),
        ("apply_patch:", &["APPLY-13"]),
        ("search_replace:", &["BLOCK-10"]),
        ("line breaks the reference deletes", &["EDIT-2"]),
        ("line breaks are deleted", &["EDIT-2"]),
        ("file_unchanged", &["READ-4"]),
        ("Read: shows other content", &["READ-1"]),
        ("line endings", &["TEXT-4", "TEXT-6"]),
        ("final line break", &["TEXT-6"]),
        ("BOM", &["TEXT-2"]),
        ("UTF-16", &["TEXT-1", "TEXT-2"]),
        ("legacy", &["TEXT-1"]),
        ("quotes differ", &["MATCH-4"]),
        ("whitespace", &["REPAIR-5"]),
        ("outside the edit", &["TEXT-6", "EDIT-3"]),
        ("edited text", &["EDIT-3", "MATCH-5"]),
        ("line_prefix", &["REPAIR-3"]),
        ("desanitize", &["REPAIR-1", "REPAIR-2"]),
        ("quotes", &["MATCH-2"]),
        ("(ambiguous)", &["MATCH-3"]),
        ("(not_found)", &["MATCH-1"]),
        ("(stale)", &["SESSION-2"]),
        ("(not_read)", &["SESSION-1"]),
        ("(partial_read)", &["SESSION-1"]),
        ("symlink", &["DISK-2"]),
        ("mode", &["DISK-1"]),
    ];
    let mut out: Vec<String> = Vec::new();
    for &(needle, ids) in table {
        if kind.contains(needle) {
            for id in ids {
                if !out.iter().any(|o| o == id) {
                    out.push(id.to_string());
                }
            }
        }
    }
    if out.is_empty() {
        out.push("EDIT-1".into());
    }
    out
}

/// What a written finding expects of one field of a call's output beyond the reference's
/// values: the call (counting from 1), the field's dotted path, the expectation.
pub type Extra = (usize, String, serde_json::Value);

/// The reference's outcome as expectations: each call's answer — for a success the parts of
/// its output the corpus compares ([`expected_output`]) with the `extra` fields, none for the
/// calls in `loose` (counting from 1) — and the final tree.
pub fn expectations(
    case: &GenCase,
    want: &Observation,
    loose: &[usize],
    extra: &[Extra],
) -> Expectations {
    let calls_in: Vec<(String, serde_json::Value)> = steps_of(case).into_iter().flatten().collect();
    let calls = want
        .answers
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            Answer::Ok(out) => ExpectCall::Ok {
                output: calls_in
                    .get(i)
                    .filter(|_| !loose.contains(&(i + 1)))
                    .map(|(tool, input)| {
                        expected_output(tool, input, out).unwrap_or_else(|| serde_json::json!({}))
                    })
                    .map(|mut o| {
                        for (_, path, v) in extra.iter().filter(|e| e.0 == i + 1) {
                            put_at(&mut o, path, v.clone());
                        }
                        o
                    })
                    .filter(|o| o.as_object().is_some_and(|m| !m.is_empty())),
            },
            Answer::Crashed(_) | Answer::TimedOut(_) => ExpectCall::Ok { output: None },
            Answer::Err { code } => ExpectCall::Err(code.clone()),
        })
        .collect();
    let mut files = Vec::new();
    for (key, actual) in &want.after.entries {
        let Some(path) = key.strip_prefix("sandbox/") else {
            continue;
        };
        let twin = want
            .after
            .twins
            .get(key)
            .filter(|t| *t != key)
            .and_then(|t| t.strip_prefix("sandbox/"));
        let entry = match (actual, twin) {
            (Actual::File { mode, .. }, Some(first)) => ExpectEntry::Hardlink(first.into(), *mode),
            (Actual::File { bytes, mode }, None) => ExpectEntry::Bytes(bytes.clone(), *mode),
            (Actual::Symlink(t), _) => ExpectEntry::Symlink(t.to_string_lossy().into_owned()),
            (Actual::Dir(mode), _) => ExpectEntry::Dir(*mode),
            _ => continue,
        };
        files.push((path.to_string(), entry));
    }
    for key in want.before.entries.keys() {
        if let Some(path) = key.strip_prefix("sandbox/") {
            if !want.after.entries.contains_key(key) {
                files.push((path.to_string(), ExpectEntry::Absent));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Expectations { calls, files }
}

/// Puts `v` at the dotted `path` of the object `o`, making the objects on the way.
fn put_at(o: &mut serde_json::Value, path: &str, v: serde_json::Value) {
    let mut at = o;
    let mut keys = path.split('.').peekable();
    while let Some(k) = keys.next() {
        if !at.is_object() {
            *at = serde_json::Value::Object(serde_json::Map::new());
        }
        let Some(m) = at.as_object_mut() else { return };
        if keys.peek().is_none() {
            m.insert(k.to_string(), v);
            return;
        }
        at = m
            .entry(k.to_string())
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    }
}

/// Writes the finding as `DIR/fuzz/<slug>.yaml` and loads it back (it must load).
pub(super) fn write_finding(
    dir: &Path,
    finding: &Finding,
    want: &Observation,
    loose: &[usize],
    extra: &[Extra],
) -> Result<(PathBuf, Case), String> {
    let name = format!("{}-{}", slug(&finding.kind), finding.seed);
    let id = format!("fuzz/{name}");
    let meta = Meta {
        id: id.clone(),
        title: finding.kind.clone(),
        spec: rules(&finding.kind),
        notes: Some(format!(
            "Found by editref conform --fuzz (seed {}), shrunk from {} steps to {}. Class: {}. {}",
            finding.seed, finding.steps.0, finding.steps.1, finding.class, finding.detail
        )),
    };
    let yaml = to_yaml(
        &finding.case,
        &meta,
        Some(&expectations(&finding.case, want, loose, extra)),
    );
    let area = dir.join("fuzz");
    std::fs::create_dir_all(&area).map_err(|e| format!("{}: {e}", area.display()))?;
    let path = area.join(format!("{name}.yaml"));
    std::fs::write(&path, &yaml).map_err(|e| format!("{}: {e}", path.display()))?;
    let case = crate::load::parse_case(
        &path.display().to_string(),
        &format!("{id}.yaml"),
        yaml.as_bytes(),
    )
    .map_err(|e| {
        e.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    Ok((path, case))
}
