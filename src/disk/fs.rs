//! The file-system seam: every file-system call editref makes goes through [`Fs`].
//!
//! Production code uses [`RealFs`]; tests, the reliability suite and the fuzz targets wrap it in
//! [`crate::disk::FaultFs`] to fail any call with any error, which is how atomicity under faults
//! is checked without real broken disks.

use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// What kind of directory entry a path is (without following a final symlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A block or character device.
    Device,
}

/// The metadata editref needs, taken from `lstat`/`fstat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Meta {
    /// Entry kind.
    pub kind: Kind,
    /// Size in bytes.
    pub len: u64,
    /// Modification time in nanoseconds since the epoch (full OS precision).
    pub mtime_ns: i128,
    /// Permission bits (`st_mode & 0o7777`).
    pub mode: u32,
    /// Number of hard links.
    pub nlink: u64,
    /// Device of the inode.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
}

impl Meta {
    /// Converts std metadata.
    pub fn from_std(m: &std::fs::Metadata) -> Meta {
        let ft = m.file_type();
        use std::os::unix::fs::FileTypeExt;
        let kind = if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else if ft.is_fifo() {
            Kind::Fifo
        } else if ft.is_socket() {
            Kind::Socket
        } else {
            Kind::Device
        };
        Meta {
            kind,
            len: m.len(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            mode: m.mode() & 0o7777,
            nlink: m.nlink(),
            dev: m.dev(),
            ino: m.ino(),
            uid: m.uid(),
            gid: m.gid(),
        }
    }

    /// Same inode on the same device.
    pub fn same_identity(&self, other: &Meta) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// A file's content in memory: read into a buffer, or mapped (see [`FileHandle::map_all`]).
pub enum FileBytes {
    /// Read with `read(2)`.
    Owned(Vec<u8>),
    /// Mapped with `mmap(2)` while the handle holds a read lease.
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Owned(v) => v,
            FileBytes::Mapped(m) => m,
        }
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl PartialEq for FileBytes {
    fn eq(&self, other: &FileBytes) -> bool {
        **self == **other
    }
}

/// How the bytes are held and how many, never the bytes themselves: a test failure or a log
/// line would otherwise print a whole file, megabytes of it when mapped.
impl std::fmt::Debug for FileBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self {
            FileBytes::Owned(_) => "Owned",
            FileBytes::Mapped(_) => "Mapped",
        };
        write!(f, "FileBytes::{how}({} bytes)", self.len())
    }
}

impl From<Vec<u8>> for FileBytes {
    fn from(v: Vec<u8>) -> FileBytes {
        FileBytes::Owned(v)
    }
}

/// An open file, for reading (and locking) or for writing a temp file.
pub trait FileHandle: Send {
    /// `fstat`.
    fn meta(&self) -> io::Result<Meta>;
    /// Reads the whole file; fails with `FileTooLarge` past `cap` bytes.
    fn read_all(&mut self, cap: u64) -> io::Result<Vec<u8>>;
    /// The whole file mapped into memory instead of read, when that is possible and worth it;
    /// `None` tells the caller to use [`FileHandle::read_all`]. Mapping a large file saves
    /// copying it and faulting in a buffer as large as the file. The default never maps
    /// (fault-injecting and test handles keep the read path).
    fn map_all(&mut self, cap: u64) -> io::Result<Option<FileBytes>> {
        let _ = cap;
        Ok(None)
    }
    /// After [`FileHandle::map_all`] returned a mapping: whether its lease is still held with
    /// no break pending, i.e. no other process has asked to write the file since.
    fn content_stable(&self) -> bool {
        true
    }
    /// Writes all of `buf`.
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()>;
    /// `fsync`.
    fn sync(&mut self) -> io::Result<()>;
    /// `fchmod`.
    fn set_mode(&mut self, mode: u32) -> io::Result<()>;
    /// `fchown`.
    fn set_owner(&mut self, uid: u32, gid: u32) -> io::Result<()>;
    /// The file's extended attributes, names and values, as far as this process may list and
    /// read them (`flistxattr`, `fgetxattr`): what a replacement carries to its new inode
    /// (D35). POSIX ACLs are among them (`system.posix_acl_access`). An attribute removed
    /// between the listing and the read is left out; a file system without extended
    /// attributes answers its own error (ENOTSUP), which the caller reads as "none".
    fn xattrs(&self) -> io::Result<Vec<(OsString, Vec<u8>)>>;
    /// `fsetxattr`: sets one extended attribute, creating or replacing it.
    fn set_xattr(&self, name: &OsStr, value: &[u8]) -> io::Result<()>;
    /// `fremovexattr`: removes one extended attribute.
    fn remove_xattr(&self, name: &OsStr) -> io::Result<()>;
    /// Exclusive advisory lock (`flock`), held until the handle is dropped.
    fn lock(&self) -> io::Result<()>;
    /// Exclusive advisory lock (`flock`) taken only if nobody holds one: `Ok(false)` when the
    /// file is locked elsewhere. A writer holds it on its temp file for as long as the file is
    /// its own, so that a temp file whose lock is free is known to have lost its writer (D24).
    fn try_lock(&self) -> io::Result<bool>;
    /// Gives a file made by [`Fs::create_unnamed`] the name `path` (`linkat`); fails with
    /// `AlreadyExists` when the name is taken, never replacing anything. Until this call the
    /// content has no name, so a process killed before it leaves nothing behind (DISK-5).
    fn link_at(&self, path: &Path) -> io::Result<()>;
}

