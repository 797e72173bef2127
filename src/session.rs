//! Sessions (SESSION-1..5) and path rules (PATH-1, PATH-2).
//!
//! A session holds what one agent conversation has read: per resolved path, a fingerprint of the
//! text the model saw, the file's mtime, size and identity at that moment, and whether it saw the
//! whole file. Writes are refused until the file was read in full and is unchanged since; a file
//! merely *touched* (mtime moved, content equal) is forgiven, because sync tools and scanners do
//! that all the time.

use crate::disk::{self, Fs, Meta, RealFs};
use crate::error::{msg, Code, ToolError, ToolResult};
use crate::text::Fingerprint;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How Read numbers lines (READ-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineFormat {
    /// `N\t` — the default.
    #[default]
    Compact,
    /// `{N:>6}→`
    Arrow,
}

/// Settings of a session.
#[derive(Debug, Clone)]
pub struct Config {
    /// Working directory: relative paths are joined to it.
    pub cwd: PathBuf,
    /// When set, every resolved target must lie inside it (PATH-2).
    pub root: Option<PathBuf>,
    /// SESSION-1: writes need a full, fresh read entry.
    pub read_before_write: bool,
    /// DISK-6: fsync file and directory on every write.
    pub fsync: bool,
    /// Read's line-number format.
    pub line_format: LineFormat,
    /// Largest file Edit, MultiEdit, Write-over and NotebookEdit accept (EDIT-1 step 5).
    pub max_edit_size: u64,
    /// Largest file Read returns without `limit` (READ-2).
    pub max_read_size: u64,
    /// Largest file Read loads at all, even with `limit`.
    pub max_load_size: u64,
    /// Read-state entries kept (SESSION-5).
    pub max_entries: usize,
}

impl Config {
    /// The agent-facing defaults: read-before-write on, fsync on, no root.
    pub fn new(cwd: impl Into<PathBuf>) -> Config {
        Config {
            cwd: cwd.into(),
            root: None,
            read_before_write: true,
            fsync: true,
            line_format: LineFormat::Compact,
            max_edit_size: 1 << 30,
            max_read_size: 256 * 1024,
            max_load_size: 1 << 30,
            max_entries: 1000,
        }
    }

    /// Confines the session to `root` (PATH-2).
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Config {
        self.root = Some(root.into());
        self
    }

    /// One-shot use with no memory between calls: the read-before-write rule is off
    /// (SESSION-1); staleness is still checked between load and rename (SESSION-3).
    pub fn one_shot(mut self) -> Config {
        self.read_before_write = false;
        self
    }
}

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

/// A path after PATH-1/PATH-2: as given, lexically normalised, and with every symlink followed.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The path string the model sent.
    pub given: String,
    /// Absolute and lexically normalised (no symlinks followed): what the model named.
    pub lexical: PathBuf,
    /// The final target: where reads and writes really go (DISK-2).
    pub target: PathBuf,
    /// Whether the target exists.
    pub exists: bool,
}

/// One agent conversation's tools. Cheap to share between threads: all methods take `&self`.
pub struct Session {
    config: Config,
    fs: Arc<dyn Fs>,
    root: Option<PathBuf>,
    state: Mutex<ReadState>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("config", &self.config)
            .field("root", &self.root)
            .finish()
    }
}

impl Session {
    /// A session on the real file system.
    pub fn new(config: Config) -> Session {
        Session::with_fs(config, Arc::new(RealFs))
    }

    /// A session on any [`Fs`] (fault injection, tests).
    pub fn with_fs(mut config: Config, fs: Arc<dyn Fs>) -> Session {
        if config.cwd.is_relative() {
            let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            config.cwd = disk::normalize(&here.join(&config.cwd));
        }
        let root = config.root.as_ref().map(|r| {
            let abs = disk::normalize(&config.cwd.join(r));
            disk::real_path(fs.as_ref(), &abs)
                .map(|(p, _)| p)
                .unwrap_or(abs)
        });
        Session {
            config,
            fs,
            root,
            state: Mutex::new(ReadState::default()),
        }
    }

    /// The session's settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The file-system seam in use.
    pub fn fs(&self) -> &dyn Fs {
        self.fs.as_ref()
    }

    /// Runs one tool call: `tool` is `Read`, `Edit`, `MultiEdit`, `Write` or `NotebookEdit`,
    /// `input` its JSON input. The result is the tool's JSON output or a coded error.
    pub fn call(&self, tool: &str, input: &serde_json::Value) -> ToolResult<serde_json::Value> {
        crate::tools::dispatch(self, tool, input)
    }

