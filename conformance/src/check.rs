//! Judging: a call's reply against its `expect`, and the final tree against `expect_files`, the
//! harness-known state and the residue rule.
//!
//! Every check returns a [`Failure`] that says what was expected next to what happened, in a
//! form a person can read in a report: JSON values for replies, escaped text plus hex for bytes,
//! and a short line diff when both sides are text.

use crate::adapter::Reply;
use crate::case::{Case, Content, Expect, ExpectFile};
use crate::sandbox::{self, case_path, Actual, Known, Sandbox};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why a case did not pass, with the evidence.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Failure {
    /// One line for summaries.
    pub reason: String,
    /// What the case required (a JSON value; bytes as `{len, text, hex}`).
    pub expected: Option<Value>,
    /// What happened, in the same shape.
    pub actual: Option<Value>,
    /// A short unified diff of the two texts, when both are text.
    pub diff: Option<String>,
}

// ---- values ----------------------------------------------------------------------------------

/// Scalar equality as the corpus means it: numbers by value (`1` equals `1.0`), everything else
/// by JSON equality, arrays element by element, objects key by key.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x == y {
                return true;
            }
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => matches!((x.as_f64(), y.as_f64()), (Some(f), Some(g)) if f == g),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// One place where an actual value does not contain the expected one.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Dotted path from the compared root (`file.numLines`, `edits`).
    pub path: String,
    /// The expected value there.
    pub expected: Value,
    /// The actual value there, `None` when the key is missing.
    pub actual: Option<Value>,
}

/// The corpus's subset rule: objects match when every listed key matches recursively (extra
/// keys are fine); arrays must be equal as a whole; scalars must be equal. Returns every
/// mismatch (empty when `actual` contains `expected`).
pub fn subset(expected: &Value, actual: &Value) -> Vec<Mismatch> {
    let mut out = Vec::new();
    subset_at(expected, actual, String::new(), &mut out);
    out
}

fn subset_at(expected: &Value, actual: &Value, path: String, out: &mut Vec<Mismatch>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match a.get(k) {
                    Some(av) => subset_at(ev, av, p, out),
                    None => out.push(Mismatch {
                        path: p,
                        expected: ev.clone(),
                        actual: None,
                    }),
                }
            }
        }
        _ if json_eq(expected, actual) => {}
        _ => out.push(Mismatch {
            path: if path.is_empty() { ".".into() } else { path },
            expected: expected.clone(),
            actual: Some(actual.clone()),
        }),
    }
}

fn describe(m: &Mismatch) -> String {
    let short = |v: &Value| {
        let s = v.to_string();
        if s.chars().count() > 80 {
            format!("{}…", s.chars().take(80).collect::<String>())
        } else {
            s
        }
    };
    match &m.actual {
        Some(a) => format!(
            "{}: expected {}, got {}",
            m.path,
            short(&m.expected),
            short(a)
        ),
        None => format!("{}: expected {}, missing", m.path, short(&m.expected)),
    }
}

/// The expectation of a call as JSON, for reports.
pub fn expect_json(expect: Option<&Expect>) -> Value {
    match expect {
        None => json!({"ok": true}),
        Some(Expect::Ok { output: None }) => json!({"ok": true}),
        Some(Expect::Ok { output: Some(o) }) => json!({"ok": true, "output": o}),
        Some(Expect::Error { code, fields }) => {
            let mut m = Map::new();
            m.insert("code".into(), Value::from(code.clone()));
            m.extend(fields.clone());
            json!({"error": m})
        }
    }
}

