//! The file-system seam: every file-system call editref makes goes through [`Fs`].
//!
//! Production code uses [`RealFs`]; tests, the reliability suite and the fuzz targets wrap it in
//! [`crate::disk::FaultFs`] to fail any call with any error, which is how atomicity under faults
//! is checked without real broken disks.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
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

/// An open file, for reading (and locking) or for writing a temp file.
pub trait FileHandle: Send {
    /// `fstat`.
    fn meta(&self) -> io::Result<Meta>;
    /// Reads the whole file; fails with `FileTooLarge` past `cap` bytes.
    fn read_all(&mut self, cap: u64) -> io::Result<Vec<u8>>;
    /// Writes all of `buf`.
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()>;
    /// `fsync`.
    fn sync(&mut self) -> io::Result<()>;
    /// `fchmod`.
    fn set_mode(&mut self, mode: u32) -> io::Result<()>;
    /// `fchown`.
    fn set_owner(&mut self, uid: u32, gid: u32) -> io::Result<()>;
    /// Exclusive advisory lock (`flock`), held until the handle is dropped.
    fn lock(&self) -> io::Result<()>;
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
    /// Creates a new file exclusively (never following links), mode 0600.
    fn create_exclusive(&self, path: &Path) -> io::Result<Box<dyn FileHandle>>;
    /// `rename`, replacing the target.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// `rename` that fails with `AlreadyExists` when the target exists.
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// `unlink`.
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    /// `mkdir -p`.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// `fsync` of a directory, making a rename in it durable.
    fn sync_dir(&self, path: &Path) -> io::Result<()>;
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

struct RealFile(File);

impl FileHandle for RealFile {
    fn meta(&self) -> io::Result<Meta> {
        Ok(Meta::from_std(&self.0.metadata()?))
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

    fn lock(&self) -> io::Result<()> {
        self.0.lock()
    }
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

    fn create_exclusive(&self, path: &Path) -> io::Result<Box<dyn FileHandle>> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)?;
        Ok(Box::new(RealFile(file)))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))
        };
        let (from_c, to_c) = (c(from)?, c(to)?);
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
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            // File systems without RENAME_NOREPLACE: link() is also atomic and never replaces.
            Some(libc::EINVAL) | Some(libc::ENOSYS) => {
                std::fs::hard_link(from, to)?;
                std::fs::remove_file(from)
            }
            _ => Err(err),
        }
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        File::open(path)?.sync_all()
    }
}
