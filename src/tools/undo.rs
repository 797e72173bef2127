//! Undo (UNDO-2..5, UNDO-8): takes back the last writes of a file from the session's journal.
//!
//! A step is one recorded unit — every file one earlier call changed. Before anything is
//! written, every file of the unit is checked to hold exactly what that call left (by hash);
//! one that does not was changed since by someone else, and the step is refused as `stale`
//! rather than overwrite that work. The files are then restored through the same batch commit
//! as every multi-file write, so a step is undone whole or not at all, and the unit leaves the
//! journal. An undo is not itself recorded: undoing twice goes further back, it does not redo.

use super::{load, metadata_checks, stat};
use crate::api::{UndoAction, UndoInput, UndoOutput, UndoneFile, UndoneStep};
use crate::disk::{self, BatchOp, Loaded, WriteRequest};
use crate::error::{Code, ToolError, ToolResult};
use crate::session::{Resolved, Session};
use crate::text::Chunk;
use crate::undo::{BeforeRecord, ContentHash, Journal, Stored};
use std::path::Path;

/// Runs Undo.
pub fn run(session: &Session, input: UndoInput) -> ToolResult<UndoOutput> {
    let Some(config) = &session.config().undo else {
        return Err(ToolError::new(
            Code::NothingToUndo,
            "This session keeps no undo journal, so there is nothing to undo. Change the file \
             back with Edit or Write instead.",
        )
        .with("available", 0));
    };
    let r = session.resolve(&input.file_path)?;
    // SESSION-6: the named file's turn, taken before the journal's lock as every writer takes
    // them (a write holds its turn when it records into the journal). The other files of a
    // unit are not waited for; their write-time check (SESSION-3) still guards them.
    let _turn = session.turn(&[&r.target]);
    let journal = Journal::new(session.fs(), config);
    // Held until every step is done: no other writer prunes or undoes a unit of this file
    // between its check and its removal (UNDO-1).
    let _lock = journal
        .lock()
        .map_err(|e| ToolError::io("Could not lock the undo journal", &e))?;
    let units = journal
        .for_file(&r.target)
        .map_err(|e| ToolError::io("Could not read the undo journal", &e))?;
    let steps = usize::try_from(input.steps).unwrap_or(usize::MAX);
    if units.len() < steps {
        let journal = journal_named(config);
        let message = match units.len() {
            0 => format!(
                "No write of '{}' is recorded in {journal}, so there is nothing to undo. Only \
                 writes made by these tools can be undone{}.",
                r.given,
                if config.root.is_some() {
                    ", and each root keeps a journal of its own: a write made in a session with \
                     another root, or another working directory, is in that one's journal"
                } else {
                    ""
                }
            ),
            n => format!(
                "Only {n} write{} of '{}' {} recorded in {journal}; ask for at most {n} step{}.",
                if n == 1 { "" } else { "s" },
                r.given,
                if n == 1 { "is" } else { "are" },
                if n == 1 { "" } else { "s" },
            ),
        };
        return Err(ToolError::new(Code::NothingToUndo, message).with("available", units.len()));
    }
    let mut undone = Vec::with_capacity(steps);
    for unit in units.iter().take(steps) {
        match undo_unit(session, &journal, unit) {
            Ok(step) => undone.push(step),
            Err(e) if undone.is_empty() => return Err(e),
            Err(mut e) => {
                e.message.push_str(&format!(
                    " The {} step{} before this one {} undone.",
                    undone.len(),
                    if undone.len() == 1 { "" } else { "s" },
                    if undone.len() == 1 { "was" } else { "were" },
                ));
                return Err(e.with("undone", undone.len()));
            }
        }
    }
    Ok(UndoOutput {
        file_path: input.file_path,
        undone,
    })
}

/// The journal an undo looked in, as a refusal names it: the root it serves and its directory
/// (UNDO-7), so that an undo run from another directory than the write says where it looked
/// instead of only that it found nothing.
fn journal_named(config: &crate::undo::UndoConfig) -> String {
    match &config.root {
        Some(root) => format!(
            "the undo journal of {} ({})",
            root.display(),
            config.dir.display()
        ),
        None => format!("the undo journal in {}", config.dir.display()),
    }
}

/// UNDO-6: the refusal of a unit whose old bytes of `shown` (`len` bytes) were not kept.
fn too_large(shown: &str, tool: &str, len: u64) -> ToolError {
    ToolError::new(
        Code::TooLarge,
        format!(
            "The {tool} of '{shown}' replaced {}, more than the undo journal keeps, so it cannot \
             be undone. Restore the file from version control instead.",
            super::human_size(len)
        ),
    )
}

/// One file of a unit as it is now.
struct Current {
    resolved: Resolved,
    loaded: Option<Loaded>,
}

