//! Undo's input and output: taking back the last writes of a file (UNDO-2..5).

use super::fields::Fields;
use crate::error::{ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn one() -> u64 {
    1
}

/// Undo the last write (or the last `steps` writes) of a file made by these tools.
///
/// Each step restores what one earlier tool call replaced — for a call that changed several
/// files (a MultiEdit, an apply_patch across files), all of them together. It is refused, and
/// nothing changes, when a file was changed since by something else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoInput {
    /// The file whose last write to undo: absolute, or relative to the working directory.
    pub file_path: String,
    /// How many writes to take back, newest first (default 1).
    #[serde(default = "one")]
    #[schemars(range(min = 1))]
    pub steps: u64,
}

impl UndoInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 2] = ["file_path", "steps"];

    /// Undo the last write of `file_path`.
    pub fn new(file_path: impl Into<String>) -> UndoInput {
        UndoInput {
            file_path: file_path.into(),
            steps: 1,
        }
    }

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<UndoInput> {
        let f = Fields::new("Undo", input, &Self::FIELDS)?;
        let steps = f.integer("steps")?.unwrap_or(1);
        if steps == 0 {
            return Err(
                ToolError::invalid_input("`steps` of Undo must be at least 1.")
                    .with("field", "steps"),
            );
        }
        Ok(UndoInput {
            file_path: f.string("file_path")?,
            steps,
        })
    }
}

/// What happened to one file in one undone step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UndoAction {
    /// The file holds its earlier bytes again.
    Restored,
    /// The write had created the file, so undoing it removed it.
    Removed,
    /// The write had deleted the file, so undoing it brought it back.
    Recreated,
}

/// One file of an undone step.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoneFile {
    /// The file's path.
    pub file_path: String,
    /// What undo did to it.
    pub action: UndoAction,
}

/// One undone tool call.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoneStep {
    /// The tool whose write this was.
    pub tool: String,
    /// Every file that call changed, as undone.
    pub files: Vec<UndoneFile>,
}

/// What Undo did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoOutput {
    /// The path as given.
    pub file_path: String,
    /// The steps undone, newest first.
    pub undone: Vec<UndoneStep>,
}
