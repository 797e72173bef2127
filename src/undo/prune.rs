//! UNDO-6's limits as the index sees the units: an [`Entry`] per unit (id, kept bytes, a hash
//! of each file's path), its line in the index file, and the pruning rule over a whole journal.
//!
//! [`prune`] is the rule itself, applied to every unit at once: it builds the index of a journal
//! from its records, and is what the index's incremental pruning (`index.rs`) must agree with.

use super::records::Stored;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The limits of UNDO-6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Limits {
    /// Units per file.
    pub per_file: usize,
    /// Kept old bytes in all.
    pub bytes: u64,
    /// Units in all.
    pub units: usize,
}

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

    /// Appends the entry's line: `<id> <kept> <hash>…` and a newline.
    pub fn write_line(&self, out: &mut Vec<u8>) {
        let mut line = String::with_capacity(self.id.len() + 24 + 17 * self.files.len());
        line.push_str(&self.id);
        let _ = write!(line, " {}", self.kept);
        for f in &self.files {
            let _ = write!(line, " {f:016x}");
        }
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }

    /// Parses one line (without its newline); `None` when it is not an entry's.
    pub fn parse_line(line: &[u8]) -> Option<Entry> {
        let line = std::str::from_utf8(line).ok()?;
        let mut words = line.split(' ');
        let id = words.next().filter(|id| valid_id(id))?;
        let kept = words.next()?.parse::<u64>().ok()?;
        let files = words
            .map(|w| match w.len() {
                16 => u64::from_str_radix(w, 16).ok(),
                _ => None,
            })
            .collect::<Option<Vec<u64>>>()?;
        Some(Entry {
            id: id.to_string(),
            kept,
            files,
        })
    }

    /// Whether the unit changed the file whose key is `file`.
    pub fn touches(&self, file: u64) -> bool {
        self.files.contains(&file)
    }
}

/// The key of a file in the index: xxh3-64 of its path's bytes.
pub(super) fn path_key(path: &Path) -> u64 {
    xxhash_rust::xxh3::xxh3_64(path.as_os_str().as_bytes())
}

/// Whether `id` is a unit id as the journal makes them (`u` then digits and dashes): nothing
/// else may name a unit.
pub(super) fn valid_id(id: &str) -> bool {
    id.len() > 1 && id.starts_with('u') && id[1..].bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

/// UNDO-6 over a whole journal (`entries`, oldest first): removes the units beyond the limits
/// and returns them, oldest first. Going from the newest unit back, a unit is kept when each of
/// its files has fewer than `per_file` newer units kept and the kept units, it included, are
/// within `units` and `bytes`; once a unit is over one of those two, it and every older unit
/// go.
pub(super) fn prune(entries: &mut Vec<Entry>, limits: Limits) -> Vec<Entry> {
    let mut keep = vec![false; entries.len()];
    let mut per_file: HashMap<u64, usize> = HashMap::new();
    let (mut bytes, mut count) = (0u64, 0usize);
    for (i, e) in entries.iter().enumerate().rev() {
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
    let mut kept = Vec::with_capacity(entries.len());
    for (e, k) in std::mem::take(entries).into_iter().zip(keep) {
        if k {
            kept.push(e);
        } else {
            dropped.push(e);
        }
    }
    *entries = kept;
    dropped
}
