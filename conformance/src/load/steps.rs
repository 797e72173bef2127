//! Steps and actions: each entry of `steps:` becomes a tool call (with its expectation) or one
//! of the harness actions — `modify`, `touch`, `chmod`, `remove`, `link` — that stand in for another
//! program changing the files between calls.
//!
//! A step is exactly one thing; this module settles which, checks the part that belongs to it
//! (a known tool; a path inside the case directory; the keys each action allows) and parses the
//! values only actions have, such as the signed mtime shift of `touch`. Replies are judged by
//! rules of their own, so a call's `expect` is handed to the expectations module.

use super::error::Errors;
use super::expect::{class_of, expect_of};
use super::forms::{file_form, mode_of, Context};
use super::raw::{flag, only, RawStep, S};
use crate::case::{Step, TOOLS};
use crate::sandbox;

/// One step of `steps:`, checked; `None` when anything is wrong (the errors say what).
pub(super) fn step_of(step: &S<RawStep>, field: &str, errors: &mut Errors<'_>) -> Option<Step> {
    let s = &step.value;
    let kinds: Vec<&str> = [
        ("call", s.call.is_some()),
        ("modify", s.modify.is_some()),
        ("touch", s.touch.is_some()),
        ("chmod", s.chmod.is_some()),
        ("remove", s.remove.is_some()),
        ("link", s.link.is_some()),
    ]
    .iter()
    .filter(|(_, present)| *present)
    .map(|(k, _)| *k)
    .collect();
    if kinds.len() != 1 {
        errors.at(
            step,
            field,
            if kinds.is_empty() {
                "a step needs one of call, modify, touch, chmod, remove, link".to_string()
            } else {
                format!(
                    "a step is exactly one of call, modify, touch, chmod, remove, link; found {}",
                    kinds.join(", ")
                )
            },
        );
        return None;
    }
    if let Some(exp) = &s.expect {
        if s.call.is_none() {
            errors.at(
                exp,
                format!("{field}.expect"),
                "`expect` belongs to a `call` step",
            );
            return None;
        }
    }
    if let Some(call) = &s.call {
        let tool = &call.value.tool;
        if !TOOLS.contains(&tool.value.as_str()) {
            errors.at(
                tool,
                format!("{field}.call.tool"),
                format!(
                    "unknown tool '{}' (one of {})",
                    tool.value,
                    TOOLS.join(", ")
                ),
            );
            return None;
        }
        let (expect, class) = match &s.expect {
            None => (None, None),
            Some(e) => {
                let f = format!("{field}.expect");
                let expect = expect_of(e, &f, errors)?;
                (Some(expect), class_of(&e.value.class, &f, errors).ok()?)
            }
        };
        return Some(Step::Call {
            tool: tool.value.clone(),
            input: call.value.input.clone(),
            expect,
            class,
        });
    }
    let (name, entry) = [
        ("modify", &s.modify),
        ("touch", &s.touch),
        ("chmod", &s.chmod),
        ("remove", &s.remove),
        ("link", &s.link),
    ]
    .into_iter()
    .find_map(|(n, e)| e.as_ref().map(|e| (n, e)))?;
    let field = format!("{field}.{name}");
    let Some(path) = &entry.value.path else {
        errors.at(
            entry,
            format!("{field}.path"),
            "a harness action needs `path`",
        );
        return None;
    };
    if let Err(msg) = sandbox::root_relative(&path.value) {
        errors.at(path, format!("{field}.path"), msg);
        return None;
    }
    let path = path.value.clone();
    match name {
        "modify" => {
            let form = file_form(entry, &field, Context::Modify, errors)?;
            Some(Step::Modify {
                path,
                form,
                keep_mtime: flag(&entry.value.keep_mtime),
            })
        }
        "touch" => {
            only(&entry.value, &["path", "mtime"], &field, "touch", errors);
            let Some(m) = &entry.value.mtime else {
                errors.at(
                    entry,
                    format!("{field}.mtime"),
                    "touch needs `mtime: \"+5s\"` or `\"-5s\"`",
                );
                return None;
            };
            match parse_shift(&m.value) {
                Some(shift_ns) => Some(Step::Touch { path, shift_ns }),
                None => {
                    errors.at(
                        m,
                        format!("{field}.mtime"),
                        format!(
                            "'{}' is not a shift like \"+5s\", \"-5s\" or \"+1500ms\"",
                            m.value
                        ),
                    );
                    None
                }
            }
        }
        "chmod" => {
            only(&entry.value, &["path", "mode"], &field, "chmod", errors);
            match mode_of(&entry.value, &field, errors).ok()? {
                Some(mode) => Some(Step::Chmod { path, mode }),
                None => {
                    errors.at(entry, format!("{field}.mode"), "chmod needs `mode`");
                    None
                }
            }
        }
        "link" => {
            only(&entry.value, &["path", "symlink"], &field, "link", errors);
            match &entry.value.symlink {
                Some(t) if !t.value.is_empty() => Some(Step::Link {
                    path,
                    target: t.value.clone(),
                }),
                _ => {
                    errors.at(
                        entry,
                        format!("{field}.symlink"),
                        "link needs `symlink: TARGET`, what the link points to",
                    );
                    None
                }
            }
        }
        _ => {
            only(&entry.value, &["path"], &field, "remove", errors);
            Some(Step::Remove { path })
        }
    }
}

/// Parses a relative mtime shift: a sign, a number (decimals allowed), `s` or `ms`.
pub fn parse_shift(s: &str) -> Option<i128> {
    let s = s.trim();
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1i128, &s[1..]),
        b'-' => (-1i128, &s[1..]),
        _ => return None,
    };
    let (number, unit_ns) = if let Some(n) = rest.strip_suffix("ms") {
        (n, 1_000_000i128)
    } else if let Some(n) = rest.strip_suffix('s') {
        (n, 1_000_000_000i128)
    } else {
        return None;
    };
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() || int.len() > 9 || frac.len() > 9 {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let int: i128 = int.parse().ok()?;
    let mut frac_value: i128 = 0;
    let mut scale = unit_ns;
    for b in frac.bytes() {
        scale /= 10;
        frac_value += i128::from(b - b'0') * scale;
    }
    Some(sign * (int * unit_ns + frac_value))
}