/// Every file-system operation editref performs.
pub trait Fs: Send + Sync {
    /// `lstat`.
    fn symlink_metadata(&self, path: &Path) -> io::Result<Meta>;
    /// `readlink`.
    fn read_link(&self, path: &Path) -> io::Result<PathBuf>;
    /// Names in a directory (for "did you mean" suggestions).
    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>>;
    /// Opens for reading without blocking on FIFOs and without following a final symlink.
    fn open_read(&self, path: &Path) -> io::Result<Box<dyn FileHandle>>;
    /// Creates a file without a name in directory `dir` (`O_TMPFILE`) with creation mode
    /// `mode` (which the kernel reduces by the umask, or by the directory's default ACL, as for
    /// any new file), to be named
    /// with [`FileHandle::link_at`] just before it replaces its target. A file system that
    /// cannot do this answers EOPNOTSUPP, EISDIR or EINVAL, and the caller falls back to
    /// [`Fs::create_exclusive`].
    fn create_unnamed(&self, dir: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>>;
    /// Creates a new file exclusively (never following links) with creation mode `mode`, as
    /// [`Fs::create_unnamed`].
    fn create_exclusive(&self, path: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>>;
    /// `rename`, replacing the target.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// `rename` that fails with `AlreadyExists` when the target exists.
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// `unlink`.
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    /// `mkdir -p`.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// `rmdir`: removes a directory only while it is empty, which makes it the safe way to
    /// take back a directory a failed write created (whatever appeared in it since stays).
    fn remove_dir(&self, path: &Path) -> io::Result<()>;
    /// `fsync` of a directory, making a rename in it durable.
    fn sync_dir(&self, path: &Path) -> io::Result<()>;
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

/// An open file of the real file system (also what [`crate::disk::BeneathFs`] opens).
pub(super) struct RealFile(pub(super) File);

/// Files from this size on are mapped rather than read (below it, reading is as cheap).
pub const MAP_MIN: u64 = 1 << 20;

/// Mapping is used only when the kernel lets a lease holder keep its lease for at least this
/// long after another process asks to write the file (`/proc/sys/fs/lease-break-time`,
/// default 45 s): far longer than editref holds a mapping, even for a file of the size cap.
const MIN_LEASE_BREAK_SECS: u64 = 10;

/// `F_SETSIG` of `<fcntl.h>` (asm-generic value; the libc crate does not export it).
const F_SETSIG: libc::c_int = 10;

/// The kernel's lease-break time in seconds (`/proc/sys/fs/lease-break-time`), read once;
/// `None` when it cannot be read.
fn lease_break_secs() -> Option<u64> {
    static SECS: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *SECS.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/fs/lease-break-time")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
    })
}

/// Whether a lease-break time of `secs` lets a file be mapped (D28): at least
/// [`MIN_LEASE_BREAK_SECS`], and known — an unknown one is taken as too short. Kept apart from
/// the reading so that a short time, which no test can give the kernel, is tested here.
fn lease_break_allows_mapping(secs: Option<u64>) -> bool {
    secs.is_some_and(|secs| secs >= MIN_LEASE_BREAK_SECS)
}

/// Whether D28 tries to map a file of `len` bytes, read under a size cap of `cap`, when the
/// kernel keeps a lease for `secs` after a writer asks: only a size worth mapping with a
/// lease that holds writers off long enough. Both halves are needed; either alone means
/// reading, which a test can check here without changing the kernel's setting.
fn worth_mapping(len: u64, cap: u64, secs: Option<u64>) -> bool {
    mappable(len, cap).is_some() && lease_break_allows_mapping(secs)
}

/// The length to map a file of `len` bytes with, when D28 maps it: from [`MAP_MIN`] up to the
/// size cap, and addressable. Asked before the lease and again under it, since a writer may
/// change the size until the lease is granted; one judgement for both, so the second (which no
/// test can reach without a race) is the first.
fn mappable(len: u64, cap: u64) -> Option<usize> {
    if len < MAP_MIN || len > cap {
        return None;
    }
    usize::try_from(len).ok()
}

impl RealFile {
    fn release_lease(&self) {
        // SAFETY: fcntl on a descriptor this handle owns; failure only leaves the lease to be
        // released when the descriptor is closed.
        unsafe {
            libc::fcntl(self.0.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK);
        }
    }
}

impl FileHandle for RealFile {
    fn meta(&self) -> io::Result<Meta> {
        Ok(Meta::from_std(&self.0.metadata()?))
    }

