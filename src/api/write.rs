//! Write's input and output: a whole file's content, created or replaced.

use super::fields::{take_string, Fields};
use super::patch::StructuredPatch;
use crate::error::ToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn is_true(b: &bool) -> bool {
    *b
}

/// Write a whole file: create it, or replace all of its content.
///
/// Replacing an existing file needs a full Read of it in this session first. The content is
/// written as given; an existing file keeps its encoding and byte-order mark. Prefer Edit for
/// changing part of a file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// The file to write: absolute, or relative to the session's working directory.
    pub file_path: String,
    /// The complete new content.
    pub content: String,
}

impl WriteInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 2] = ["file_path", "content"];

    /// A Write of `content` to `file_path`.
    pub fn new(file_path: impl Into<String>, content: impl Into<String>) -> WriteInput {
        WriteInput {
            file_path: file_path.into(),
            content: content.into(),
        }
    }

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<WriteInput> {
        Self::from_value(input.clone())
    }

    /// [`WriteInput::from_json`] on an input the caller hands over: the same checks, with the
    /// content moved out of it rather than copied.
    pub fn from_value(input: Value) -> ToolResult<WriteInput> {
        let mut input = super::aliases::write(input)?;
        let f = Fields::new("Write", &input, &Self::FIELDS)?;
        f.str("file_path")?;
        f.str("content")?;
        Ok(WriteInput {
            file_path: take_string(&mut input, "file_path"),
            content: take_string(&mut input, "content"),
        })
    }
}

/// Whether Write made a new file or replaced one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// The file did not exist.
    Create,
    /// An existing file was replaced.
    Update,
}

/// What Write did (WRITE-4).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteOutput {
    /// `create` or `update`.
    #[serde(rename = "type")]
    pub kind: WriteKind,
    /// The path as given.
    pub file_path: String,
    /// The content written.
    pub content: String,
    /// The change against the old text (empty for a new file).
    pub structured_patch: StructuredPatch,
    /// The old text (its line-feed view), or null for a new file.
    pub original_file: Option<String>,
    /// Present and false when the write was not fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}
