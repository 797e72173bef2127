//! What a write is asked to do ([`WriteRequest`]) and what a successful one returns
//! ([`Written`]): the terms shared by the single write (`atomic.rs`), the staging of its content
//! (`staged.rs`) and the batch (`batch.rs`).

use super::fs::Meta;
use super::load::Loaded;
use crate::text::Chunk;
use std::path::Path;

/// What to write and how.
pub struct WriteRequest<'a, 'c> {
    /// The final target path (symlinks already followed).
    pub target: &'a Path,
    /// The new content, in order.
    pub chunks: &'a [Chunk<'c>],
    /// The file as loaded, when replacing an existing file (mode, owner, write-time check).
    pub existing: Option<&'a Loaded>,
    /// fsync file and directory (DISK-6).
    pub fsync: bool,
    /// The mode of a new file; `None` is the default (0o666 less the umask). Ignored when
    /// replacing: an existing file keeps its own mode (DISK-2). Undo uses it to bring back a
    /// deleted file with the mode it had.
    pub mode: Option<u32>,
}

/// Result of a successful write.
#[derive(Debug, Clone, Copy)]
pub struct Written {
    /// Metadata of the new file (mtime and size for the read state).
    pub meta: Meta,
    /// Whether the file and the rename were both fsynced (DISK-6): false when fsync is off, or
    /// when the directory sync failed after the rename (the new content is in place, but a power
    /// loss could still undo the rename).
    pub durable: bool,
}
