//! The journal's index (`index`): one line per unit, oldest first — its id, the old bytes it
//! keeps and a hash of each of its files' paths. That is all pruning (UNDO-6) needs, so that
//! recording a unit reads and writes this one small file instead of parsing every record:
//! a write costs the same whether the journal holds one unit or two thousand.
//!
//! The records stay the truth; the index is derived from them and trusted only while nothing
//! says otherwise. Before anything in the journal changes, the marker `index.dirty` is created;
//! it is removed only once the index that describes the change has been renamed into place. A
//! process killed in between leaves the marker, and the next change rebuilds the index from
//! the records (removing on the way what the crash left: kept bytes no record names and temp
//! files). An index that is missing or does not parse is rebuilt the same way — that is also
//! how a journal written before the index existed gets one.
//!
//! Format, for a human reading it:
//!
//! ```text
//! editref-undo-index 1
//! <id> <kept bytes> <path hash> [<path hash> …]
//! ```
//!
//! A path hash is 16 hex digits of xxh3-64 of the path's bytes. Two paths that share one would
//! count as one file for the per-file limit; with 64 bits and at most a few thousand paths in a
//! journal, that chance is below one in ten trillion.

use super::records::Stored;
use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The index file's name in the journal directory.
pub(super) const INDEX: &str = "index";
/// The marker that the index may not describe the journal (see the module's documentation).
pub(super) const DIRTY: &str = "index.dirty";
/// The first line: the format and its version.
const HEADER: &str = "editref-undo-index 1";

/// One unit, as the index knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    /// The unit's id (its record is `<id>.json`).
    pub id: String,
    /// The old bytes it keeps.
    pub kept: u64,
    /// [`path_key`] of each of its files, in the record's order.
    pub files: Vec<u64>,
}

impl Entry {
    /// The entry of a unit read from its record.
    pub fn of(unit: &Stored) -> Entry {
        Entry {
            id: unit.id.clone(),
            kept: unit.record.kept_bytes(),
            files: unit
                .record
                .files
                .iter()
                .map(|f| path_key(&f.path))
                .collect(),
        }
    }
}

/// The key of a file in the index: xxh3-64 of its path's bytes.
pub(super) fn path_key(path: &Path) -> u64 {
    xxhash_rust::xxh3::xxh3_64(path.as_os_str().as_bytes())
}

/// The units of a journal, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Index {
    /// One per unit, sorted by id.
    pub entries: Vec<Entry>,
}

/// The most units [`Index::prune`] and its callers deal with: UNDO-6's limits.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Units per file.
    pub per_file: usize,
    /// Kept old bytes in all.
    pub bytes: u64,
    /// Units in all.
    pub units: usize,
}

impl Index {
    /// The index of `units` (in any order).
    pub fn of(units: &[Stored]) -> Index {
        let mut entries: Vec<Entry> = units.iter().map(Entry::of).collect();
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        Index { entries }
    }

    /// Parses an index file; `None` when it is not one, or is damaged in any way (a line that
    /// does not parse, ids out of order): the caller then rebuilds it from the records.
    pub fn parse(bytes: &[u8]) -> Option<Index> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.strip_suffix('\n')?.split('\n');
        if lines.next()? != HEADER {
            return None;
        }
        let mut entries: Vec<Entry> = Vec::new();
        for line in lines {
            let mut words = line.split(' ');
            let id = words.next().filter(|id| valid_id(id))?;
            let kept = words.next()?.parse::<u64>().ok()?;
            let files = words
                .map(|w| match w.len() {
                    16 => u64::from_str_radix(w, 16).ok(),
                    _ => None,
                })
                .collect::<Option<Vec<u64>>>()?;
            if entries.last().is_some_and(|last| last.id.as_str() >= id) {
                return None;
            }
            entries.push(Entry {
                id: id.to_string(),
                kept,
                files,
            });
        }
        Some(Index { entries })
    }

    /// The index file's bytes.
    pub fn render(&self) -> Vec<u8> {
        let mut out = String::with_capacity(HEADER.len() + 1 + self.entries.len() * 64);
        out.push_str(HEADER);
        out.push('\n');
        for e in &self.entries {
            out.push_str(&e.id);
            out.push(' ');
            out.push_str(&e.kept.to_string());
            for f in &e.files {
                out.push_str(&format!(" {f:016x}"));
            }
            out.push('\n');
        }
        out.into_bytes()
    }

    /// The newest unit's id.
    pub fn last_id(&self) -> Option<&str> {
        self.entries.last().map(|e| e.id.as_str())
    }

    /// Adds a unit, in id order (its id is normally the newest).
    pub fn insert(&mut self, entry: Entry) {
        let at = self.entries.partition_point(|e| e.id < entry.id);
        self.entries.insert(at, entry);
    }

    /// Drops the unit `id`, if the index has it.
    pub fn forget(&mut self, id: &str) {
        self.entries.retain(|e| e.id != id);
    }

    /// UNDO-6: drops the oldest units until the rest are within `limits`, and returns them,
    /// oldest first. Going from the newest unit back, a unit is kept when each of its files has
    /// fewer than `per_file` newer units kept and the kept units, it included, are within
    /// `units` and `bytes`; once a unit is over one of those two, it and every older unit go.
    pub fn prune(&mut self, limits: Limits) -> Vec<Entry> {
        let mut keep = vec![false; self.entries.len()];
        let mut per_file: HashMap<u64, usize> = HashMap::new();
        let (mut bytes, mut count) = (0u64, 0usize);
        for (i, e) in self.entries.iter().enumerate().rev() {
            let full = |f: &u64| per_file.get(f).copied().unwrap_or(0) >= limits.per_file;
            if e.files.iter().any(full) {
                continue;
            }
            bytes = bytes.saturating_add(e.kept);
            count += 1;
            if bytes > limits.bytes || count > limits.units {
                break;
            }
            for (j, f) in e.files.iter().enumerate() {
                // A unit counts once for each file, however often it names it.
                if !e.files[..j].contains(f) {
                    *per_file.entry(*f).or_insert(0) += 1;
                }
            }
            keep[i] = true;
        }
        if keep.iter().all(|k| *k) {
            return Vec::new();
        }
        let mut dropped = Vec::new();
        let mut kept = Vec::with_capacity(self.entries.len());
        for (e, k) in std::mem::take(&mut self.entries).into_iter().zip(keep) {
            if k {
                kept.push(e);
            } else {
                dropped.push(e);
            }
        }
        self.entries = kept;
        dropped
    }
}

/// Whether `id` is a unit id as [`super::journal`] makes them (`u` then digits and dashes):
/// nothing else may name a file in the journal.
pub(super) fn valid_id(id: &str) -> bool {
    id.len() > 1 && id.starts_with('u') && id[1..].bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
