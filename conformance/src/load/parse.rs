//! One case file as a whole: bytes → YAML → a checked [`Case`], with the case-level checks
//! (id, title, level, features, version, paths) and the content hash.
//!
//! This is the entry point of loading and the only place that knows the order of the work:
//! the file must be UTF-8, then it must parse into the raw shapes, then every part is validated
//! by the module that owns its rules (file forms, steps, expectations) while the errors of all
//! parts are collected, so a file with several semantic problems has them all reported at once.

use super::error::{yaml_error, Errors, LoadError};
use super::expect::expect_file;
use super::forms::{file_form, Context};
use super::raw::{RawCase, S};
use super::steps::step_of;
use crate::case::{Case, Content, Level, FEATURES};
use crate::sandbox;
use sha2::{Digest, Sha256};

/// The id a case file must carry, from its path below the `cases` directory
/// (`edit/foo.yaml` → `edit/foo`); `None` when the path is not `<area>/<name>.yaml`.
pub fn id_from_path(rel: &str) -> Option<String> {
    let stem = rel.strip_suffix(".yaml")?;
    let mut parts = stem.split('/');
    let (area, name) = (parts.next()?, parts.next()?);
    if parts.next().is_some() || area.is_empty() || name.is_empty() {
        return None;
    }
    Some(format!("{area}/{name}"))
}

/// Parser settings: duplicate keys and YAML 1.1 booleans refused, `0644` kept as text. The
/// alias-to-anchor ratio check is off (a case may legitimately repeat one anchored edit a
/// thousand times); the absolute budgets on events, nodes and replayed aliases still stop alias
/// bombs.
fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! { enforce_alias_anchor_ratio: false },
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        with_snippet: false,
    }
}

/// Parses and validates one case file.
///
/// `source` names the file in messages; `rel` is its path below the `cases` directory (it fixes
/// the id). Returns every problem found, never panics.
pub fn parse_case(source: &str, rel: &str, bytes: &[u8]) -> Result<Case, Vec<LoadError>> {
    let fail = |line: u64, field: &str, message: String| {
        vec![LoadError {
            file: source.to_string(),
            line,
            column: 0,
            field: field.to_string(),
            message,
        }]
    };
    let Some(expected_id) = id_from_path(rel) else {
        return Err(fail(
            0,
            "",
            format!("a case file must be cases/<area>/<name>.yaml, not cases/{rel}"),
        ));
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            return Err(fail(
                line as u64,
                "",
                "the file is not UTF-8 (write bytes with bytes_hex or bytes_b64)".into(),
            ));
        }
    };
    let raw: RawCase = match serde_saphyr::from_str_with_options(text, yaml_options()) {
        Ok(r) => r,
        Err(e) => return Err(vec![yaml_error(source, text, &e)]),
    };
    let mut errors = Errors {
        file: source,
        list: Vec::new(),
    };
    let case = validate(raw, &expected_id, source, bytes, &mut errors);
    match case {
        Some(case) if errors.list.is_empty() => Ok(case),
        _ => Err(errors.list),
    }
}

