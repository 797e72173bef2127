//! A per-root journal in the user's state directory (UNDO-7, `place.rs`): made private, marked
//! with the root it serves, and the journals of roots that are gone swept away.
//!
//! The journal of a root records that root's path in a file `root`, for a human looking
//! around and for the sweep: when a journal directory is made, its siblings whose recorded
//! root no longer exists are removed — the journals of deleted temporary directories (a test
//! run's, a conformance run's sandboxes) would otherwise pile up for ever. The sweep lists the
//! base directory once, and takes each doomed journal's lock without waiting: a journal some
//! live process holds is left alone.
//!
//! Outside the working tree the journal may sit in a directory others can reach (the temp
//! directory, when there is no home): a journal directory, or the base it is in, that is not
//! the user's own or that others may write to is not used — a planted journal could otherwise
//! make undo restore content of someone else's choosing.

use super::journal::Journal;
use crate::disk::{FileHandle, Kind, Meta};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The file in a per-root journal that names its root.
pub(super) const ROOT_FILE: &str = "root";

impl Journal<'_> {
    /// Makes the journal directory if it is missing, and says whether it was. Directories this
    /// makes for a per-root journal — the journal's own and any missing parent — are made
    /// private (mode 0700), as the XDG base directory specification asks of the state
    /// directory.
    pub(super) fn make_dir(&self) -> io::Result<bool> {
        let dir = &self.config.dir;
        if self.config.root.is_none() {
            self.fs.create_dir_all(dir)?;
            return Ok(false);
        }
        if self.fs.symlink_metadata(dir).is_ok() {
            return Ok(false);
        }
        let mut missing: Vec<&Path> = Vec::new();
        let mut at = Some(dir.as_path());
        while let Some(p) = at {
            match self.fs.symlink_metadata(p) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(p),
                _ => break,
            }
            at = p.parent();
        }
        self.fs.create_dir_all(dir)?;
        for p in missing.iter().rev() {
            if let Ok(mut handle) = self.fs.open_read(&p.join(".")) {
                let _ = handle.set_mode(0o700);
            }
        }
        Ok(true)
    }

    /// Refuses a per-root journal that is not private: the journal directory (`handle`) and
    /// the base directory it is in must be directories owned by this user that no one else
    /// may write to.
    pub(super) fn check_private(&self, handle: &dyn FileHandle) -> io::Result<()> {
        let base = self.config.dir.parent().unwrap_or(Path::new("/"));
        let checks = [
            (self.config.dir.as_path(), handle.meta()?),
            (base, self.fs.symlink_metadata(base)?),
        ];
        for (path, meta) in checks {
            if !private(&meta) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "the undo journal's directory {} is not private to this user (another \
                         owner, or writable by others); remove it, or give --undo-dir",
                        path.display()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Under the journal's lock: records the root in a journal that does not name it yet, and
    /// when the journal was just `made`, sweeps the journals of roots that are gone.
    pub(super) fn claim(&self, made: bool) -> io::Result<()> {
        let Some(root) = &self.config.root else {
            return Ok(());
        };
        if made || !self.exists(ROOT_FILE) {
            let mut bytes = root.as_os_str().as_bytes().to_vec();
            bytes.push(b'\n');
            self.write_file(&self.config.dir.join(ROOT_FILE), &bytes)?;
        }
        if made {
            self.sweep();
        }
        Ok(())
    }

    /// Removes the sibling journals whose recorded root no longer exists, each under its own
    /// lock taken without waiting. Best effort: whatever cannot be removed stays.
    fn sweep(&self) {
        let Some(base) = self.config.dir.parent() else {
            return;
        };
        let Ok(names) = self.fs.read_dir(base) else {
            return;
        };
        for name in names {
            let dir = base.join(&name);
            if dir == self.config.dir {
                continue;
            }
            let _ = self.sweep_one(&dir);
        }
    }

    fn sweep_one(&self, dir: &Path) -> io::Result<()> {
        if self.fs.symlink_metadata(dir)?.kind != Kind::Dir || !self.root_is_gone(dir)? {
            return Ok(());
        }
        let handle = self.fs.open_read(&dir.join("."))?;
        if !private(&handle.meta()?) || !handle.try_lock()? {
            return Ok(());
        }
        // Under its lock, the root may have come back since it was looked at.
        if !self.root_is_gone(dir)? {
            return Ok(());
        }
        for name in self.fs.read_dir(dir)? {
            if name.as_bytes() != ROOT_FILE.as_bytes() {
                self.fs.remove_file(&dir.join(&name))?;
            }
        }
        // The root's name goes last: a sweep cut short is finished by the next one.
        self.fs.remove_file(&dir.join(ROOT_FILE))?;
        self.fs.remove_dir(dir)
    }

    /// Whether the journal in `dir` names a root that does not exist any more. A journal that
    /// names none (it is being made, or is not a journal) is never taken for a dead one.
    fn root_is_gone(&self, dir: &Path) -> io::Result<bool> {
        let Ok(bytes) = self.read_file(&dir.join(ROOT_FILE)) else {
            return Ok(false);
        };
        let Some(path) = bytes.strip_suffix(b"\n").filter(|p| p.starts_with(b"/")) else {
            return Ok(false);
        };
        let root = PathBuf::from(std::ffi::OsStr::from_bytes(path));
        Ok(match self.fs.symlink_metadata(&root) {
            Ok(_) => false,
            Err(e) => matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ),
        })
    }
}

/// A directory owned by this user that no one else may write to.
fn private(meta: &Meta) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    meta.kind == Kind::Dir && meta.uid == me && meta.mode & 0o022 == 0
}
