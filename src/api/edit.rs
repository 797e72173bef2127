//! Edit's and MultiEdit's inputs and outputs: exact string replacement in one file, once or
//! as an all-or-nothing sequence.

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

/// Replace exact text in a file.
///
/// Read the whole file first in this session; the edit is refused if the file changed since.
/// `old_string` must occur exactly once unless `replace_all` is set — copy it from the file
/// with enough surrounding lines to be unique, without the line-number prefixes Read shows.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// The file to change: absolute, or relative to the session's working directory.
    pub file_path: String,
    /// The exact text to replace, as it appears in the file. Empty only to create a new file.
    pub old_string: String,
    /// The text to put in its place; must differ from `old_string`.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replace_all: bool,
    /// Replace every occurrence, and refuse unless there are exactly this many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub expected_replacements: Option<u64>,
    /// Check everything and report the diff, but write nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

impl EditInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 6] = [
        "file_path",
        "old_string",
        "new_string",
        "replace_all",
        "expected_replacements",
        "dry_run",
    ];

    /// An edit replacing the single occurrence of `old_string` in `file_path`.
    pub fn new(
        file_path: impl Into<String>,
        old_string: impl Into<String>,
        new_string: impl Into<String>,
    ) -> EditInput {
        EditInput {
            file_path: file_path.into(),
            old_string: old_string.into(),
            new_string: new_string.into(),
            ..EditInput::default()
        }
    }

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<EditInput> {
        let input = super::aliases::edit(input)?;
        let f = Fields::new("Edit", &input, &Self::FIELDS)?;
        let expected_replacements = f.integer("expected_replacements")?;
        if expected_replacements == Some(0) {
            return Err(ToolError::invalid_input(
                "`expected_replacements` of Edit must be at least 1: an edit that replaces nothing changes nothing.",
            )
            .with("field", "expected_replacements"));
        }
        Ok(EditInput {
            file_path: f.string("file_path")?,
            old_string: f.string("old_string")?,
            new_string: f.string("new_string")?,
            replace_all: f.boolean("replace_all")?,
            expected_replacements,
            dry_run: f.boolean("dry_run")?,
        })
    }
}

/// One replacement of a MultiEdit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditSpec {
    /// The exact text to replace, in the file as the earlier edits left it.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replace_all: bool,
}

impl EditSpec {
    /// The fields of one edit.
    pub const FIELDS: [&'static str; 3] = ["old_string", "new_string", "replace_all"];
}

/// Apply several replacements to one file, in order, each to the result of the one before;
/// all are written together or none is.
///
/// The same rules as Edit hold for every edit; an edit may not target text an earlier edit
/// of the same call wrote.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultiEditInput {
    /// The file to change: absolute, or relative to the session's working directory.
    pub file_path: String,
    /// The edits, 1 to 1000 of them.
    pub edits: Vec<EditSpec>,
    /// Check everything and report the diff, but write nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

/// Most edits one MultiEdit may carry.
pub const MAX_EDITS: usize = 1000;

impl MultiEditInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 3] = ["file_path", "edits", "dry_run"];

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<MultiEditInput> {
        let f = Fields::new("MultiEdit", input, &Self::FIELDS)?;
        let file_path = f.string("file_path")?;
        let dry_run = f.boolean("dry_run")?;
        let list = match f.raw("edits") {
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(ToolError::invalid_input("The parameter `edits` of MultiEdit must be an array of {old_string, new_string, replace_all?} objects.").with("field", "edits"))
            }
            None => {
                return Err(ToolError::invalid_input("The required parameter `edits` of MultiEdit is missing.").with("field", "edits"))
            }
        };
        if list.is_empty() || list.len() > MAX_EDITS {
            return Err(ToolError::invalid_input(format!(
                "MultiEdit takes 1 to {MAX_EDITS} edits; {} were given. Split larger changes into several calls.",
                list.len()
            ))
            .with("field", "edits"));
        }
        let mut edits = Vec::with_capacity(list.len());
        for (index, e) in list.iter().enumerate() {
            let parsed = (|| {
                let ef = Fields::new("MultiEdit", e, &EditSpec::FIELDS)?;
                Ok::<_, ToolError>(EditSpec {
                    old_string: ef.string("old_string")?,
                    new_string: ef.string("new_string")?,
                    replace_all: ef.boolean("replace_all")?,
                })
            })();
            edits.push(parsed.map_err(|err| err.with("edit_index", index))?);
        }
        Ok(MultiEditInput {
            file_path,
            edits,
            dry_run,
        })
    }
}

/// What Edit did (EDIT-5).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditOutput {
    /// The path as given.
    pub file_path: String,
    /// The file's own text that was replaced (at the first hit): differs from the request
    /// when a repair or the curly-quote fallback found it.
    pub old_string: String,
    /// The text written (at the first hit), after quote styling.
    pub new_string: String,
    /// Whether `replace_all` was set.
    pub replace_all: bool,
    /// How many occurrences were replaced.
    pub replacements: usize,
    /// `structuredPatch` and `diff`.
    #[serde(flatten)]
    pub change: Change,
    /// Input repairs that fired (`desanitize`, `line_prefix`, `unicode_escape`); a hit found by
    /// the curly-quote fallback (MATCH-2) shows in `old_string` instead.
    pub repairs: Vec<&'static str>,
    /// Always false: nobody edited the proposed change before it was applied.
    pub user_modified: bool,
    /// Present and true on a dry run: nothing was written.
    #[serde(skip_serializing_if = "is_false")]
    pub dry_run: bool,
    /// Present and false when the write was not fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}

/// What one edit of a MultiEdit did (MULTI-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditSummary {
    /// The file's own text that was replaced (at the first hit).
    pub old_string: String,
    /// The text written (at the first hit).
    pub new_string: String,
    /// Whether `replace_all` was set.
    pub replace_all: bool,
    /// How many occurrences were replaced.
    pub replacements: usize,
    /// Input repairs that fired for this edit.
    pub repairs: Vec<&'static str>,
}

/// What MultiEdit did (MULTI-5).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiEditOutput {
    /// The path as given.
    pub file_path: String,
    /// One summary per edit, in order.
    pub edits: Vec<EditSummary>,
    /// `structuredPatch` and `diff` of all edits together.
    #[serde(flatten)]
    pub change: Change,
    /// Every repair that fired, once each.
    pub repairs: Vec<&'static str>,
    /// Always false.
    pub user_modified: bool,
    /// Present and true on a dry run: nothing was written.
    #[serde(skip_serializing_if = "is_false")]
    pub dry_run: bool,
    /// Present and false when the write was not fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}
