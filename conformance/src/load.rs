//! Loading case files: YAML → checked [`Case`] values, and finding the corpus on disk or in the
//! binary.
//!
//! Parsing goes through `serde-saphyr`, which never panics on malformed YAML, into raw structs
//! with `deny_unknown_fields`; every raw field carries its source location so that a semantic
//! error ("two content sources", "unknown feature") still names the file, the line and the field.
//! Nothing a case file contains can make the loader panic.

use crate::case::{Case, Content, Expect, ExpectFile, FileForm, Level, Step, FEATURES, TOOLS};
use crate::sandbox;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Map, Value};
use serde_saphyr::Spanned;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with one case file, located as precisely as the YAML allows.
///
/// Displayed as `file:line:column: field: message`, the form editors and CI logs turn into links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The case file (a path, or `embedded:<path>`).
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// The field the problem is about (a dotted path such as `steps[2].call.tool`), or empty.
    pub field: String,
    /// What is wrong, and when possible what is expected instead.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

// ---- raw shapes: exactly the YAML, every key known ------------------------------------------

type S<T> = Spanned<T>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    id: S<String>,
    title: S<String>,
    spec: S<Vec<String>>,
    level: S<String>,
    requires: S<Vec<S<String>>>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    since: S<String>,
    files: S<BTreeMap<String, S<RawEntry>>>,
    steps: S<Vec<S<RawStep>>>,
    #[serde(default)]
    expect_files: Option<BTreeMap<String, S<RawEntry>>>,
    #[serde(default)]
    allow_residue: Option<bool>,
    #[serde(default)]
    notes: Option<String>,
}

/// Every key a file form, an expectation or a harness action may carry; which ones are allowed
/// where is checked after parsing, so the message can say "not allowed here" with a line.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(default)]
    path: Option<S<String>>,
    #[serde(default)]
    text: Option<S<String>>,
    #[serde(default)]
    encoding: Option<S<String>>,
    #[serde(default)]
    bom: Option<S<bool>>,
    #[serde(default)]
    bytes_b64: Option<S<String>>,
    #[serde(default)]
    bytes_hex: Option<S<String>>,
    #[serde(default)]
    symlink: Option<S<String>>,
    #[serde(default)]
    hardlink: Option<S<String>>,
    #[serde(default)]
    dir: Option<S<bool>>,
    #[serde(default)]
    fifo: Option<S<bool>>,
    #[serde(default)]
    mode: Option<S<String>>,
    #[serde(default)]
    unchanged: Option<S<bool>>,
    #[serde(default)]
    absent: Option<S<bool>>,
    #[serde(default)]
    is_symlink: Option<S<bool>>,
    #[serde(default)]
    replaced: Option<S<bool>>,
    #[serde(default)]
    keep_mtime: Option<S<bool>>,
    #[serde(default)]
    mtime: Option<S<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    #[serde(default)]
    call: Option<S<RawCall>>,
    #[serde(default)]
    expect: Option<S<RawExpect>>,
    #[serde(default)]
    modify: Option<S<RawEntry>>,
    #[serde(default)]
    touch: Option<S<RawEntry>>,
    #[serde(default)]
    chmod: Option<S<RawEntry>>,
    #[serde(default)]
    remove: Option<S<RawEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCall {
    tool: S<String>,
    input: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    #[serde(default)]
    ok: Option<S<bool>>,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    error: Option<S<Value>>,
}

// ---- loading ---------------------------------------------------------------------------------

/// Collects validation errors for one file, each with the location of the offending node.
struct Errors<'a> {
    file: &'a str,
    list: Vec<LoadError>,
}

impl Errors<'_> {
    fn at<T>(&mut self, node: &S<T>, field: impl Into<String>, message: impl Into<String>) {
        self.list.push(LoadError {
            file: self.file.to_string(),
            line: node.referenced.line(),
            column: node.referenced.column(),
            field: field.into(),
            message: message.into(),
        });
    }
}

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

