//! Tool errors: a stable machine-readable code, a message written for the model, and the
//! structured fields some codes carry (SPEC §12).
//!
//! Errors are values. Nothing in the library panics on user input; every refusal is one of
//! these, and every refusal leaves the disk exactly as it was. The *code* is the contract
//! (corpus cases and adapters compare codes); the *message* may be reworded at any time, but it
//! always tells the model what to do next.

use serde_json::{Map, Value};
use std::fmt;

/// The stable error codes of SPEC §12.
///
/// The string form (`as_str`) is what goes on the wire and into reports; it never changes for
/// an existing variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The input does not match the tool's schema (EDIT-1 step 1).
    InvalidInput,
    /// `old_string` equals `new_string`: as sent (EDIT-1 step 2), or after repair (step 10).
    NoChange,
    /// Empty path or a NUL byte in it (PATH-1).
    InvalidPath,
    /// The resolved target lies outside the configured root (PATH-2).
    OutsideRoot,
    /// A FIFO, socket or device where a regular file is needed for writing (PATH-3).
    NotRegularFile,
    /// A device or special file that Read refuses to open (READ-5).
    BlockedPath,
    /// The file does not exist.
    FileNotFound,
    /// The path names a directory.
    IsDirectory,
    /// The file exceeds a size limit (Edit's 1 GiB, Read's 256 KiB without `limit`).
    TooLarge,
    /// Edit or MultiEdit on a notebook.
    UseNotebookEdit,
    /// NotebookEdit on something that is not a notebook.
    NotNotebook,
    /// No read entry for a file that is about to be overwritten (SESSION-1).
    NotRead,
    /// Only part of the file was read (SESSION-1, READ-3).
    PartialRead,
    /// The file changed since it was read (SESSION-2/3).
    Stale,
    /// The bytes cannot be decoded losslessly, or new text cannot be encoded (TEXT-1/2).
    Encoding,
    /// The file is binary (TEXT-7).
    Binary,
    /// `old_string` is empty but the file has content (EDIT-1 step 10).
    FileExists,
    /// `old_string` does not occur (MATCH-1/2).
    NotFound,
    /// `old_string` occurs more than once without `replace_all` (MATCH-3).
    Ambiguous,
    /// A MultiEdit edit targets text produced by an earlier edit (MULTI-2).
    EditConflict,
    /// The file has more than one hard link (DISK-3).
    HardLink,
    /// The file is read-only (DISK-4).
    PermissionDenied,
    /// The notebook is not valid JSON or not shaped like a notebook.
    InvalidNotebook,
    /// No cell with that id or index.
    CellNotFound,
    /// Any other operating-system error.
    Io,
    /// A patch or a reply with edit blocks that does not follow its format; the error names
    /// the line and what was expected there (APPLY, BLOCK rules).
    InvalidPatch,
    /// The number of occurrences differs from the count the call said to expect (ALIAS-5).
    ReplacementCount,
    /// The undo journal holds no (further) write of the file (UNDO-3).
    NothingToUndo,
    /// The file has an extended attribute (or ACL) that the replacing copy cannot be given, so
    /// a write would drop it (DISK-1, D35).
    AttributeNotKept,
}

impl Code {
    /// Every code, in the order of SPEC §12; used by tests and documentation.
    pub const ALL: [Code; 29] = [
        Code::InvalidInput,
        Code::NoChange,
        Code::InvalidPath,
        Code::OutsideRoot,
        Code::NotRegularFile,
        Code::BlockedPath,
        Code::FileNotFound,
        Code::IsDirectory,
        Code::TooLarge,
        Code::UseNotebookEdit,
        Code::NotNotebook,
        Code::NotRead,
        Code::PartialRead,
        Code::Stale,
        Code::Encoding,
        Code::Binary,
        Code::FileExists,
        Code::NotFound,
        Code::Ambiguous,
        Code::EditConflict,
        Code::HardLink,
        Code::PermissionDenied,
        Code::InvalidNotebook,
        Code::CellNotFound,
        Code::Io,
        Code::InvalidPatch,
        Code::ReplacementCount,
        Code::NothingToUndo,
        Code::AttributeNotKept,
    ];

