//! The journal on disk: `u<time><pid><n>.json` per unit (the record), `<id>.<i>.before` per
//! kept old content (the blob), in one directory.
//!
//! Records are small JSON so that the journal can be read and repaired by hand; blobs are the
//! raw bytes, so that an undo restores exactly what was there. Every file is written under a
//! temp name and renamed into place — a crash leaves a unit whole or absent — and everything
//! goes through the [`Fs`] seam like the tools' own writes. Names sort by time, so listing the
//! directory gives the units in the order they were made.
//!
//! Several processes may share one journal (`--undo-dir`, or two servers on one root). Every
//! change to it — recording a unit, pruning, undoing — holds an exclusive `flock` on the
//! directory itself ([`Journal::lock`]). Without it, one writer's prune would take another's
//! freshly written blob, whose record is not written yet, for a crash leftover and delete it.
//! The kernel drops the lock of a process that dies, so a crash never leaves the journal
//! locked, and a blob with no record found under the lock really is a leftover.

use super::{Before, Change, ContentHash, UndoConfig};
use crate::disk::{Fs, Kind};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The record format's version; a record of another version is ignored, never misread.
const VERSION: u32 = 1;

/// Units kept in all, whatever their size: the journal is read whole on every record.
const MAX_UNITS: usize = 2000;

/// What the journal keeps of one file of a unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// The file (symlinks followed, absolute).
    pub path: PathBuf,
    /// Its state before the write.
    pub before: BeforeRecord,
    /// The hash of what the write left, or `None` when it deleted the file.
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

    fn kept_bytes(&self) -> u64 {
        self.record
            .files
            .iter()
            .map(|f| match f.before {
                BeforeRecord::Kept { len, .. } => len,
                _ => 0,
            })
            .sum()
    }
}

/// The journal in one directory, reached through a file-system seam.
pub struct Journal<'a> {
    fs: &'a dyn Fs,
    config: &'a UndoConfig,
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
    /// needs no lock (there is nothing to change) and gets a guard that holds none.
    pub fn lock(&self) -> io::Result<JournalLock> {
        // `dir/.` opens the directory itself even when `dir` is a symlink to it (the final
        // component is `.`, never a link).
        match self.fs.open_read(&self.config.dir.join(".")) {
            Ok(handle) => {
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
    /// the journal's lock. An error leaves no partial unit behind.
    pub fn record(&self, tool: &str, changes: &[Change<'_>]) -> io::Result<()> {
        if changes.is_empty() {
            return Ok(());
        }
        self.fs.create_dir_all(&self.config.dir)?;
        let _lock = self.lock()?;
        let id = new_id();
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
        for (index, c) in changes.iter().enumerate() {
            let before = match c.before {
                Before::Absent => BeforeRecord::Absent,
                Before::File { bytes, .. } if !keep => BeforeRecord::Omitted {
                    len: bytes.len() as u64,
                },
                Before::File { bytes, mode } => {
                    let blob = self.config.dir.join(format!("{id}.{index}.before"));
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
            files.push(FileRecord {
                path: c.target.clone(),
                before,
                after: c.after.map(HashRecord::from),
            });
        }
        let record = UnitRecord {
            version: VERSION,
            tool: tool.to_string(),
            files,
        };
        let json = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
        if let Err(e) = self.write_file(&self.config.dir.join(format!("{id}.json")), &json) {
            self.remove_all(&blobs);
            return Err(e);
        }
        self.prune()
    }

    /// Every readable unit, oldest first. Records of another version or that do not parse are
    /// skipped: a damaged journal loses undo for those units, never misleads it.
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
            .filter(|n| n.starts_with('u'))
            .map(str::to_string)
            .collect();
        ids.sort();
        let mut units = Vec::with_capacity(ids.len());
        for id in ids {
            let Ok(bytes) = self.read_file(&self.config.dir.join(format!("{id}.json"))) else {
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
        let bytes = self.read_file(&self.config.dir.join(format!("{}.{index}.before", unit.id)))?;
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

    /// Removes a unit (after it was undone, or when pruned): the record first, so that a
    /// crash in between leaves only unreferenced blobs, which the next prune removes.
    pub fn remove(&self, unit: &Stored) -> io::Result<()> {
        self.fs
            .remove_file(&self.config.dir.join(format!("{}.json", unit.id)))?;
        for index in 0..unit.record.files.len() {
            let _ = self
                .fs
                .remove_file(&self.config.dir.join(format!("{}.{index}.before", unit.id)));
        }
        Ok(())
    }

    /// UNDO-6: drops the oldest units until no file has more than `max_per_file`, the kept
    /// bytes are within `max_bytes` and there are at most `MAX_UNITS`; then removes blobs no
    /// record names (left by a crash). Runs only under the lock [`Journal::record`] holds, so
    /// no other writer is between its blobs and its record.
    fn prune(&self) -> io::Result<()> {
        let units = self.units()?;
        let mut keep = vec![true; units.len()];
        let mut per_file: std::collections::HashMap<&Path, usize> =
            std::collections::HashMap::new();
        let mut bytes = 0u64;
        let mut count = 0usize;
        for (i, u) in units.iter().enumerate().rev() {
            let over_file = u.record.files.iter().any(|f| {
                let n = per_file.entry(f.path.as_path()).or_insert(0);
                *n += 1;
                *n > self.config.max_per_file
            });
            bytes += u.kept_bytes();
            count += 1;
            if over_file || bytes > self.config.max_bytes || count > MAX_UNITS {
                keep[i] = false;
            }
        }
        for (u, k) in units.iter().zip(&keep) {
            if !k {
                self.remove(u)?;
            }
        }
        let live: std::collections::HashSet<&str> = units
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(u, _)| u.id.as_str())
            .collect();
        for name in self.fs.read_dir(&self.config.dir)? {
            let Some(name) = name.to_str() else { continue };
            if let Some(stem) = name.strip_suffix(".before") {
                let id = stem.rsplit_once('.').map(|(id, _)| id).unwrap_or(stem);
                if !live.contains(id) && !self.fs_exists(&format!("{id}.json")) {
                    let _ = self.fs.remove_file(&self.config.dir.join(name));
                }
            }
        }
        Ok(())
    }

    fn fs_exists(&self, name: &str) -> bool {
        self.fs
            .symlink_metadata(&self.config.dir.join(name))
            .is_ok()
    }

    fn write_file(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let temp = path.with_extension("partial");
        let mut f = self.fs.create_exclusive(&temp)?;
        let written = f.write_all(bytes).and_then(|()| f.set_mode(0o600));
        drop(f);
        if let Err(e) = written.and_then(|()| self.fs.rename(&temp, path)) {
            let _ = self.fs.remove_file(&temp);
            return Err(e);
        }
        Ok(())
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
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

/// A unit id that sorts by time: nanoseconds since the epoch, the process id and a counter.
fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("u{nanos:020}-{:010}-{n:06}", std::process::id())
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