/// Turns a serde-saphyr error into a located [`LoadError`], naming the field when the message
/// or the source line makes it clear.
fn yaml_error(source: &str, text: &str, e: &serde_saphyr::Error) -> LoadError {
    let (line, column) = e
        .location()
        .map(|l| (l.line(), l.column()))
        .unwrap_or((0, 0));
    let mut message = e.to_string();
    // The rendered message may repeat the location; keep the first line, which says what.
    if let Some(first) = message.lines().next() {
        message = first.trim().to_string();
    }
    if let Some(i) = message.rfind(" at line ") {
        if message[i..].contains(", column ") {
            message.truncate(i);
        }
    }
    // Advice meant for programmers using the YAML library, not for case authors.
    if let Some(i) = message.find(", set DuplicateKeyPolicy") {
        message.truncate(i);
    }
    message = message
        .replace(
            "expected mapping start",
            "expected a mapping ({key: value})",
        )
        .replace("expected sequence start", "expected a list ([a, b])");
    let field = quoted_field(&message)
        .or_else(|| key_on_line(text, line))
        .unwrap_or_default();
    LoadError {
        file: source.to_string(),
        line,
        column,
        field,
        message,
    }
}

/// The field named by serde's "unknown field `x`" / "missing field `x`" messages.
fn quoted_field(message: &str) -> Option<String> {
    for marker in ["unknown field `", "missing field `", "duplicate field `"] {
        if let Some(rest) = message.split(marker).nth(1) {
            return rest.split('`').next().map(str::to_string);
        }
    }
    None
}

/// The mapping key written on a source line (`  mode: 7` → `mode`), if any.
fn key_on_line(text: &str, line: u64) -> Option<String> {
    let l = text
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let l = l
        .trim_start()
        .trim_start_matches("- ")
        .trim_start_matches('{');
    let (key, _) = l.split_once(':')?;
    let key = key.trim().trim_matches('"').trim_matches('\'');
    (!key.is_empty() && !key.contains(' ')).then(|| key.to_string())
}

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
        notes: raw.notes,
        source: source.to_string(),
        sha256: sha256_hex(bytes),
    })
}

