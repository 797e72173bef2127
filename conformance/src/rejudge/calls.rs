//! Reply problems of an earlier report, judged again under today's rules: a refusal where the
//! case expects success is capability; codes of one family are interchangeable; error fields
//! and result fields count only for a tool that declares them (see [`crate::check::check_call`]).
//!
//! The record's first problem kept the whole reply, so it is judged again exactly, by the same
//! function that judges a run. A later problem kept only its reason line, which names the codes
//! and at most three output fields that differed ("and N more"); it is judged from those, and
//! where the fields it does not name could decide, it stays as it was and is listed as
//! unsettled.

use crate::adapter::Reply;
use crate::case::{Case, Class, Expect, Step};
use crate::check::{self, CallCheck, ReadFormat};
use crate::class;
use crate::codes;
use serde_json::Value;

/// What a reply problem turns out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Call {
    /// Still a failure, of these classes.
    Fails(Vec<Class>),
    /// No failure under today's rules; why.
    Holds(String),
    /// Not judged again (the evidence is too short); the class it keeps, and why.
    Unknown(Class, String),
    /// Not a check: a crash or timeout noted after an earlier failure.
    Note,
}

/// The step number, tool and the rest of a reason that starts `step N (Tool): `.
pub(super) fn step_of(reason: &str) -> Option<(usize, &str, &str)> {
    let rest = reason.strip_prefix("step ")?;
    let (n, rest) = rest.split_once(" (")?;
    let (tool, rest) = rest.split_once("): ")?;
    Some((n.parse().ok()?, tool, rest))
}

/// The tool, input and expectation of step `n` of `case`, when it is a call.
fn call_of(case: &Case, n: usize) -> Option<(&str, &Value, Option<&Expect>, Option<Class>)> {
    match case.steps.get(n.checked_sub(1)?)? {
        Step::Call {
            tool,
            input,
            expect,
            class,
        } => Some((tool, input, expect.as_ref(), *class)),
        _ => None,
    }
}

/// Judges the record's first problem from the whole reply it kept (`actual`, as a report
/// shows a reply) by today's [`check::check_call`].
pub(super) fn judge_with_reply(
    case: &Case,
    reason: &str,
    actual: &Value,
    features: &[String],
    read_format: ReadFormat,
) -> Option<Call> {
    let (n, _, _) = step_of(reason)?;
    let (tool, input, expect, class) = call_of(case, n)?;
    let reply = match actual.get("ok")?.as_bool()? {
        true => Reply::Ok(actual.get("output").cloned().unwrap_or(Value::Null)),
        false => Reply::Err(actual.get("error")?.clone()),
    };
    let check = CallCheck {
        class,
        read_format,
        features: Some(features),
        ..CallCheck::new(tool, input, expect)
    };
    Some(
        match check::check_call(&format!("step {n} ({tool})"), &check, &reply) {
            Ok(()) => Call::Holds(why_it_holds(reason, expect, &reply, features)),
            Err(f) => Call::Fails(f.classes),
        },
    )
}

/// Why a problem that failed before holds now, in a few words.
fn why_it_holds(
    reason: &str,
    expect: Option<&Expect>,
    reply: &Reply,
    features: &[String],
) -> String {
    match (expect, reply) {
        (Some(Expect::Error { code, .. }), Reply::Err(e)) => {
            let got = e.get("code").and_then(Value::as_str).unwrap_or("");
            if got != code {
                format!("{got} and {code} are of one family ({})", shared(code, got))
            } else {
                "error fields count only for a tool that declares result_fields".into()
            }
        }
        _ if reason.contains("output differs") => format!(
            "result fields count only for a tool that declares them (declared: {})",
            declared_fields(features)
        ),
        _ => "holds under today's rules".into(),
    }
}

/// The family two interchangeable codes share.
fn shared(a: &str, b: &str) -> String {
    codes::FAMILIES
        .iter()
        .find(|f| f.codes.contains(&a) && f.codes.contains(&b))
        .map_or(String::new(), |f| f.name.to_string())
}

/// Which of the field features a tool declares, for messages.
fn declared_fields(features: &[String]) -> String {
    let d: Vec<&str> = ["result_fields", "structured_patch"]
        .into_iter()
        .filter(|f| features.iter().any(|x| x == f))
        .collect();
    if d.is_empty() {
        "neither result_fields nor structured_patch".into()
    } else {
        d.join(", ")
    }
}

