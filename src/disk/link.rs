//! Giving an unnamed temp file (`O_TMPFILE`) its name: the one step both the plain and the
//! confined file handles share, with the fallback for a system without `/proc`.
//!
//! `linkat` of `/proc/self/fd/N` with `AT_SYMLINK_FOLLOW` is allowed to any user for a file it
//! opened; without `/proc`, `linkat(fd, "", AT_EMPTY_PATH)` does the same, but older kernels
//! allow it only with CAP_DAC_READ_SEARCH. Where the descriptors live is a parameter so that
//! the fallback can be tested on a system that has `/proc`.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::RawFd;
use std::path::Path;

/// Where the kernel shows this process's descriptors as links.
const PROC_FDS: &str = "/proc/self/fd";

/// Names the open file `fd` as `name` in the directory `dir` (a directory descriptor, or
/// `AT_FDCWD` with `name` a path): through `/proc/self/fd`, or `AT_EMPTY_PATH` without `/proc`.
/// Any other failure is returned as it is (an existing `name` is `AlreadyExists`).
pub(super) fn link_unnamed(fd: RawFd, dir: RawFd, name: &CStr) -> io::Result<()> {
    link_unnamed_through(fd, dir, name, Path::new(PROC_FDS))
}

/// [`link_unnamed`] with the descriptors' directory given: through `proc_fds`/`fd`; when that
/// path is missing because `proc_fds` does not exist, through `AT_EMPTY_PATH`.
fn link_unnamed_through(fd: RawFd, dir: RawFd, name: &CStr, proc_fds: &Path) -> io::Result<()> {
    let via_proc = CString::new(format!("{}/{fd}", proc_fds.display()))
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
    // SAFETY: both names are valid NUL-terminated strings; `dir` is open for the call.
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            via_proc.as_ptr(),
            dir,
            name.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    if err.kind() != io::ErrorKind::NotFound || proc_fds.exists() {
        return Err(err);
    }
    // SAFETY: as above; the empty path is a valid NUL-terminated string.
    let rc = unsafe { libc::linkat(fd, c"".as_ptr(), dir, name.as_ptr(), libc::AT_EMPTY_PATH) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;

    fn unnamed(dir: &Path, bytes: &[u8]) -> std::fs::File {
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_TMPFILE)
            .mode(0o600)
            .open(dir)
            .unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    fn c(p: &Path) -> CString {
        use std::os::unix::ffi::OsStrExt;
        CString::new(p.as_os_str().as_bytes()).unwrap()
    }

    /// DISK-1: through `/proc`, the unnamed file appears under its name with its bytes; a
    /// name already taken is refused and keeps its own bytes.
    #[test]
    fn disk_1_an_unnamed_file_is_named_through_proc() {
        let dir = tempfile::tempdir().unwrap();
        let f = unnamed(dir.path(), b"new bytes\n");
        let to = dir.path().join("named");
        link_unnamed_through(f.as_raw_fd(), libc::AT_FDCWD, &c(&to), Path::new(PROC_FDS)).unwrap();
        assert_eq!(std::fs::read(&to).unwrap(), b"new bytes\n");
        let taken = dir.path().join("taken");
        std::fs::write(&taken, b"theirs").unwrap();
        let g = unnamed(dir.path(), b"mine");
        let err = link_unnamed_through(
            g.as_raw_fd(),
            libc::AT_FDCWD,
            &c(&taken),
            Path::new(PROC_FDS),
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&taken).unwrap(), b"theirs");
    }

    /// DISK-1: without `/proc` the name comes from `AT_EMPTY_PATH`, which this process may or
    /// may not be allowed (the test asks the kernel directly, on a file of its own): allowed,
    /// the file appears with its bytes; refused, the error is returned and no name appears.
    #[test]
    fn disk_1_without_proc_the_unnamed_file_is_named_by_its_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let probe = unnamed(dir.path(), b"probe");
        let probe_to = c(&dir.path().join("probe"));
        // SAFETY: valid NUL-terminated strings, a descriptor this test owns.
        let allowed = unsafe {
            libc::linkat(
                probe.as_raw_fd(),
                c"".as_ptr(),
                libc::AT_FDCWD,
                probe_to.as_ptr(),
                libc::AT_EMPTY_PATH,
            ) == 0
        };
        let no_proc = dir.path().join("no-proc");
        let f = unnamed(dir.path(), b"new bytes\n");
        let to = dir.path().join("named");
        let dir_fd = std::fs::File::open(dir.path()).unwrap();
        let got = link_unnamed_through(f.as_raw_fd(), dir_fd.as_raw_fd(), c"named", &no_proc);
        if allowed {
            got.unwrap();
            assert_eq!(std::fs::read(&to).unwrap(), b"new bytes\n");
        } else {
            assert!(got.is_err());
            assert!(!to.exists());
        }
        // A missing `/proc` entry while `/proc` itself exists is an error, not a fallback.
        let empty = tempfile::tempdir().unwrap();
        let err = link_unnamed_through(
            f.as_raw_fd(),
            libc::AT_FDCWD,
            &c(&dir.path().join("other")),
            empty.path(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(!dir.path().join("other").exists());
    }
}
