//! NotebookEdit's input and output: one cell of a Jupyter notebook replaced, inserted or
//! deleted, the rest of the file left as it was.

use super::fields::Fields;
use crate::error::ToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn is_true(b: &bool) -> bool {
    *b
}

/// Replace, insert or delete one cell of a Jupyter notebook (.ipynb).
///
/// Read the notebook first in this session. Cells are named by their id, or `cell-N` for the
/// N-th cell (0-based); an inserted cell goes after the named one, or first without one.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditInput {
    /// The notebook to change (.ipynb): absolute, or relative to the working directory.
    pub notebook_path: String,
    /// The cell to replace or delete, or to insert after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_id: Option<String>,
    /// The new source of the cell (not needed for delete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_source: Option<String>,
    /// `code` or `markdown`; required for insert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_type: Option<String>,
    /// `replace` (the default), `insert` or `delete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_mode: Option<String>,
}

impl NotebookEditInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 5] = [
        "notebook_path",
        "cell_id",
        "new_source",
        "cell_type",
        "edit_mode",
    ];

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    /// The values of `cell_type` and `edit_mode` are checked by the tool, in the order of
    /// NOTEBOOK-1.
    pub fn from_json(input: &Value) -> ToolResult<NotebookEditInput> {
        let f = Fields::new("NotebookEdit", input, &Self::FIELDS)?;
        Ok(NotebookEditInput {
            notebook_path: f.string("notebook_path")?,
            cell_id: f.opt_string("cell_id")?,
            new_source: f.opt_string("new_source")?,
            cell_type: f.opt_string("cell_type")?,
            edit_mode: f.opt_string("edit_mode")?,
        })
    }
}

/// What NotebookEdit did (NOTEBOOK-4). Field names are snake_case, as agents know them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NotebookEditOutput {
    /// The path as given.
    pub notebook_path: String,
    /// The cell changed, inserted or deleted.
    pub cell_id: String,
    /// Its type.
    pub cell_type: String,
    /// `replace`, `insert` or `delete`.
    pub edit_mode: String,
    /// The source given.
    pub new_source: String,
    /// The notebook's language (`python` when it does not say).
    pub language: String,
    /// Present and false when the write was not fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}
