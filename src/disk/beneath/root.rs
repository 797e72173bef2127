//! The root a [`super::BeneathFs`] confines calls to: its path and a handle on it, and the
//! lookups made beneath that handle. Both the file system (`mod.rs`) and the files it opens
//! (`file.rs`, whose `link_at` names a file beneath the root) use it.

use super::resolve::{self, open, parent, Resolver};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

/// The root: its path (as resolution compares it) and a handle on it.
#[derive(Debug)]
pub(super) struct Root {
    path: PathBuf,
    fd: OwnedFd,
    how: Resolver,
}

impl Root {
    /// Opens a handle on `root` (an absolute path without symlinks, as resolution produces);
    /// `how` is the resolver every lookup beneath it uses.
    pub(super) fn new(root: &Path, how: Resolver) -> io::Result<Root> {
        let c = resolve::c_name(root.as_os_str())?;
        // SAFETY: `c` is a valid NUL-terminated string for the duration of the call.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a non-negative result of open is a new descriptor that nothing else owns.
        let fd = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        Ok(Root {
            path: root.to_path_buf(),
            fd,
            how,
        })
    }

    /// The root's path, as resolution compares it.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// `path` relative to the root, when it lies under it (lexically).
    pub(super) fn rel<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.path).ok()
    }

    /// `path` relative to the root when it names something below the root (not the root
    /// itself): what the calls acting on a name in its directory need.
    pub(super) fn below<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        self.rel(path).filter(|r| !r.as_os_str().is_empty())
    }

    pub(super) fn open(&self, rel: &Path, flags: libc::c_int, mode: u32) -> io::Result<OwnedFd> {
        open(self.fd(), rel, flags, mode, self.how)
    }

    pub(super) fn parent(&self, rel: &Path) -> io::Result<(OwnedFd, std::ffi::CString)> {
        parent(self.fd(), rel, self.how)
    }
}
