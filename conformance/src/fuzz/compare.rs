//! Comparing two observations of one case — the reference's and the implementation's — and
//! naming every disagreement in one line a reader can act on.
//!
//! The name (the *kind*) is what findings are grouped by, what the shrinker must keep while it
//! makes a case smaller, and what a known-divergences file matches; so it says what went wrong
//! in general terms ("refused with not_found where the reference succeeds after repairing
//! line_prefix", "line endings differ outside the edit") and leaves the particulars — paths,
//! offsets, bytes — to the detail. Each disagreement also carries the class the corpus harness
//! gives the same difference (data, contract, presentation; [`crate::class`]).
//!
//! Every disagreement of a case is listed, in the order of the steps: each call's answer, then
//! the tree after that step. Once the two sides' states have parted — one succeeded where the
//! other refused, or the files differ — what follows may only be a consequence (an edit that
//! finds no text because an earlier one was not made), so later disagreements are marked
//! [`Disagreement::follows`]. Disagreements before that point are each a finding of their own:
//! a Read that shows other content does not hide an edit that corrupts bytes after it.

use super::bytes;
use super::observe::{Answer, Observation};
use crate::check::{comparable, subset, ReadFormat};
use crate::class::{self, Class};
use serde_json::{Map, Value};

/// One way two observations differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The kind, in general terms (see the module documentation).
    pub kind: String,
    /// The particulars: step, path, what each side did.
    pub detail: String,
    /// The class of the promise it breaks, as the corpus harness classes the same difference.
    pub class: Class,
    /// The call it is about (counting from 1); `None` for the tree or the harness.
    pub call: Option<usize>,
    /// The step it shows at (counting from 0): the call, or the step after which the trees
    /// differ; `None` for the harness.
    pub step: Option<usize>,
    /// What a written finding adds to the call's expected output so that it checks this too:
    /// a field's dotted path and the expectation there (for a misfit of the result's shape).
    pub expect: Option<(String, Value)>,
    /// It comes after the two sides' states parted, so it may be a consequence of that.
    pub follows: bool,
}

/// One step of a case as the comparison sees it: a call's tool and input, or `None` for a
/// harness action.
pub type StepCall = Option<(String, Value)>;

/// Every disagreement between the reference's observation and the other's, in step order
/// (empty when they agree). `steps` holds each step of the case; `format` is the other side's
/// declared Read format, `features` what it declares: as in a corpus run, the fields of a
/// result other than a Read's are compared only for a tool that declares them
/// ([`class::judged_leaf`]), and a refusal where the reference succeeds is capability.
pub fn compare(
    reference: &Observation,
    other: &Observation,
    steps: &[StepCall],
    format: ReadFormat,
    features: &[String],
) -> Vec<Disagreement> {
    let harness = |e: &String, follows: bool| Disagreement {
        kind: "the harness could not run the case".into(),
        detail: e.clone(),
        class: Class::Data,
        call: None,
        step: None,
        follows,
        expect: None,
    };
    if let Some(e) = &reference.harness_error {
        return vec![harness(e, false)];
    }
    let mut out = Vec::new();
    let mut parted = false;
    let mut trees_parted = false;
    let mut n = 0;
    for (si, step) in steps.iter().enumerate() {
        if let Some((tool, input)) = step {
            let Some(want) = reference.answers.get(n) else {
                break;
            };
            n += 1;
            let call = Call {
                n,
                tool,
                input,
                format,
                features,
            };
            let verdict = answers(&call, want, other.answers.get(n - 1));
            out.extend(verdict.found.into_iter().map(|mut d| {
                d.follows = parted;
                d.step = Some(si);
                d
            }));
            parted |= verdict.parts;
            if verdict.stop {
                return out;
            }
        }
        if trees_parted {
            continue;
        }
        let before = match si {
            0 => Some(&reference.before),
            _ => reference.trees.get(si - 1),
        };
        if let (Some(before), Some(want), Some(got)) =
            (before, reference.trees.get(si), other.trees.get(si))
        {
            let diffs = bytes::tree(before, want, got);
            trees_parted = !diffs.is_empty();
            out.extend(diffs.into_iter().map(|e| Disagreement {
                kind: e.kind,
                detail: format!("after step {}: {}", si + 1, e.detail),
                class: Class::Data,
                call: None,
                step: Some(si),
                follows: parted,
                expect: None,
            }));
            parted |= trees_parted;
        }
    }
    if let Some(e) = &other.harness_error {
        out.push(harness(e, parted));
    }
    out
}

