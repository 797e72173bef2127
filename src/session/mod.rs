//! Sessions (SESSION-1..7) and path rules (PATH-1, PATH-2).
//!
//! A session holds what one agent conversation has read: per resolved path, a fingerprint of the
//! text the model saw, the file's mtime, size and identity at that moment, and whether it saw the
//! whole file. Writes are refused until the file was read in full and is unchanged since; a file
//! merely *touched* (mtime moved, content equal) is forgiven, because sync tools and scanners do
//! that all the time.

mod commit;
pub mod file;
mod paths;
mod stale;
mod state;
mod turn;

pub use paths::Resolved;
pub use state::{Entry, ReadState, Scope};
pub use turn::Turn;

use crate::disk::{self, Fs, Meta, RealFs};
use crate::error::{msg, Code, ToolError, ToolResult};
use crate::text::Fingerprint;
use crate::undo::UndoConfig;
use serde::{Deserialize, Serialize};
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
    /// The undo journal every write records into (UNDO-1); `None` keeps none.
    pub undo: Option<UndoConfig>,
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
            undo: None,
        }
    }

    /// Confines the session to `root` (PATH-2).
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Config {
        self.root = Some(root.into());
        self
    }

    /// Keeps an undo journal in `dir` with the default limits (UNDO-1, UNDO-6).
    pub fn with_undo(mut self, dir: impl Into<PathBuf>) -> Config {
        self.undo = Some(UndoConfig::new(dir));
        self
    }

    /// One-shot use with no memory between calls: the read-before-write rule is off
    /// (SESSION-1); staleness is still checked between load and rename (SESSION-3).
    pub fn one_shot(mut self) -> Config {
        self.read_before_write = false;
        self
    }
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
    /// A session on the real file system. With a root, every file-system call on a path
    /// inside it is made beneath a handle on the root ([`disk::BeneathFs`]), so that the
    /// kernel, not only resolution's check, keeps it there (PATH-2); a root that cannot be
    /// opened leaves the check alone (every call on it fails anyway).
    pub fn new(config: Config) -> Session {
        let mut session = Session::with_fs(config, Arc::new(RealFs));
        if let Some(root) = &session.root {
            if let Ok(beneath) = disk::BeneathFs::new(root) {
                session.fs = Arc::new(beneath);
            }
        }
        session
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
            s.remove(target);
        }
    }

    /// SESSION-2 alone, for calls that need no Read (DIALECT-1): when this session did read
    /// the file, it must not have changed since; when it did not, nothing is required.
    pub fn check_fresh_if_read(
        &self,
        target: &Path,
        meta: &Meta,
        current: impl FnOnce() -> Option<Fingerprint>,
    ) -> ToolResult<()> {
        let Some(entry) = self.entry(target) else {
            return Ok(());
        };
        if entry.same_meta(meta) {
            return Ok(());
        }
        match current() {
            Some(fp) if fp == entry.fingerprint => Ok(()),
            now => Err(stale::since_read(&entry, meta, now)),
        }
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
            now => Err(stale::since_read(&entry, meta, now)),
        }
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

    /// PATH-1: a path caught in a symlink loop names no file; it is refused as an invalid
    /// path whose message says so, not reported as a failure of the disk.
    #[test]
    fn path_1_a_symlink_loop_is_an_invalid_path() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("b", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        let s = Session::new(Config::new(dir.path()));
        for given in ["a", "b/new.txt"] {
            let e = s.resolve(given).unwrap_err();
            assert_eq!(e.code, Code::InvalidPath, "{given}: {}", e.message);
            assert!(e.message.contains("symbolic links"), "{}", e.message);
        }
    }

    /// PATH-1: a path through a regular file names no file (ENOTDIR is `file_not_found`,
    /// with a message that says why), whether or not its last component would exist.
    #[test]
    fn path_1_a_path_through_a_file_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), b"x").unwrap();
        let s = Session::new(Config::new(dir.path()));
        for given in ["f.txt/child", "f.txt/deeper/child.txt"] {
            let e = s.resolve(given).unwrap_err();
            assert_eq!(e.code, Code::FileNotFound, "{given}: {}", e.message);
            assert!(e.message.contains("not a directory"), "{}", e.message);
        }
    }

    /// SESSION-2 for calls that need no Read: a file this session never read needs nothing;
    /// one it read passes when its metadata is unchanged (the text is not even looked at) or,
    /// when only the metadata moved (a `touch`), when its text is still the one read; a
    /// changed text is stale.
    #[test]
    fn session_2_a_file_read_must_be_unchanged_by_metadata_or_by_text() {
        let s = Session::new(Config::new("/"));
        let at = |mtime_ns| Meta {
            kind: crate::disk::Kind::File,
            len: 4,
            mtime_ns,
            mode: 0o644,
            nlink: 1,
            dev: 1,
            ino: 2,
            uid: 0,
            gid: 0,
        };
        let (target, read) = (Path::new("/f.txt"), Fingerprint::of("abc\n"));
        let never = || -> Option<Fingerprint> { panic!("the text is not needed") };
        assert!(s.check_fresh_if_read(target, &at(1), never).is_ok());
        s.remember(target, Entry::full(read, &at(1)));
        assert!(s.check_fresh_if_read(target, &at(1), || None).is_ok());
        assert!(s.check_fresh_if_read(target, &at(2), || Some(read)).is_ok());
        let changed = || Some(Fingerprint::of("abd\n"));
        let e = s.check_fresh_if_read(target, &at(2), changed).unwrap_err();
        assert_eq!(e.code, Code::Stale);
        assert_eq!(
            s.check_fresh_if_read(target, &at(2), || None)
                .unwrap_err()
                .code,
            Code::Stale
        );
    }

    /// A session shows its configuration and root when debugged (what a library user logs),
    /// never its read state.
    #[test]
    fn a_session_debugs_as_its_config_and_root() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(Config::new(dir.path()).with_root(dir.path()));
        let shown = format!("{s:?}");
        assert!(shown.starts_with("Session { config: Config {"), "{shown}");
        assert!(shown.contains(", root: Some("), "{shown}");
        assert!(!shown.contains("state"), "{shown}");
    }
}
