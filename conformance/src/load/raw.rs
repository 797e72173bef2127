//! The raw case schema: the serde shapes of a case file, exactly the YAML, every key known.
//!
//! Parsing into these shapes is the only step that sees YAML. Every struct refuses unknown keys
//! and every value that a later check may complain about is [`Spanned`], so the semantic checks
//! in the sibling modules can still point at the line and column of the node they reject. File
//! forms, expectations and harness actions share one [`RawEntry`] with every key optional; which
//! keys are allowed where is decided afterwards ([`only`]), so that a misplaced key gets "not
//! allowed here" with its line instead of a bare serde error.

use super::error::{Errors, LoadError};
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// A value with the place in the case file it came from.
pub(super) type S<T> = Spanned<T>;

/// A whole case file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCase {
    pub(super) id: S<String>,
    pub(super) title: S<String>,
    pub(super) spec: S<Vec<String>>,
    pub(super) level: S<String>,
    pub(super) requires: S<Vec<S<String>>>,
    #[serde(default)]
    pub(super) tags: Option<Vec<String>>,
    pub(super) since: S<String>,
    pub(super) files: S<BTreeMap<String, S<RawEntry>>>,
    pub(super) steps: S<Vec<S<RawStep>>>,
    #[serde(default)]
    pub(super) expect_files: Option<BTreeMap<String, S<RawEntry>>>,
    #[serde(default)]
    pub(super) allow_residue: Option<bool>,
    #[serde(default)]
    pub(super) timeout: Option<S<f64>>,
    #[serde(default)]
    pub(super) notes: Option<String>,
}

/// Every key a file form, an expectation or a harness action may carry; which ones are allowed
/// where is checked after parsing, so the message can say "not allowed here" with a line.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEntry {
    #[serde(default)]
    pub(super) path: Option<S<String>>,
    #[serde(default)]
    pub(super) text: Option<S<String>>,
    #[serde(default)]
    pub(super) encoding: Option<S<String>>,
    #[serde(default)]
    pub(super) bom: Option<S<bool>>,
    #[serde(default)]
    pub(super) bytes_b64: Option<S<String>>,
    #[serde(default)]
    pub(super) bytes_hex: Option<S<String>>,
    #[serde(default)]
    pub(super) symlink: Option<S<String>>,
    #[serde(default)]
    pub(super) hardlink: Option<S<String>>,
    #[serde(default)]
    pub(super) dir: Option<S<bool>>,
    #[serde(default)]
    pub(super) fifo: Option<S<bool>>,
    #[serde(default)]
    pub(super) mode: Option<S<String>>,
    #[serde(default)]
    pub(super) unchanged: Option<S<bool>>,
    #[serde(default)]
    pub(super) absent: Option<S<bool>>,
    #[serde(default)]
    pub(super) is_symlink: Option<S<bool>>,
    #[serde(default)]
    pub(super) replaced: Option<S<bool>>,
    #[serde(default)]
    pub(super) keep_mtime: Option<S<bool>>,
    #[serde(default)]
    pub(super) mtime: Option<S<String>>,
    #[serde(default)]
    pub(super) class: Option<S<String>>,
}

/// One entry of `steps`: a call (with its `expect`) or a harness action.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStep {
    #[serde(default)]
    pub(super) call: Option<S<RawCall>>,
    #[serde(default)]
    pub(super) expect: Option<S<RawExpect>>,
    #[serde(default)]
    pub(super) modify: Option<S<RawEntry>>,
    #[serde(default)]
    pub(super) touch: Option<S<RawEntry>>,
    #[serde(default)]
    pub(super) chmod: Option<S<RawEntry>>,
    #[serde(default)]
    pub(super) remove: Option<S<RawEntry>>,
    #[serde(default)]
    pub(super) link: Option<S<RawEntry>>,
}

/// A tool call: the tool's name and its input, passed on as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCall {
    pub(super) tool: S<String>,
    pub(super) input: Value,
}

/// What a call's reply must be: `ok` with an optional `output`, or an `error`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExpect {
    #[serde(default)]
    pub(super) ok: Option<S<bool>>,
    #[serde(default)]
    pub(super) output: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<S<Value>>,
    #[serde(default)]
    pub(super) class: Option<S<String>>,
}

/// Reports every key of `entry` that is present but not in `allowed`.
pub(super) fn only(
    entry: &RawEntry,
    allowed: &[&str],
    field: &str,
    what: &str,
    errors: &mut Errors<'_>,
) {
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
    check("class", loc(&entry.class));
}

/// Whether a `key: true` flag is present and true.
pub(super) fn flag(o: &Option<S<bool>>) -> bool {
    o.as_ref().is_some_and(|b| b.value)
}