/// Judges a later problem from its reason line alone.
pub(super) fn judge_from_reason(case: Option<&Case>, reason: &str, features: &[String]) -> Call {
    let Some((n, tool, rest)) = step_of(reason) else {
        return Call::Unknown(Class::Contract, "not a reply problem".into());
    };
    if rest.starts_with("crash:")
        || rest.starts_with("timeout:")
        || rest.contains("later steps not run")
    {
        return Call::Note;
    }
    if rest.starts_with("expected success, got error") {
        return Call::Fails(vec![Class::Capability]);
    }
    if let Some(codes) = rest.strip_prefix("expected error ") {
        if codes.ends_with(", got success") {
            return Call::Fails(vec![Class::Contract]);
        }
        if let Some((want, got)) = codes.split_once(", got error ") {
            return if codes::interchangeable(want, got) {
                Call::Holds(format!(
                    "{got} and {want} are of one family ({})",
                    shared(want, got)
                ))
            } else {
                Call::Fails(vec![Class::Contract])
            };
        }
    }
    let declares = |f: &str| features.iter().any(|x| x == f);
    if rest.starts_with("error ") && rest.contains(" with other fields: ") {
        return if declares("result_fields") {
            Call::Fails(vec![Class::Contract])
        } else {
            Call::Holds("error fields count only for a tool that declares result_fields".into())
        };
    }
    let Some(list) = rest
        .split_once(": ")
        .filter(|(h, _)| h.starts_with("output differs"))
        .map(|(_, l)| l)
    else {
        return Call::Unknown(
            Class::Contract,
            "a reason this harness does not know".into(),
        );
    };
    let Some(input) = case
        .and_then(|c| call_of(c, n))
        .map(|(_, input, _, _)| input)
    else {
        return Call::Unknown(
            Class::Contract,
            "the case's call is not in the corpus".into(),
        );
    };
    // `PATH: expected …, got …` or `PATH: expected …, missing`, at most three, `and N more`.
    let mut classes = Vec::new();
    let mut more = false;
    for part in list.split("; ") {
        if part.starts_with("and ") && part.ends_with(" more") {
            more = true;
        } else if let Some((path, _)) = part.split_once(": expected ") {
            if !path.contains(' ') && class::judged_leaf(tool, input, path, features) {
                classes.push(class::of_output_leaf(tool, input, path));
            }
        }
    }
    classes.sort();
    classes.dedup();
    // Fields it does not name may still count for a tool that declares some.
    let unnamed_may_count = more
        && (class::is_read_view(tool, input)
            || declares("result_fields")
            || declares("structured_patch"));
    match (classes.is_empty(), unnamed_may_count) {
        (false, _) => Call::Fails(classes),
        (true, false) => Call::Holds(format!(
            "result fields count only for a tool that declares them (declared: {})",
            declared_fields(features)
        )),
        (true, true) => Call::Unknown(
            Class::Contract,
            "the fields after the first three were not kept".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_judged_again() {
        let none: Vec<String> = vec![];
        let r = |s: &str| judge_from_reason(None, s, &none);
        assert_eq!(
            r("step 2 (Edit): expected success, got error error"),
            Call::Fails(vec![Class::Capability])
        );
        assert_eq!(
            r("step 1 (Read): expected error blocked_path, got error outside_root"),
            Call::Holds("outside_root and blocked_path are of one family (path refusal)".into())
        );
        assert_eq!(
            r("step 1 (Edit): expected error invalid_input, got error error"),
            Call::Fails(vec![Class::Contract])
        );
        assert_eq!(
            r("step 2 (Edit): expected error ambiguous, got success"),
            Call::Fails(vec![Class::Contract])
        );
        assert!(matches!(
            r("step 2 (Edit): error ambiguous with other fields: count: expected 2, missing"),
            Call::Holds(_)
        ));
        assert_eq!(r("step 3 (Edit): crash: exited"), Call::Note);
        assert_eq!(
            step_of("step 12 (str_replace_editor): x"),
            Some((12, "str_replace_editor", "x"))
        );
    }
}