/// Judges one reply. `label` names the step in the reason ("step 2 (Edit)").
pub fn check_call(label: &str, expect: Option<&Expect>, reply: &Reply) -> Result<(), Box<Failure>> {
    let fail = |reason: String| Failure {
        reason: format!("{label}: {reason}"),
        expected: Some(expect_json(expect)),
        actual: Some(reply.to_json()),
        diff: None,
    };
    match (expect, reply) {
        (None | Some(Expect::Ok { output: None }), Reply::Ok(_)) => Ok(()),
        (Some(Expect::Ok { output: Some(want) }), Reply::Ok(got)) => {
            let mismatches = subset(want, got);
            if mismatches.is_empty() {
                Ok(())
            } else {
                let mut reason: Vec<String> = mismatches.iter().take(3).map(describe).collect();
                if mismatches.len() > 3 {
                    reason.push(format!("and {} more", mismatches.len() - 3));
                }
                Err(Box::new(fail(format!(
                    "output differs: {}",
                    reason.join("; ")
                ))))
            }
        }
        (None | Some(Expect::Ok { .. }), Reply::Err(e)) => Err(Box::new(fail(format!(
            "expected success, got error {}",
            error_code(e)
        )))),
        (Some(Expect::Error { code, .. }), Reply::Ok(_)) => Err(Box::new(fail(format!(
            "expected error {code}, got success"
        )))),
        (Some(Expect::Error { code, fields }), Reply::Err(e)) => {
            let got = error_code(e);
            if got != *code {
                return Err(Box::new(fail(format!(
                    "expected error {code}, got error {got}"
                ))));
            }
            let mismatches = subset(&Value::Object(fields.clone()), e);
            if mismatches.is_empty() {
                Ok(())
            } else {
                let reason: Vec<String> = mismatches.iter().take(3).map(describe).collect();
                Err(Box::new(fail(format!(
                    "error {code} with other fields: {}",
                    reason.join("; ")
                ))))
            }
        }
    }
}

fn error_code(e: &Value) -> String {
    e.get("code")
        .and_then(Value::as_str)
        .unwrap_or("<no code>")
        .to_string()
}

// ---- bytes -----------------------------------------------------------------------------------

const SHOW: usize = 4096;

/// Bytes as readable text: printable characters as they are, `\n`, `\r`, `\t`, `\\`, other
/// control and invisible characters as `\u{…}`, invalid UTF-8 as `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() || is_invisible(c) => {
                    out.push_str(&format!("\\u{{{:04x}}}", c as u32))
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{feff}' | '\u{200b}'..='\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{00a0}' | '\u{00ad}'
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn truncate(mut s: String, n: usize) -> String {
    if s.len() > n {
        let mut cut = n;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// Bytes for a report: length, escaped text and hex (both cut at 4 KiB).
pub fn bytes_json(bytes: &[u8]) -> Value {
    json!({
        "len": bytes.len(),
        "text": truncate(escape_bytes(bytes), SHOW),
        "hex": truncate(hex(&bytes[..bytes.len().min(SHOW / 3)]), SHOW),
    })
}

/// A unified line diff of two byte strings (lines escaped, so CR and BOMs show), at most
/// 40 lines; `None` when both are empty or identical.
pub fn short_diff(expected: &[u8], actual: &[u8]) -> Option<String> {
    if expected == actual {
        return None;
    }
    let lines = |b: &[u8]| -> Vec<String> {
        b.split_inclusive(|c| *c == b'\n')
            .map(escape_bytes)
            .collect()
    };
    let (e, a) = (lines(expected), lines(actual));
    let e_refs: Vec<&str> = e.iter().map(String::as_str).collect();
    let a_refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let diff = similar::TextDiff::from_slices(&e_refs, &a_refs);
    let mut out = String::from("--- expected\n+++ actual\n");
    for group in diff.grouped_ops(2) {
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                out.push(sign);
                out.push_str(change.value());
                out.push('\n');
            }
        }
    }
    let mut lines: Vec<&str> = out.lines().collect();
    if lines.len() > 42 {
        lines.truncate(42);
        lines.push("…");
    }
    Some(lines.join("\n"))
}

fn actual_json(a: &Actual) -> Value {
    match a {
        Actual::File { bytes, mode } => {
            let mut v = bytes_json(bytes);
            v["mode"] = Value::from(format!("{mode:04o}"));
            v
        }
        Actual::Symlink(t) => json!({"symlink": t.to_string_lossy()}),
        Actual::Dir(m) => json!({"dir": true, "mode": format!("{m:04o}")}),
        Actual::Fifo => json!({"fifo": true}),
        Actual::Other => json!({"special": true}),
        Actual::Absent => json!({"absent": true}),
        Actual::Unreadable(e) => json!({"unreadable": e}),
    }
}

fn known_json(k: &Known) -> Value {
    match k {
        Known::File { bytes, mode } => {
            let mut v = bytes_json(bytes);
            if let Some(m) = mode {
                v["mode"] = Value::from(format!("{m:04o}"));
            }
            v
        }
        Known::Symlink(t) => json!({"symlink": t.to_string_lossy()}),
        Known::Dir(_) => json!({"dir": true}),
        Known::Fifo => json!({"fifo": true}),
        Known::Absent => json!({"absent": true}),
    }
}

