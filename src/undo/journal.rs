//! The journal on disk, in one directory: `<id>.json` per unit (the record), `<id>.<i>.before`
//! per kept old content (the blob), and the index of the units (`index.rs`).
//!
//! Blobs are the raw bytes, so that an undo restores exactly what was there. Every file is
//! written under a temp name and renamed into place — a crash leaves a unit whole or absent —
//! and everything goes through the [`Fs`] seam like the tools' own writes. Ids sort by time,
//! and each is later than the newest before it, so the units' order is their ids' order.
//!
//! Several processes may share one journal (`--undo-dir`, or two front ends on one root). Every
//! change to it — recording a unit, pruning, undoing — holds an exclusive `flock` on the
//! directory itself ([`Journal::lock`]). Without it, one writer's prune would take another's
//! freshly written blob, whose record is not written yet, for a crash leftover and delete it.
//! The kernel drops the lock of a process that dies, so a crash never leaves the journal
//! locked, and a blob with no record found under the lock really is a leftover.

use super::index::{self, Index};
use super::prune::{self, Entry, Limits};
use super::records::{BeforeRecord, FileRecord, HashRecord, Stored, UnitRecord, VERSION};
use super::{After, Before, Change, ContentHash, UndoConfig};
use crate::disk::{Fs, Kind};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Units kept in all, whatever their size (UNDO-6): bounds the index and an undo's reading of
/// the records.
const MAX_UNITS: usize = 2000;

/// The journal in one directory, reached through a file-system seam.
pub struct Journal<'a> {
    pub(super) fs: &'a dyn Fs,
    pub(super) config: &'a UndoConfig,
}

/// The journal's lock, held until dropped (see [`Journal::lock`]).
#[must_use = "the lock is released when the guard is dropped"]
pub struct JournalLock {
    /// The open directory whose `flock` is the lock; `None` when there was no directory.
    _handle: Option<Box<dyn crate::disk::FileHandle>>,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl<'a> Journal<'a> {
    /// The journal `config` describes; nothing is touched until a record or a lookup.
    pub fn new(fs: &'a dyn Fs, config: &'a UndoConfig) -> Journal<'a> {
        Journal { fs, config }
    }

