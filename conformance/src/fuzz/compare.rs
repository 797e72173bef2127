//! Comparing two observations of one case — the reference's and the implementation's — and
//! naming the first disagreement in one line a reader can act on.
//!
//! The name (the *kind*) is what findings are grouped by, what the shrinker must keep while it
//! makes a case smaller, and what a known-divergences file matches; so it says what went wrong
//! in general terms ("refused with not_found where the reference succeeds after repairing
//! line_prefix", "line endings differ outside the edit") and leaves the particulars — paths,
//! offsets, bytes — to the detail.

use super::observe::{Answer, Observation};
use crate::check::{comparable, ReadFormat};
use crate::sandbox::Actual;
use serde_json::Value;

/// The first way two observations differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The kind, in general terms (see the module documentation).
    pub kind: String,
    /// The particulars: step, path, what each side did.
    pub detail: String,
}

/// The first disagreement between the reference's observation and the other's, `None` when
/// they agree. `calls` holds the tool and input of each call, in order; `format` is the other
/// side's declared Read format.
pub fn compare(
    reference: &Observation,
    other: &Observation,
    calls: &[(String, Value)],
    format: ReadFormat,
) -> Option<Disagreement> {
    if let Some(e) = &reference.harness_error {
        return Some(Disagreement {
            kind: "the harness could not run the case".into(),
            detail: e.clone(),
        });
    }
    for (i, want) in reference.answers.iter().enumerate() {
        let (tool, input) = calls
            .get(i)
            .map_or(("call", &Value::Null), |(t, v)| (t.as_str(), v));
        let got = other.answers.get(i);
        if let Some(d) = answers(i + 1, (tool, input), want, got, format) {
            return Some(d);
        }
    }
    if let Some(e) = &other.harness_error {
        return Some(Disagreement {
            kind: "the harness could not run the case".into(),
            detail: e.clone(),
        });
    }
    tree(reference, other)
}

/// The repairs the reference made for a successful edit, for the kind of a refusal: those it
/// reports, and `quotes` when it found the text through the curly-quote fallback (MATCH-2:
/// the text it replaced has curly quotes the request did not).
pub fn repairs(output: &Value, input: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut take = |v: Option<&Value>| {
        for r in v.and_then(Value::as_array).into_iter().flatten() {
            if let Some(s) = r.as_str() {
                if !out.iter().any(|o| o == s) {
                    out.push(s.to_string());
                }
            }
        }
    };
    take(output.get("repairs"));
    for e in output
        .get("edits")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        take(e.get("repairs"));
    }
    let curly = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|s| s.contains(['\u{201C}', '\u{201D}', '\u{2018}', '\u{2019}']))
    };
    let mut pairs: Vec<(Option<&Value>, Option<&Value>)> =
        vec![(output.get("oldString"), input.get("old_string"))];
    if let (Some(Value::Array(done)), Some(Value::Array(asked))) =
        (output.get("edits"), input.get("edits"))
    {
        pairs.extend(
            done.iter()
                .zip(asked)
                .map(|(d, a)| (d.get("oldString"), a.get("old_string"))),
        );
    }
    if pairs
        .iter()
        .any(|(found, asked)| curly(*found) && !curly(*asked))
    {
        out.push("quotes".into());
    }
    out
}

