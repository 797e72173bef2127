//! Writing several files as one unit (BATCH-1): [`write_batch`] replaces, creates and deletes
//! a set of files so that either all of them change or none does.
//!
//! A single rename is atomic; a set of renames is not, so the batch is built in three phases
//! that put every failure that can be foreseen before the first rename:
//!
//! 1. **prepare** — every new content goes into its own temp file beside its target, written
//!    and fsynced exactly as a single write does ([`super::atomic`]); the temp files stay
//!    unnamed and open until their rename, except in a batch of more than [`OPEN_TEMPS`]
//!    files, where each is named and closed once written (a descriptor per file would run
//!    into the process's limit);
//! 2. **check** — every file being replaced or deleted is locked and checked unchanged since
//!    it was loaded (write-time check 2), every new file's path checked free;
//! 3. **commit** — the renames, in order; a deleted file is first moved aside to a parked name
//!    ([`parked_path`]), which no later edit removes as an orphan.
//!
//! A failure in phase 1 or 2 removes the temp files and leaves every target as it was. A
//! rename that fails in phase 3 (an I/O error; nothing that a check could have seen) rolls the
//! earlier renames back from the bytes still held in memory: a replaced file gets its old
//! bytes and mode again, a created file is removed, a file moved aside comes back. Only when
//! the rollback itself fails does the error say that a file may hold its new content.

use super::atomic::{check_unchanged, commit_create};
use super::fs::Fs;
use super::load::Loaded;
use super::orphans;
use super::refusal::{io_error, stale};
use super::request::{WriteRequest, Written};
use super::staged::{prepare, Prepared};
use super::temp::parked_path;
use crate::error::ToolError;
use crate::text::Chunk;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

/// One change of a batch.
pub enum BatchOp<'a, 'c> {
    /// Create or replace a file, exactly as [`super::atomic_write`] would.
    Write(WriteRequest<'a, 'c>),
    /// Delete the file that was loaded from `target`.
    Delete {
        /// The path of the file (symlinks already followed).
        target: &'a Path,
        /// The file as loaded: the check that it is unchanged, and the bytes a rollback
        /// restores.
        existing: &'a Loaded,
    },
}

impl BatchOp<'_, '_> {
    fn target(&self) -> &Path {
        match self {
            BatchOp::Write(w) => w.target,
            BatchOp::Delete { target, .. } => target,
        }
    }
}

/// What one op of a successful batch did.
#[derive(Debug, Clone, Copy)]
pub enum BatchDone {
    /// The file now holds the new content; its metadata.
    Written(Written),
    /// The file is gone.
    Deleted {
        /// Whether its directory was fsynced after the removal.
        durable: bool,
    },
}

/// A rename that has happened, and how to take it back.
enum Committed {
    /// The target of op `index` was replaced; the op's `existing` holds the old bytes.
    Replaced { index: usize },
    /// The target of op `index` did not exist before.
    Created { index: usize },
    /// The target of op `index` was moved aside to `parked`.
    Parked { index: usize, parked: PathBuf },
}

/// Batches of up to this many files keep every temp file unnamed and open until its rename.
pub(super) const OPEN_TEMPS: usize = 64;

/// BATCH-1: applies every op or none. Targets must be distinct (the caller merges several
/// changes of one file into one op before).
pub fn write_batch(fs: &dyn Fs, ops: &[BatchOp<'_, '_>]) -> Result<Vec<BatchDone>, ToolError> {
    // Phase 1: every new content in its temp file.
    let mut prepared: Vec<Option<Prepared>> = Vec::with_capacity(ops.len());
    for op in ops {
        let p = match op {
            BatchOp::Write(w) => match prepare(fs, w) {
                Ok(mut p) => {
                    if ops.len() > OPEN_TEMPS {
                        if let Err(e) = p.name_and_close(w.target) {
                            p.discard(fs);
                            remove_temps(fs, &mut prepared);
                            return Err(e);
                        }
                    }
                    Some(p)
                }
                Err(e) => {
                    remove_temps(fs, &mut prepared);
                    return Err(e);
                }
            },
            BatchOp::Delete { .. } => None,
        };
        prepared.push(p);
    }
    // Phase 2: nobody changed what we are about to replace or delete.
    for op in ops {
        let checked = match op {
            BatchOp::Write(WriteRequest {
                existing: Some(l),
                target,
                ..
            })
            | BatchOp::Delete {
                existing: l,
                target,
            } => check_unchanged(fs, target, l),
            BatchOp::Write(w) => match fs.symlink_metadata(w.target) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Ok(_) => Err(stale("a file appeared where it was to be made")),
                Err(e) => Err(io_error("check the path of the new file", &e)),
            },
        };
        if let Err(e) = checked {
            remove_temps(fs, &mut prepared);
            return Err(e);
        }
    }
    // Phase 3: the renames.
    let mut done: Vec<Committed> = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let result = match (op, prepared.get_mut(index).and_then(Option::as_mut)) {
            (BatchOp::Write(w), Some(p)) => match w.existing {
                Some(_) => p
                    .replace(fs, w.target)
                    .map(|()| Committed::Replaced { index }),
                None => commit_create(fs, p, w.target).map(|()| Committed::Created { index }),
            },
            (BatchOp::Delete { target, .. }, _) => {
                let parked = parked_path(target);
                fs.rename_noreplace(target, &parked)
                    .map_err(|e| io_error("remove the file", &e))
                    .map(|()| Committed::Parked { index, parked })
            }
            (BatchOp::Write(_), None) => Err(io_error(
                "find the prepared content",
                &io::Error::other("missing temp file"),
            )),
        };
        match result {
            Ok(c) => done.push(c),
            Err(e) => {
                // The temp files not yet renamed go; the renames made are taken back, and
                // then the directories made for new files.
                for p in prepared.iter_mut().skip(index).flatten() {
                    p.drop_temp(fs);
                }
                let mut e = e;
                if let Err(unrestored) = roll_back(fs, ops, &done) {
                    e.message.push_str(&format!(
                        " Putting back the files already changed failed for {}; they may hold \
                         their new content: read them before going on.",
                        unrestored.join(", ")
                    ));
                }
                remove_dirs(fs, &prepared);
                return Err(e);
            }
        }
    }
    // Everything is in place: the files moved aside go, and the directories are synced.
    let mut results = Vec::with_capacity(ops.len());
    for c in &done {
        if let Committed::Parked { parked, .. } = c {
            let _ = fs.remove_file(parked);
        }
    }
    // Every rename is done, so one fsync of a directory makes all of its renames durable: a
    // batch of a thousand files in one directory syncs it once, not a thousand times.
    let mut dirs = Dirs::default();
    for (index, op) in ops.iter().enumerate() {
        let dir = op.target().parent().unwrap_or(Path::new("/"));
        match (op, prepared.get(index).and_then(Option::as_ref)) {
            (BatchOp::Write(w), Some(p)) => {
                let durable = w.fsync && dirs.sync(fs, dir) && p.dirs.sync_parents(fs);
                results.push(BatchDone::Written(Written {
                    meta: p.meta,
                    durable,
                }));
            }
            (BatchOp::Delete { .. }, _) | (BatchOp::Write(_), None) => {
                results.push(BatchDone::Deleted {
                    durable: dirs.sync(fs, dir),
                });
            }
        }
        dirs.note(dir);
    }
    for dir in dirs.order {
        orphans::sweep(fs, dir);
    }
    Ok(results)
}

