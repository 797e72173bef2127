//! Root confinement by the kernel (PATH-2, D30): [`BeneathFs`] performs every call on a path
//! inside the session's root relative to a handle on the root directory, resolved so that it
//! cannot leave it.
//!
//! Resolution (`Session::resolve`) checks that a path's final target lies inside the root, but
//! a check is only as good as the instant it ran: a directory of the path swapped for a
//! symlink to the outside just after it would send the read, the temp file or the rename
//! there. Here the lookup itself refuses that — `openat2` with `RESOLVE_BENEATH |
//! RESOLVE_NO_MAGICLINKS`, or the `O_NOFOLLOW` walk where the kernel lacks it
//! (`resolve.rs`) — and names are then acted on relative to a handle of their directory
//! (`renameat2`, `unlinkat`, `mkdirat`, `linkat`), so no later lookup can be diverted. An
//! escape fails with [`crate::error::Escaped`], reported as `outside_root`.
//!
//! Paths outside the root (editref's own files, such as an undo journal kept elsewhere, and
//! the `lstat`/`readlink` of resolution following a link out, which resolution then refuses)
//! go to [`RealFs`] unchanged.
//!
//! The parts: the root's path and handle, and the lookups beneath it (`root.rs`); the two ways
//! of looking up (`resolve.rs`); a file opened beneath the root (`file.rs`); the file system
//! itself (this file).

mod file;
mod resolve;
mod root;

pub use resolve::Resolver;

use super::fs::{or_by_link, rename_by_link, FileHandle, Fs, Meta, RealFile, RealFs};
use file::BeneathFile;
use root::Root;
use std::ffi::{CStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The real file system, confined to a root directory by the kernel (PATH-2, D30).
///
/// What a session confined to a root uses ([`crate::Session::new`] with a root): every call
/// on a path inside the root resolves it beneath a handle on the root, so that no symlink —
/// one placed or swapped in after resolution checked the path included — can lead a read, a
/// temp file, a rename or a lease outside. Calls on paths outside the root behave as
/// [`RealFs`].
#[derive(Debug, Clone)]
pub struct BeneathFs {
    root: Arc<Root>,
}

impl BeneathFs {
    /// Confines calls to `root` (an absolute path without symlinks, as resolution produces),
    /// with `openat2` where the kernel has it and the walk where not.
    pub fn new(root: &Path) -> io::Result<BeneathFs> {
        BeneathFs::with_resolver(root, Resolver::Kernel)
    }

    /// Confines calls to `root` with the given resolver: [`Resolver::Walk`] exercises the
    /// fallback on kernels that have `openat2`, so that both are tested everywhere.
    pub fn with_resolver(root: &Path, how: Resolver) -> io::Result<BeneathFs> {
        Ok(BeneathFs {
            root: Arc::new(Root::new(root, how)?),
        })
    }

    /// The root calls are confined to.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    fn handle(&self, fd: OwnedFd) -> Box<dyn FileHandle> {
        Box::new(BeneathFile::new(
            RealFile(File::from(fd)),
            self.root.clone(),
        ))
    }
}