    /// Maps files of [`MAP_MIN`] bytes or more under a read lease (`F_SETLEASE`, `F_RDLCK`).
    ///
    /// A mapped file that another process truncates kills the reader with SIGBUS, and one it
    /// rewrites changes under the reader's feet. The lease rules both out: the kernel refuses
    /// it while anyone has the file open for writing, and while it is held, any `open` for
    /// writing and any `truncate` of the file waits until the lease is released (when this
    /// handle is closed, after the mapping is gone) or until the lease-break time has passed,
    /// which must be at least [`MIN_LEASE_BREAK_SECS`]. No signal is delivered for a lease
    /// break: the lease's owner is cleared, and until then the signal is SIGURG, whose default
    /// action is to do nothing. When the lease cannot be had (another owner without
    /// CAP_LEASE, a file open for writing, a file system without leases), the file is read.
    fn map_all(&mut self, cap: u64) -> io::Result<Option<FileBytes>> {
        let len = self.0.metadata()?.len();
        if !worth_mapping(len, cap, lease_break_secs()) {
            return Ok(None);
        }
        let fd = self.0.as_raw_fd();
        // SAFETY: fcntl on a descriptor this handle owns.
        let leased = unsafe {
            libc::fcntl(fd, F_SETSIG, libc::SIGURG) == 0
                && libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0
        };
        if !leased {
            return Ok(None);
        }
        // SAFETY: as above; with no owner, a lease break signals no process.
        unsafe {
            libc::fcntl(fd, libc::F_SETOWN, 0);
        }
        // The content is fixed from here on; take its size again (a writer may have changed
        // it before the lease was granted) and judge it as before.
        let Some(len) = self.0.metadata().ok().and_then(|m| mappable(m.len(), cap)) else {
            self.release_lease();
            return Ok(None);
        };
        // SAFETY: the mapping is valid as long as the file is neither truncated nor written
        // while it exists, which the lease held by this handle guarantees (see above). The
        // mapping is dropped before the handle: `Loaded` declares `bytes` before `handle`.
        match unsafe { memmap2::MmapOptions::new().len(len).populate().map(&self.0) } {
            Ok(map) => Ok(Some(FileBytes::Mapped(map))),
            Err(_) => {
                self.release_lease();
                Ok(None)
            }
        }
    }

    fn content_stable(&self) -> bool {
        // SAFETY: fcntl on a descriptor this handle owns. During a lease break the kernel
        // reports the type the lease is being broken to; without a lease, F_UNLCK.
        let lease = unsafe { libc::fcntl(self.0.as_raw_fd(), libc::F_GETLEASE) };
        lease == libc::F_RDLCK
    }

