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
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The first change whose target a later change also has, and the first such later change:
/// `(i, j)` with the least `i`, then the least `j`. A hash of the targets rather than comparing
/// every pair, so that a call of a thousand files costs a thousand lookups.
pub fn first_repeat(staged: &[Staged]) -> Option<(usize, usize)> {
    first_repeat_of(staged.iter().map(|s| s.target.as_path()))
}

/// [`first_repeat`] over the targets alone.
fn first_repeat_of<'p>(targets: impl Iterator<Item = &'p Path>) -> Option<(usize, usize)> {
    let mut first: HashMap<&Path, (usize, Option<usize>)> = HashMap::new();
    for (k, target) in targets.enumerate() {
        first
            .entry(target)
            .and_modify(|(_, later)| {
                later.get_or_insert(k);
            })
            .or_insert((k, None));
    }
    first
        .into_values()
        .filter_map(|(i, later)| later.map(|j| (i, j)))
        .min()
}

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
    if let Some((i, j)) = first_repeat(staged) {
        return Err(ToolError::new(
            Code::InvalidPatch,
            format!(
                "'{}' and '{}' are the same file, changed twice in one call. Nothing was \
                 written; change each file once.",
                staged[i].given, staged[j].given
            ),
        ));
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

#[cfg(test)]
mod tests {
    use super::first_repeat_of;
    use std::path::Path;

    fn repeat(names: &[&str]) -> Option<(usize, usize)> {
        first_repeat_of(names.iter().map(Path::new))
    }

    #[test]
    fn the_earliest_repeated_target_is_named_with_its_first_repeat() {
        assert_eq!(repeat(&[]), None);
        assert_eq!(repeat(&["a", "b", "c"]), None);
        assert_eq!(repeat(&["a", "b", "a"]), Some((0, 2)));
        // `b` repeats first in the list, but `a` is the earlier change with a repeat.
        assert_eq!(repeat(&["a", "b", "b", "a", "a"]), Some((0, 3)));
        assert_eq!(repeat(&["x", "b", "c", "c", "b"]), Some((1, 4)));
    }
}
