//! The undo journal (UNDO-1..8): what every successful write replaced, kept on disk so that a
//! write can be taken back — by the text editor's `undo_edit`, the `Undo` tool or
//! `editref undo`.
//!
//! A *unit* is one successful tool call: one file for Edit, Write and NotebookEdit, every file
//! of an `apply_patch` or a `search_replace` reply. For each file it keeps the bytes and mode
//! the file had before (or that it did not exist) and a hash of the bytes the call left, so
//! that an undo can tell whether somebody changed the file since — and refuse instead of
//! overwriting their work.
//!
//! The journal sits below the tools: they record into it after each write; taking a unit back
//! is a tool of its own ([`crate::tools::undo`]), which writes through the same batch commit
//! as every other multi-file change.
//!
//! - `place.rs` — where a front end keeps the journal: by default one per root, in the user's
//!   state directory (UNDO-7);
//! - `journal.rs` — the files on disk: one JSON record per unit (`records.rs`), one blob per
//!   old content, bounded per file and in total (`prune.rs`), with the index that makes
//!   recording cheap (`index.rs`);
//! - `per_root.rs` — a per-root journal made private, naming its root, and the journals of
//!   roots that are gone swept away;
//! - this file — the configuration and the record a tool hands in.

mod index;
mod journal;
mod per_root;
mod place;
mod prune;
mod records;
mod temp_journal;

pub use journal::{Journal, JournalLock};
pub use place::{journal_dir, state_base, state_base_from, UndoPlace};
pub use records::{BeforeRecord, FileRecord, HashRecord, Stored, UnitRecord};
pub use temp_journal::TempJournal;

use std::path::PathBuf;

/// Where the journal lives and how much it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoConfig {
    /// The journal directory.
    pub dir: PathBuf,
    /// The root this journal serves, for a per-root journal in the user's state directory
    /// ([`UndoPlace::PerRoot`]): the directory is then made private, names its root in a file
    /// `root`, and sweeps the journals of roots that are gone when it is made (UNDO-7).
    /// `None` for a journal in a directory given as such (`--undo-dir`, a library `Config`).
    pub root: Option<PathBuf>,
    /// Units kept per file; older ones are dropped first (UNDO-6).
    pub max_per_file: usize,
    /// Bytes of old content kept in all; older units are dropped first, and a unit whose own
    /// old content is larger is recorded without it, so that undoing it is refused (UNDO-6).
    pub max_bytes: u64,
}

impl UndoConfig {
    /// The defaults: 20 units per file, 64 MiB of old content in all.
    pub fn new(dir: impl Into<PathBuf>) -> UndoConfig {
        UndoConfig {
            dir: dir.into(),
            root: None,
            max_per_file: 20,
            max_bytes: 64 << 20,
        }
    }
}

/// The state of one file before a write, as a tool hands it to [`Journal::record`].
#[derive(Debug, Clone, Copy)]
pub enum Before<'a> {
    /// The file did not exist.
    Absent,
    /// The file's bytes and permission bits.
    File {
        /// Its content.
        bytes: &'a [u8],
        /// Its mode (permission bits).
        mode: u32,
    },
}

/// One file's change, as a tool hands it to [`Journal::record`].
#[derive(Debug, Clone)]
pub struct Change<'a> {
    /// The file (symlinks followed, absolute).
    pub target: PathBuf,
    /// What it was before the write.
    pub before: Before<'a>,
    /// What it is after.
    pub after: After<'a>,
}

/// What a write left of a file, as a tool hands it to [`Journal::record`].
#[derive(Debug, Clone)]
pub enum After<'a> {
    /// The write deleted the file.
    Deleted,
    /// The write left these bytes, laid end to end (the chunks of the write, not joined). The
    /// journal hashes them only for a unit whose old bytes it keeps: a unit that cannot be
    /// undone (UNDO-6) needs no hash of what it left, and such a file is over 64 MiB — its hash
    /// would be a whole pass over it for nothing.
    Bytes(Vec<&'a [u8]>),
}

/// A hash of a file's bytes and their length: how undo recognises the content a unit left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContentHash {
    /// xxh3-128 of the bytes, in hex.
    pub xxh3: u128,
    /// Length in bytes.
    pub len: u64,
}

impl ContentHash {
    /// The hash of `parts` laid end to end (the chunks of a write, without joining them).
    pub fn of_parts<'p>(parts: impl IntoIterator<Item = &'p [u8]>) -> ContentHash {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        let mut len = 0u64;
        for p in parts {
            h.update(p);
            len += p.len() as u64;
        }
        ContentHash {
            xxh3: h.digest128(),
            len,
        }
    }

    /// The hash of one byte string.
    pub fn of(bytes: &[u8]) -> ContentHash {
        ContentHash::of_parts([bytes])
    }
}