    /// A copy of the read state (for persisting between processes).
    pub fn read_state(&self) -> ReadState {
        self.state.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Replaces the read state (restoring a persisted one).
    pub fn set_read_state(&self, state: ReadState) {
        if let Ok(mut s) = self.state.lock() {
            *s = state;
        }
    }

    /// The entry for a target, if any.
    pub fn entry(&self, target: &Path) -> Option<Entry> {
        self.state.lock().ok()?.get(target).cloned()
    }

    /// Records an entry for a target.
    pub fn remember(&self, target: &Path, entry: Entry) {
        if let Ok(mut s) = self.state.lock() {
            s.put(target.to_path_buf(), entry, self.config.max_entries);
        }
    }

    /// Drops the entry for a target (a session without read-before-write does not track
    /// what it wrote).
    pub fn forget(&self, target: &Path) {
        if let Ok(mut s) = self.state.lock() {
            s.entries.remove(target);
        }
    }

    /// PATH-1 and PATH-2: resolves a model-supplied path.
    pub fn resolve(&self, given: &str) -> ToolResult<Resolved> {
        let lexical = self.lexical(given)?;
        let (target, exists) =
            disk::real_path(self.fs(), &lexical).map_err(|e| path_error(&e, given))?;
        if let Some(root) = &self.root {
            if !target.starts_with(root) {
                return Err(ToolError::new(
                    Code::OutsideRoot,
                    format!(
                        "'{given}' resolves to {}, which is outside the allowed root {}. Only files under the root can be read or changed.",
                        target.display(),
                        root.display()
                    ),
                ));
            }
        }
        Ok(Resolved {
            given: given.to_string(),
            lexical,
            target,
            exists,
        })
    }

    /// PATH-1 and the lexical part of resolution: `~`, relative paths, `.` and `..`.
    pub fn lexical(&self, given: &str) -> ToolResult<PathBuf> {
        if given.trim().is_empty() {
            return Err(ToolError::new(
                Code::InvalidPath,
                "The path is empty. Give the path of the file, e.g. src/main.rs or an absolute path.",
            ));
        }
        if given.contains('\0') {
            return Err(ToolError::new(
                Code::InvalidPath,
                "The path contains a NUL byte, which no file name can hold. Send the path without it.",
            ));
        }
        let expanded: PathBuf = match given.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                let home = std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| "/".into());
                home.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(given),
        };
        Ok(disk::normalize(&self.config.cwd.join(expanded)))
    }

    /// SESSION-1 and SESSION-2 for a file about to be written. `current` computes the
    /// fingerprint of the file's current text (only called when mtime, size or identity moved).
    pub fn check_fresh(
        &self,
        target: &Path,
        meta: &Meta,
        current: impl FnOnce() -> Option<Fingerprint>,
    ) -> ToolResult<()> {
        if !self.config.read_before_write {
            return Ok(());
        }
        let entry = self
            .entry(target)
            .ok_or_else(|| ToolError::new(Code::NotRead, msg::NOT_READ))?;
        if entry.scope != Scope::Full {
            return Err(ToolError::new(Code::PartialRead, msg::PARTIAL_READ));
        }
        if entry.same_meta(meta) {
            return Ok(());
        }
        match current() {
            Some(fp) if fp == entry.fingerprint => {
                let mut refreshed = Entry::full(fp, meta);
                refreshed.last_read = entry.last_read;
                self.remember(target, refreshed);
                Ok(())
            }
            _ => Err(ToolError::new(Code::Stale, msg::STALE)),
        }
    }
}

fn path_error(e: &io::Error, given: &str) -> ToolError {
    match e.raw_os_error() {
        Some(libc::ELOOP) => ToolError::new(
            Code::InvalidPath,
            format!("'{given}' has too many levels of symbolic links (a loop?). Use the real path of the file."),
        ),
        Some(libc::ENAMETOOLONG) => ToolError::new(
            Code::InvalidPath,
            format!("The path is too long for the file system ({} bytes). Use a shorter path.", given.len()),
        ),
        Some(libc::ENOTDIR) => ToolError::new(
            Code::FileNotFound,
            format!("'{given}' goes through something that is not a directory. Check the path."),
        ),
        _ if e.kind() == io::ErrorKind::PermissionDenied => ToolError::new(
            Code::PermissionDenied,
            format!("Permission denied while resolving '{given}': {e}."),
        ),
        _ => ToolError::io(&format!("Could not resolve '{given}'"), e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_5_state_is_bounded_lru() {
        let mut s = ReadState::default();
        let meta = Meta {
            kind: crate::disk::Kind::File,
            len: 0,
            mtime_ns: 0,
            mode: 0o644,
            nlink: 1,
            dev: 0,
            ino: 0,
            uid: 0,
            gid: 0,
        };
        for i in 0..5 {
            s.put(
                PathBuf::from(format!("/f{i}")),
                Entry::full(Fingerprint::of(""), &meta),
                3,
            );
        }
        assert_eq!(s.len(), 3);
        assert!(s.get(Path::new("/f0")).is_none());
        assert!(s.get(Path::new("/f4")).is_some());
    }

    #[test]
    fn path_1_empty_and_nul_are_invalid() {
        let s = Session::new(Config::new("/"));
        assert_eq!(s.resolve("").unwrap_err().code, Code::InvalidPath);
        assert_eq!(s.resolve("a\0b").unwrap_err().code, Code::InvalidPath);
    }

    #[test]
    fn path_2_escapes_are_outside_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
        let s = Session::new(Config::new(&root).with_root(&root));
        assert_eq!(s.resolve("../x").unwrap_err().code, Code::OutsideRoot);
        assert_eq!(
            s.resolve("/etc/hostname").unwrap_err().code,
            Code::OutsideRoot
        );
        assert_eq!(
            s.resolve("etc/hostname").unwrap_err().code,
            Code::OutsideRoot
        );
        assert!(s.resolve("new/file.txt").is_ok());
    }
}