    /// Takes the journal's lock, waiting for whoever holds it, and keeps it until the returned
    /// guard is dropped (UNDO-1): a unit is recorded, pruned or undone whole while no other
    /// process or session changes the journal. A journal directory that does not exist yet
    /// needs no lock (there is nothing to change) and gets a guard that holds none. A per-root
    /// journal must be private to the user (UNDO-7), or it is not used at all.
    pub fn lock(&self) -> io::Result<JournalLock> {
        // `dir/.` opens the directory itself even when `dir` is a symlink to it (the final
        // component is `.`, never a link).
        match self.fs.open_read(&self.config.dir.join(".")) {
            Ok(handle) => {
                if self.config.root.is_some() {
                    self.check_private(&*handle)?;
                }
                handle.lock()?;
                Ok(JournalLock {
                    _handle: Some(handle),
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(JournalLock { _handle: None }),
            Err(e) => Err(e),
        }
    }

    /// UNDO-1: records one unit, then drops old units beyond the limits (UNDO-6), all under
    /// the journal's lock. An error leaves no partial unit behind. The cost does not grow with
    /// the journal: neither the records nor the index lines of other units are read, only the
    /// few that share a file with this one (see `index.rs`).
    pub fn record(&self, tool: &str, changes: &[Change<'_>]) -> io::Result<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let made = self.make_dir()?;
        let _lock = self.lock()?;
        if self.config.root.is_some() {
            self.claim(made)?;
        }
        let mut index = self.index()?;
        self.mark_dirty()?;
        let id = new_id(index.last_id());
        let mut files = Vec::with_capacity(changes.len());
        let mut blobs: Vec<PathBuf> = Vec::new();
        let total: u64 = changes
            .iter()
            .map(|c| match c.before {
                Before::File { bytes, .. } => bytes.len() as u64,
                Before::Absent => 0,
            })
            .sum();
        let keep = total <= self.config.max_bytes;
        for (i, c) in changes.iter().enumerate() {
            let before = match c.before {
                Before::Absent => BeforeRecord::Absent,
                Before::File { bytes, .. } if !keep => BeforeRecord::Omitted {
                    len: bytes.len() as u64,
                },
                Before::File { bytes, mode } => {
                    let blob = self.blob_path(&id, i);
                    if let Err(e) = self.write_file(&blob, bytes) {
                        self.remove_all(&blobs);
                        return Err(e);
                    }
                    blobs.push(blob);
                    BeforeRecord::Kept {
                        mode,
                        len: bytes.len() as u64,
                        hash: Some(ContentHash::of(bytes).into()),
                    }
                }
            };
            let after = match &c.after {
                After::Bytes(parts) if keep => Some(ContentHash::of_parts(parts.iter().copied())),
                After::Bytes(_) | After::Deleted => None,
            };
            files.push(FileRecord {
                path: c.target.clone(),
                before,
                after: after.map(HashRecord::from),
            });
        }
        let record = UnitRecord {
            version: VERSION,
            tool: tool.to_string(),
            files,
        };
        let json = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
        if let Err(e) = self.write_file(&self.record_path(&id), &json) {
            self.remove_all(&blobs);
            return Err(e);
        }
        let entry = Entry::of(&Stored { id, record });
        match index.add(entry, self.limits()) {
            Some(dropped) => self.remove_units(&dropped)?,
            // A damaged line: the records, this unit's included, say what the index is.
            None => index = self.rebuild()?,
        }
        self.store_index(&index)
    }

    /// Every readable unit, oldest first, read from the records themselves (the truth the
    /// index is derived from). Records of another version or that do not parse are skipped: a
    /// damaged journal loses undo for those units, never misleads it.
    pub fn units(&self) -> io::Result<Vec<Stored>> {
        let names = match self.fs.read_dir(&self.config.dir) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut ids: Vec<String> = names
            .iter()
            .filter_map(|n| n.to_str())
            .filter_map(|n| n.strip_suffix(".json"))
            .filter(|n| prune::valid_id(n))
            .map(str::to_string)
            .collect();
        ids.sort();
        let mut units = Vec::with_capacity(ids.len());
        for id in ids {
            let Ok(bytes) = self.read_file(&self.record_path(&id)) else {
                continue;
            };
            match serde_json::from_slice::<UnitRecord>(&bytes) {
                Ok(record) if record.version == VERSION => units.push(Stored { id, record }),
                _ => continue,
            }
        }
        Ok(units)
    }

    /// The units that changed `target`, newest first.
    pub fn for_file(&self, target: &Path) -> io::Result<Vec<Stored>> {
        let mut units: Vec<Stored> = self
            .units()?
            .into_iter()
            .filter(|u| u.touches(target))
            .collect();
        units.reverse();
        Ok(units)
    }

    /// The old bytes of file `index` of a unit, checked against the length and hash its record
    /// kept: a blob that a crash or a power cut left short, empty or zeroed is an
    /// `InvalidData` error, never content to restore (UNDO-1).
    pub fn blob(&self, unit: &Stored, index: usize) -> io::Result<Vec<u8>> {
        let bytes = self.read_file(&self.blob_path(&unit.id, index))?;
        let intact = match unit.record.files.get(index).map(|f| &f.before) {
            Some(BeforeRecord::Kept { len, hash, .. }) => {
                *len == bytes.len() as u64
                    && hash
                        .as_ref()
                        .is_none_or(|h| h.matches(&ContentHash::of(&bytes)))
            }
            _ => false,
        };
        if !intact {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the journal's copy of the old content is damaged (cut short by a crash or a \
                 power loss while it was written)",
            ));
        }
        Ok(bytes)
    }

    /// Removes a unit after it was undone, and from the index. Run under the journal's lock.
    pub fn remove(&self, unit: &Stored) -> io::Result<()> {
        let mut index = self.index()?;
        self.mark_dirty()?;
        self.remove_files(&unit.id, unit.record.files.len())?;
        if index.forget(&unit.id).is_none() {
            index = self.rebuild()?;
        }
        self.store_index(&index)
    }

    /// Removes the files of units the index dropped.
    fn remove_units(&self, dropped: &[Entry]) -> io::Result<()> {
        for gone in dropped {
            self.remove_files(&gone.id, gone.files.len())?;
        }
        Ok(())
    }

    /// Removes a unit's files: the record first, so that a crash in between leaves only
    /// unreferenced blobs, which the next rebuild of the index removes. A record already gone
    /// is no error.
    fn remove_files(&self, id: &str, files: usize) -> io::Result<()> {
        match self.fs.remove_file(&self.record_path(id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        for i in 0..files {
            let _ = self.fs.remove_file(&self.blob_path(id, i));
        }
        Ok(())
    }

    /// The index, read from its file when no interrupted change stands against it, else
    /// rebuilt from the records (see `index.rs`). Run under the journal's lock.
    fn index(&self) -> io::Result<Index> {
        if !self.exists(index::DIRTY) {
            match self.read_file(&self.config.dir.join(index::INDEX)) {
                Ok(bytes) => {
                    if let Some(index) = Index::parse(&bytes) {
                        return Ok(index);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        self.rebuild()
    }

    /// The index of the records on disk. Removes what an interrupted change left behind —
    /// blobs no record names, temp files (every writer writes them under the lock this runs
    /// under, so none is anyone's work in progress) — and then any units beyond the limits.
    fn rebuild(&self) -> io::Result<Index> {
        let units = self.units()?;
        let live: std::collections::HashSet<&str> = units.iter().map(|u| u.id.as_str()).collect();
        let names = match self.fs.read_dir(&self.config.dir) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        for name in &names {
            let Some(name) = name.to_str() else { continue };
            let leftover = if let Some(stem) = name.strip_suffix(".before") {
                let id = stem.rsplit_once('.').map(|(id, _)| id).unwrap_or(stem);
                !live.contains(id) && !self.exists(&format!("{id}.json"))
            } else {
                name.ends_with(".partial")
            };
            if leftover {
                let _ = self.fs.remove_file(&self.config.dir.join(name));
            }
        }
        let (index, dropped) = Index::of(units.iter().map(Entry::of).collect(), self.limits());
        self.remove_units(&dropped)?;
        Ok(index)
    }

    /// Marks the index as possibly out of date, before the journal changes.
    fn mark_dirty(&self) -> io::Result<()> {
        match self
            .fs
            .create_exclusive(&self.config.dir.join(index::DIRTY), 0o600)
        {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Puts `index` in place, then lifts the mark: the journal and its index agree again.
    ///
    /// The old index is removed before the new one is renamed to its name, not replaced by the
    /// rename: ext4 starts writing a file's data back to disk at once when it is renamed over
    /// another (`auto_da_alloc`), which would cost every write of every tool a disk write. The
    /// mark covers the moment without an index.
    fn store_index(&self, index: &Index) -> io::Result<()> {
        let path = self.config.dir.join(index::INDEX);
        let temp = path.with_extension("partial");
        let mut f = self.create_temp(&temp)?;
        let written = f
            .write_all(&index.render())
            .and_then(|()| f.set_mode(0o600));
        drop(f);
        let placed = written
            .and_then(|()| match self.fs.remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            })
            .and_then(|()| self.fs.rename_noreplace(&temp, &path));
        if let Err(e) = placed {
            let _ = self.fs.remove_file(&temp);
            return Err(e);
        }
        self.fs.remove_file(&self.config.dir.join(index::DIRTY))
    }

    fn limits(&self) -> Limits {
        Limits {
            per_file: self.config.max_per_file,
            bytes: self.config.max_bytes,
            units: MAX_UNITS,
        }
    }

    fn record_path(&self, id: &str) -> PathBuf {
        self.config.dir.join(format!("{id}.json"))
    }

    fn blob_path(&self, id: &str, index: usize) -> PathBuf {
        self.config.dir.join(format!("{id}.{index}.before"))
    }

    pub(super) fn exists(&self, name: &str) -> bool {
        self.fs
            .symlink_metadata(&self.config.dir.join(name))
            .is_ok()
    }

    /// Writes `path` whole or not at all: a temp name, then a rename.
    pub(super) fn write_file(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let temp = path.with_extension("partial");
        let mut f = self.create_temp(&temp)?;
        let written = f.write_all(bytes).and_then(|()| f.set_mode(0o600));
        drop(f);
        if let Err(e) = written.and_then(|()| self.fs.rename(&temp, path)) {
            let _ = self.fs.remove_file(&temp);
            return Err(e);
        }
        Ok(())
    }

    /// Creates a temp file. Runs under the journal's lock, so one already there was left by a
    /// writer that died: it is replaced.
    fn create_temp(&self, temp: &Path) -> io::Result<Box<dyn crate::disk::FileHandle>> {
        match self.fs.create_exclusive(temp, 0o600) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                self.fs.remove_file(temp)?;
                self.fs.create_exclusive(temp, 0o600)
            }
            other => other,
        }
    }

    pub(super) fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        let mut f = self.fs.open_read(path)?;
        let meta = f.meta()?;
        if meta.kind != Kind::File {
            return Err(io::Error::other("not a regular file"));
        }
        f.read_all(meta.len.saturating_add(1))
    }

    fn remove_all(&self, paths: &[PathBuf]) {
        for p in paths {
            let _ = self.fs.remove_file(p);
        }
    }
}

/// A new unit id, later than `last` (the newest in the journal): `u`, nanoseconds since the
/// epoch — or one more than `last`'s, when the clock is behind it — the process id and a
/// counter. Ids sort by the order the units were recorded in, even if the clock steps back.
fn new_id(last: Option<&str>) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let after = last
        .and_then(|id| id.get(1..21))
        .and_then(|n| n.parse::<u128>().ok())
        .map_or(0, |n| n + 1);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("u{:020}-{:010}-{n:06}", now.max(after), std::process::id())
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
