//! The input and output of Anthropic's text editor tool (`str_replace_based_edit_tool`, also
//! called `str_replace_editor`): one tool with a `command`, and that tool's parameter names
//! (EDITOR-1..6).

use super::fields::Fields;
use super::{EditOutput, LineEditOutput, ReadOutput, UndoOutput, WriteOutput};
use crate::error::{ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The text editor's commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditorCommand {
    /// Show a file with line numbers (optionally `view_range`), or list a directory.
    View,
    /// Create a file with `file_text` (replacing an existing one needs a view of it first).
    Create,
    /// Replace the one occurrence of `old_str` with `new_str`.
    StrReplace,
    /// Insert `insert_text` after line `insert_line` (0: at the top).
    Insert,
    /// Take back the last change of the file.
    UndoEdit,
}

impl EditorCommand {
    /// The command's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            EditorCommand::View => "view",
            EditorCommand::Create => "create",
            EditorCommand::StrReplace => "str_replace",
            EditorCommand::Insert => "insert",
            EditorCommand::UndoEdit => "undo_edit",
        }
    }

    /// The parameters the command takes besides `command` and `path`.
    fn fields(self) -> &'static [&'static str] {
        match self {
            EditorCommand::View => &["view_range"],
            EditorCommand::Create => &["file_text"],
            EditorCommand::StrReplace => &["old_str", "new_str"],
            EditorCommand::Insert => &["insert_line", "insert_text", "new_str"],
            EditorCommand::UndoEdit => &[],
        }
    }
}

/// View, create and edit files: Anthropic's text editor tool, on editref's core.
///
/// `str_replace` needs `old_str` to occur exactly once; `insert` and a `create` over an
/// existing file need a `view` of the whole file first; every change can be taken back with
/// `undo_edit`. A refused command changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextEditorInput {
    /// What to do.
    pub command: EditorCommand,
    /// The file or directory: absolute, or relative to the working directory.
    pub path: String,
    /// `view`: the first and last line to show, 1-based; -1 as the last means to the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_range: Option<[i64; 2]>,
    /// `create`: the whole content of the new file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_text: Option<String>,
    /// `str_replace`: the exact text to replace, occurring once in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_str: Option<String>,
    /// `str_replace`: the text to put in its place (empty or absent deletes exactly `old_str`;
    /// include the line break in `old_str` to remove a whole line); `insert`: an older name of
    /// `insert_text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_str: Option<String>,
    /// `insert`: the line after which to insert; 0 inserts at the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert_line: Option<u64>,
    /// `insert`: the text to insert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert_text: Option<String>,
}

impl TextEditorInput {
    /// Every input field, in schema order.
    pub const FIELDS: [&'static str; 8] = [
        "command",
        "path",
        "view_range",
        "file_text",
        "old_str",
        "new_str",
        "insert_line",
        "insert_text",
    ];

    /// A command on `path` with no other parameters.
    pub fn new(command: EditorCommand, path: impl Into<String>) -> TextEditorInput {
        TextEditorInput {
            command,
            path: path.into(),
            view_range: None,
            file_text: None,
            old_str: None,
            new_str: None,
            insert_line: None,
            insert_text: None,
        }
    }

    /// EDITOR-1: parses a JSON input; a parameter that does not belong to the command is
    /// refused by name, like an unknown one.
    pub fn from_json(input: &Value) -> ToolResult<TextEditorInput> {
        const TOOL: &str = "str_replace_based_edit_tool";
        let f = Fields::new(TOOL, input, &Self::FIELDS)?;
        let name = f.string("command")?;
        let command = match name.as_str() {
            "view" => EditorCommand::View,
            "create" => EditorCommand::Create,
            "str_replace" => EditorCommand::StrReplace,
            "insert" => EditorCommand::Insert,
            "undo_edit" => EditorCommand::UndoEdit,
            other => {
                return Err(ToolError::invalid_input(format!(
                    "Unknown command `{other}` of {TOOL}. The commands are view, create, \
                     str_replace, insert and undo_edit."
                ))
                .with("field", "command"))
            }
        };
        let allowed = command.fields();
        for key in &Self::FIELDS[2..] {
            let given = !matches!(f.raw(key), None | Some(Value::Null));
            if given && !allowed.contains(key) {
                return Err(ToolError::invalid_input(format!(
                    "The parameter `{key}` does not belong to the command `{name}` of {TOOL}. \
                     `{name}` takes: path{}.",
                    allowed.iter().map(|k| format!(", {k}")).collect::<String>()
                ))
                .with("field", *key));
            }
        }
        let view_range = match f.raw("view_range") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) if a.len() == 2 => {
                let n = |v: &Value| v.as_i64();
                match (a.first().and_then(n), a.get(1).and_then(n)) {
                    (Some(a), Some(b)) => Some([a, b]),
                    _ => return Err(range_error()),
                }
            }
            Some(_) => return Err(range_error()),
        };
        Ok(TextEditorInput {
            command,
            path: f.string("path")?,
            view_range,
            file_text: f.opt_string("file_text")?,
            old_str: f.opt_string("old_str")?,
            new_str: f.opt_string("new_str")?,
            insert_line: f.integer("insert_line")?,
            insert_text: f.opt_string("insert_text")?,
        })
    }
}

fn range_error() -> ToolError {
    ToolError::invalid_input(
        "`view_range` must be two whole numbers [first, last]: 1-based lines, -1 as the last \
         for the end of the file.",
    )
    .with("field", "view_range")
}

/// One entry of a directory `view`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirEntry {
    /// The path relative to the viewed directory; directories end with `/`.
    pub path: String,
}

/// What a text editor command did: the command and the result of the tool it ran as.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum TextEditorOutput {
    /// A file shown (as Read shows it).
    View {
        /// The path as given.
        path: String,
        /// Read's result.
        result: ReadOutput,
    },
    /// A directory listed, two levels deep, hidden entries left out.
    ViewDirectory {
        /// The path as given.
        path: String,
        /// The entries, sorted.
        entries: Vec<DirEntry>,
    },
    /// A file created or replaced (as Write does).
    Create {
        /// The path as given.
        path: String,
        /// Write's result.
        result: WriteOutput,
    },
    /// One occurrence replaced (as Edit does).
    StrReplace {
        /// The path as given.
        path: String,
        /// Edit's result.
        result: EditOutput,
    },
    /// Lines inserted (as LineEdit does).
    Insert {
        /// The path as given.
        path: String,
        /// LineEdit's result.
        result: LineEditOutput,
    },
    /// The last change taken back (as Undo does).
    UndoEdit {
        /// The path as given.
        path: String,
        /// Undo's result.
        result: UndoOutput,
    },
}
