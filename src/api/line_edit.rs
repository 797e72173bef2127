//! LineEdit's input and output: replacing a range of lines by number (LINES-1..6).

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

/// Replace lines `start_line` to `end_line` (1-based, inclusive) of a file with new content.
///
/// Read the whole file first: line numbers only mean something against the text you saw, and
/// the edit is refused (`stale`) if the file changed since. Give `expected_text` (the current
/// text of those lines) to have the edit refused rather than applied to the wrong lines. With
/// `end_line` = `start_line` - 1 nothing is replaced and the content is inserted before
/// `start_line`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineEditInput {
    /// The file to edit: absolute, or relative to the working directory.
    pub file_path: String,
    /// The first line to replace, 1-based.
    #[schemars(range(min = 1))]
    pub start_line: u64,
    /// The last line to replace, inclusive; `start_line - 1` to insert without replacing.
    pub end_line: u64,
    /// The new lines. A line break is added at the end when the replaced lines ended with
    /// one and this does not; empty content deletes the lines.
    pub new_content: String,
    /// The text the lines hold now; when given and different, the edit is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_text: Option<String>,
    /// Compute the result without writing the file.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

impl LineEditInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 6] = [
        "file_path",
        "start_line",
        "end_line",
        "new_content",
        "expected_text",
        "dry_run",
    ];

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<LineEditInput> {
        let f = Fields::new("LineEdit", input, &Self::FIELDS)?;
        let required = |key: &str| -> ToolResult<u64> {
            f.integer(key)?.ok_or_else(|| {
                ToolError::invalid_input(format!(
                    "The required parameter `{key}` of LineEdit is missing."
                ))
                .with("field", key)
            })
        };
        Ok(LineEditInput {
            file_path: f.string("file_path")?,
            start_line: required("start_line")?,
            end_line: required("end_line")?,
            new_content: f.string("new_content")?,
            expected_text: f.opt_string("expected_text")?,
            dry_run: f.boolean("dry_run")?,
        })
    }
}

/// What LineEdit did.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LineEditOutput {
    /// The path as given.
    pub file_path: String,
    /// The first replaced line.
    pub start_line: u64,
    /// The last replaced line (`start_line - 1` for an insertion).
    pub end_line: u64,
    /// The text the lines held (LF line breaks).
    pub old_text: String,
    /// `structuredPatch` and `diff` of the change.
    #[serde(flatten)]
    pub change: Change,
    /// Present and true when nothing was written.
    #[serde(skip_serializing_if = "is_false")]
    pub dry_run: bool,
    /// Present and false when the write was not fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}