/// The directories of a batch's targets, in the order first met, each with what syncing it
/// answered once it has been synced (each is synced at most once, after every rename).
#[derive(Default)]
struct Dirs<'p> {
    order: Vec<&'p Path>,
    synced: HashMap<&'p Path, Option<bool>>,
}

impl<'p> Dirs<'p> {
    /// Remembers `dir` for the orphan sweep, once.
    fn note(&mut self, dir: &'p Path) {
        if let Entry::Vacant(v) = self.synced.entry(dir) {
            v.insert(None);
            self.order.push(dir);
        }
    }

    /// Syncs `dir` the first time it is asked; answers whether that sync succeeded.
    fn sync(&mut self, fs: &dyn Fs, dir: &'p Path) -> bool {
        self.note(dir);
        *self
            .synced
            .entry(dir)
            .or_default()
            .get_or_insert_with(|| fs.sync_dir(dir).is_ok())
    }
}

/// Removes the temp files of phase 1 and the directories made for them.
fn remove_temps(fs: &dyn Fs, prepared: &mut [Option<Prepared>]) {
    for p in prepared.iter_mut().rev().flatten() {
        p.discard(fs);
    }
}

/// Removes the directories made for new files, the latest first (a later op may have made a
/// directory inside an earlier op's).
fn remove_dirs(fs: &dyn Fs, prepared: &[Option<Prepared>]) {
    for p in prepared.iter().rev().flatten() {
        p.dirs.remove(fs);
    }
}

/// Takes back the renames in `done`, newest first. Returns the paths it could not restore.
fn roll_back(fs: &dyn Fs, ops: &[BatchOp<'_, '_>], done: &[Committed]) -> Result<(), Vec<String>> {
    let mut failed = Vec::new();
    for c in done.iter().rev() {
        let restored = match c {
            Committed::Created { index } => ops
                .get(*index)
                .map(|op| fs.remove_file(op.target()).is_ok())
                .unwrap_or(false),
            Committed::Parked { index, parked } => ops
                .get(*index)
                .map(|op| fs.rename_noreplace(parked, op.target()).is_ok())
                .unwrap_or(false),
            Committed::Replaced { index } => match ops.get(*index) {
                Some(BatchOp::Write(WriteRequest {
                    target,
                    existing: Some(old),
                    fsync,
                    ..
                })) => restore(fs, target, old, *fsync).is_ok(),
                _ => false,
            },
        };
        if !restored {
            if let Some(op) = match c {
                Committed::Created { index }
                | Committed::Parked { index, .. }
                | Committed::Replaced { index } => ops.get(*index),
            } {
                failed.push(op.target().display().to_string());
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed)
    }
}

/// Puts the old bytes and mode of a replaced file back, by the same temp-and-rename.
fn restore(fs: &dyn Fs, target: &Path, old: &Loaded, fsync: bool) -> Result<(), ToolError> {
    let chunks = [Chunk::Original(&old.bytes)];
    let req = WriteRequest {
        target,
        chunks: &chunks,
        existing: None,
        fsync,
        mode: Some(old.meta.mode),
    };
    let mut p = prepare(fs, &req)?;
    if let Err(e) = p.replace(fs, target) {
        p.discard(fs);
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
