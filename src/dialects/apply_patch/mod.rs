//! Codex's V4A `apply_patch` format (SPEC §15.5, APPLY-1..9): the parser and the context seeker.
//!
//! ```text
//! *** Begin Patch
//! *** Update File: src/app.py
//! @@ def greet():
//! -    print("Hi")
//! +    print("Hello")
//! *** Add File: notes.txt
//! +first line
//! *** Delete File: old.txt
//! *** End Patch
//! ```
//!
//! Two steps, both pure (no file system, no session):
//!
//! 1. [`parse`] turns patch text into a [`Patch`] — a list of [`FileOp`]s — or refuses with a
//!    [`ParseError`] naming the patch line and what the format expects there (APPLY-1..4).
//!    [`parse_operation`] does the same for one operation of the Responses API form
//!    (`create_file` / `update_file` / `delete_file` with a `diff`).
//! 2. [`locate`] finds the [`Chunk`]s of one `*** Update File` in that file's LF view and returns
//!    the [`Replacement`](crate::text::Replacement)s to make, or a [`LocateError`] (APPLY-5..9).
//!    Unlike Codex, it never guesses: lines that fit at more than one place are refused with the
//!    candidate line numbers.
//!
//! Writing the result (several files, all or nothing) belongs to the tool that wires this in.

mod align;
mod apply;
#[cfg(test)]
mod apply_tests;
mod lines;
mod locate_error;
mod parse;
mod seek;
#[cfg(test)]
mod tests;

pub use apply::{run, run_operation};
pub use parse::{parse, parse_operation, ParseError};
pub use seek::{locate, LocateError};

/// A parsed patch: its operations in patch order. Never empty, and no path is named twice
/// (APPLY-4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The operations, in the order the patch lists them.
    pub ops: Vec<FileOp>,
}

/// One operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// `*** Add File: PATH` followed by the new file's lines, each written with a leading `+`.
    /// The file is those lines, each followed by a line break; no lines means an empty file.
    Add {
        /// The path as written in the patch (trimmed).
        path: String,
        /// The file's lines, without the `+` and without line breaks.
        lines: Vec<String>,
        /// 1-based patch line of the header (0 for [`parse_operation`]).
        line: usize,
    },
    /// `*** Delete File: PATH`.
    Delete {
        /// The path as written in the patch (trimmed).
        path: String,
        /// 1-based patch line of the header (0 for [`parse_operation`]).
        line: usize,
    },
    /// `*** Update File: PATH`, optionally `*** Move to: DEST`, then one or more chunks.
    Update {
        /// The path as written in the patch (trimmed).
        path: String,
        /// The destination of `*** Move to:`, if any; never equal to `path`.
        move_to: Option<String>,
        /// The chunks, in patch order (which must be file order, APPLY-6). Never empty.
        chunks: Vec<Chunk>,
        /// 1-based patch line of the header (0 for [`parse_operation`]).
        line: usize,
    },
}

impl FileOp {
    /// The path the operation names (the source of a move).
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. }
            | FileOp::Delete { path, .. }
            | FileOp::Update { path, .. } => path,
        }
    }

    /// The 1-based patch line of the operation's header (0 for [`parse_operation`]).
    pub fn line(&self) -> usize {
        match self {
            FileOp::Add { line, .. }
            | FileOp::Delete { line, .. }
            | FileOp::Update { line, .. } => *line,
        }
    }
}

/// One change inside an Update: where it goes and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text of each `@@ TEXT` line before the chunk's lines, in order; each narrows the
    /// place down further (APPLY-7). A bare `@@` adds nothing.
    pub anchors: Vec<String>,
    /// The lines the chunk expects in the file: context (` `) and removed (`-`) lines, in order.
    pub old: Vec<String>,
    /// The lines that take their place: context (` `) and added (`+`) lines, in order.
    pub new: Vec<String>,
    /// `*** End of File` followed the chunk: its lines must be the last lines of the file.
    pub end_of_file: bool,
    /// 1-based patch line where the chunk starts (its first `@@` line, or its first line when
    /// it has none). For [`parse_operation`], the line within the diff.
    pub line: usize,
}
