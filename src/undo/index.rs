//! The journal's index (`index`): a line of totals, then one line per unit, oldest first — its
//! id, the old bytes it keeps and a hash of each of its files' paths. That is all pruning
//! (UNDO-6) needs, so that recording a unit neither reads the other units' records nor even
//! parses the other units' lines: the totals say whether the journal is over a limit, the few
//! lines that name the new unit's files are found by a byte search, and only the lines of
//! units to drop are parsed. What remains proportional to the journal is copying the index's
//! bytes (about 60 per unit).
//!
//! The records stay the truth; the index is derived from them and trusted only while nothing
//! says otherwise. Before anything in the journal changes, the marker `index.dirty` is created;
//! it is removed only once the index that describes the change is in place. A process killed in
//! between leaves the marker, and the next change rebuilds the index from the records
//! (removing on the way what the crash left: kept bytes no record names and temp files). An
//! index that is missing, does not parse, or was pruned to other limits is rebuilt the same
//! way — that is also how a journal written before the index existed gets one.
//!
//! Format, for a human reading it:
//!
//! ```text
//! editref-undo-index 2 units=<n> bytes=<kept> per-file=<limit> max-bytes=<limit> max-units=<limit>
//! <id> <kept bytes> <path hash> [<path hash> …]
//! ```
//!
//! A path hash is 16 hex digits of xxh3-64 of the path's bytes. Two paths that share one would
//! count as one file for the per-file limit; with 64 bits and at most a few thousand paths in a
//! journal, that chance is below one in ten trillion.

use super::prune::{self, Entry, Limits};
use memchr::{memchr, memmem, memrchr};
use std::collections::HashMap;
use std::ops::Range;

/// The index file's name in the journal directory.
pub(super) const INDEX: &str = "index";
/// The marker that the index may not describe the journal (see the module's documentation).
pub(super) const DIRTY: &str = "index.dirty";
/// The first word of the first line, then the format's version.
const MAGIC: &str = "editref-undo-index 2";

/// A journal's units, as its index file holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Index {
    /// How many units.
    units: usize,
    /// Their kept bytes.
    bytes: u64,
    /// The limits the units are within: pruning to other limits needs every unit.
    limits: Limits,
    /// One line per unit, oldest first, each ended by a newline.
    lines: Vec<u8>,
}

impl Index {
    /// The index of a journal's `entries` (in any order), pruned to `limits`; also returns the
    /// units pruned, whose files are the caller's to remove.
    pub fn of(mut entries: Vec<Entry>, limits: Limits) -> (Index, Vec<Entry>) {
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        let dropped = prune::prune(&mut entries, limits);
        let mut lines = Vec::with_capacity(entries.len() * 64);
        for e in &entries {
            e.write_line(&mut lines);
        }
        let index = Index {
            units: entries.len(),
            bytes: entries.iter().map(|e| e.kept).sum(),
            limits,
            lines,
        };
        (index, dropped)
    }

    /// Parses an index file; `None` when it is not one or is visibly damaged (the totals line,
    /// the count of lines, a last line cut short): the caller then rebuilds it from the records.
    /// The unit lines themselves are parsed when they are needed, and a damaged one found then
    /// makes the caller rebuild as well.
    pub fn parse(bytes: &[u8]) -> Option<Index> {
        let end = memchr(b'\n', bytes)?;
        let header = std::str::from_utf8(&bytes[..end]).ok()?;
        let lines = &bytes[end + 1..];
        let mut words = header.strip_prefix(MAGIC)?.strip_prefix(' ')?.split(' ');
        let mut field = |name: &str| -> Option<u64> {
            words
                .next()?
                .strip_prefix(name)?
                .strip_prefix('=')?
                .parse()
                .ok()
        };
        let units = usize::try_from(field("units")?).ok()?;
        let bytes_kept = field("bytes")?;
        let limits = Limits {
            per_file: usize::try_from(field("per-file")?).ok()?,
            bytes: field("max-bytes")?,
            units: usize::try_from(field("max-units")?).ok()?,
        };
        if words.next().is_some()
            || lines.last().is_some_and(|b| *b != b'\n')
            || memchr::memchr_iter(b'\n', lines).count() != units
        {
            return None;
        }
        Some(Index {
            units,
            bytes: bytes_kept,
            limits,
            lines: lines.to_vec(),
        })
    }