/// One call, as the comparison of its answers needs it.
struct Call<'a> {
    /// Its number, counting from 1.
    n: usize,
    tool: &'a str,
    input: &'a Value,
    format: ReadFormat,
    /// What the implementation declares.
    features: &'a [String],
}

impl Call<'_> {
    /// How kinds name the call: the tool, or the text editor's command.
    fn label(&self) -> String {
        label(self.tool, self.input)
    }

    /// The call as a detail begins.
    fn at(&self) -> String {
        format!("call {} ({})", self.n, self.label())
    }
}

/// How kinds name a call of `tool` with `input`: the tool, or `text editor <command>`.
pub fn label(tool: &str, input: &Value) -> String {
    if tool.starts_with("str_replace_") {
        let command = input.get("command").and_then(Value::as_str).unwrap_or("?");
        format!("text editor {command}")
    } else {
        tool.to_string()
    }
}

/// What comparing one call's answers found.
struct Verdict {
    /// The disagreements.
    found: Vec<Disagreement>,
    /// The two sides' states part here.
    parts: bool,
    /// Nothing after this call can be compared (a side broke).
    stop: bool,
}

/// Compares one call's answers.
fn answers(call: &Call<'_>, want: &Answer, got: Option<&Answer>) -> Verdict {
    let (at, name) = (call.at(), call.label());
    let one = |kind: String, detail: String, class: Class, parts: bool, stop: bool| Verdict {
        found: vec![Disagreement {
            kind,
            detail,
            class,
            call: Some(call.n),
            step: None,
            follows: false,
            expect: None,
        }],
        parts,
        stop,
    };
    let contract = Class::Contract;
    match (want, got) {
        (Answer::Crashed(m), _) => one(
            "the reference crashed".into(),
            format!("{at}: {m} (a bug of the reference)"),
            contract,
            true,
            true,
        ),
        (Answer::TimedOut(m), _) => one(
            "the reference timed out".into(),
            format!("{at}: {m} (a bug of the reference)"),
            contract,
            true,
            true,
        ),
        (_, None) => one(
            format!("{name}: no answer"),
            format!("{at}: the implementation stopped answering"),
            contract,
            true,
            true,
        ),
        (_, Some(Answer::Crashed(m))) => one(
            format!("{name}: crashed"),
            format!("{at}: {m}"),
            contract,
            true,
            true,
        ),
        (_, Some(Answer::TimedOut(m))) => one(
            format!("{name}: timed out"),
            format!("{at}: {m}"),
            contract,
            true,
            true,
        ),
        (Answer::Ok(out), Some(Answer::Err { code })) => {
            let fixed = repairs(out, call.input);
            let after = if fixed.is_empty() {
                String::new()
            } else {
                format!(" after repairing {}", fixed.join(", "))
            };
            one(
                format!("{name}: refused ({code}) where the reference succeeds{after}"),
                format!("{at}: the implementation refused with {code}"),
                Class::Capability,
                true,
                false,
            )
        }
        (Answer::Err { code }, Some(Answer::Ok(_))) => one(
            format!("{name}: accepted where the reference refuses ({code})"),
            format!("{at}: the reference refuses with {code}, the implementation succeeded"),
            contract,
            true,
            false,
        ),
        (Answer::Err { code: a }, Some(Answer::Err { code: b })) if a != b => one(
            format!("{name}: refused with {b} where the reference refuses with {a}"),
            format!("{at}: codes differ"),
            contract,
            false,
            false,
        ),
        (Answer::Ok(a), Some(Answer::Ok(b))) => Verdict {
            found: outputs(call, a, b),
            parts: false,
            stop: false,
        },
        _ => Verdict {
            found: Vec::new(),
            parts: false,
            stop: false,
        },
    }
}

