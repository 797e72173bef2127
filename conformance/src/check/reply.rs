//! Judging a reply: a call's result against the `expect` of its step, by the corpus's subset
//! rule.
//!
//! A case lists only the parts of a reply that the spec fixes, so an implementation may add
//! fields of its own; the subset rule ([`subset`]) says how far that freedom goes (extra object
//! keys yes, partial arrays no, numbers by value). It is a rule of the corpus, not of JSON,
//! which is why it lives apart from the file checks and is tested on its own.

use super::forms;
use super::read_form::{comparable, ReadFormat};
use super::Failure;
use crate::adapter::Reply;
use crate::case::Expect;
use crate::class::{self, Class};
use crate::codes;
use serde_json::{json, Map, Value};

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
/// keys are fine); arrays must be equal as a whole; scalars must be equal. Three forms are not
/// compared by equality: an object whose only key is `contains`, holding a string, matches an
/// actual *string* that contains that text (`contains_text`) — for a field whose wording is
/// free but which must name something, such as what a malformed patch lacked; `{absent: true}`
/// matches only a key that is not there, and `{shape: TYPE}` any value of that JSON type
/// ([`super::forms`]). Returns every mismatch (empty when `actual` contains `expected`).
pub fn subset(expected: &Value, actual: &Value) -> Vec<Mismatch> {
    let mut out = Vec::new();
    subset_at(expected, actual, String::new(), &mut out);
    out
}