fn kind(a: &Actual) -> &'static str {
    match a {
        Actual::File { .. } => "a regular file",
        Actual::Symlink(_) => "a symlink",
        Actual::Dir(_) => "a directory",
        Actual::Fifo => "a FIFO",
        Actual::Other => "a special file",
        Actual::Absent => "absent",
        Actual::Unreadable(_) => "unreadable",
    }
}

fn bytes_failure(path: &str, what: &str, expected: &[u8], actual: &[u8]) -> Failure {
    // Show both sides from a little before the first difference, so the reason line points at it.
    let first = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let start = first.saturating_sub(16);
    let window = |b: &[u8]| {
        let tail = &b[start.min(b.len())..];
        let shown = truncate(escape_bytes(&tail[..tail.len().min(48)]), 80);
        let more = if tail.len() > 48 { "…" } else { "" };
        format!("{}\"{shown}{more}\"", if start > 0 { "…" } else { "" })
    };
    Failure {
        reason: format!(
            "{path}: {what} at byte {first} (expected {}, got {}; {} vs {} bytes)",
            window(expected),
            window(actual),
            expected.len(),
            actual.len()
        ),
        expected: Some(bytes_json(expected)),
        actual: Some(bytes_json(actual)),
        diff: short_diff(expected, actual),
    }
}

/// Compares an entry with what the harness last knew of it.
fn compare_known(path: &str, known: &Known, actual: &Actual) -> Option<Failure> {
    let problem = |what: String| Failure {
        reason: format!("{path}: {what}"),
        expected: Some(known_json(known)),
        actual: Some(actual_json(actual)),
        diff: None,
    };
    match (known, actual) {
        (
            Known::File { bytes, mode },
            Actual::File {
                bytes: got,
                mode: got_mode,
            },
        ) => {
            if bytes != got {
                return Some(bytes_failure(
                    path,
                    "changed although the case did not expect it to",
                    bytes,
                    got,
                ));
            }
            match mode {
                Some(m) if m & 0o7777 != *got_mode => Some(problem(format!(
                    "mode changed from {m:04o} to {got_mode:04o}"
                ))),
                _ => None,
            }
        }
        (Known::Symlink(t), Actual::Symlink(got)) if t == got => None,
        (Known::Symlink(t), Actual::Symlink(got)) => Some(problem(format!(
            "symlink now points to {} instead of {}",
            got.display(),
            t.display()
        ))),
        (Known::Dir(mode), Actual::Dir(got)) => match mode {
            Some(m) if m & 0o7777 != *got => {
                Some(problem(format!("mode changed from {m:04o} to {got:04o}")))
            }
            _ => None,
        },
        (Known::Fifo, Actual::Fifo) | (Known::Absent, Actual::Absent) => None,
        (Known::Absent, a) => Some(problem(format!(
            "was removed by the case but is now {}",
            kind(a)
        ))),
        (k, Actual::Absent) => Some(problem(format!(
            "{} was removed although the case did not expect it to",
            match k {
                Known::Dir(_) => "the directory",
                Known::Symlink(_) => "the symlink",
                _ => "the file",
            }
        ))),
        (k, a) => Some(problem(format!(
            "was {} and is now {}",
            match k {
                Known::File { .. } => "a regular file",
                Known::Symlink(_) => "a symlink",
                Known::Dir(_) => "a directory",
                Known::Fifo => "a FIFO",
                Known::Absent => "absent",
            },
            kind(a)
        ))),
    }
}

