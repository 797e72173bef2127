//! The two values the generator shares with its helpers (`edits`, `dialects`): one edit of a
//! call, and what the generator believes a file holds. They live apart from `gen` so that the
//! helpers, which `gen` calls, need nothing of `gen` itself.

use super::parts::Encoding;

/// One edit of an Edit or MultiEdit call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenEdit {
    /// `old_string`.
    pub old: String,
    /// `new_string`.
    pub new: String,
    /// `replace_all` (sent only when true).
    pub replace_all: bool,
}

/// What the generator believes a file holds now, to cut the next `old_string` from.
pub(crate) struct Guess {
    /// Case path of the file.
    pub(crate) path: String,
    /// Its text as the generator guesses it (the LF view).
    pub(crate) text: String,
    /// Its encoding.
    pub(crate) encoding: Encoding,
}