/// Checks a parsed case against the rules a YAML schema cannot say; `None` when a part that
/// the [`Case`] cannot do without is missing (the errors say why).
fn validate(
    raw: RawCase,
    expected_id: &str,
    source: &str,
    bytes: &[u8],
    errors: &mut Errors<'_>,
) -> Option<Case> {
    if raw.id.value != expected_id {
        errors.at(
            &raw.id,
            "id",
            format!(
                "the id must be '{expected_id}' (the file's place in the corpus), not '{}'",
                raw.id.value
            ),
        );
    }
    let area = expected_id
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    if raw.title.value.trim().is_empty() {
        errors.at(&raw.title, "title", "the title must not be empty");
    }
    if raw.spec.value.is_empty() {
        errors.at(&raw.spec, "spec", "list at least one rule ID");
    }
    let level = Level::parse(&raw.level.value);
    if level.is_none() {
        errors.at(
            &raw.level,
            "level",
            format!(
                "unknown level '{}' (core, extended or implementation-defined)",
                raw.level.value
            ),
        );
    }
    let mut requires = Vec::new();
    for (i, f) in raw.requires.value.iter().enumerate() {
        if !FEATURES.contains(&f.value.as_str()) {
            errors.at(
                f,
                format!("requires[{i}]"),
                format!(
                    "unknown feature '{}' (see the features vocabulary)",
                    f.value
                ),
            );
        } else if requires.contains(&f.value) {
            errors.at(
                f,
                format!("requires[{i}]"),
                format!("'{}' is listed twice", f.value),
            );
        } else {
            requires.push(f.value.clone());
        }
    }
    if !is_version(&raw.since.value) {
        errors.at(
            &raw.since,
            "since",
            format!(
                "'{}' is not a corpus version like \"0.1.0\"",
                raw.since.value
            ),
        );
    }

    let timeout = match &raw.timeout {
        None => None,
        Some(t) if t.value.is_finite() && t.value > 0.0 && t.value <= MAX_TIMEOUT_S => {
            Some(std::time::Duration::from_secs_f64(t.value))
        }
        Some(t) => {
            errors.at(
                t,
                "timeout",
                format!(
                    "'{}' is not a per-call timeout: give seconds, more than 0 and at most {MAX_TIMEOUT_S}",
                    t.value
                ),
            );
            None
        }
    };

    let mut files = Vec::new();
    for (path, entry) in &raw.files.value {
        let field = format!("files.{path}");
        if check_path(path, entry, &field, errors) {
            if let Some(form) = file_form(entry, &field, Context::Files, errors) {
                files.push((path.clone(), form));
            }
        }
    }
    for (path, form) in &files {
        if let Content::Hardlink(other) = &form.content {
            let ok = files
                .iter()
                .any(|(p, f)| p == other && matches!(f.content, Content::Bytes(_)));
            if !ok {
                if let Some(entry) = raw.files.value.get(path) {
                    errors.at(
                        entry,
                        format!("files.{path}.hardlink"),
                        format!("'{other}' must be a regular file of this case's `files`"),
                    );
                }
            }
        }
    }

    let mut steps = Vec::new();
    if raw.steps.value.is_empty() {
        errors.at(&raw.steps, "steps", "a case needs at least one step");
    }
    for (i, step) in raw.steps.value.iter().enumerate() {
        if let Some(s) = step_of(step, &format!("steps[{i}]"), errors) {
            steps.push(s);
        }
    }

    let mut expect_files = Vec::new();
    for (path, entry) in raw.expect_files.iter().flatten() {
        let field = format!("expect_files.{path}");
        if check_path(path, entry, &field, errors) {
            if let Some(e) = expect_file(entry, &field, errors) {
                expect_files.push((path.clone(), e));
            }
        }
    }

    Some(Case {
        id: expected_id.to_string(),
        area,
        title: raw.title.value,
        spec: raw.spec.value,
        level: level?,
        requires,
        tags: raw.tags.unwrap_or_default(),
        since: raw.since.value,
        files,
        steps,
        expect_files,
        allow_residue: raw.allow_residue.unwrap_or(false),
        timeout,
        notes: raw.notes,
        source: source.to_string(),
        sha256: sha256_hex(bytes),
    })
}

/// The longest per-call timeout a case may set, in seconds: the field exists to make hanging
/// cases short, never to make a run wait longer.
const MAX_TIMEOUT_S: f64 = 60.0;

/// Lowercase hex sha256, as recorded in the manifest and the report.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `s` is a corpus version: three dot-separated numbers.
fn is_version(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a case path stays inside the case directory; records the error when not.
fn check_path<T>(path: &str, node: &S<T>, field: &str, errors: &mut Errors<'_>) -> bool {
    match sandbox::root_relative(path) {
        Ok(_) => true,
        Err(e) => {
            errors.at(node, field, e);
            false
        }
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