    /// The index file's bytes.
    pub fn render(&self) -> Vec<u8> {
        let l = self.limits;
        let header = format!(
            "{MAGIC} units={} bytes={} per-file={} max-bytes={} max-units={}\n",
            self.units, self.bytes, l.per_file, l.bytes, l.units
        );
        let mut out = Vec::with_capacity(header.len() + self.lines.len());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.lines);
        out
    }

    /// Every unit, oldest first; `None` when a line is damaged.
    pub fn entries(&self) -> Option<Vec<Entry>> {
        self.lines
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(Entry::parse_line)
            .collect()
    }

    /// The newest unit's id.
    pub fn last_id(&self) -> Option<&str> {
        let body = self.lines.strip_suffix(b"\n")?;
        let start = memrchr(b'\n', body).map_or(0, |at| at + 1);
        let line = &body[start..];
        let id = &line[..memchr(b' ', line).unwrap_or(line.len())];
        std::str::from_utf8(id).ok()
    }

    /// Adds the newest unit and prunes to `limits` (UNDO-6); returns the units dropped, oldest
    /// first, whose files are the caller's to remove. `None` when a line it had to read is
    /// damaged: the caller rebuilds the index from the records.
    ///
    /// The index was within `limits` before (its totals line records them), so a unit that
    /// shares no file with the new one keeps its place: its files gain no unit. Only the units
    /// that share one — the candidates, found by searching for the new unit's path hashes — are
    /// judged again, newest first, by the rule of [`prune::prune`], counting for each of their
    /// files the newer units kept (found the same way). Then the totals say whether the oldest
    /// units must go. The result is what [`prune::prune`] gives on every unit.
    pub fn add(&mut self, entry: Entry, limits: Limits) -> Option<Vec<Entry>> {
        if limits != self.limits {
            let mut all = self.entries()?;
            all.push(entry);
            let (index, dropped) = Index::of(all, limits);
            *self = index;
            return Some(dropped);
        }
        let mut naming: HashMap<u64, Vec<Range<usize>>> = HashMap::new();
        entry.write_line(&mut self.lines);
        self.units += 1;
        self.bytes = self.bytes.saturating_add(entry.kept);
        // The candidates, oldest first, each once.
        let mut candidates: Vec<(Range<usize>, Entry)> = Vec::new();
        for file in &entry.files {
            for line in self.naming(&mut naming, *file).to_vec() {
                if candidates.iter().any(|(r, _)| r.start == line.start) {
                    continue;
                }
                let e = Entry::parse_line(&self.lines[line.start..line.end - 1])?;
                if e.touches(*file) {
                    candidates.push((line, e));
                }
            }
        }
        candidates.sort_by_key(|(r, _)| r.start);
        let mut dropped: Vec<(Range<usize>, Entry)> = Vec::new();
        for (line, e) in candidates.into_iter().rev() {
            let mut full = false;
            for (j, file) in e.files.iter().enumerate() {
                if e.files[..j].contains(file) {
                    continue;
                }
                let mut newer = 0;
                for other in self.naming(&mut naming, *file).to_vec() {
                    if other.start <= line.start
                        || dropped.iter().any(|(r, _)| r.start == other.start)
                    {
                        continue;
                    }
                    let o = Entry::parse_line(&self.lines[other.start..other.end - 1])?;
                    newer += usize::from(o.touches(*file));
                }
                full |= newer >= limits.per_file;
            }
            if full {
                self.units -= 1;
                self.bytes = self.bytes.saturating_sub(e.kept);
                dropped.push((line, e));
            }
        }
        let mut at = 0;
        while (self.units > limits.units || self.bytes > limits.bytes) && at < self.lines.len() {
            let end = at + memchr(b'\n', &self.lines[at..])? + 1;
            if !dropped.iter().any(|(r, _)| r.start == at) {
                let e = Entry::parse_line(&self.lines[at..end - 1])?;
                self.units -= 1;
                self.bytes = self.bytes.saturating_sub(e.kept);
                dropped.push((at..end, e));
            }
            at = end;
        }
        dropped.sort_by_key(|(r, _)| r.start);
        self.cut(dropped.iter().map(|(r, _)| r.clone()));
        Some(dropped.into_iter().map(|(_, e)| e).collect())
    }

    /// [`Index::lines_naming`], searched once per file.
    fn naming<'m>(
        &self,
        cache: &'m mut HashMap<u64, Vec<Range<usize>>>,
        file: u64,
    ) -> &'m [Range<usize>] {
        cache.entry(file).or_insert_with(|| self.lines_naming(file))
    }

    /// Forgets the unit `id` (it was undone); `None` when its line is damaged. An id the index
    /// does not name is no error.
    pub fn forget(&mut self, id: &str) -> Option<()> {
        let needle = format!("{id} ");
        let Some(start) = memmem::find_iter(&self.lines, needle.as_bytes())
            .find(|&at| at == 0 || self.lines[at - 1] == b'\n')
        else {
            return Some(());
        };
        let end = start + memchr(b'\n', &self.lines[start..])? + 1;
        let e = Entry::parse_line(&self.lines[start..end - 1])?;
        self.units -= 1;
        self.bytes = self.bytes.saturating_sub(e.kept);
        self.cut(std::iter::once(start..end));
        Some(())
    }

    /// The lines (with their newline) in which the hash of `file` appears as a word, in order.
    fn lines_naming(&self, file: u64) -> Vec<Range<usize>> {
        let needle = format!(" {file:016x}");
        let mut found: Vec<Range<usize>> = Vec::new();
        for at in memmem::find_iter(&self.lines, needle.as_bytes()) {
            let after = self.lines.get(at + needle.len());
            if !matches!(after, Some(b' ' | b'\n')) {
                continue;
            }
            let start = memrchr(b'\n', &self.lines[..at]).map_or(0, |p| p + 1);
            let end = at + memchr(b'\n', &self.lines[at..]).unwrap_or(0) + 1;
            if found.last().is_none_or(|l| l.start != start) {
                found.push(start..end);
            }
        }
        found
    }

    /// Removes the given line ranges (in order, not overlapping).
    fn cut(&mut self, ranges: impl IntoIterator<Item = Range<usize>>) {
        let mut kept = Vec::with_capacity(self.lines.len());
        let mut from = 0;
        for r in ranges {
            kept.extend_from_slice(&self.lines[from..r.start]);
            from = r.end;
        }
        kept.extend_from_slice(&self.lines[from..]);
        self.lines = kept;
    }
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