/// Checks one `expect_files` entry.
fn check_expect_file(sb: &Sandbox, path: &str, key: &Path, e: &ExpectFile) -> Option<Failure> {
    let abs = sb.root().join(key);
    let here = sandbox::actual_at(&abs);
    let problem = |what: String, expected: Value| Failure {
        reason: format!("{path}: {what}"),
        expected: Some(expected),
        actual: Some(actual_json(&here)),
        diff: None,
    };
    if e.absent {
        return (here != Actual::Absent).then(|| {
            problem(
                format!("must be absent but is {}", kind(&here)),
                json!({"absent": true}),
            )
        });
    }
    if e.unchanged {
        let known = sb.known().get(key).cloned().unwrap_or(Known::Absent);
        if let Some(f) = compare_known(path, &known, &here) {
            return Some(f);
        }
    }
    if e.is_symlink && !matches!(here, Actual::Symlink(_)) {
        return Some(problem(
            format!("must still be a symlink but is {}", kind(&here)),
            json!({"is_symlink": true}),
        ));
    }
    if e.replaced {
        use std::os::unix::fs::MetadataExt;
        let now = fs::metadata(&abs).ok().map(|m| (m.dev(), m.ino()));
        if now.is_some() && now == sb.initial_inode(key) {
            return Some(problem(
                "was rewritten in place (same inode): a writer killed mid-write leaves a half-written file; DISK-1 requires a temp file renamed over the target".into(),
                json!({"replaced": true}),
            ));
        }
    }
    // Everything else is judged on the final target (through symlinks).
    let target = sandbox::actual_at(&fs::canonicalize(&abs).unwrap_or_else(|_| abs.clone()));
    match &e.content {
        None => {}
        Some(Content::Bytes(want)) => match &target {
            Actual::File { bytes, .. } if bytes == want => {}
            Actual::File { bytes, .. } => {
                return Some(bytes_failure(path, "content differs", want, bytes));
            }
            other => {
                return Some(Failure {
                    reason: format!("{path}: expected a regular file, found {}", kind(other)),
                    expected: Some(bytes_json(want)),
                    actual: Some(actual_json(other)),
                    diff: None,
                })
            }
        },
        Some(Content::Symlink(t)) if here != Actual::Symlink(PathBuf::from(t)) => {
            return Some(problem(
                format!("must be a symlink to {t}"),
                json!({"symlink": t}),
            ));
        }
        Some(Content::Hardlink(other)) => {
            let same = sb.abs(other).ok().and_then(|o| {
                let (a, b) = (fs::metadata(&abs).ok()?, fs::metadata(o).ok()?);
                Some(a.dev() == b.dev() && a.ino() == b.ino())
            });
            if same != Some(true) {
                return Some(problem(
                    format!("must be a hard link of {other}"),
                    json!({"hardlink": other}),
                ));
            }
        }
        Some(Content::Dir) if !matches!(target, Actual::Dir(_)) => {
            return Some(problem("must be a directory".into(), json!({"dir": true})));
        }
        Some(Content::Fifo) if target != Actual::Fifo => {
            return Some(problem("must be a FIFO".into(), json!({"fifo": true})));
        }
        Some(Content::Symlink(_) | Content::Dir | Content::Fifo) => {}
    }
    if let Some(mode) = e.mode {
        match fs::metadata(&abs) {
            Ok(m) if m.permissions().mode() & 0o7777 == mode => {}
            Ok(m) => {
                return Some(problem(
                    format!(
                        "mode is {:04o}, expected {mode:04o}",
                        m.permissions().mode() & 0o7777
                    ),
                    json!({"mode": format!("{mode:04o}")}),
                ))
            }
            Err(err) => {
                return Some(problem(
                    format!("cannot read its mode: {err}"),
                    json!({"mode": format!("{mode:04o}")}),
                ))
            }
        }
    }
    None
}

