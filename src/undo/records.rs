//! What the journal keeps of a unit: the record (`<id>.json`), as stored and as found.
//!
//! Records are small JSON so that a journal can be read and repaired by hand. They are the
//! truth about what the journal holds: a unit exists when its record does.

use super::ContentHash;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The record format's version; a record of another version is ignored, never misread.
pub(super) const VERSION: u32 = 1;

/// What the journal keeps of one file of a unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// The file (symlinks followed, absolute).
    pub path: PathBuf,
    /// Its state before the write.
    pub before: BeforeRecord,
    /// The hash of what the write left; `None` when it deleted the file, or when the unit
    /// keeps no old bytes (UNDO-6: it cannot be undone, so what it left is not hashed).
    pub after: Option<HashRecord>,
}

/// A file's state before a write, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum BeforeRecord {
    /// The file did not exist; undo deletes it.
    Absent,
    /// The old bytes are in the unit's blob of this file's index.
    Kept {
        /// The old mode.
        mode: u32,
        /// The old length.
        len: u64,
        /// The hash of the old bytes (absent in records made before it was kept). A power cut
        /// may leave the record on disk and its blob empty, cut short or zeroed, since neither
        /// is fsynced; undo checks the blob against this before restoring from it (UNDO-1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hash: Option<HashRecord>,
    },
    /// The old content was larger than the journal may hold (UNDO-6); undo is refused.
    Omitted {
        /// The old length.
        len: u64,
    },
}

/// [`ContentHash`] as stored (the 128-bit hash in hex: JSON numbers are not that wide).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HashRecord {
    /// xxh3-128, 32 hex digits.
    pub xxh3: String,
    /// Length in bytes.
    pub len: u64,
}

impl From<ContentHash> for HashRecord {
    fn from(h: ContentHash) -> HashRecord {
        HashRecord {
            xxh3: format!("{:032x}", h.xxh3),
            len: h.len,
        }
    }
}

impl HashRecord {
    /// Whether `hash` is the content this record names.
    pub fn matches(&self, hash: &ContentHash) -> bool {
        self.len == hash.len && u128::from_str_radix(&self.xxh3, 16).ok() == Some(hash.xxh3)
    }
}

/// One unit: the files one tool call changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitRecord {
    /// The record format's version.
    pub version: u32,
    /// The tool whose call this was (`Edit`, `apply_patch`, …), for messages.
    pub tool: String,
    /// The files, in the order the call named them.
    pub files: Vec<FileRecord>,
}

impl UnitRecord {
    /// The old bytes the unit keeps, over all its files (what UNDO-6's byte limit counts).
    pub fn kept_bytes(&self) -> u64 {
        self.files
            .iter()
            .map(|f| match f.before {
                BeforeRecord::Kept { len, .. } => len,
                _ => 0,
            })
            .sum()
    }
}

/// A unit as found in the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// Its id: the record's file name without `.json`; sorts by time.
    pub id: String,
    /// The record.
    pub record: UnitRecord,
}

impl Stored {
    /// Whether the unit changed `target`.
    pub fn touches(&self, target: &Path) -> bool {
        self.record.files.iter().any(|f| f.path == target)
    }
}
