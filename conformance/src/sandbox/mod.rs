//! The per-case file tree: building it byte-exactly, the harness actions that stand in for other
//! programs, and the state the harness knows every entry should be in.
//!
//! Each case gets a fresh private directory (the *case root*) holding `sandbox/`, the directory
//! the implementation works in. Case paths are relative to the sandbox; a path starting with
//! `../` lives in the case root, outside the sandbox, which is how root-escape cases get a target
//! that exists. Internally every entry is keyed by its path relative to the case root
//! (`sandbox/a.txt`, `outside.txt`), so both halves are walked and checked alike.
//!
//! The module is split by what is done to the tree: `paths` maps case paths into the case root
//! (the safety boundary), `build` creates the initial tree, `actions` performs the harness
//! steps, `known` keeps the record of what every entry should be, and `observe` reads what is
//! actually there. This file holds the [`Sandbox`] itself and its lifetime: creation in a fresh
//! directory and removal on drop. The public items are re-exported here.

mod actions;
mod build;
mod known;
mod observe;
mod paths;

pub use known::Known;
pub use observe::{actual_at, Actual};
pub use paths::{case_path, root_relative, SANDBOX};

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// One case's directory tree and what the harness knows of it. Removed (made writable first)
/// when dropped.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    dir: PathBuf,
    known: BTreeMap<PathBuf, Known>,
    inodes: BTreeMap<PathBuf, (u64, u64)>,
    keep: bool,
}

/// The umask every case runs under, the harness's own writes, the reference in process and
/// every adapter or server it starts alike: a file a tool creates gets 0644 on any machine, so
/// a case that expects the mode of a new file means the same everywhere.
pub const UMASK: u32 = 0o022;

/// Sets the process's umask to [`UMASK`] (inherited by the processes it starts from then on).
pub fn fix_umask() {
    // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(UMASK as libc::mode_t);
    }
}

/// An I/O error with what the harness was doing, as one message.
fn err(context: impl std::fmt::Display, e: io::Error) -> String {
    format!("{context}: {e}")
}

impl Sandbox {
    /// Makes a fresh case root under `parent` (the system temp dir by default).
    pub fn new(parent: Option<&Path>) -> Result<Sandbox, String> {
        let base = match parent {
            Some(p) => p.to_path_buf(),
            None => std::env::temp_dir(),
        };
        let base = fs::canonicalize(&base).map_err(|e| err(base.display(), e))?;
        let root = unique_dir(&base).map_err(|e| err("cannot create the case directory", e))?;
        let dir = root.join(SANDBOX);
        fs::create_dir(&dir).map_err(|e| err(dir.display(), e))?;
        Ok(Sandbox {
            root,
            dir,
            known: BTreeMap::new(),
            inodes: BTreeMap::new(),
            keep: false,
        })
    }

    /// Makes the case root at `root` itself (`--keep-sandboxes DIR` names it after the case
    /// id), replacing a tree an earlier run left there; parent directories are created.
    pub fn named(root: &Path) -> Result<Sandbox, String> {
        if fs::symlink_metadata(root).is_ok() {
            make_writable(root);
            fs::remove_dir_all(root).map_err(|e| {
                err(
                    format_args!(
                        "cannot remove the sandbox an earlier run kept at {}",
                        root.display()
                    ),
                    e,
                )
            })?;
        }
        fs::create_dir_all(root).map_err(|e| err(root.display(), e))?;
        let root = fs::canonicalize(root).map_err(|e| err(root.display(), e))?;
        let dir = root.join(SANDBOX);
        fs::create_dir(&dir).map_err(|e| err(dir.display(), e))?;
        Ok(Sandbox {
            root,
            dir,
            known: BTreeMap::new(),
            inodes: BTreeMap::new(),
            keep: false,
        })
    }

    /// The sandbox directory (absolute, canonical): the implementation's cwd and root.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The case root that holds the sandbox and the `../` entries.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Keeps the tree on disk after the case (for debugging a failure).
    pub fn keep(&mut self) {
        self.keep = true;
    }

    /// Absolute path of a case path.
    pub fn abs(&self, case_path: &str) -> Result<PathBuf, String> {
        Ok(self.root.join(root_relative(case_path)?))
    }
}

/// Gives the owner rwx on every directory below `dir` (and `dir`), so the tree can be removed
/// even after a case made parts of it read-only.
fn make_writable(dir: &Path) {
    if let Ok(meta) = fs::symlink_metadata(dir) {
        if meta.is_dir() {
            let mode = meta.permissions().mode();
            let _ = fs::set_permissions(dir, fs::Permissions::from_mode(mode | 0o700));
            if let Ok(entries) = fs::read_dir(dir) {
                for e in entries.filter_map(Result::ok) {
                    make_writable(&e.path());
                }
            }
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if !self.keep {
            make_writable(&self.root);
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// Creates a directory with a name no other case of any run uses, under `base`.
fn unique_dir(base: &Path) -> io::Result<PathBuf> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    for _ in 0..100 {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = base.join(format!(
            "editref-conform-{}-{nanos:08x}-{n}",
            std::process::id()
        ));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free directory name",
    ))
}