/// [`subset`] below `path`, collecting into `out`.
fn subset_at(expected: &Value, actual: &Value, path: String, out: &mut Vec<Mismatch>) {
    let here = |path: String| if path.is_empty() { ".".into() } else { path };
    if forms::absent(expected) {
        // Reached only when the key is there (an absent key is judged by its parent).
        out.push(Mismatch {
            path: here(path),
            expected: expected.clone(),
            actual: Some(actual.clone()),
        });
        return;
    }
    if let Some(types) = forms::shape(expected) {
        if !forms::fits(&types, actual) {
            out.push(Mismatch {
                path: here(path),
                expected: expected.clone(),
                actual: Some(actual.clone()),
            });
        }
        return;
    }
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
                    None if forms::absent(ev) => {}
                    None => out.push(Mismatch {
                        path: p,
                        expected: ev.clone(),
                        actual: None,
                    }),
                }
            }
        }
        (Value::Object(e), Value::String(a)) if contains_text(e).is_some() => {
            if !a.contains(contains_text(e).unwrap_or_default()) {
                out.push(Mismatch {
                    path: if path.is_empty() { ".".into() } else { path },
                    expected: expected.clone(),
                    actual: Some(actual.clone()),
                });
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

/// The text of a `{contains: TEXT}` expectation, `None` for any other object. Only meaningful
/// against a string: compared with an object, the expectation is an ordinary one whose key
/// happens to be `contains`.
fn contains_text(expected: &Map<String, Value>) -> Option<&str> {
    match (expected.len(), expected.get("contains")) {
        (1, Some(Value::String(t))) => Some(t),
        _ => None,
    }
}

/// One mismatch as a line of a reason, values cut at 80 characters.
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

/// One call as its reply is judged: what was called, what the case expects of it, and what the
/// tool declared about itself.
#[derive(Debug, Clone, Copy)]
pub struct CallCheck<'a> {
    /// The corpus tool name.
    pub tool: &'a str,
    /// The input as the case wrote it (the text editor's `command` decides what it shows).
    pub input: &'a Value,
    /// The required result; `None` means "must succeed".
    pub expect: Option<&'a Expect>,
    /// The class the case names for this expectation, overriding the derived one.
    pub class: Option<Class>,
    /// The form the tool numbers Read's lines in.
    pub read_format: ReadFormat,
    /// The features the tool declared, which decide the result and error fields judged
    /// ([`class::judged_leaf`]); `None` judges every field, as for a tool declaring them all.
    pub features: Option<&'a [String]>,
}

impl<'a> CallCheck<'a> {
    /// A check of `expect` on a call of `tool` with `input`, classes derived, spec read form,
    /// every field judged.
    pub fn new(tool: &'a str, input: &'a Value, expect: Option<&'a Expect>) -> CallCheck<'a> {
        CallCheck {
            tool,
            input,
            expect,
            class: None,
            read_format: ReadFormat::Tab,
            features: None,
        }
    }

    /// Whether the leaf at `path` of a successful output is judged for this tool.
    fn judged(&self, path: &str) -> bool {
        self.features
            .is_none_or(|f| class::judged_leaf(self.tool, self.input, path, f))
    }

    /// Whether the structured fields of an error are judged: with `result_fields` declared.
    fn error_fields_judged(&self) -> bool {
        self.features
            .is_none_or(|f| f.iter().any(|x| x == "result_fields"))
    }
}

/// `want` without the leaves `keep` refuses, by dotted path; an object left without keys is
/// dropped with them (arrays are leaves: compared whole, as the subset rule compares them).
/// `None` when nothing is left to compare.
pub fn pruned(want: &Value, path: &str, keep: &dyn Fn(&str) -> bool) -> Option<Value> {
    match want {
        Value::Object(m) if contains_text(m).is_none() && !m.is_empty() => {
            let mut out = Map::new();
            for (k, v) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if let Some(v) = pruned(v, &p, keep) {
                    out.insert(k.clone(), v);
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        _ => keep(path).then(|| want.clone()),
    }
}

/// Judges one reply. `label` names the step in the reason ("step 2 (Edit)"). The failure
/// carries the classes of what did not hold (see [`crate::class`]): the override of the case
/// when it names one, else capability for a refusal where the case expects success, contract
/// for a success where it expects a refusal, for a code outside the expected one's family
/// ([`crate::codes`]) and for error fields, and the derived class of each output field that
/// differs. Output and error fields the tool does not declare it returns are not judged.
pub fn check_call(label: &str, call: &CallCheck<'_>, reply: &Reply) -> Result<(), Box<Failure>> {
    let expect = call.expect;
    let fail = |reason: String, derived: Vec<Class>| {
        Box::new(Failure {
            reason: format!("{label}: {reason}"),
            expected: Some(expect_json(expect)),
            actual: Some(reply.to_json()),
            diff: None,
            classes: call.class.map_or(derived, |c| vec![c]),
            untouched: false,
        })
    };
    let contract = || vec![Class::Contract];
    match (expect, reply) {
        (None | Some(Expect::Ok { output: None }), Reply::Ok(_)) => Ok(()),
        (Some(Expect::Ok { output: Some(want) }), Reply::Ok(got)) => {
            let file = class::read_file_path(call.tool, call.input);
            let Some(want) = pruned(want, "", &|p| call.judged(p)) else {
                return Ok(());
            };
            let (want, got) = comparable(&want, got, file, call.read_format);
            let mismatches = subset(&want, &got);
            if mismatches.is_empty() {
                return Ok(());
            }
            let mut classes: Vec<Class> = mismatches
                .iter()
                .flat_map(|m| {
                    class::of_output_mismatch(call.tool, call.input, &m.path, &m.expected)
                })
                .collect();
            classes.sort();
            classes.dedup();
            let mut reason: Vec<String> = mismatches.iter().take(3).map(describe).collect();
            if mismatches.len() > 3 {
                reason.push(format!("and {} more", mismatches.len() - 3));
            }
            let declared = match (file, call.read_format) {
                (Some(_), f) if f != ReadFormat::Tab => {
                    format!(" (content compared in the declared read format, {f})")
                }
                _ => String::new(),
            };
            Err(fail(
                format!("output differs{declared}: {}", reason.join("; ")),
                classes,
            ))
        }
        (None | Some(Expect::Ok { .. }), Reply::Err(e)) => Err(fail(
            format!("expected success, got error {}", error_code(e)),
            vec![Class::Capability],
        )),
        (Some(Expect::Error { code, .. }), Reply::Ok(_)) => Err(fail(
            format!("expected error {code}, got success"),
            contract(),
        )),
        (Some(Expect::Error { code, fields }), Reply::Err(e)) => {
            let got = error_code(e);
            if !codes::interchangeable(code, &got) {
                return Err(fail(
                    format!("expected error {code}, got error {got}"),
                    contract(),
                ));
            }
            // Fields belong to the code that carries them, and to a tool that declares them.
            if got != *code || !call.error_fields_judged() {
                return Ok(());
            }
            let mismatches = subset(&Value::Object(fields.clone()), e);
            if mismatches.is_empty() {
                Ok(())
            } else {
                let reason: Vec<String> = mismatches.iter().take(3).map(describe).collect();
                Err(fail(
                    format!("error {code} with other fields: {}", reason.join("; ")),
                    contract(),
                ))
            }
        }
    }
}

/// The `code` of an error reply, `<no code>` when it has none.
fn error_code(e: &Value) -> String {
    e.get("code")
        .and_then(Value::as_str)
        .unwrap_or("<no code>")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expectation forms of `forms.rs`, as `subset` reads them.
    #[test]
    fn absent_and_shape_are_checks_not_values() {
        let want = json!({"message": {"absent": true}, "replacements": {"shape": "integer"},
                          "originalFile": {"shape": ["string", "null"]}});
        assert!(subset(&want, &json!({"replacements": 2, "originalFile": null})).is_empty());
        let bad = subset(
            &want,
            &json!({"message": "x", "replacements": "2", "originalFile": 3}),
        );
        let paths: Vec<&str> = bad.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["message", "replacements", "originalFile"]);
        // An object with other keys is an ordinary expectation.
        assert_eq!(
            subset(&json!({"a": {"shape": "x"}}), &json!({"a": {"shape": "x"}})),
            vec![]
        );
        assert_eq!(subset(&json!({"a": {"absent": true}}), &json!({})), vec![]);
    }

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
    fn contains_matches_a_string_that_holds_the_text() {
        let actual = json!({"expected": "'*** End Patch' as the last line", "n": 1,
                            "o": {"contains": "x"}});
        let want = |v: Value| json!({ "expected": v });
        assert!(subset(&want(json!({"contains": "*** End Patch"})), &actual).is_empty());
        assert!(subset(&want(json!({"contains": ""})), &actual).is_empty());
        let m = subset(&want(json!({"contains": "*** Begin Patch"})), &actual);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].path, "expected");
        // Not a string: no text to search, so it does not match.
        assert_eq!(subset(&json!({"n": {"contains": "1"}}), &actual).len(), 1);
        // Against an object, `contains` is an ordinary key.
        assert!(subset(&json!({"o": {"contains": "x"}}), &actual).is_empty());
        // Another key beside it, or a text that is not a string: an ordinary object, which a
        // string never equals.
        assert_eq!(
            subset(&want(json!({"contains": "End", "also": 1})), &actual).len(),
            1
        );
        assert_eq!(subset(&want(json!({"contains": 5})), &actual).len(), 1);
        // A missing key is missing, whatever the expectation.
        let m = subset(&json!({"line": {"contains": "1"}}), &actual);
        assert_eq!(m[0].actual, None);
    }

    #[test]
    fn call_expectations() {
        let ok = Reply::Ok(json!({"replacements": 1}));
        let err =
            Reply::Err(json!({"code": "ambiguous", "message": "m", "count": 2, "lines": [1, 3]}));
        let input = json!({});
        fn check<'a>(input: &'a Value, e: Option<&'a Expect>) -> CallCheck<'a> {
            CallCheck::new("Edit", input, e)
        }
        assert!(check_call("s", &check(&input, None), &ok).is_ok());
        assert!(check_call("s", &check(&input, None), &err).is_err());
        let want = Expect::Ok {
            output: Some(json!({"replacements": 2})),
        };
        let f = check_call("step 1 (Edit)", &check(&input, Some(&want)), &ok).unwrap_err();
        assert_eq!(f.classes, vec![Class::Contract]);
        assert!(
            f.reason.contains("replacements: expected 2, got 1"),
            "{}",
            f.reason
        );
        let code = |c: &str, fields: Value| Expect::Error {
            code: c.into(),
            fields: fields.as_object().cloned().unwrap_or_default(),
        };
        assert!(check_call(
            "s",
            &check(&input, Some(&code("ambiguous", json!({})))),
            &err
        )
        .is_ok());
        assert!(check_call(
            "s",
            &check(
                &input,
                Some(&code("ambiguous", json!({"count": 2, "lines": [1, 3]})))
            ),
            &err
        )
        .is_ok());
        assert!(check_call(
            "s",
            &check(&input, Some(&code("ambiguous", json!({"count": 3})))),
            &err
        )
        .is_err());
        assert!(check_call(
            "s",
            &check(&input, Some(&code("not_found", json!({})))),
            &err
        )
        .is_err());
        assert!(check_call(
            "s",
            &check(&input, Some(&code("not_found", json!({})))),
            &ok
        )
        .is_err());
    }

    #[test]
    fn read_text_is_presentation_and_judged_in_the_declared_form() {
        let input = json!({"file_path": "a.txt"});
        let want = Expect::Ok {
            output: Some(json!({"type": "text", "file": {"content": "1\ta\n2\tb", "numLines": 2}})),
        };
        let plain = Reply::Ok(json!({"type": "text", "file": {"content": "a\nb", "numLines": 2}}));
        let mut read = CallCheck::new("Read", &input, Some(&want));
        let f = check_call("s", &read, &plain).unwrap_err();
        assert_eq!(f.classes, vec![Class::Presentation]);
        read.read_format = ReadFormat::Plain;
        assert!(check_call("s", &read, &plain).is_ok());
        let other = Reply::Ok(json!({"type": "text", "file": {"content": "a\nc", "numLines": 2}}));
        let f = check_call("s", &read, &other).unwrap_err();
        assert!(
            f.reason.contains("declared read format, plain"),
            "{}",
            f.reason
        );
        assert_eq!(
            f.actual,
            Some(other.to_json()),
            "the reply is shown as it came"
        );
        let wrong_type = Reply::Ok(json!({"type": "image", "file": {"content": "x"}}));
        let f = check_call("s", &read, &wrong_type).unwrap_err();
        assert_eq!(f.classes, vec![Class::Contract, Class::Presentation]);
        read.class = Some(Class::Data);
        let f = check_call("s", &read, &wrong_type).unwrap_err();
        assert_eq!(f.classes, vec![Class::Data], "the case's override wins");
    }

    #[test]
    fn a_refusal_is_capability_and_codes_are_judged_by_family() {
        let input = json!({});
        let refusal = Reply::Err(json!({"code": "encoding", "message": "m"}));
        let f = check_call("s", &CallCheck::new("Edit", &input, None), &refusal).unwrap_err();
        assert_eq!(f.classes, vec![Class::Capability]);
        let code = |c: &str, fields: Value| Expect::Error {
            code: c.into(),
            fields: fields.as_object().cloned().unwrap_or_default(),
        };
        let err = |c: &str| Reply::Err(json!({"code": c, "message": "m"}));
        let blocked = code("blocked_path", json!({}));
        let check = CallCheck::new("Read", &input, Some(&blocked));
        assert!(check_call("s", &check, &err("outside_root")).is_ok());
        let f = check_call("s", &check, &err("invalid_input")).unwrap_err();
        assert_eq!(f.classes, vec![Class::Contract]);
        let invalid_path = code("invalid_path", json!({}));
        let check = CallCheck::new("Edit", &input, Some(&invalid_path));
        assert!(check_call("s", &check, &err("invalid_input")).is_ok());
        // A code of the family does not carry the expected code's fields: they are not judged.
        let amb = code("stale", json!({"actual": 3}));
        let check = CallCheck::new("Edit", &input, Some(&amb));
        assert!(check_call("s", &check, &err("not_read")).is_ok());
        assert!(check_call("s", &check, &err("stale")).is_err());
        let f = check_call("s", &check, &err("ambiguous")).unwrap_err();
        assert!(f
            .reason
            .contains("expected error stale, got error ambiguous"));
    }

    #[test]
    fn result_fields_are_judged_only_for_a_tool_that_declares_them() {
        let input = json!({});
        let want = Expect::Ok {
            output: Some(json!({"replacements": 2, "structuredPatch": [], "oldString": "a"})),
        };
        let bare = Reply::Ok(json!({"filePath": "/x"}));
        let none: Vec<String> = vec![];
        let patch = vec!["structured_patch".to_string()];
        let all = vec!["result_fields".to_string(), "structured_patch".to_string()];
        let mut check = CallCheck::new("Edit", &input, Some(&want));
        check.features = Some(&none);
        assert!(check_call("s", &check, &bare).is_ok(), "only the outcome");
        check.features = Some(&patch);
        let f = check_call("s", &check, &bare).unwrap_err();
        assert!(f.reason.contains("structuredPatch"), "{}", f.reason);
        assert!(!f.reason.contains("replacements"), "{}", f.reason);
        check.features = Some(&all);
        let f = check_call("s", &check, &bare).unwrap_err();
        assert!(f.reason.contains("replacements"), "{}", f.reason);
        // A Read is judged whole: what it shows is its answer.
        let read = Expect::Ok {
            output: Some(json!({"type": "text", "file": {"content": "1\ta"}})),
        };
        let mut check = CallCheck::new("Read", &input, Some(&read));
        check.features = Some(&none);
        let f = check_call("s", &check, &Reply::Ok(json!({"type": "file_unchanged"}))).unwrap_err();
        assert_eq!(f.classes, vec![Class::Contract, Class::Presentation]);
        // Error fields need the feature too.
        let amb = Expect::Error {
            code: "ambiguous".into(),
            fields: json!({"count": 2}).as_object().cloned().unwrap(),
        };
        let bare_amb = Reply::Err(json!({"code": "ambiguous", "message": "m"}));
        let mut check = CallCheck::new("Edit", &input, Some(&amb));
        check.features = Some(&none);
        assert!(check_call("s", &check, &bare_amb).is_ok());
        check.features = Some(&all);
        assert!(check_call("s", &check, &bare_amb).is_err());
    }

    #[test]
    fn pruning_keeps_the_leaves_asked_for() {
        let want = json!({"a": 1, "b": {"c": 2, "d": [1]}, "e": {"contains": "x"}});
        let keep_b = pruned(&want, "", &|p| p.starts_with("b."));
        assert_eq!(keep_b, Some(json!({"b": {"c": 2, "d": [1]}})));
        assert_eq!(
            pruned(&want, "", &|p| p == "e"),
            Some(json!({"e": {"contains": "x"}}))
        );
        assert_eq!(pruned(&want, "", &|_| false), None);
    }
}