/// Lowercase hex sha256, as recorded in the manifest and the report.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn is_version(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn check_path<T>(path: &str, node: &S<T>, field: &str, errors: &mut Errors<'_>) -> bool {
    match sandbox::root_relative(path) {
        Ok(_) => true,
        Err(e) => {
            errors.at(node, field, e);
            false
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Files,
    Modify,
}

/// Reports every key of `entry` that is present but not in `allowed`.
fn only(entry: &RawEntry, allowed: &[&str], field: &str, what: &str, errors: &mut Errors<'_>) {
    let mut check = |name: &str, loc: Option<(u64, u64)>| {
        if let Some((line, column)) = loc {
            if !allowed.contains(&name) {
                errors.list.push(LoadError {
                    file: errors.file.to_string(),
                    line,
                    column,
                    field: format!("{field}.{name}"),
                    message: format!("`{name}` is not allowed in {what}"),
                });
            }
        }
    };
    fn loc<T>(o: &Option<S<T>>) -> Option<(u64, u64)> {
        o.as_ref()
            .map(|s| (s.referenced.line(), s.referenced.column()))
    }
    check("path", loc(&entry.path));
    check("text", loc(&entry.text));
    check("encoding", loc(&entry.encoding));
    check("bom", loc(&entry.bom));
    check("bytes_b64", loc(&entry.bytes_b64));
    check("bytes_hex", loc(&entry.bytes_hex));
    check("symlink", loc(&entry.symlink));
    check("hardlink", loc(&entry.hardlink));
    check("dir", loc(&entry.dir));
    check("fifo", loc(&entry.fifo));
    check("mode", loc(&entry.mode));
    check("unchanged", loc(&entry.unchanged));
    check("absent", loc(&entry.absent));
    check("is_symlink", loc(&entry.is_symlink));
    check("keep_mtime", loc(&entry.keep_mtime));
    check("mtime", loc(&entry.mtime));
}

const FORM_KEYS: [&str; 10] = [
    "text",
    "encoding",
    "bom",
    "bytes_b64",
    "bytes_hex",
    "symlink",
    "hardlink",
    "dir",
    "fifo",
    "mode",
];

/// The content source of an entry; `Ok(None)` when it has none. Errors are recorded.
fn content(
    entry: &S<RawEntry>,
    field: &str,
    errors: &mut Errors<'_>,
) -> Result<Option<Content>, ()> {
    let e = &entry.value;
    let mut sources = Vec::new();
    if e.text.is_some() {
        sources.push("text");
    }
    if e.bytes_b64.is_some() {
        sources.push("bytes_b64");
    }
    if e.bytes_hex.is_some() {
        sources.push("bytes_hex");
    }
    if e.symlink.is_some() {
        sources.push("symlink");
    }
    if e.hardlink.is_some() {
        sources.push("hardlink");
    }
    if e.dir.is_some() {
        sources.push("dir");
    }
    if e.fifo.is_some() {
        sources.push("fifo");
    }
    if sources.len() > 1 {
        errors.at(
            entry,
            field,
            format!(
                "exactly one content source is allowed, found {}",
                sources.join(", ")
            ),
        );
        return Err(());
    }
    if e.text.is_none() {
        if let Some(enc) = &e.encoding {
            errors.at(enc, format!("{field}.encoding"), "`encoding` needs `text`");
            return Err(());
        }
    }
    if e.encoding.is_none() {
        if let Some(bom) = &e.bom {
            errors.at(
                bom,
                format!("{field}.bom"),
                "`bom` only applies to `encoding: utf-16le` or `utf-16be`",
            );
            return Err(());
        }
    }
    if let Some(text) = &e.text {
        let encoding = e.encoding.as_ref().map_or("utf-8", |s| s.value.as_str());
        let bom = e.bom.as_ref().map(|b| b.value);
        return match encode_text(&text.value, encoding, bom) {
            Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
            Err(msg) => {
                let node = e.encoding.as_ref().map_or_else(
                    || (text.referenced.line(), text.referenced.column()),
                    |s| (s.referenced.line(), s.referenced.column()),
                );
                errors.list.push(LoadError {
                    file: errors.file.to_string(),
                    line: node.0,
                    column: node.1,
                    field: format!("{field}.encoding"),
                    message: msg,
                });
                Err(())
            }
        };
    }
    if let Some(b64) = &e.bytes_b64 {
        let clean: String = b64.value.split_whitespace().collect();
        return match base64::engine::general_purpose::STANDARD.decode(clean) {
            Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
            Err(err) => {
                errors.at(
                    b64,
                    format!("{field}.bytes_b64"),
                    format!("not valid base64: {err}"),
                );
                Err(())
            }
        };
    }
    if let Some(hex) = &e.bytes_hex {
        return match decode_hex(&hex.value) {
            Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
            Err(msg) => {
                errors.at(hex, format!("{field}.bytes_hex"), msg);
                Err(())
            }
        };
    }
    if let Some(target) = &e.symlink {
        if target.value.is_empty() || target.value.contains('\0') {
            errors.at(
                target,
                format!("{field}.symlink"),
                "a symlink target must be non-empty and free of NUL",
            );
            return Err(());
        }
        return Ok(Some(Content::Symlink(target.value.clone())));
    }
    if let Some(other) = &e.hardlink {
        if let Err(msg) = sandbox::root_relative(&other.value) {
            errors.at(other, format!("{field}.hardlink"), msg);
            return Err(());
        }
        return Ok(Some(Content::Hardlink(other.value.clone())));
    }
    for (name, flag, kind) in [
        ("dir", &e.dir, Content::Dir),
        ("fifo", &e.fifo, Content::Fifo),
    ] {
        if let Some(flag) = flag {
            if !flag.value {
                errors.at(
                    flag,
                    format!("{field}.{name}"),
                    format!("only `{name}: true` is meaningful; leave the key out instead"),
                );
                return Err(());
            }
            return Ok(Some(kind));
        }
    }
    Ok(None)
}

fn mode_of(entry: &RawEntry, field: &str, errors: &mut Errors<'_>) -> Result<Option<u32>, ()> {
    let Some(m) = &entry.mode else {
        return Ok(None);
    };
    match parse_mode(&m.value) {
        Some(v) => Ok(Some(v)),
        None => {
            errors.at(
                m,
                format!("{field}.mode"),
                format!("'{}' is not an octal mode like \"0644\"", m.value),
            );
            Err(())
        }
    }
}

/// Parses an octal permission string ("0644", "755").
pub fn parse_mode(s: &str) -> Option<u32> {
    let s = s.trim();
    if s.is_empty() || s.len() > 5 || !s.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    u32::from_str_radix(s, 8).ok().filter(|m| *m <= 0o7777)
}

fn file_form(
    entry: &S<RawEntry>,
    field: &str,
    ctx: Context,
    errors: &mut Errors<'_>,
) -> Option<FileForm> {
    let before = errors.list.len();
    match ctx {
        Context::Files => only(&entry.value, &FORM_KEYS, field, "a file form", errors),
        Context::Modify => only(
            &entry.value,
            &[
                "path",
                "text",
                "encoding",
                "bom",
                "bytes_b64",
                "bytes_hex",
                "mode",
                "keep_mtime",
            ],
            field,
            "modify",
            errors,
        ),
    }
    let content = content(entry, field, errors).ok()?;
    let mode = mode_of(&entry.value, field, errors).ok()?;
    let Some(content) = content else {
        errors.at(
            entry,
            field,
            "a file form needs one content source: text, bytes_b64, bytes_hex, symlink, hardlink, dir or fifo",
        );
        return None;
    };
    if mode.is_some() && matches!(content, Content::Symlink(_)) {
        errors.at(
            entry,
            format!("{field}.mode"),
            "a symlink has no mode of its own; give the target's mode on the target",
        );
        return None;
    }
    (errors.list.len() == before).then_some(FileForm { content, mode })
}

fn flag(o: &Option<S<bool>>) -> bool {
    o.as_ref().is_some_and(|b| b.value)
}

fn expect_file(entry: &S<RawEntry>, field: &str, errors: &mut Errors<'_>) -> Option<ExpectFile> {
    let before = errors.list.len();
    let mut allowed = FORM_KEYS.to_vec();
    allowed.extend(["unchanged", "absent", "is_symlink", "replaced"]);
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
    let out = ExpectFile {
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

fn step_of(step: &S<RawStep>, field: &str, errors: &mut Errors<'_>) -> Option<Step> {
    let s = &step.value;
    let kinds: Vec<&str> = [
        ("call", s.call.is_some()),
        ("modify", s.modify.is_some()),
        ("touch", s.touch.is_some()),
        ("chmod", s.chmod.is_some()),
        ("remove", s.remove.is_some()),
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
                "a step needs one of call, modify, touch, chmod, remove".to_string()
            } else {
                format!(
                    "a step is exactly one of call, modify, touch, chmod, remove; found {}",
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
        let expect = match &s.expect {
            None => None,
            Some(e) => Some(expect_of(e, &format!("{field}.expect"), errors)?),
        };
        return Some(Step::Call {
            tool: tool.value.clone(),
            input: call.value.input.clone(),
            expect,
        });
    }
    let (name, entry) = [
        ("modify", &s.modify),
        ("touch", &s.touch),
        ("chmod", &s.chmod),
        ("remove", &s.remove),
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

fn expect_of(e: &S<RawExpect>, field: &str, errors: &mut Errors<'_>) -> Option<Expect> {
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

/// Encodes a fixture's text byte-exactly in one of the corpus encodings.
///
/// Unrepresentable characters are an error (encoding_rs would silently write HTML entities).
pub fn encode_text(text: &str, encoding: &str, bom: Option<bool>) -> Result<Vec<u8>, String> {
    let utf16 = |be: bool| {
        let mut out = Vec::with_capacity(text.len() * 2 + 2);
        if bom.unwrap_or(true) {
            out.extend_from_slice(if be { &[0xFE, 0xFF] } else { &[0xFF, 0xFE] });
        }
        for unit in text.encode_utf16() {
            out.extend_from_slice(&if be {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        out
    };
    let no_bom_option = |name: &str| -> Result<(), String> {
        match bom {
            Some(_) => Err(format!("`bom` does not apply to {name}")),
            None => Ok(()),
        }
    };
    match encoding {
        "utf-8" => {
            no_bom_option("utf-8")?;
            Ok(text.as_bytes().to_vec())
        }
        "utf-8-bom" => {
            no_bom_option("utf-8-bom (the BOM is the point of it)")?;
            let mut out = vec![0xEF, 0xBB, 0xBF];
            out.extend_from_slice(text.as_bytes());
            Ok(out)
        }
        "utf-16le" => Ok(utf16(false)),
        "utf-16be" => Ok(utf16(true)),
        "windows-1252" | "shift_jis" => {
            no_bom_option(encoding)?;
            let enc = if encoding == "shift_jis" {
                encoding_rs::SHIFT_JIS
            } else {
                encoding_rs::WINDOWS_1252
            };
            let (bytes, _, had_errors) = enc.encode(text);
            if had_errors {
                return Err(format!("the text contains characters {encoding} cannot encode"));
            }
            Ok(bytes.into_owned())
        }
        other => Err(format!(
            "unknown encoding '{other}' (utf-8, utf-8-bom, utf-16le, utf-16be, windows-1252, shift_jis)"
        )),
    }
}

/// Decodes `bytes_hex`: pairs of hex digits, upper or lower case, whitespace anywhere between.
pub fn decode_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err("an odd number of hex digits".into());
    }
    let val = |b: u8| -> Result<u8, String> {
        (b as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| format!("'{}' is not a hex digit", b as char))
    };
    digits
        .chunks(2)
        .map(|p| Ok(val(p[0])? << 4 | val(p[1])?))
        .collect()
}

// ---- the corpus --------------------------------------------------------------------------------

/// A case file that could not be loaded: it still has an id (from its path) so the run can
/// report it as `harness_error` instead of silently dropping it.
#[derive(Debug, Clone)]
pub struct BrokenCase {
    /// The id derived from the path (or the path itself when none can be derived).
    pub id: String,
    /// Every problem found.
    pub errors: Vec<LoadError>,
}

/// A loaded corpus: the cases, the ones that failed to load, and the corpus version.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Where it came from: a directory path, or `embedded`.
    pub origin: String,
    /// The directory holding `cases/`, `VERSION` and `manifest.json` (none when embedded).
    pub base: Option<PathBuf>,
    /// The corpus version (`VERSION`), `unversioned` when the file is missing.
    pub version: String,
    /// Valid cases, sorted by id.
    pub cases: Vec<Case>,
    /// Case files with errors, sorted by id.
    pub broken: Vec<BrokenCase>,
}

/// The corpus compiled into the binary (`cases/` of this crate), so that `editref conform` works
/// from any directory.
static EMBEDDED: include_dir::Dir<'static> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/cases");

/// The corpus version compiled in with it.
const EMBEDDED_VERSION: &str = include_str!("../VERSION");

fn add(corpus: &mut Corpus, source: String, rel: &str, bytes: &[u8]) {
    match parse_case(&source, rel, bytes) {
        Ok(case) => corpus.cases.push(case),
        Err(errors) => corpus.broken.push(BrokenCase {
            id: id_from_path(rel).unwrap_or_else(|| rel.to_string()),
            errors,
        }),
    }
}

fn finish(mut corpus: Corpus) -> Corpus {
    corpus.cases.sort_by(|a, b| a.id.cmp(&b.id));
    corpus.broken.sort_by(|a, b| a.id.cmp(&b.id));
    corpus
}

/// Loads every `*.yaml` below `cases_dir` (which is `<base>/cases`).
///
/// I/O errors on the directory itself are returned; a bad case file becomes a [`BrokenCase`].
pub fn load_dir(cases_dir: &Path) -> std::io::Result<Corpus> {
    let base = cases_dir.parent().map(Path::to_path_buf);
    let version = base
        .as_ref()
        .and_then(|b| std::fs::read_to_string(b.join("VERSION")).ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "unversioned".into());
    let mut corpus = Corpus {
        origin: cases_dir.display().to_string(),
        base,
        version,
        cases: Vec::new(),
        broken: Vec::new(),
    };
    let mut files = Vec::new();
    walk(cases_dir, cases_dir, &mut files)?;
    for (rel, path) in files {
        let source = path.display().to_string();
        match std::fs::read(&path) {
            Ok(bytes) => add(&mut corpus, source, &rel, &bytes),
            Err(e) => corpus.broken.push(BrokenCase {
                id: id_from_path(&rel).unwrap_or(rel),
                errors: vec![LoadError {
                    file: source,
                    line: 0,
                    column: 0,
                    field: String::new(),
                    message: format!("cannot read: {e}"),
                }],
            }),
        }
    }
    Ok(finish(corpus))
}

/// Case files below `dir`: every `*.yaml` and `*.yml` (the latter to report it), skipping
/// hidden entries such as `.gitkeep`.
fn walk(top: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        if std::fs::metadata(&path)?.is_dir() {
            walk(top, &path, out)?;
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            let rel = path
                .strip_prefix(top)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, path));
        }
    }
    Ok(())
}

/// Loads the corpus compiled into the binary.
pub fn load_embedded() -> Corpus {
    let version = Some(EMBEDDED_VERSION.trim())
        .filter(|v| !v.is_empty())
        .unwrap_or("unversioned")
        .to_string();
    let mut corpus = Corpus {
        origin: "embedded".into(),
        base: None,
        version,
        cases: Vec::new(),
        broken: Vec::new(),
    };
    let mut files = Vec::new();
    embedded_files(&EMBEDDED, &mut files);
    for file in files {
        let rel = file.path().to_string_lossy().replace('\\', "/");
        let rel = rel.as_str();
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name.starts_with('.') || !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        add(
            &mut corpus,
            format!("embedded:conformance/cases/{rel}"),
            rel,
            file.contents(),
        );
    }
    finish(corpus)
}

fn embedded_files(
    dir: &'static include_dir::Dir<'static>,
    out: &mut Vec<&'static include_dir::File<'static>>,
) {
    for f in dir.files() {
        out.push(f);
    }
    for d in dir.dirs() {
        embedded_files(d, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"id: edit/sample
title: A sample
spec: [EDIT-1]
level: core
requires: [read, edit]
since: "0.1.0"
files:
  a.txt: {text: "one\r\ntwo\n", mode: "0644"}
  b.bin: {bytes_hex: "FF fe 00"}
  l: {symlink: "a.txt"}
  ../outside.txt: {text: "x", encoding: utf-16le, bom: false}
steps:
  - call: {tool: Read, input: {file_path: a.txt}}
  - call:
      tool: Edit
      input: {file_path: a.txt, old_string: "one", new_string: "1"}
    expect: {ok: true, output: {replacements: 1}}
  - modify: {path: a.txt, text: "z", keep_mtime: true}
  - touch: {path: a.txt, mtime: "-5s"}
  - chmod: {path: a.txt, mode: "0444"}
  - call: {tool: Edit, input: {file_path: a.txt, old_string: "z", new_string: "y"}}
    expect: {error: {code: permission_denied}}
  - remove: {path: b.bin}
expect_files:
  a.txt: {unchanged: true, mode: "0444"}
  b.bin: {absent: true}
"#;

    fn parse(text: &str) -> Result<Case, Vec<LoadError>> {
        parse_case(
            "cases/edit/sample.yaml",
            "edit/sample.yaml",
            text.as_bytes(),
        )
    }

    #[test]
    fn a_good_case_loads_byte_exactly() {
        let case = parse(GOOD).unwrap();
        assert_eq!(case.level, Level::Core);
        assert_eq!(case.files.len(), 4);
        let get = |p: &str| case.files.iter().find(|(k, _)| k == p).unwrap().1.clone();
        assert_eq!(
            get("a.txt").content,
            Content::Bytes(b"one\r\ntwo\n".to_vec())
        );
        assert_eq!(get("a.txt").mode, Some(0o644));
        assert_eq!(get("b.bin").content, Content::Bytes(vec![0xFF, 0xFE, 0]));
        assert_eq!(get("../outside.txt").content, Content::Bytes(vec![b'x', 0]));
        assert_eq!(case.steps.len(), 7);
        assert!(matches!(
            case.steps[3],
            Step::Touch {
                shift_ns: -5_000_000_000,
                ..
            }
        ));
        assert!(
            matches!(&case.steps[5], Step::Call { expect: Some(Expect::Error { code, .. }), .. } if code == "permission_denied")
        );
    }

    #[track_caller]
    fn first_error(text: &str) -> LoadError {
        match parse(text) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.into_iter().next().unwrap(),
        }
    }

    #[test]
    fn unknown_field_names_file_line_and_field() {
        let bad = GOOD.replace("  b.bin: {bytes_hex", "  b.bin: {colour: red, bytes_hex");
        let e = first_error(&bad);
        assert_eq!(e.file, "cases/edit/sample.yaml");
        assert_eq!(e.line, 9, "{e}");
        assert_eq!(e.field, "colour", "{e}");
        assert!(
            e.to_string().starts_with("cases/edit/sample.yaml:9:"),
            "{e}"
        );
    }

    #[test]
    fn semantic_errors_are_located() {
        let bad = GOOD.replace("level: core", "level: basic");
        let e = first_error(&bad);
        assert_eq!((e.line, e.field.as_str()), (4, "level"), "{e}");

        let bad = GOOD.replace("id: edit/sample", "id: edit/other");
        assert_eq!(first_error(&bad).field, "id");

        let bad = GOOD.replace("requires: [read, edit]", "requires: [read, teleport]");
        let e = first_error(&bad);
        assert_eq!((e.line, e.field.as_str()), (5, "requires[1]"), "{e}");

        let bad = GOOD.replace(
            "{bytes_hex: \"FF fe 00\"}",
            "{bytes_hex: \"FF\", text: \"x\"}",
        );
        let e = first_error(&bad);
        assert_eq!((e.line, e.field.as_str()), (9, "files.b.bin"), "{e}");
        assert!(e.message.contains("exactly one content source"), "{e}");

        let bad = GOOD.replace("tool: Edit\n", "tool: Delete\n");
        let e = first_error(&bad);
        assert_eq!(e.field, "steps[1].call.tool", "{e}");
        assert_eq!(e.line, 15, "{e}");

        let bad = GOOD.replace(
            "- remove: {path: b.bin}",
            "- remove: {path: b.bin}\n    touch: {path: a.txt, mtime: \"+1s\"}",
        );
        assert!(first_error(&bad).message.contains("exactly one of"));

        let bad = GOOD.replace("mtime: \"-5s\"", "mtime: \"soon\"");
        assert_eq!(first_error(&bad).field, "steps[3].touch.mtime");

        let bad = GOOD.replace("{absent: true}", "{absent: true, text: \"x\"}");
        assert!(first_error(&bad).message.contains("absent"));

        let bad = GOOD.replace("../outside.txt", "../../escape.txt");
        assert_eq!(first_error(&bad).field, "files.../../escape.txt");

        let bad = GOOD.replace(
            "text: \"z\", keep_mtime: true",
            "text: \"z\", unchanged: true",
        );
        assert_eq!(first_error(&bad).field, "steps[2].modify.unchanged");
    }

    #[test]
    fn malformed_yaml_never_panics_and_is_located() {
        let samples = [
            "",
            "id: [",
            "{",
            "- - -",
            "id: edit/sample\nid: edit/sample\n",
            "files: {a: {text: 1}}",
            "\u{0}\u{1}",
            "id: &a [*a]",
            "steps: !!binary AAAA",
            "a: &a [x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n",
            "title: |\n  x\n  y\n",
            "a: b: c",
            "'",
            "---\n---\n",
            "level: core\n  bad indent: 1",
        ];
        for s in samples {
            let r = parse(s);
            let errs = r.expect_err(s);
            assert!(!errs.is_empty());
            assert!(
                errs[0].to_string().starts_with("cases/edit/sample.yaml"),
                "{}",
                errs[0]
            );
        }
        // A truncation at every byte of a valid case must fail cleanly or succeed, never panic.
        for end in 0..GOOD.len() {
            if GOOD.is_char_boundary(end) {
                let _ = parse(&GOOD[..end]);
            }
        }
        let _ = parse_case("x", "edit/sample.yaml", &[0xFF, 0xFE, b'i']);
    }

    #[test]
    fn a_type_error_names_the_field_on_its_line() {
        let bad = GOOD
            .replace("allow_residue", "x")
            .replace("expect_files:\n", "allow_residue: [1]\nexpect_files:\n");
        let e = first_error(&bad);
        assert_eq!(e.field, "allow_residue", "{e}");
        assert!(e.line > 0, "{e}");
    }

    #[test]
    fn paths_of_case_files_fix_the_id() {
        assert_eq!(id_from_path("eol/crlf.yaml").as_deref(), Some("eol/crlf"));
        assert_eq!(id_from_path("crlf.yaml"), None);
        assert_eq!(id_from_path("a/b/c.yaml"), None);
        assert_eq!(id_from_path("a/b.yml"), None);
        let e = parse_case("x", "deep/er/case.yaml", GOOD.as_bytes()).unwrap_err();
        assert!(e[0].message.contains("<area>/<name>.yaml"));
    }

    #[test]
    fn encodings_and_hex() {
        assert_eq!(encode_text("é", "windows-1252", None).unwrap(), vec![0xE9]);
        assert!(encode_text("日本", "windows-1252", None).is_err());
        assert_eq!(
            encode_text("日", "shift_jis", None).unwrap(),
            vec![0x93, 0xFA]
        );
        assert_eq!(
            encode_text("a", "utf-16be", None).unwrap(),
            vec![0xFE, 0xFF, 0, b'a']
        );
        assert_eq!(
            encode_text("a", "utf-16le", Some(false)).unwrap(),
            vec![b'a', 0]
        );
        assert_eq!(
            encode_text("a", "utf-8-bom", None).unwrap(),
            vec![0xEF, 0xBB, 0xBF, b'a']
        );
        assert!(encode_text("a", "latin-9", None).is_err());
        assert_eq!(decode_hex("0d 0A\nff").unwrap(), vec![13, 10, 255]);
        assert!(decode_hex("abc").is_err());
        assert!(decode_hex("zz").is_err());
        assert_eq!(parse_mode("0755"), Some(0o755));
        assert_eq!(parse_mode("0855"), None);
        assert_eq!(parse_shift("+1500ms"), Some(1_500_000_000));
        assert_eq!(parse_shift("-0.5s"), Some(-500_000_000));
        assert_eq!(parse_shift("5s"), None);
    }
}
