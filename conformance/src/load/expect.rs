//! Expectations: what a call's reply must be (`expect:` of a step) and what each file must be
//! at the end (`expect_files:`).
//!
//! Both are checks rather than instructions, so their rules differ from the file forms they
//! resemble: flags such as `unchanged`, `absent`, `is_symlink` and `replaced` are only
//! meaningful when true, some checks exclude each other, and an error expectation may be a bare
//! code or a code with fields to match. Catching those contradictions here keeps a case from
//! asking for something no implementation could do.

use super::error::Errors;
use super::forms::{content, mode_of, FORM_KEYS};
use super::raw::{flag, only, RawEntry, RawExpect, S};
use crate::case::{Class, Expect, ExpectFile};
use serde_json::{Map, Value};

/// One entry of `expect_files:`, checked; `None` when anything is wrong (the errors say what).
pub(super) fn expect_file(
    entry: &S<RawEntry>,
    field: &str,
    errors: &mut Errors<'_>,
) -> Option<ExpectFile> {
    let before = errors.list.len();
    let mut allowed = FORM_KEYS.to_vec();
    allowed.extend(["unchanged", "absent", "is_symlink", "replaced", "class"]);
    only(&entry.value, &allowed, field, "expect_files", errors);
    let content = content(entry, field, errors).ok()?;
    let mode = mode_of(&entry.value, field, errors).ok()?;
    let e = &entry.value;
    for (name, o) in [
        ("unchanged", &e.unchanged),
        ("absent", &e.absent),
        ("is_symlink", &e.is_symlink),
        ("replaced", &e.replaced),
    ] {
        if let Some(b) = o {
            if !b.value {
                errors.at(
                    b,
                    format!("{field}.{name}"),
                    format!("only `{name}: true` is meaningful; leave the key out instead"),
                );
            }
        }
    }
    let class = class_of(&e.class, field, errors).ok()?;
    let out = ExpectFile {
        class,
        content,
        unchanged: flag(&e.unchanged),
        absent: flag(&e.absent),
        mode,
        is_symlink: flag(&e.is_symlink),
        replaced: flag(&e.replaced),
    };
    if out.absent
        && (out.content.is_some()
            || out.unchanged
            || out.mode.is_some()
            || out.is_symlink
            || out.replaced)
    {
        errors.at(
            entry,
            field,
            "`absent: true` cannot be combined with other checks",
        );
    }
    if out.unchanged && out.content.is_some() {
        errors.at(
            entry,
            field,
            "`unchanged: true` cannot be combined with a file form (say one or the other)",
        );
    }
    if out.content.is_none()
        && !out.unchanged
        && !out.absent
        && out.mode.is_none()
        && !out.is_symlink
        && !out.replaced
    {
        errors.at(
            entry,
            field,
            "an expectation needs a file form or one of unchanged, absent, mode, is_symlink, replaced",
        );
    }
    (errors.list.len() == before).then_some(out)
}

/// The `class:` override of an expectation, checked: `Ok(None)` when absent, `Err(())` (with
/// the error listed) when it names no class.
pub(super) fn class_of(
    class: &Option<S<String>>,
    field: &str,
    errors: &mut Errors<'_>,
) -> Result<Option<Class>, ()> {
    let Some(c) = class else { return Ok(None) };
    match Class::parse(&c.value) {
        Some(k) => Ok(Some(k)),
        None => {
            errors.at(
                c,
                format!("{field}.class"),
                format!(
                    "unknown class '{}' (data, contract or presentation)",
                    c.value
                ),
            );
            Err(())
        }
    }
}

/// The `expect` of a call step, checked; `None` when anything is wrong (the errors say what).
pub(super) fn expect_of(e: &S<RawExpect>, field: &str, errors: &mut Errors<'_>) -> Option<Expect> {
    let v = &e.value;
    match (&v.ok, &v.error) {
        (Some(_), Some(_)) => {
            errors.at(e, field, "`ok` and `error` exclude each other");
            None
        }
        (Some(ok), None) => {
            if !ok.value {
                errors.at(
                    ok,
                    format!("{field}.ok"),
                    "write `error: <code>` for a call that must fail; `ok` can only be true",
                );
                return None;
            }
            Some(Expect::Ok {
                output: v.output.clone(),
            })
        }
        (None, Some(err)) => {
            if v.output.is_some() {
                errors.at(
                    e,
                    format!("{field}.output"),
                    "`output` belongs with `ok: true`",
                );
                return None;
            }
            match &err.value {
                Value::String(code) if !code.is_empty() => Some(Expect::Error {
                    code: code.clone(),
                    fields: Map::new(),
                }),
                Value::Object(map) => match map.get("code") {
                    Some(Value::String(code)) if !code.is_empty() => {
                        let mut fields = map.clone();
                        fields.remove("code");
                        Some(Expect::Error {
                            code: code.clone(),
                            fields,
                        })
                    }
                    _ => {
                        errors.at(
                            err,
                            format!("{field}.error.code"),
                            "an error expectation object needs `code: <string>`",
                        );
                        None
                    }
                },
                _ => {
                    errors.at(
                        err,
                        format!("{field}.error"),
                        "expected an error code or {code: ..., <field>: ...}",
                    );
                    None
                }
            }
        }
        (None, None) => {
            errors.at(
                e,
                field,
                "an expectation is `{ok: true, output: ...}` or `{error: ...}`",
            );
            None
        }
    }
}

#[cfg(test)]
#[path = "expect_tests.rs"]
mod tests;
