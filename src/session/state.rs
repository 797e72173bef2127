//! What a session remembers of each file it has shown the model (SESSION-1, SESSION-5): a
//! fingerprint of the text, the file's metadata and identity at that moment, and how much of
//! it was seen — bounded, least recently used first out.
//!
//! It is plain data (serializable, so `editref call --session FILE` can keep it between
//! processes); the rules that consult it live in the session.

use crate::disk::Meta;
use crate::text::Fingerprint;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How much of a file the model has seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    /// Every line.
    Full,
    /// Some lines: 1-based inclusive ranges, and the file's line count.
    Partial {
        /// Line ranges seen so far (merged, ascending).
        covered: Vec<(u64, u64)>,
        /// Lines in the file.
        total: u64,
    },
}

/// What the session remembers of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Fingerprint of the whole LF view at that moment.
    pub fingerprint: Fingerprint,
    /// mtime in ns.
    pub mtime_ns: i128,
    /// Size in bytes.
    pub size: u64,
    /// Device and inode.
    pub identity: (u64, u64),
    /// Full or partial.
    pub scope: Scope,
    /// The (offset, limit) of the Read that made this entry; `None` after a write (READ-4 only
    /// dedups reads).
    pub last_read: Option<(u64, Option<u64>)>,
    /// For least-recently-used eviction.
    pub tick: u64,
}

impl Entry {
    /// An entry for a file seen in full, e.g. after a successful write (EDIT-4, WRITE-5).
    pub fn full(fingerprint: Fingerprint, meta: &Meta) -> Entry {
        Entry {
            fingerprint,
            mtime_ns: meta.mtime_ns,
            size: meta.len,
            identity: (meta.dev, meta.ino),
            scope: Scope::Full,
            last_read: None,
            tick: 0,
        }
    }

    /// Whether mtime, size and identity are as recorded.
    pub fn same_meta(&self, meta: &Meta) -> bool {
        self.mtime_ns == meta.mtime_ns
            && self.size == meta.len
            && self.identity == (meta.dev, meta.ino)
    }
}

/// The bounded read state (SESSION-5).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReadState {
    entries: HashMap<PathBuf, Entry>,
    tick: u64,
}

impl ReadState {
    /// The entry for a resolved path.
    pub fn get(&self, path: &Path) -> Option<&Entry> {
        self.entries.get(path)
    }

    /// Stores an entry, evicting the least recently used beyond `max`.
    pub fn put(&mut self, path: PathBuf, mut entry: Entry, max: usize) {
        self.tick += 1;
        entry.tick = self.tick;
        self.entries.insert(path, entry);
        while self.entries.len() > max.max(1) {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.tick)
                .map(|(p, _)| p.clone());
            match oldest {
                Some(p) => self.entries.remove(&p),
                None => break,
            };
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl ReadState {
    /// Drops the entry of a path.
    pub(crate) fn remove(&mut self, path: &Path) {
        self.entries.remove(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::Kind;

    fn entry(text: &str, ino: u64) -> Entry {
        let meta = Meta {
            kind: Kind::File,
            len: text.len() as u64,
            mtime_ns: 1_700_000_000_000_000_000,
            mode: 0o644,
            nlink: 1,
            dev: 7,
            ino,
            uid: 0,
            gid: 0,
        };
        Entry::full(Fingerprint::of(text), &meta)
    }

    /// SESSION-5: the state counts its entries, and past its bound the least recently stored
    /// one goes first; a bound of 0 still keeps the entry just stored.
    #[test]
    fn session_5_the_state_counts_its_entries_and_evicts_the_oldest() {
        let mut state = ReadState::default();
        assert!(state.is_empty());
        assert_eq!(state.len(), 0);
        state.put("a".into(), entry("a\n", 1), 2);
        assert!(!state.is_empty());
        assert_eq!(state.len(), 1);
        state.put("b".into(), entry("b\n", 2), 2);
        state.put("a".into(), entry("a2\n", 1), 2);
        state.put("c".into(), entry("c\n", 3), 2);
        assert_eq!(state.len(), 2);
        assert!(
            state.get(Path::new("b")).is_none(),
            "b was the least recently stored"
        );
        assert_eq!(
            state.get(Path::new("a")).map(|e| e.fingerprint),
            Some(Fingerprint::of("a2\n"))
        );
        state.put("d".into(), entry("d\n", 4), 0);
        assert_eq!(state.len(), 1);
        assert!(state.get(Path::new("d")).is_some());
        state.remove(Path::new("d"));
        assert!(state.is_empty());
    }
}