/// Compares one call's answers.
fn answers(
    n: usize,
    (tool, input): (&str, &Value),
    want: &Answer,
    got: Option<&Answer>,
    format: ReadFormat,
) -> Option<Disagreement> {
    let at = format!("call {n} ({tool})");
    let d = |kind: String, detail: String| Some(Disagreement { kind, detail });
    match (want, got) {
        (Answer::Crashed(m), _) => d(
            "the reference crashed".into(),
            format!("{at}: {m} (a bug of the reference)"),
        ),
        (Answer::TimedOut(m), _) => d(
            "the reference timed out".into(),
            format!("{at}: {m} (a bug of the reference)"),
        ),
        (_, None) => d(
            format!("{tool}: no answer"),
            format!("{at}: the implementation stopped answering"),
        ),
        (_, Some(Answer::Crashed(m))) => d(format!("{tool}: crashed"), format!("{at}: {m}")),
        (_, Some(Answer::TimedOut(m))) => d(format!("{tool}: timed out"), format!("{at}: {m}")),
        (Answer::Ok(out), Some(Answer::Err { code })) => {
            let fixed = repairs(out, input);
            let after = if fixed.is_empty() {
                String::new()
            } else {
                format!(" after repairing {}", fixed.join(", "))
            };
            d(
                format!("{tool}: refused ({code}) where the reference succeeds{after}"),
                format!("{at}: the implementation refused with {code}"),
            )
        }
        (Answer::Err { code }, Some(Answer::Ok(_))) => d(
            format!("{tool}: accepted where the reference refuses ({code})"),
            format!("{at}: the reference refuses with {code}, the implementation succeeded"),
        ),
        (Answer::Err { code: a }, Some(Answer::Err { code: b })) if a != b => d(
            format!("{tool}: refused with {b} where the reference refuses with {a}"),
            format!("{at}: codes differ"),
        ),
        (Answer::Ok(a), Some(Answer::Ok(b))) if tool == "Read" => {
            let (a, b) = comparable(a, b, Some("file"), format);
            let ca = a.pointer("/file/content");
            let cb = b.pointer("/file/content");
            let unchanged = |v: &Value| v.get("type") == Some(&Value::from("file_unchanged"));
            let kind = match (ca, cb) {
                (None, Some(_)) if unchanged(&a) => {
                    "Read: shows the file again where the reference answers file_unchanged"
                }
                (Some(_), None) if unchanged(&b) => {
                    "Read: answers file_unchanged where the reference shows the file"
                }
                _ => "Read: shows other content",
            };
            (ca != cb).then(|| Disagreement {
                kind: kind.into(),
                detail: format!(
                    "{at}: the reference shows {}, the implementation {}",
                    shown(&a),
                    shown(&b)
                ),
            })
        }
        _ => None,
    }
}

/// What a Read output shows: its content, or its type when it has none (a Read of a file
/// unchanged since the last one answers `file_unchanged`, READ-4).
fn shown(output: &Value) -> String {
    match output.pointer("/file/content") {
        Some(c) => c.to_string(),
        None => format!(
            "no content (type {})",
            output.get("type").map_or("none".into(), Value::to_string)
        ),
    }
}

/// Compares the final trees.
fn tree(reference: &Observation, other: &Observation) -> Option<Disagreement> {
    let keys: std::collections::BTreeSet<&String> =
        reference.after.keys().chain(other.after.keys()).collect();
    for key in keys {
        let want = reference.after.get(key).unwrap_or(&Actual::Absent);
        let got = other.after.get(key).unwrap_or(&Actual::Absent);
        if want == got {
            continue;
        }
        let path = key.strip_prefix("sandbox/").unwrap_or(key);
        let before = match reference.before.get(key) {
            Some(Actual::File { bytes, .. }) => Some(bytes.as_slice()),
            _ => None,
        };
        let kind = match (want, got) {
            (Actual::File { bytes: a, mode: ma }, Actual::File { bytes: b, mode: mb }) => {
                if a == b {
                    return Some(Disagreement {
                        kind: "the file's mode differs".into(),
                        detail: format!("{path}: mode {ma:o} expected, {mb:o} found"),
                    });
                } else {
                    bytes_kind(before, a, b).to_string()
                }
            }
            (Actual::Absent, _) => "an entry the reference does not leave is left".into(),
            (_, Actual::Absent) => "an entry the reference leaves is missing".into(),
            (Actual::Symlink(_), Actual::File { .. }) => "a symlink was replaced by a file".into(),
            (Actual::Symlink(a), Actual::Symlink(b)) if a != b => {
                "a symlink points elsewhere".into()
            }
            _ => "an entry is of another type".into(),
        };
        return Some(Disagreement {
            kind,
            detail: format!("{path}: {}", entry_pair(want, got)),
        });
    }
    None
}

/// The two entries, shortly, for a detail line.
fn entry_pair(want: &Actual, got: &Actual) -> String {
    let show = |a: &Actual| match a {
        Actual::File { bytes, .. } => crate::check::escape_bytes(&bytes[..bytes.len().min(160)]),
        other => format!("{other:?}"),
    };
    format!(
        "the reference leaves {}, the implementation {}",
        show(want),
        show(got)
    )
}

/// The UTF-8 BOM.
const BOM8: &[u8] = b"\xEF\xBB\xBF";

