//! Read's input and output: what a caller sends to see a file, and the four shapes of what it
//! gets back (numbered text, a repeat notice, base64 media, notebook cells).

use super::fields::Fields;
use crate::error::ToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Read a file: text with line numbers, images and PDFs as base64, notebooks as cells.
///
/// A successful Read of the whole file is what allows a later Edit, MultiEdit, Write or
/// NotebookEdit of it in the same session (SESSION-1).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// The file to read: absolute, or relative to the session's working directory.
    pub file_path: String,
    /// The first line to show, 1-based. Use it with `limit` for files too large to read whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// How many lines to show (at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// For PDFs: a page range such as "3" or "1-5" (1-based, at most 20 pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
}

impl ReadInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 4] = ["file_path", "offset", "limit", "pages"];

    /// A Read of the whole file at `file_path`.
    pub fn new(file_path: impl Into<String>) -> ReadInput {
        ReadInput {
            file_path: file_path.into(),
            ..ReadInput::default()
        }
    }

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<ReadInput> {
        let f = Fields::new("Read", input, &Self::FIELDS)?;
        Ok(ReadInput {
            file_path: f.string("file_path")?,
            offset: f.integer("offset")?,
            limit: f.integer("limit")?,
            pages: f.opt_string("pages")?,
        })
    }
}

/// What Read returns, by the kind of file (the `type` field).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReadOutput {
    /// A text file: the lines asked for, each prefixed with its number (READ-1).
    Text {
        /// The lines and their place in the file.
        file: TextFile,
    },
    /// The same range of an unchanged file was already read in this session (READ-4): the
    /// earlier result still holds, so the text is not sent again.
    FileUnchanged {
        /// Which file.
        file: FileRef,
    },
    /// An image, as base64.
    Image {
        /// The file's bytes, base64-encoded.
        base64: String,
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        #[serde(rename = "mediaType")]
        media_type: String,
        /// The file's size in bytes.
        #[serde(rename = "originalSize")]
        original_size: u64,
    },
    /// A PDF, as base64.
    Pdf {
        /// The file's bytes, base64-encoded.
        base64: String,
        /// The file's size in bytes.
        #[serde(rename = "originalSize")]
        original_size: u64,
    },
    /// A Jupyter notebook, as its cells.
    Notebook {
        /// Which file.
        file: FileRef,
        /// The cells, in order.
        cells: Vec<NotebookCell>,
    },
}

/// The text part of a Read result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextFile {
    /// The path as given.
    pub file_path: String,
    /// The lines, each as `N\t` (or the session's arrow format) followed by the line.
    pub content: String,
    /// How many lines are shown.
    pub num_lines: u64,
    /// The number of the first line shown.
    pub start_line: u64,
    /// Lines in the whole file (a final line break does not start another line).
    pub total_lines: u64,
}

/// A file named in a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileRef {
    /// The path as given.
    pub file_path: String,
}

/// One notebook cell as Read shows it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookCell {
    /// The cell's id, or `cell-N` (0-based) when the notebook has no ids.
    pub cell_id: String,
    /// `code`, `markdown` or `raw`, as the notebook says (null when it says nothing).
    pub cell_type: Value,
    /// The cell's source as one string.
    pub source: String,
    /// The cell's outputs as stored (an empty list when it has none).
    pub outputs: Value,
}