fn cvt(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

impl Fs for BeneathFs {
    fn symlink_metadata(&self, path: &Path) -> io::Result<Meta> {
        let Some(rel) = self.root.rel(path) else {
            return RealFs.symlink_metadata(path);
        };
        let fd = self.root.open(rel, libc::O_PATH | libc::O_NOFOLLOW, 0)?;
        Ok(Meta::from_std(&File::from(fd).metadata()?))
    }

    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        let Some(rel) = self.root.below(path) else {
            return RealFs.read_link(path);
        };
        let fd = self.root.open(rel, libc::O_PATH | libc::O_NOFOLLOW, 0)?;
        let mut buf = vec![0u8; libc::PATH_MAX as usize];
        // SAFETY: `buf` is writable for its full length, which is what is passed; the empty
        // path names the symlink the descriptor refers to.
        let n = unsafe {
            libc::readlinkat(
                fd.as_raw_fd(),
                c"".as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            // With an empty name, a descriptor of anything but a symlink answers ENOENT;
            // readlink(2) says EINVAL for that.
            return Err(match e.raw_os_error() {
                Some(libc::ENOENT) => io::Error::from_raw_os_error(libc::EINVAL),
                _ => e,
            });
        }
        buf.truncate(n as usize);
        Ok(PathBuf::from(OsString::from_vec(buf)))
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        let Some(rel) = self.root.rel(path) else {
            return RealFs.read_dir(path);
        };
        let fd = self.root.open(rel, libc::O_RDONLY | libc::O_DIRECTORY, 0)?;
        let raw = fd.into_raw_fd();
        // SAFETY: `raw` is an open directory descriptor; on success the stream owns it.
        let dir = unsafe { libc::fdopendir(raw) };
        if dir.is_null() {
            let e = io::Error::last_os_error();
            // SAFETY: fdopendir failed, so the descriptor is still ours to close.
            unsafe { libc::close(raw) };
            return Err(e);
        }
        let mut names = Vec::new();
        loop {
            // SAFETY: `dir` is a valid stream until closedir below.
            let ent = unsafe { libc::readdir(dir) };
            if ent.is_null() {
                break;
            }
            // SAFETY: readdir returned a valid entry whose d_name is NUL-terminated; it is
            // copied before the next readdir call.
            let name = unsafe { CStr::from_ptr((*ent).d_name.as_ptr()) }.to_bytes();
            if name != b"." && name != b".." {
                names.push(OsString::from_vec(name.to_vec()));
            }
        }
        // SAFETY: `dir` is valid and closed exactly once.
        unsafe { libc::closedir(dir) };
        Ok(names)
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn FileHandle>> {
        let Some(rel) = self.root.rel(path) else {
            return RealFs.open_read(path);
        };
        let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOFOLLOW;
        Ok(self.handle(self.root.open(rel, flags, 0)?))
    }

    fn create_unnamed(&self, dir: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        let Some(rel) = self.root.rel(dir) else {
            return RealFs.create_unnamed(dir, mode);
        };
        Ok(self.handle(self.root.open(rel, libc::O_TMPFILE | libc::O_RDWR, mode)?))
    }

    fn create_exclusive(&self, path: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        let Some(rel) = self.root.below(path) else {
            return RealFs.create_exclusive(path, mode);
        };
        let (dir, name) = self.root.parent(rel)?;
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
        // SAFETY: `name` is a valid NUL-terminated string; `dir` is open for the call.
        let fd = unsafe {
            libc::openat(
                dir.as_raw_fd(),
                name.as_ptr(),
                flags | libc::O_CLOEXEC,
                mode as libc::c_uint,
            )
        };
        Ok(self.handle(resolve::check(fd)?))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.rename_with(from, to, 0)
    }

    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        let renamed = self.rename_with(from, to, libc::RENAME_NOREPLACE);
        or_by_link(renamed, || self.rename_by_link(from, to))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.unlink(path, 0)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let Some(rel) = self.root.rel(path) else {
            return RealFs.create_dir_all(path);
        };
        let mut prefix = PathBuf::new();
        for c in rel.components() {
            prefix.push(c);
            let (dir, name) = self.root.parent(&prefix)?;
            // SAFETY: a valid NUL-terminated name; `dir` is open for the call.
            match cvt(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), 0o777) }) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
        }
        // What exists there must be a directory reached beneath the root.
        self.root
            .open(rel, libc::O_PATH | libc::O_DIRECTORY, 0)
            .map(drop)
    }

    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        self.unlink(path, libc::AT_REMOVEDIR)
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        let Some(rel) = self.root.rel(path) else {
            return RealFs.sync_dir(path);
        };
        let fd = self.root.open(rel, libc::O_RDONLY | libc::O_DIRECTORY, 0)?;
        File::from(fd).sync_all()
    }
}

impl BeneathFs {
    /// `renameat2` between the two parent directories' handles, each opened beneath the root.
    fn rename_with(&self, from: &Path, to: &Path, flags: libc::c_uint) -> io::Result<()> {
        let (Some(f), Some(t)) = (self.root.below(from), self.root.below(to)) else {
            return if flags == 0 {
                RealFs.rename(from, to)
            } else {
                RealFs.rename_noreplace(from, to)
            };
        };
        let ((fd, fname), (td, tname)) = (self.root.parent(f)?, self.root.parent(t)?);
        // SAFETY: valid NUL-terminated names; both directories open for the call.
        cvt(unsafe {
            libc::renameat2(
                fd.as_raw_fd(),
                fname.as_ptr(),
                td.as_raw_fd(),
                tname.as_ptr(),
                flags,
            )
        })
    }

    /// [`Fs::rename_noreplace`] where the flag is unknown: `linkat` then `unlinkat`, between
    /// the parent directories' handles opened beneath the root. `EEXIST`, and nothing moved,
    /// when `to` is taken.
    fn rename_by_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (Some(f), Some(t)) = (self.root.below(from), self.root.below(to)) else {
            return rename_by_link(from, to);
        };
        let ((fd, fname), (td, tname)) = (self.root.parent(f)?, self.root.parent(t)?);
        // SAFETY: valid NUL-terminated names; both directories open for the call.
        cvt(unsafe {
            libc::linkat(
                fd.as_raw_fd(),
                fname.as_ptr(),
                td.as_raw_fd(),
                tname.as_ptr(),
                0,
            )
        })?;
        // SAFETY: as above.
        cvt(unsafe { libc::unlinkat(fd.as_raw_fd(), fname.as_ptr(), 0) })
    }

    /// `unlinkat` in the parent directory's handle.
    fn unlink(&self, path: &Path, flags: libc::c_int) -> io::Result<()> {
        let Some(rel) = self.root.below(path) else {
            return if flags == 0 {
                RealFs.remove_file(path)
            } else {
                RealFs.remove_dir(path)
            };
        };
        let (dir, name) = self.root.parent(rel)?;
        // SAFETY: a valid NUL-terminated name; `dir` is open for the call.
        cvt(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flags) })
    }
}

#[cfg(test)]
mod tests;
