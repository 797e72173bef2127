//! Writing the files of a multi-file dialect call (`apply_patch`, `search_replace`) as one
//! unit (BATCH-1, UNDO-4): every file is opened, checked and computed first — into a
//! [`Staged`] change each — and only then are all of them written by one batch, or none.
//!
//! A dialect that met a refusal in its third file has written nothing yet, because nothing is
//! written before every file is staged.

use crate::disk::{BatchDone, BatchOp, WriteRequest};
use crate::error::{Code, ToolError, ToolResult};
use crate::session::{Entry, Scope, Session};
use crate::text::{Chunk, Fingerprint};
use crate::tools::open::Opened;
use std::path::PathBuf;

/// What a staged file becomes.
pub enum After {
    /// These bytes (already encoded as the file's own encoding, TEXT-6).
    Bytes {
        /// The new content.
        bytes: Vec<u8>,
        /// The fingerprint of its LF text, so that the session counts it as read (EDIT-4).
        fingerprint: Fingerprint,
    },
    /// The file is removed.
    Deleted,
}

/// One file's change, computed and not yet written.
pub struct Staged {
    /// The path as the call named it (for messages).
    pub given: String,
    /// The resolved target.
    pub target: PathBuf,
    /// The file as opened, or `None` for a file the call creates.
    pub before: Option<Opened>,
    /// What it becomes.
    pub after: After,
    /// The mode of a file the call creates (`None`: the default); a moved file keeps the mode
    /// it had (APPLY rules).
    pub mode: Option<u32>,
}

/// Writes every staged change as one unit and updates the session's read state. Returns
/// whether every write was durable. Two changes of one target are refused: a dialect merges
/// the changes of one file before it stages them.
pub fn commit(session: &Session, tool: &str, staged: &[Staged]) -> ToolResult<bool> {
    for (i, s) in staged.iter().enumerate() {
        if let Some(other) = staged.iter().skip(i + 1).find(|o| o.target == s.target) {
            return Err(ToolError::new(
                Code::InvalidPatch,
                format!(
                    "'{}' and '{}' are the same file, changed twice in one call. Nothing was \
                     written; change each file once.",
                    s.given, other.given
                ),
            ));
        }
    }
    let chunks: Vec<Vec<Chunk<'_>>> = staged
        .iter()
        .map(|s| match &s.after {
            After::Bytes { bytes, .. } => vec![Chunk::Original(bytes)],
            After::Deleted => Vec::new(),
        })
        .collect();
    let mut ops = Vec::with_capacity(staged.len());
    for (s, chunks) in staged.iter().zip(&chunks) {
        match (&s.after, &s.before) {
            (After::Bytes { .. }, before) => ops.push(BatchOp::Write(WriteRequest {
                target: &s.target,
                chunks,
                existing: before.as_ref().map(|o| &o.loaded),
                fsync: session.config().fsync,
                mode: s.mode,
            })),
            (After::Deleted, Some(before)) => ops.push(BatchOp::Delete {
                target: &s.target,
                existing: &before.loaded,
            }),
            (After::Deleted, None) => {
                return Err(ToolError::new(
                    Code::FileNotFound,
                    format!("'{}' does not exist, so it cannot be deleted.", s.given),
                ))
            }
        }
    }
    // DIALECT-1: these calls need no Read, so a file counts as fully read afterwards only when
    // the session had read it in full before the call; otherwise it is forgotten.
    let was_read: Vec<bool> = staged
        .iter()
        .map(|s| {
            session
                .entry(&s.target)
                .is_some_and(|e| e.scope == Scope::Full)
        })
        .collect();
    let done = session.write_files(tool, &ops)?;
    let mut durable = true;
    for ((s, d), was_read) in staged.iter().zip(&done).zip(&was_read) {
        match (d, &s.after) {
            (BatchDone::Written(w), After::Bytes { fingerprint, .. }) => {
                durable &= w.durable;
                if *was_read {
                    session.remember(&s.target, Entry::full(*fingerprint, &w.meta));
                } else {
                    session.forget(&s.target);
                }
            }
            (BatchDone::Deleted { durable: d }, _) => {
                durable &= *d;
                session.forget(&s.target);
            }
            (BatchDone::Written(w), After::Deleted) => {
                durable &= w.durable;
                session.forget(&s.target);
            }
        }
    }
    Ok(durable && session.config().fsync)
}