/// Checks the final tree: every `expect_files` entry, every other entry the harness knows
/// (it must be as the harness last knew it), and the residue rule (nothing else may exist,
/// apart from directories leading to expected or known entries, unless `allow_residue`).
///
/// Returns every problem, most important (expectations) first.
pub fn check_tree(case: &Case, sb: &Sandbox) -> Vec<Failure> {
    let mut out = Vec::new();
    let mut listed = BTreeSet::new();
    for (path, e) in &case.expect_files {
        let Ok(key) = sandbox::root_relative(path) else {
            continue;
        };
        if let Some(f) = check_expect_file(sb, path, &key, e) {
            out.push(f);
        }
        listed.insert(key);
    }
    let snapshot = sb.snapshot();
    let mut ancestors = BTreeSet::new();
    for key in listed.iter().chain(
        sb.known()
            .iter()
            .filter(|(_, k)| **k != Known::Absent)
            .map(|(k, _)| k),
    ) {
        let mut p = key.parent();
        while let Some(a) = p {
            if a.as_os_str().is_empty() {
                break;
            }
            ancestors.insert(a.to_path_buf());
            p = a.parent();
        }
    }
    let mut residue = Vec::new();
    for (key, actual) in &snapshot {
        if listed.contains(key) {
            continue;
        }
        let path = case_path(key);
        match sb.known().get(key) {
            Some(known) => {
                if let Some(f) = compare_known(&path, known, actual) {
                    out.push(f);
                }
            }
            None if matches!(actual, Actual::Dir(_)) && ancestors.contains(key) => {}
            None => residue.push((path, actual)),
        }
    }
    for (key, known) in sb.known() {
        if !listed.contains(key) && !snapshot.contains_key(key) && *known != Known::Absent {
            if let Some(f) = compare_known(&case_path(key), known, &Actual::Absent) {
                out.push(f);
            }
        }
    }
    if !case.allow_residue && !residue.is_empty() {
        let names: Vec<String> = residue.iter().map(|(p, _)| p.clone()).collect();
        out.push(Failure {
            reason: format!(
                "residue: {} left behind ({})",
                if names.len() == 1 {
                    "an unexpected entry was".to_string()
                } else {
                    format!("{} unexpected entries were", names.len())
                },
                names.join(", ")
            ),
            expected: Some(json!({"residue": []})),
            actual: Some(Value::Object(
                residue
                    .iter()
                    .map(|(p, a)| (p.clone(), actual_json(a)))
                    .collect(),
            )),
            diff: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{FileForm, Level, Step};

    #[test]
    fn subset_matching_rules() {
        let actual = json!({"type": "text", "file": {"content": "1\ta", "numLines": 1, "extra": true},
                            "edits": [{"a": 1, "b": 2}], "n": 1});
        assert!(subset(&json!({"file": {"numLines": 1}}), &actual).is_empty());
        assert!(
            subset(&json!({"n": 1.0}), &actual).is_empty(),
            "numbers by value"
        );
        assert!(subset(&json!({}), &actual).is_empty());
        // Arrays are compared whole: a partial element object does not match.
        let m = subset(&json!({"edits": [{"a": 1}]}), &actual);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].path, "edits");
        let m = subset(&json!({"file": {"numLines": 2, "startLine": 1}}), &actual);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].path, "file.numLines");
        assert_eq!(m[1].actual, None);
        assert_eq!(subset(&json!([1, 2]), &json!([1, 2])), vec![]);
        assert_eq!(subset(&json!("x"), &json!("y")).len(), 1);
        assert_eq!(subset(&json!(null), &json!(false)).len(), 1);
    }

    #[test]
    fn call_expectations() {
        let ok = Reply::Ok(json!({"replacements": 1}));
        let err =
            Reply::Err(json!({"code": "ambiguous", "message": "m", "count": 2, "lines": [1, 3]}));
        assert!(check_call("s", None, &ok).is_ok());
        assert!(check_call("s", None, &err).is_err());
        let want = Expect::Ok {
            output: Some(json!({"replacements": 2})),
        };
        let f = check_call("step 1 (Edit)", Some(&want), &ok).unwrap_err();
        assert!(
            f.reason.contains("replacements: expected 2, got 1"),
            "{}",
            f.reason
        );
        let code = |c: &str, fields: Value| Expect::Error {
            code: c.into(),
            fields: fields.as_object().cloned().unwrap_or_default(),
        };
        assert!(check_call("s", Some(&code("ambiguous", json!({}))), &err).is_ok());
        assert!(check_call(
            "s",
            Some(&code("ambiguous", json!({"count": 2, "lines": [1, 3]}))),
            &err
        )
        .is_ok());
        assert!(check_call("s", Some(&code("ambiguous", json!({"count": 3}))), &err).is_err());
        assert!(check_call("s", Some(&code("not_found", json!({}))), &err).is_err());
        assert!(check_call("s", Some(&code("not_found", json!({}))), &ok).is_err());
    }

    #[test]
    fn escaping_shows_what_matters() {
        assert_eq!(escape_bytes(b"a\r\nb\t\\"), "a\\r\\nb\\t\\\\");
        assert_eq!(
            escape_bytes(&[0xEF, 0xBB, 0xBF, b'x', 0xFF]),
            "\\u{feff}x\\xFF"
        );
        assert_eq!(escape_bytes("é".as_bytes()), "é");
        let d = short_diff(b"a\nb\n", b"a\r\nb\n").unwrap();
        assert!(d.contains("-a\\n") && d.contains("+a\\r\\n"), "{d}");
    }

    fn case(
        files: Vec<(&str, &[u8])>,
        expect: Vec<(&str, ExpectFile)>,
        allow_residue: bool,
    ) -> Case {
        Case {
            id: "disk/t".into(),
            area: "disk".into(),
            title: "t".into(),
            spec: vec![],
            level: Level::Core,
            requires: vec![],
            tags: vec![],
            since: "0.1.0".into(),
            files: files
                .into_iter()
                .map(|(p, b)| {
                    (
                        p.to_string(),
                        FileForm {
                            content: Content::Bytes(b.to_vec()),
                            mode: None,
                        },
                    )
                })
                .collect(),
            steps: vec![Step::Remove { path: "x".into() }],
            expect_files: expect
                .into_iter()
                .map(|(p, e)| (p.to_string(), e))
                .collect(),
            allow_residue,
            notes: None,
            source: "t".into(),
            sha256: String::new(),
        }
    }

    #[test]
    fn residue_and_unlisted_changes_are_caught() {
        let c = case(
            vec![("a.txt", b"one\n"), ("b.txt", b"two\n"), ("../out", b"o")],
            vec![],
            false,
        );
        let mut sb = Sandbox::new(None).unwrap();
        sb.build(&c.files).unwrap();
        assert_eq!(check_tree(&c, &sb), vec![]);

        // A temp file left behind is residue; a new directory holding it is reported too.
        fs::create_dir(sb.dir().join("tmpdir")).unwrap();
        fs::write(sb.dir().join("tmpdir/.a.txt.tmp"), b"half").unwrap();
        let problems = check_tree(&c, &sb);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].reason.starts_with("residue:"),
            "{}",
            problems[0].reason
        );
        assert!(problems[0].reason.contains("tmpdir/.a.txt.tmp"));
        let tolerant = case(
            vec![("a.txt", b"one\n"), ("b.txt", b"two\n"), ("../out", b"o")],
            vec![],
            true,
        );
        assert_eq!(check_tree(&tolerant, &sb), vec![]);
        fs::remove_dir_all(sb.dir().join("tmpdir")).unwrap();

        // An unlisted file that changed fails, and so does one outside the sandbox.
        fs::write(sb.dir().join("b.txt"), b"TWO\n").unwrap();
        fs::write(sb.root().join("out"), b"p").unwrap();
        let problems = check_tree(&c, &sb);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems
            .iter()
            .any(|p| p.reason.starts_with("b.txt: changed")));
        assert!(problems
            .iter()
            .any(|p| p.reason.starts_with("../out: changed")));
        assert!(problems[0].diff.is_some());

        // A listed file is judged by its expectation only; a created file that is listed is
        // not residue, and neither are the directories leading to it.
        let c2 = case(
            vec![("a.txt", b"one\n"), ("b.txt", b"two\n"), ("../out", b"o")],
            vec![
                (
                    "b.txt",
                    ExpectFile {
                        content: Some(Content::Bytes(b"TWO\n".to_vec())),
                        ..Default::default()
                    },
                ),
                (
                    "../out",
                    ExpectFile {
                        content: Some(Content::Bytes(b"p".to_vec())),
                        ..Default::default()
                    },
                ),
                (
                    "new/dir/c.txt",
                    ExpectFile {
                        content: Some(Content::Bytes(b"c".to_vec())),
                        ..Default::default()
                    },
                ),
                (
                    "a.txt",
                    ExpectFile {
                        unchanged: true,
                        ..Default::default()
                    },
                ),
            ],
            false,
        );
        fs::create_dir_all(sb.dir().join("new/dir")).unwrap();
        fs::write(sb.dir().join("new/dir/c.txt"), b"c").unwrap();
        assert_eq!(check_tree(&c2, &sb), vec![]);

        // A removed known file fails; `absent` and `unchanged` work.
        fs::remove_file(sb.dir().join("a.txt")).unwrap();
        let problems = check_tree(&c2, &sb);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].reason.contains("removed"),
            "{}",
            problems[0].reason
        );
    }
}