    /// The wire name of the code (snake_case, stable).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidInput => "invalid_input",
            Code::NoChange => "no_change",
            Code::InvalidPath => "invalid_path",
            Code::OutsideRoot => "outside_root",
            Code::NotRegularFile => "not_regular_file",
            Code::BlockedPath => "blocked_path",
            Code::FileNotFound => "file_not_found",
            Code::IsDirectory => "is_directory",
            Code::TooLarge => "too_large",
            Code::UseNotebookEdit => "use_notebook_edit",
            Code::NotNotebook => "not_notebook",
            Code::NotRead => "not_read",
            Code::PartialRead => "partial_read",
            Code::Stale => "stale",
            Code::Encoding => "encoding",
            Code::Binary => "binary",
            Code::FileExists => "file_exists",
            Code::NotFound => "not_found",
            Code::Ambiguous => "ambiguous",
            Code::EditConflict => "edit_conflict",
            Code::HardLink => "hard_link",
            Code::PermissionDenied => "permission_denied",
            Code::InvalidNotebook => "invalid_notebook",
            Code::CellNotFound => "cell_not_found",
            Code::Io => "io",
            Code::InvalidPatch => "invalid_patch",
            Code::ReplacementCount => "replacement_count",
            Code::NothingToUndo => "nothing_to_undo",
            Code::AttributeNotKept => "attribute_not_kept",
        }
    }

    /// Parses a wire name back into a code; `None` for names the spec does not define.
    pub fn parse(name: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal: code, message for the model, and structured fields (`count`, `lines`,
/// `edit_index`, `hint`, …) that ride on the error object.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    /// The stable code.
    pub code: Code,
    /// Guidance for the model; may change between versions.
    pub message: String,
    /// Extra structured fields, serialised next to `code` and `message`.
    pub fields: Map<String, Value>,
}

impl ToolError {
    /// An error with a code and message and no structured fields.
    pub fn new(code: Code, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
            fields: Map::new(),
        }
    }

    /// Adds one structured field (builder style).
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ToolError {
        self.fields.insert(key.to_string(), value.into());
        self
    }

    /// The error as the JSON object of the protocol: `{code, message, ...fields}`.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("code".into(), Value::from(self.code.as_str()));
        map.insert("message".into(), Value::from(self.message.clone()));
        for (k, v) in &self.fields {
            map.insert(k.clone(), v.clone());
        }
        Value::Object(map)
    }

    /// `invalid_input` naming the field, in the `InputValidationError: …` form the models know.
    pub fn invalid_input(detail: impl fmt::Display) -> ToolError {
        ToolError::new(
            Code::InvalidInput,
            format!("InputValidationError: {detail}"),
        )
    }

    /// `outside_root` for a lookup the kernel (or the walk in its place) refused because it
    /// would have left the root ([`Escaped`], PATH-2): a directory of the path
    /// was swapped for a symlink to the outside after resolution checked it.
    pub fn escaped(context: &str) -> ToolError {
        ToolError::new(
            Code::OutsideRoot,
            format!("{context}: the path led outside the allowed root (a directory of it was replaced by a symbolic link). Only files under the root can be read or changed; nothing was changed."),
        )
    }

    /// An OS error that happened while the file was left untouched (`outside_root` for an
    /// escape refused beneath the root, see [`ToolError::escaped`]).
    pub fn io(context: &str, err: &std::io::Error) -> ToolError {
        if is_escape(err) {
            return ToolError::escaped(context);
        }
        ToolError::new(
            Code::Io,
            format!("{context}: {err}. The file was left untouched."),
        )
    }
}

/// Shorthand for results of tool-level operations.
pub type ToolResult<T> = Result<T, ToolError>;

/// The fixed messages of SPEC §12 (Claude Code's wording where it exists, so models trained on
/// it recognise them).
pub mod msg {
    /// `no_change`.
    pub const NO_CHANGE: &str =
        "No changes to make: old_string and new_string are exactly the same.";
    /// `not_read`.
    pub const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";
    /// `partial_read`.
    pub const PARTIAL_READ: &str = "File has only been read in part. Read the whole file (every line, with or without offset/limit pages that together cover it) before writing to it.";
    /// `file_exists`.
    pub const FILE_EXISTS: &str = "Cannot create new file - file already exists.";
    /// `edit_conflict`.
    pub const EDIT_CONFLICT: &str =
        "Cannot edit file: old_string is a substring of a new_string from a previous edit.";
    /// `use_notebook_edit`.
    pub const USE_NOTEBOOK_EDIT: &str =
        "File is a Jupyter Notebook. Use the NotebookEdit to edit this file.";
    /// `not_notebook`.
    pub const NOT_NOTEBOOK: &str = "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.";
}

/// A lookup refused because it would have left the root: what `EXDEV` means when it comes
/// from a resolution beneath the root (and only then: an `EXDEV` from a rename or from a fault
/// injected through the seam keeps its own meaning).
#[derive(Debug)]
pub struct Escaped;

impl std::fmt::Display for Escaped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the path leads outside the root")
    }
}

impl std::error::Error for Escaped {}

/// Whether `e` is a lookup refused beneath the root ([`Escaped`]), which tools report as
/// `outside_root` (PATH-2).
pub fn is_escape(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Escaped>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_wire_names() {
        for code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(code));
        }
        assert_eq!(Code::parse("nope"), None);
    }

    #[test]
    fn structured_fields_ride_on_the_error_object() {
        let e = ToolError::new(Code::Ambiguous, "two").with("count", 2);
        assert_eq!(
            e.to_json(),
            serde_json::json!({"code": "ambiguous", "message": "two", "count": 2})
        );
    }
}
