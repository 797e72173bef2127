//! Failure classes: what kind of promise a check judges — the bytes on disk, whether the tool
//! did what it was asked at all, the reply a caller acts on, or the text a model reads — so a
//! report can say *which* promise a tool broke.
//!
//! A tool that numbers Read's lines its own way, a tool that refuses to edit a windows-1252 file
//! and leaves it as it was, and a tool that corrupts a CRLF file all "fail" a case, but only the
//! last loses data. Every check of a case therefore has a class, derived from what it judges
//! (the table below), so all of the corpus is classed without a key in each case file; a case
//! may still name the class of one expectation (`class:` in a step's `expect` or an
//! `expect_files` entry) where the table would be wrong for it.
//!
//! | what the check judges | class |
//! |---|---|
//! | the final tree: an entry neither as the case expects nor as it was before; an unlisted file changed, created (residue) or removed | data |
//! | the final tree: an entry left exactly as it was where the case expects a change, when the tool refused a call the case expects to succeed | capability |
//! | a refusal where the case expects success | capability |
//! | the final tree: an entry left as it was where the case expects a change, when the tool answered success to every call | contract |
//! | a success where the case expects a refusal; an error code outside the expected code's family; structured error fields | contract |
//! | a field of a successful reply | contract |
//! | `file.content`, `file.numLines`, `file.totalLines`, `file.startLine` of a Read, or of a text editor `view` (under `result.`) | presentation |
//!
//! Which result and error fields are judged at all depends on what the tool declares
//! ([`judged_leaf`]): error codes by family are [`crate::codes`]'.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The kind of promise a check judges. The order is the order of importance, and of reports:
/// data first, then capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Damage: bytes or metadata on disk that differ both from what the case expects and from
    /// what was there before, or a file created, removed or replaced that should not have been.
    Data,
    /// Not done: the tool refused what the spec says to do, and left everything as it was.
    Capability,
    /// What a caller relies on in a reply: `ok`, error codes and fields, result fields.
    Contract,
    /// Read's text form, shown to a model and relied on by nobody's code.
    Presentation,
}

impl Class {
    /// Every class, in report order (data first).
    pub const ALL: [Class; 4] = [
        Class::Data,
        Class::Capability,
        Class::Contract,
        Class::Presentation,
    ];

    /// The spelling used in case files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Data => "data",
            Class::Capability => "capability",
            Class::Contract => "contract",
            Class::Presentation => "presentation",
        }
    }

    /// Parses the spelling of [`Class::as_str`].
    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The fields of a Read result that are its text form (below `file`).
const READ_TEXT_FIELDS: [&str; 4] = ["content", "numLines", "totalLines", "startLine"];

/// The names of Anthropic's text editor tool (EDITOR-*).
const TEXT_EDITOR: [&str; 2] = ["str_replace_based_edit_tool", "str_replace_editor"];

/// Whether a call shows a file as Read does: a Read, or a text editor `view`.
pub fn is_read_view(tool: &str, input: &Value) -> bool {
    tool == "Read"
        || (TEXT_EDITOR.contains(&tool)
            && input.get("command").and_then(Value::as_str) == Some("view"))
}

/// Where the Read-shaped `file` object sits in this tool's output (`file`, or `result.file` for
/// the text editor); `None` for a call that does not show a file.
pub fn read_file_path(tool: &str, input: &Value) -> Option<&'static str> {
    if !is_read_view(tool, input) {
        None
    } else if tool == "Read" {
        Some("file")
    } else {
        Some("result.file")
    }
}

/// The class of one leaf of a successful reply's expected output, at the dotted `path`.
pub fn of_output_leaf(tool: &str, input: &Value, path: &str) -> Class {
    let presentation = read_file_path(tool, input).is_some_and(|file| {
        path.strip_prefix(file)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|field| READ_TEXT_FIELDS.contains(&field))
    });
    if presentation {
        Class::Presentation
    } else {
        Class::Contract
    }
}