/// The parts of a successful call's output that a finding expects, from the reference's
/// output: what the corpus compares for that tool. A Read (or a text editor `view`) shows its
/// content, or its type when it has none (`file_unchanged`, READ-4); Edit its `oldString`,
/// `newString`, `replacements` and `repairs` (EDIT-5); MultiEdit its `edits` and `repairs`
/// (MULTI-5, D22); Write its `type`; NotebookEdit the cell it names and what it did (§13.1),
/// a Read of a notebook its `cells`; LineEdit and the text editor's `insert` the lines they
/// replaced (LINES-6), and `str_replace` Edit's fields, under `result`. The patch formats
/// answer per file with patches and diffs, whose bytes the tree already compares: `None`.
pub fn expected_output(tool: &str, input: &Value, out: &Value) -> Option<Value> {
    let pick = |from: &Value, keys: &[&str]| -> Value {
        let mut m = Map::new();
        for k in keys {
            if let Some(v) = from.get(*k) {
                m.insert((*k).to_string(), v.clone());
            }
        }
        Value::Object(m)
    };
    let under_result = |v: Value| {
        let mut m = Map::new();
        m.insert("result".into(), v);
        Value::Object(m)
    };
    if let Some(file) = class::read_file_path(tool, input) {
        let (outer, inner) = file.rsplit_once('.').map_or(("", file), |(o, i)| (o, i));
        let shown = if outer.is_empty() {
            out
        } else {
            out.get(outer)?
        };
        let v = match shown.pointer(&format!("/{inner}/content")) {
            Some(c) => {
                let mut f = Map::new();
                f.insert("content".into(), c.clone());
                let mut m = Map::new();
                m.insert(inner.to_string(), Value::Object(f));
                Value::Object(m)
            }
            // No text: a Read of an unchanged file (its type), or of a notebook (its cells).
            None => pick(shown, &["type", "cells"]),
        };
        return Some(if outer.is_empty() { v } else { under_result(v) });
    }
    let command = input.get("command").and_then(Value::as_str);
    let edit = ["oldString", "newString", "replacements", "repairs"];
    let lines = ["startLine", "endLine", "oldText"];
    Some(match (tool, command) {
        ("Edit", _) => pick(out, &edit),
        ("MultiEdit", _) => pick(out, &["edits", "repairs"]),
        ("Write", _) => pick(out, &["type"]),
        ("LineEdit", _) => pick(out, &lines),
        ("NotebookEdit", _) => pick(out, &["cell_id", "cell_type", "edit_mode", "new_source"]),
        (t, Some("str_replace")) if t.starts_with("str_replace_") => {
            under_result(pick(out.get("result")?, &edit))
        }
        (t, Some("insert")) if t.starts_with("str_replace_") => {
            under_result(pick(out.get("result")?, &lines))
        }
        _ => return None,
    })
}

/// Compares two successful outputs: by what [`expected_output`] takes from the reference's,
/// and the implementation's by the result shape the protocol defines ([`super::shape`]).
fn outputs(call: &Call<'_>, want: &Value, got: &Value) -> Vec<Disagreement> {
    let (mut out, covered) = values(call, want, got);
    if !class::judged_leaf(call.tool, call.input, "", call.features) {
        // Beyond the outcome, nothing of this result is judged for this tool.
        return out;
    }
    let name = call.label();
    out.extend(
        super::shape::reported(&name, call.tool, call.input, want, got, &covered)
            .into_iter()
            .map(|r| Disagreement {
                kind: r.kind,
                detail: format!("{}: {}", call.at(), r.detail),
                class: r.class,
                call: Some(call.n),
                step: None,
                follows: false,
                expect: Some(r.expect),
            }),
    );
    out
}

/// Compares the fields [`expected_output`] takes from the reference's output; the
/// disagreements and the paths of the fields that differ.
fn values(call: &Call<'_>, want: &Value, got: &Value) -> (Vec<Disagreement>, Vec<String>) {
    let Some(expected) = expected_output(call.tool, call.input, want) else {
        return (Vec::new(), Vec::new());
    };
    let file = class::read_file_path(call.tool, call.input);
    let (expected, got) = comparable(&expected, got, file, call.format);
    let mismatches: Vec<_> = subset(&expected, &got)
        .into_iter()
        .filter(|m| class::judged_leaf(call.tool, call.input, &m.path, call.features))
        .collect();
    let covered: Vec<String> = mismatches.iter().map(|m| m.path.clone()).collect();
    (
        values_found(call, &expected, &got, file, &mismatches),
        covered,
    )
}

