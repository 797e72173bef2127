//! Observing the tree: what is actually on disk at a path, and a snapshot of the whole case
//! root, for the checks to compare with what the harness knows.
//!
//! Observation never follows a final symlink and never changes anything, so a check sees a link
//! as a link and the same tree however often it looks. It is kept apart from the build and the
//! actions, which write, so that reading the result of a case cannot disturb it.

use super::{Sandbox, SANDBOX};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What is actually on disk at a path (not following a final symlink).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actual {
    /// A regular file.
    File {
        /// Its bytes.
        bytes: Vec<u8>,
        /// Permission bits.
        mode: u32,
    },
    /// A symbolic link.
    Symlink(PathBuf),
    /// A directory.
    Dir(u32),
    /// A named pipe.
    Fifo,
    /// A socket, device or other special file.
    Other,
    /// Nothing.
    Absent,
    /// It exists but could not be read.
    Unreadable(String),
}

impl Sandbox {
    /// The whole tree below the case root as it is now, keyed by root-relative path (the
    /// sandbox directory itself excluded). Symlinks are not followed.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Actual> {
        let mut out = BTreeMap::new();
        walk(&self.root, &self.root, &mut out);
        out.remove(Path::new(SANDBOX));
        out
    }

    /// The entry at a root-relative key, without following a final symlink.
    pub fn actual(&self, key: &Path) -> Actual {
        actual_at(&self.root.join(key))
    }
}

/// The entry at an absolute path, without following a final symlink.
pub fn actual_at(abs: &Path) -> Actual {
    let meta = match fs::symlink_metadata(abs) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Actual::Absent,
        Err(e) => return Actual::Unreadable(e.to_string()),
    };
    use std::os::unix::fs::FileTypeExt;
    let ft = meta.file_type();
    let mode = meta.permissions().mode() & 0o7777;
    if ft.is_symlink() {
        match fs::read_link(abs) {
            Ok(t) => Actual::Symlink(t),
            Err(e) => Actual::Unreadable(e.to_string()),
        }
    } else if ft.is_dir() {
        Actual::Dir(mode)
    } else if ft.is_file() {
        match fs::read(abs) {
            Ok(bytes) => Actual::File { bytes, mode },
            Err(e) => Actual::Unreadable(e.to_string()),
        }
    } else if ft.is_fifo() {
        Actual::Fifo
    } else {
        Actual::Other
    }
}

/// Adds every entry below `dir` to `out`, keyed relative to `root`, in name order.
fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Actual>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let key = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let actual = actual_at(&path);
        let is_dir = matches!(actual, Actual::Dir(_));
        out.insert(key, actual);
        if is_dir {
            walk(root, &path, out);
        }
    }
}
