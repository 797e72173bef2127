//! The inputs and output of the dialects that change several files in one call: Codex's
//! `apply_patch` (APPLY rules) and Aider's SEARCH/REPLACE blocks (`search_replace`, BLOCK
//! rules). Both report the same way: each file with what happened to it and its diff.

use super::fields::Fields;
use super::patch::Change;
use crate::error::{ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Apply a patch in Codex's apply_patch format to one or more files, all or nothing.
///
/// The patch starts with `*** Begin Patch` and ends with `*** End Patch`; between them
/// `*** Add File: PATH` (lines prefixed `+`), `*** Delete File: PATH`, and `*** Update File:
/// PATH` (optionally `*** Move to: PATH`) with chunks of ` ` context, `-` removed and `+` added
/// lines, each chunk optionally after an `@@ context` line. Context must match the file at one
/// place only; a patch that cannot be applied whole changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchInput {
    /// The whole patch text (also accepted as `patch`).
    pub input: String,
    /// Check everything and report the diffs, but write nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

/// One operation of the Responses API's apply_patch tool: `create_file`, `update_file` or
/// `delete_file` of `path`, with the V4A `diff` of that one file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchOperation {
    /// `create_file`, `update_file` or `delete_file`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The file.
    pub path: String,
    /// The file's lines prefixed `+` (create) or its chunks (update); empty for delete.
    #[serde(default)]
    pub diff: String,
}

impl ApplyPatchInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 2] = ["input", "dry_run"];

    /// A patch to apply.
    pub fn new(patch: impl Into<String>) -> ApplyPatchInput {
        ApplyPatchInput {
            input: patch.into(),
            dry_run: false,
        }
    }

    /// APPLY-1: parses the function-tool shape `{"input": PATCH}` (or `{"patch": PATCH}`); the
    /// per-operation shape is [`PatchOperation::from_json`].
    pub fn from_json(input: &Value) -> ToolResult<ApplyPatchInput> {
        let renamed;
        let input = match input.as_object() {
            Some(map) if map.contains_key("patch") && !map.contains_key("input") => {
                let mut m = map.clone();
                if let Some(v) = m.remove("patch") {
                    m.insert("input".into(), v);
                }
                renamed = Value::Object(m);
                &renamed
            }
            _ => input,
        };
        let f = Fields::new("apply_patch", input, &Self::FIELDS)?;
        Ok(ApplyPatchInput {
            input: f.string("input")?,
            dry_run: f.boolean("dry_run")?,
        })
    }
}

impl PatchOperation {
    /// The input fields (unknown fields are refused).
    pub const FIELDS: [&'static str; 3] = ["type", "path", "diff"];

    /// Whether a JSON input has the per-operation shape (it has a `type`).
    pub fn is_operation(input: &Value) -> bool {
        input.get("type").is_some()
    }

    /// Parses `{"type", "path", "diff"}`.
    pub fn from_json(input: &Value) -> ToolResult<PatchOperation> {
        let f = Fields::new("apply_patch", input, &Self::FIELDS)?;
        let kind = f.string("type")?;
        if !matches!(kind.as_str(), "create_file" | "update_file" | "delete_file") {
            return Err(ToolError::invalid_input(format!(
                "The operation type `{kind}` of apply_patch is not one of create_file, \
                 update_file, delete_file."
            ))
            .with("field", "type"));
        }
        Ok(PatchOperation {
            kind,
            path: f.string("path")?,
            diff: f.opt_string("diff")?.unwrap_or_default(),
        })
    }
}

/// Apply the SEARCH/REPLACE blocks of a reply to the files they name, all or nothing.
///
/// Each block is the file's path on a line of its own, then `<<<<<<< SEARCH`, the exact lines
/// to find, `=======`, the lines to put in their place, and `>>>>>>> REPLACE`. The SEARCH text
/// must occur exactly once; an empty SEARCH creates a new file. Text around the blocks is
/// ignored.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchReplaceInput {
    /// The reply holding the blocks.
    pub text: String,
    /// Check everything and report the diffs, but write nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

impl SearchReplaceInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 2] = ["text", "dry_run"];

    /// A reply to apply.
    pub fn new(text: impl Into<String>) -> SearchReplaceInput {
        SearchReplaceInput {
            text: text.into(),
            dry_run: false,
        }
    }

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<SearchReplaceInput> {
        let f = Fields::new("search_replace", input, &Self::FIELDS)?;
        Ok(SearchReplaceInput {
            text: f.string("text")?,
            dry_run: f.boolean("dry_run")?,
        })
    }
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// A new file.
    Created,
    /// An existing file changed in place.
    Updated,
    /// The file was removed.
    Deleted,
    /// The file changed (or not) and moved to `movedTo`.
    Moved,
}

/// One file of a multi-file change.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// The path as the patch or reply named it.
    pub file_path: String,
    /// What happened to it.
    pub action: FileAction,
    /// Where it moved, for `moved`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    /// `structuredPatch` and `diff` of its text.
    #[serde(flatten)]
    pub change: Change,
}

/// What apply_patch or search_replace did: every file, in the order first named.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilesOutput {
    /// The files changed.
    pub files: Vec<FileChange>,
    /// Present and true when nothing was written.
    #[serde(skip_serializing_if = "is_false")]
    pub dry_run: bool,
    /// Present and false when the writes were not all fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}