/// The disagreements of [`values`].
fn values_found(
    call: &Call<'_>,
    expected: &Value,
    got: &Value,
    file: Option<&str>,
    mismatches: &[crate::check::Mismatch],
) -> Vec<Disagreement> {
    if mismatches.is_empty() {
        return Vec::new();
    }
    let class_of = |path: &str, expected: &Value| {
        class::of_output_mismatch(call.tool, call.input, path, expected)
            .into_iter()
            .min()
            .unwrap_or(Class::Contract)
    };
    let d = |kind: String, detail: String, class: Class| Disagreement {
        kind,
        detail,
        class,
        call: Some(call.n),
        step: None,
        follows: false,
        expect: None,
    };
    let name = call.label();
    if let Some(file) = file {
        let class = mismatches
            .iter()
            .map(|m| class_of(&m.path, &m.expected))
            .min()
            .unwrap_or(Class::Presentation);
        let kind = read_kind(expected, got, file);
        return vec![d(
            format!("{name}: {kind}"),
            format!(
                "{}: the reference shows {}, the implementation {}",
                call.at(),
                shown(expected, file),
                shown(got, file)
            ),
            class,
        )];
    }
    let mut out = Vec::new();
    let missing: Vec<&str> = mismatches
        .iter()
        .filter(|m| m.actual.is_none())
        .map(|m| m.path.as_str())
        .collect();
    if !missing.is_empty() {
        let class = mismatches
            .iter()
            .filter(|m| m.actual.is_none())
            .map(|m| class_of(&m.path, &m.expected))
            .min()
            .unwrap_or(Class::Contract);
        out.push(d(
            format!("{name}: the result lacks {}", missing.join(", ")),
            format!(
                "{}: the implementation's result has no {}",
                call.at(),
                missing.join(", ")
            ),
            class,
        ));
    }
    for m in mismatches.iter().filter(|m| m.actual.is_some()) {
        let got = m.actual.as_ref().map_or(String::new(), Value::to_string);
        out.push(d(
            format!("{name}: result field {} differs", m.path),
            format!(
                "{}: {} is {} where the reference says {}",
                call.at(),
                m.path,
                cut(&got),
                cut(&m.expected.to_string())
            ),
            class_of(&m.path, &m.expected),
        ));
    }
    out
}

/// A JSON text cut to 120 characters, for a detail line.
fn cut(s: &str) -> String {
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}

/// How a Read's answer differs, `file` being where its file object sits.
fn read_kind(want: &Value, got: &Value, file: &str) -> String {
    let (outer, inner) = file.rsplit_once('.').map_or(("", file), |(o, i)| (o, i));
    let at = |v: &Value| -> Value {
        if outer.is_empty() {
            v.clone()
        } else {
            v.get(outer).cloned().unwrap_or(Value::Null)
        }
    };
    let (a, b) = (at(want), at(got));
    let content = |v: &Value| v.pointer(&format!("/{inner}/content")).cloned();
    let unchanged = |v: &Value| v.get("type") == Some(&Value::from("file_unchanged"));
    match (content(&a), content(&b)) {
        (None, Some(_)) if unchanged(&a) => {
            "shows the file again where the reference answers file_unchanged".into()
        }
        (Some(_), None) if unchanged(&b) => {
            "answers file_unchanged where the reference shows the file".into()
        }
        (Some(Value::String(x)), Some(Value::String(y))) if long_lines_cut(&x, &y) => format!(
            "cuts lines longer than {} characters",
            super::parts::LONG_LINE
        ),
        _ => "shows other content".into(),
    }
}

/// Whether the two contents differ only in lines of the reference's that are longer than
/// [`super::parts::LONG_LINE`] characters, each shown shorter by the other side — by more than
/// its carriage returns, whose loss is a line-ending difference, not a cut.
fn long_lines_cut(want: &str, got: &str) -> bool {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.split('\n').collect(), got.split('\n').collect());
    let long = super::parts::LONG_LINE;
    let mut any = false;
    for (a, b) in w.iter().zip(&g) {
        if a == b {
            continue;
        }
        let no_cr = |s: &str| s.replace('\r', "");
        if a.chars().count() <= long
            || b.chars().count() >= a.chars().count()
            || no_cr(a) == no_cr(b)
        {
            return false;
        }
        any = true;
    }
    any && w.len() == g.len()
}

/// What a Read output shows: its content, or its type when it has none (a Read of a file
/// unchanged since the last one answers `file_unchanged`, READ-4).
fn shown(output: &Value, file: &str) -> String {
    let (outer, inner) = file.rsplit_once('.').map_or(("", file), |(o, i)| (o, i));
    let v = if outer.is_empty() {
        Some(output)
    } else {
        output.get(outer)
    };
    let v = v.unwrap_or(&Value::Null);
    match v.pointer(&format!("/{inner}/content")) {
        Some(c) => cut(&c.to_string()),
        None => format!(
            "no content (type {})",
            v.get("type").map_or("none".into(), Value::to_string)
        ),
    }
}

/// The repairs the reference made for a successful edit, for the kind of a refusal: those it
/// reports, and `quotes` when it found the text through the curly-quote fallback (MATCH-2:
/// the text it replaced has curly quotes the request did not).
pub fn repairs(output: &Value, input: &Value) -> Vec<String> {
    // The text editor answers Edit's output under `result`, and names its text `old_str`.
    let output = output.get("result").unwrap_or(output);
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
    let asked = input.get("old_string").or_else(|| input.get("old_str"));
    let mut pairs: Vec<(Option<&Value>, Option<&Value>)> = vec![(output.get("oldString"), asked)];
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

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