/// Whether a leaf of a successful reply's expected output, at the dotted `path`, is judged for
/// a tool that declared `features`. A Read, or a text editor `view`, is judged whole: what it
/// shows is its answer. Of any other call only the outcome counts unless the tool declares the
/// fields: `structuredPatch` with `structured_patch`, every other field with `result_fields`.
pub fn judged_leaf(tool: &str, input: &Value, path: &str, features: &[String]) -> bool {
    let declared = |f: &str| features.iter().any(|d| d == f);
    if is_read_view(tool, input) || declared("result_fields") {
        return true;
    }
    let first = path.split('.').next().unwrap_or("");
    first == "structuredPatch" && declared("structured_patch")
}

/// The classes a mismatch of the output at `path` touches, `expected` being what the case
/// lists there: an object that is missing or not an object stands for every leaf it lists.
pub fn of_output_mismatch(tool: &str, input: &Value, path: &str, expected: &Value) -> Vec<Class> {
    let mut out = Vec::new();
    let mut leaves = Vec::new();
    collect_leaves(expected, path, &mut leaves);
    for leaf in leaves {
        out.push(of_output_leaf(tool, input, &leaf));
    }
    if out.is_empty() {
        // An empty object is still something the caller was promised.
        out.push(of_output_leaf(tool, input, path));
    }
    out.sort();
    out.dedup();
    out
}

/// The dotted paths of the leaves of `v` below `path`: values other than objects, and the
/// expectation forms (`{contains: …}`, `{absent: true}`, `{shape: …}`), which stand for the
/// field they are in.
fn collect_leaves(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) if !crate::check::forms::is_form(m) => {
            for (k, x) in m {
                let p = if path.is_empty() || path == "." {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                collect_leaves(x, &p, out);
            }
        }
        _ => out.push(path.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rule_table() {
        let none = json!({});
        let view = json!({"command": "view"});
        let editor = "str_replace_based_edit_tool";
        assert_eq!(
            of_output_leaf("Read", &none, "file.content"),
            Class::Presentation
        );
        assert_eq!(
            of_output_leaf("Read", &none, "file.startLine"),
            Class::Presentation
        );
        assert_eq!(of_output_leaf("Read", &none, "type"), Class::Contract);
        assert_eq!(of_output_leaf("Read", &none, "cells"), Class::Contract);
        assert_eq!(
            of_output_leaf(editor, &view, "result.file.numLines"),
            Class::Presentation
        );
        assert_eq!(
            of_output_leaf(editor, &json!({"command": "create"}), "result.file.content"),
            Class::Contract
        );
        assert_eq!(
            of_output_leaf("Edit", &none, "replacements"),
            Class::Contract
        );
        assert_eq!(of_output_leaf("Write", &none, "content"), Class::Contract);
        // A missing `file` object stands for the leaves the case listed in it.
        assert_eq!(
            of_output_mismatch(
                "Read",
                &none,
                "file",
                &json!({"content": "1\ta", "numLines": 1})
            ),
            vec![Class::Presentation]
        );
        assert_eq!(
            of_output_mismatch(
                "Read",
                &none,
                ".",
                &json!({"type": "text", "file": {"content": ""}})
            ),
            vec![Class::Contract, Class::Presentation]
        );
        assert_eq!(Class::parse("data"), Some(Class::Data));
        assert_eq!(Class::parse("bytes"), None);
        assert_eq!(
            Class::ALL.map(Class::as_str),
            ["data", "capability", "contract", "presentation"]
        );
    }

    #[test]
    fn fields_are_judged_as_declared() {
        let none: Vec<String> = vec![];
        let fields = vec!["result_fields".to_string()];
        let patch = vec!["structured_patch".to_string()];
        let e = json!({});
        let view = json!({"command": "view"});
        assert!(!judged_leaf("Edit", &e, "replacements", &none));
        assert!(judged_leaf("Edit", &e, "replacements", &fields));
        assert!(judged_leaf("Edit", &e, "structuredPatch", &patch));
        assert!(!judged_leaf("Edit", &e, "structuredPatch", &none));
        assert!(!judged_leaf("Write", &e, "type", &patch));
        assert!(judged_leaf("Read", &e, "type", &none));
        assert!(judged_leaf("Read", &e, "file.content", &none));
        assert!(judged_leaf(
            "str_replace_editor",
            &view,
            "result.file.content",
            &none
        ));
        assert!(!judged_leaf(
            "str_replace_editor",
            &e,
            "result.replacements",
            &none
        ));
    }
}
