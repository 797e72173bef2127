//! Building the initial tree: every file form of a case's `files:` created byte-exactly, in an
//! order that works, with the harness's record of it.
//!
//! Some forms depend on others (a hard link needs its target, a read-only directory must be
//! filled before it closes), so the build sorts entries by kind and depth and sets modes last,
//! deepest first. It records each entry's state and inode as it goes, which is what the final
//! checks compare against.

use super::known::Known;
use super::paths::root_relative;
use super::{err, Sandbox};
use crate::case::{Content, FileForm};
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

impl Sandbox {
    /// Creates the initial tree: directories, regular files, FIFOs, hard links, symlinks, and
    /// finally the modes (deepest first, so a read-only directory is filled before it closes).
    pub fn build(&mut self, files: &[(String, FileForm)]) -> Result<(), String> {
        let mut entries = Vec::new();
        for (p, form) in files {
            entries.push((root_relative(p)?, p.as_str(), form));
        }
        let rank = |c: &Content| match c {
            Content::Dir => 0,
            Content::Bytes(_) => 1,
            Content::Fifo => 2,
            Content::Hardlink(_) => 3,
            Content::Symlink(_) => 4,
        };
        entries.sort_by_key(|(k, _, f)| (rank(&f.content), k.components().count()));
        for (key, case_path, form) in &entries {
            let abs = self.root.join(key);
            if let Some(parent) = abs.parent() {
                fs::create_dir_all(parent).map_err(|e| err(case_path, e))?;
            }
            match &form.content {
                Content::Dir => {
                    fs::create_dir_all(&abs).map_err(|e| err(case_path, e))?;
                    self.known.insert(key.clone(), Known::Dir(form.mode));
                }
                Content::Bytes(bytes) => {
                    fs::write(&abs, bytes).map_err(|e| err(case_path, e))?;
                    self.known.insert(
                        key.clone(),
                        Known::File {
                            bytes: bytes.clone(),
                            mode: form.mode,
                        },
                    );
                }
                Content::Fifo => {
                    mkfifo(&abs).map_err(|e| err(format!("{case_path}: mkfifo"), e))?;
                    self.known.insert(key.clone(), Known::Fifo);
                }
                Content::Hardlink(other) => {
                    let other_key = root_relative(other)?;
                    fs::hard_link(self.root.join(&other_key), &abs)
                        .map_err(|e| err(format!("{case_path}: hard link to {other}"), e))?;
                    let bytes = match self.known.get(&other_key) {
                        Some(Known::File { bytes, .. }) => bytes.clone(),
                        _ => fs::read(&abs).map_err(|e| err(case_path, e))?,
                    };
                    self.known.insert(
                        key.clone(),
                        Known::File {
                            bytes,
                            mode: form.mode,
                        },
                    );
                }
                Content::Symlink(target) => {
                    std::os::unix::fs::symlink(target, &abs).map_err(|e| err(case_path, e))?;
                    self.known
                        .insert(key.clone(), Known::Symlink(PathBuf::from(target)));
                }
            }
        }
        let mut with_mode: Vec<_> = entries
            .iter()
            .filter_map(|(k, p, f)| {
                f.mode
                    .map(|m| (k, *p, m, matches!(f.content, Content::Dir)))
            })
            .collect();
        // Files first, then directories from the deepest up.
        with_mode
            .sort_by_key(|(k, _, _, is_dir)| (*is_dir, std::cmp::Reverse(k.components().count())));
        for (key, case_path, mode, _) in with_mode {
            fs::set_permissions(self.root.join(key), fs::Permissions::from_mode(mode))
                .map_err(|e| err(format!("{case_path}: chmod"), e))?;
            self.sync_mode_of_inode(&self.root.join(key), mode);
        }
        for (key, _, _) in &entries {
            if let Ok(m) = fs::metadata(self.root.join(key)) {
                use std::os::unix::fs::MetadataExt;
                self.inodes.insert(key.clone(), (m.dev(), m.ino()));
            }
        }
        Ok(())
    }
}

/// Creates a named pipe (mode 0644).
fn mkfifo(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