/// UNDO-2 and UNDO-4: checks every file of `unit` against what it left, then restores them all.
fn undo_unit(session: &Session, journal: &Journal<'_>, unit: &Stored) -> ToolResult<UndoneStep> {
    let tool = unit.record.tool.as_str();
    // A unit that kept no old bytes of a file cannot be undone, whatever the files hold now
    // (UNDO-2, UNDO-6): it is refused first, before any file is loaded or hashed.
    for f in &unit.record.files {
        if let BeforeRecord::Omitted { len } = f.before {
            return Err(too_large(&shown(session, &f.path), tool, len));
        }
    }
    let mut current = Vec::with_capacity(unit.record.files.len());
    let mut blobs: Vec<Option<Vec<u8>>> = Vec::with_capacity(unit.record.files.len());
    for (index, f) in unit.record.files.iter().enumerate() {
        let shown = shown(session, &f.path);
        // The recorded path is confined like any path a model sends (PATH-2): a journal edited
        // by hand cannot make undo write outside the root.
        let resolved = session.resolve(&f.path.to_string_lossy())?;
        if resolved.target != f.path {
            return Err(changed(&shown, tool));
        }
        let loaded = if resolved.exists {
            let meta = stat(session, &resolved)?;
            // An undo is a write like any other: a file made read-only or given a second name
            // since is refused as Edit would refuse it (DISK-3, DISK-4), before anything else.
            metadata_checks(session, &resolved, &meta)?;
            Some(load(session, &resolved, session.config().max_edit_size)?)
        } else {
            None
        };
        let unchanged = match (&f.after, &loaded) {
            (Some(after), Some(l)) => after.matches(&ContentHash::of(&l.bytes)),
            (None, None) => true,
            _ => false,
        };
        if !unchanged {
            return Err(changed(&shown, tool));
        }
        let blob = match f.before {
            BeforeRecord::Absent => None,
            BeforeRecord::Omitted { len } => return Err(too_large(&shown, tool, len)),
            BeforeRecord::Kept { .. } => Some(journal.blob(unit, index).map_err(|e| {
                ToolError::io(
                    &format!("Could not read the undo journal's copy of '{shown}'"),
                    &e,
                )
            })?),
        };
        current.push(Current { resolved, loaded });
        blobs.push(blob);
    }
    let chunks: Vec<Vec<Chunk<'_>>> = blobs
        .iter()
        .map(|b| match b {
            Some(bytes) => vec![Chunk::Original(bytes)],
            None => Vec::new(),
        })
        .collect();
    let mut ops = Vec::with_capacity(current.len());
    let mut files = Vec::with_capacity(current.len());
    for (((f, c), blob), chunks) in unit
        .record
        .files
        .iter()
        .zip(&current)
        .zip(&blobs)
        .zip(&chunks)
    {
        let action = match (blob, &c.loaded) {
            (Some(_), existing) => {
                let mode = match f.before {
                    BeforeRecord::Kept { mode, .. } => Some(mode),
                    _ => None,
                };
                ops.push(BatchOp::Write(WriteRequest {
                    target: &c.resolved.target,
                    chunks,
                    existing: existing.as_ref(),
                    fsync: session.config().fsync,
                    mode,
                }));
                if existing.is_some() {
                    UndoAction::Restored
                } else {
                    UndoAction::Recreated
                }
            }
            (None, Some(l)) => {
                ops.push(BatchOp::Delete {
                    target: &c.resolved.target,
                    existing: l,
                });
                UndoAction::Removed
            }
            // Created by the unit and already gone: nothing to do for this file.
            (None, None) => UndoAction::Removed,
        };
        files.push(UndoneFile {
            file_path: shown(session, &f.path),
            action,
        });
    }
    disk::write_batch(session.fs(), &ops)?;
    for c in &current {
        session.forget(&c.resolved.target);
    }
    // The files are restored; a unit that cannot be removed would be offered again, and its
    // check would then refuse it (the files no longer hold what it left).
    let _ = journal.remove(unit);
    Ok(UndoneStep {
        tool: tool.to_string(),
        files,
    })
}

/// `stale` for a file changed since the write being undone (UNDO-2).
fn changed(shown: &str, tool: &str) -> ToolError {
    ToolError::new(
        Code::Stale,
        format!(
            "'{shown}' was changed after the {tool} being undone, by something other than these \
             tools (or by a write that was not recorded). Undo was refused so that those changes \
             are not lost; nothing was written. Read the file and edit it back instead."
        ),
    )
}

/// A journal path as the model should see it: relative to the working directory when under
/// it.
fn shown(session: &Session, path: &Path) -> String {
    path.strip_prefix(&session.config().cwd)
        .ok()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(path)
        .display()
        .to_string()
}