/// Why two files' bytes differ, in general terms. `before` is the file before the case.
pub fn bytes_kind(before: Option<&[u8]>, want: &[u8], got: &[u8]) -> &'static str {
    if before == Some(got) {
        return "bytes: the file is unchanged where the reference changed it";
    }
    if before == Some(want) {
        return "bytes: the file is changed where the reference leaves it as it was";
    }
    let utf16 = |b: &[u8]| b.starts_with(b"\xFF\xFE") || b.starts_with(b"\xFE\xFF");
    if utf16(want) && !utf16(got) {
        return "bytes: a UTF-16 file is no longer UTF-16";
    }
    if want.starts_with(BOM8) && !got.starts_with(BOM8) {
        return if want[3..] == *got {
            "bytes: the UTF-8 BOM was dropped"
        } else {
            "bytes: the UTF-8 BOM was dropped (and more differs)"
        };
    }
    if !want.starts_with(BOM8) && got.starts_with(BOM8) {
        return "bytes: a BOM was added";
    }
    if std::str::from_utf8(want).is_err() && std::str::from_utf8(got).is_ok() {
        return "bytes: a legacy-encoded file was re-encoded as UTF-8";
    }
    let lf = |b: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                i += 1;
                continue;
            }
            out.push(b[i]);
            i += 1;
        }
        out
    };
    if lf(want) == lf(got) {
        return if outside_edit(before, want, got) {
            "bytes: line endings differ outside the edit"
        } else {
            "bytes: line endings of the new text differ"
        };
    }
    let trim = |b: &[u8]| -> Vec<u8> {
        let mut v = b.to_vec();
        while matches!(v.last(), Some(b'\n' | b'\r')) {
            v.pop();
        }
        v
    };
    if trim(want) == trim(got) {
        return "bytes: the final line break differs";
    }
    if one_break_more(want, got) {
        return "bytes: a line break the reference deletes with the text before it is kept";
    }
    if one_break_more(got, want) {
        return "bytes: a line break is deleted where the reference keeps it";
    }
    let folded = |b: &[u8]| -> String {
        String::from_utf8_lossy(b)
            .chars()
            .map(|c| match c {
                '\u{201C}' | '\u{201D}' => '"',
                '\u{2018}' | '\u{2019}' => '\'',
                c => c,
            })
            .collect()
    };
    if folded(want) == folded(got) {
        return "bytes: quotes differ";
    }
    let squeezed = |b: &[u8]| -> Vec<u8> {
        b.iter()
            .copied()
            .filter(|c| !matches!(c, b' ' | b'\t'))
            .collect()
    };
    if squeezed(want) == squeezed(got) {
        return "bytes: whitespace differs";
    }
    if outside_edit(before, want, got) {
        "bytes: the file differs outside the edit"
    } else {
        "bytes: the edited text differs"
    }
}

/// Whether `longer` is `shorter` with one line break (`\n` or `\r\n`) put in where they first
/// differ — the shape of a deletion that did or did not take its line break along (EDIT-2).
fn one_break_more(shorter: &[u8], longer: &[u8]) -> bool {
    let p = shorter
        .iter()
        .zip(longer)
        .take_while(|(a, b)| a == b)
        .count();
    let rest = &longer[p..];
    [&b"\n"[..], &b"\r\n"[..]]
        .iter()
        .any(|brk| rest.starts_with(brk) && rest[brk.len()..] == shorter[p..])
}

/// Whether every byte where `got` departs from `want` lies outside the range the reference
/// changed (`before` → `want`); a new file has no outside.
fn outside_edit(before: Option<&[u8]>, want: &[u8], got: &[u8]) -> bool {
    let Some(before) = before else { return false };
    let (p1, s1) = common_ends(before, want);
    let (p2, s2) = common_ends(want, got);
    let edit = (p1, want.len() - s1);
    let diff = (p2, want.len().saturating_sub(s2).max(p2));
    // Touching counts as inside: a deletion is an empty range, and what happens right at its
    // edges (the line break after it, EDIT-2) belongs to the edit.
    diff.1 < edit.0 || diff.0 > edit.1
}

