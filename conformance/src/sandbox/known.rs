//! What the harness knows: the state every entry of the tree should be in, and the initial
//! inodes, kept up to date by the build and by every harness action.
//!
//! An entry the case does not mention in `expect_files` must still be as the harness left it,
//! so the harness has to know that state exactly — including through hard links and symlinks,
//! where one write changes several names at once. The inode bookkeeping that makes this work
//! lives here, next to the record it keeps right.

use super::Sandbox;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What the harness knows an entry to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    /// A regular file with these bytes; `mode` when the harness set it.
    File {
        /// The bytes.
        bytes: Vec<u8>,
        /// Permission bits, when the case set them.
        mode: Option<u32>,
    },
    /// A symbolic link with this target.
    Symlink(PathBuf),
    /// A directory; `mode` when the harness set it.
    Dir(Option<u32>),
    /// A named pipe.
    Fifo,
    /// Removed by a harness action: nothing may be there.
    Absent,
}

impl Sandbox {
    /// What the harness knows, keyed by root-relative path.
    pub fn known(&self) -> &BTreeMap<PathBuf, Known> {
        &self.known
    }

    /// Device and inode of the file at `key` (through symlinks) when the sandbox was built: an
    /// atomic replace (DISK-1) leaves a new inode there, an in-place rewrite the same one.
    pub fn initial_inode(&self, key: &Path) -> Option<(u64, u64)> {
        self.inodes.get(key).copied()
    }

    /// Every known regular file sharing the inode of `abs` (itself, hard links, and the targets
    /// of symlinks resolve to the same inode) — the entries a write through `abs` changes.
    pub(super) fn same_inode_keys(&self, abs: &Path) -> Vec<PathBuf> {
        let Ok(meta) = fs::metadata(abs) else {
            return Vec::new();
        };
        self.known
            .iter()
            .filter(|(_, k)| matches!(k, Known::File { .. } | Known::Dir(_)))
            .filter(|(key, _)| {
                fs::metadata(self.root.join(key))
                    .map(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
                    .unwrap_or(false)
            })
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// Records `mode` for every known entry sharing the inode of `abs`.
    pub(super) fn sync_mode_of_inode(&mut self, abs: &Path, mode: u32) {
        for key in self.same_inode_keys(abs) {
            match self.known.get_mut(&key) {
                Some(Known::File { mode: m, .. }) | Some(Known::Dir(m)) => *m = Some(mode),
                _ => {}
            }
        }
    }
}