    fn read_all(&mut self, cap: u64) -> io::Result<Vec<u8>> {
        let hint = self.0.metadata().map(|m| m.len()).unwrap_or(0).min(cap);
        let mut buf = Vec::with_capacity(hint as usize + 1);
        (&mut self.0).take(cap + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > cap {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                "file grew past the size limit while being read",
            ));
        }
        Ok(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.0.sync_all()
    }

    fn set_mode(&mut self, mode: u32) -> io::Result<()> {
        self.0
            .set_permissions(std::fs::Permissions::from_mode(mode))
    }

    fn set_owner(&mut self, uid: u32, gid: u32) -> io::Result<()> {
        std::os::unix::fs::fchown(&self.0, Some(uid), Some(gid))
    }

    /// Through the `xattr` crate, on the descriptor: the temp file may have no name.
    fn xattrs(&self) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        use xattr::FileExt;
        let mut all = Vec::new();
        for name in self.0.list_xattr()? {
            if let Some(value) = self.0.get_xattr(&name)? {
                all.push((name, value));
            }
        }
        Ok(all)
    }

    fn set_xattr(&self, name: &OsStr, value: &[u8]) -> io::Result<()> {
        xattr::FileExt::set_xattr(&self.0, name, value)
    }

    fn remove_xattr(&self, name: &OsStr) -> io::Result<()> {
        xattr::FileExt::remove_xattr(&self.0, name)
    }

    fn lock(&self) -> io::Result<()> {
        self.0.lock()
    }

    fn try_lock(&self) -> io::Result<bool> {
        // SAFETY: flock on a descriptor this handle owns.
        let rc = unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(true);
        }
        let err = io::Error::last_os_error();
        if err.kind() == io::ErrorKind::WouldBlock {
            Ok(false)
        } else {
            Err(err)
        }
    }

    /// Through [`super::link::link_unnamed`]: `/proc/self/fd/N`, or `AT_EMPTY_PATH` without
    /// `/proc`.
    fn link_at(&self, path: &Path) -> io::Result<()> {
        let to = c_path(path)?;
        super::link::link_unnamed(self.0.as_raw_fd(), libc::AT_FDCWD, &to)
    }
}

/// The answer of a `renameat2(RENAME_NOREPLACE)`, or, on a file system that does not know the
/// flag (`EINVAL`, `ENOSYS`), that of `by_link`: a link to the new name and an unlink of the
/// old, which is as atomic and never replaces either. One decision for [`RealFs`] and
/// [`crate::disk::BeneathFs`], kept apart so that it is tested on the errors no test's file
/// system gives.
pub(super) fn or_by_link(
    renamed: io::Result<()>,
    by_link: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    match renamed {
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) => by_link(),
        other => other,
    }
}

/// [`RealFs::rename_noreplace`] where the flag is unknown: `link` then `unlink`. `EEXIST`,
/// and nothing moved, when `to` is taken.
pub(super) fn rename_by_link(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

fn c_path(p: &Path) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))
}

impl Fs for RealFs {
    fn symlink_metadata(&self, path: &Path) -> io::Result<Meta> {
        Ok(Meta::from_std(&std::fs::symlink_metadata(path)?))
    }

    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::read_link(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        std::fs::read_dir(path)?
            .map(|e| e.map(|e| e.file_name()))
            .collect()
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn FileHandle>> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)?;
        Ok(Box::new(RealFile(file)))
    }

    fn create_unnamed(&self, dir: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .mode(mode)
            .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
            .open(dir)?;
        Ok(Box::new(RealFile(file)))
    }

    fn create_exclusive(&self, path: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)?;
        Ok(Box::new(RealFile(file)))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (from_c, to_c) = (c_path(from)?, c_path(to)?);
        // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                from_c.as_ptr(),
                libc::AT_FDCWD,
                to_c.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        let renamed = if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        };
        or_by_link(renamed, || rename_by_link(from, to))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }

    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_dir(path)
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        // `O_DIRECTORY`: a path that is not a directory is `ENOTDIR`, as beneath the root.
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(path)?
            .sync_all()
    }
}

#[cfg(test)]
#[path = "fs_tests.rs"]
mod tests;