/// The lengths of the common prefix and of the common suffix (not overlapping it).
fn common_ends(a: &[u8], b: &[u8]) -> (usize, usize) {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max = a.len().min(b.len()) - p;
    let s = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max)
        .take_while(|(x, y)| x == y)
        .count();
    (p, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_told_apart_by_what_changed() {
        let before = b"one\r\ntwo\r\nthree\r\n".as_slice();
        let want = b"one\r\nTWO\r\nthree\r\n".as_slice();
        assert_eq!(
            bytes_kind(Some(before), want, b"one\nTWO\r\nthree\r\n"),
            "bytes: line endings differ outside the edit"
        );
        assert_eq!(
            bytes_kind(
                Some(before),
                b"one\r\nTWO\r\nMORE\r\nthree\r\n",
                b"one\r\nTWO\nMORE\r\nthree\r\n"
            ),
            "bytes: line endings of the new text differ"
        );
        assert_eq!(
            bytes_kind(Some(before), want, before),
            "bytes: the file is unchanged where the reference changed it"
        );
        assert_eq!(
            bytes_kind(Some(before), want, b"one\r\nTWO\r\nthree"),
            "bytes: the final line break differs"
        );
        assert_eq!(
            bytes_kind(Some(before), want, b"ONE\r\nTWO\r\nthree\r\n"),
            "bytes: the file differs outside the edit"
        );
        assert_eq!(
            bytes_kind(Some(before), want, b"one\r\nTW0\r\nthree\r\n"),
            "bytes: the edited text differs"
        );
        assert_eq!(
            bytes_kind(Some(b"ame>\n<fu\n"), b"ame<fu\n", b"ame\n<fu\n"),
            "bytes: a line break the reference deletes with the text before it is kept"
        );
        assert_eq!(
            bytes_kind(Some(b"ab\r\ncd\r\n"), b"a\r\ncd\r\n", b"acd\r\n"),
            "bytes: a line break is deleted where the reference keeps it"
        );
        assert_eq!(
            bytes_kind(Some(b"\xEF\xBB\xBFa\n"), b"\xEF\xBB\xBFb\n", b"b\n"),
            "bytes: the UTF-8 BOM was dropped"
        );
        assert_eq!(
            bytes_kind(Some(b"\xFF\xFEa\x00"), b"\xFF\xFEb\x00", b"b"),
            "bytes: a UTF-16 file is no longer UTF-16"
        );
        assert_eq!(
            bytes_kind(Some(b"caf\xE9\n"), b"caf\xE9!\n", "café!\n".as_bytes()),
            "bytes: a legacy-encoded file was re-encoded as UTF-8"
        );
    }

    fn obs(answers: Vec<Answer>) -> Observation {
        Observation {
            answers,
            ..Observation::default()
        }
    }

    #[test]
    fn answers_are_told_apart_by_code_and_repair() {
        let tools = vec![
            ("Read".to_string(), Value::Null),
            ("Edit".to_string(), Value::Null),
        ];
        let read = Answer::Ok(serde_json::json!({"file": {"content": "1\ta"}}));
        let repaired = Answer::Ok(serde_json::json!({"repairs": ["line_prefix"]}));
        let refused = Answer::Err {
            code: "not_found".into(),
        };
        let d = compare(
            &obs(vec![read.clone(), repaired]),
            &obs(vec![read.clone(), refused.clone()]),
            &tools,
            ReadFormat::Tab,
        )
        .unwrap();
        assert_eq!(
            d.kind,
            "Edit: refused (not_found) where the reference succeeds after repairing line_prefix"
        );
        let d = compare(
            &obs(vec![read.clone(), refused.clone()]),
            &obs(vec![read.clone(), Answer::Ok(serde_json::json!({}))]),
            &tools,
            ReadFormat::Tab,
        )
        .unwrap();
        assert_eq!(
            d.kind,
            "Edit: accepted where the reference refuses (not_found)"
        );
        // A Read in the plain form agrees with the spec's numbered form.
        let plain = Answer::Ok(serde_json::json!({"file": {"content": "a"}}));
        let same = compare(
            &obs(vec![read.clone(), refused.clone()]),
            &obs(vec![plain.clone(), refused.clone()]),
            &tools,
            ReadFormat::Plain,
        );
        assert_eq!(same, None);
        let d = compare(
            &obs(vec![read, refused.clone()]),
            &obs(vec![plain, refused]),
            &tools,
            ReadFormat::Tab,
        )
        .unwrap();
        assert_eq!(d.kind, "Read: shows other content");
    }
}
