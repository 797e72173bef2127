//! Fault injection through the [`Fs`] seam: fail the n-th call of any operation with any
//! error, cut a write short, or "crash" (every later call fails, so no clean-up runs), and run a
//! hook before any call (to change the file system at an exact moment, e.g. between the checks
//! and the rename).
//!
//! Used by the unit tests, the reliability suite and the `atomic_write` fuzz target.

use super::fs::{FileHandle, Fs, Meta};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Every operation of the seam, as fault targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `lstat`
    SymlinkMetadata,
    /// `readlink`
    ReadLink,
    /// directory listing
    ReadDir,
    /// open for reading
    OpenRead,
    /// create of an unnamed temp file (`O_TMPFILE`)
    CreateUnnamed,
    /// exclusive create of a named temp file
    CreateExclusive,
    /// rename over the target
    Rename,
    /// rename that never replaces
    RenameNoreplace,
    /// unlink
    RemoveFile,
    /// mkdir -p
    CreateDirAll,
    /// rmdir of an empty directory
    RemoveDir,
    /// fsync of a directory
    SyncDir,
    /// fstat
    Meta,
    /// read of a whole file
    ReadAll,
    /// one write of a chunk
    WriteAll,
    /// fsync of a file
    Sync,
    /// fchmod
    SetMode,
    /// fchown
    SetOwner,
    /// listing and reading of a file's extended attributes
    Xattrs,
    /// setting one extended attribute
    SetXattr,
    /// removing one extended attribute
    RemoveXattr,
    /// flock
    Lock,
    /// flock that never waits (the temp file's own lock, and the orphan check)
    TryLock,
    /// `linkat`: an unnamed temp file given its name
    LinkTemp,
}

/// What happens at the chosen call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The call fails with this OS error number (e.g. `libc::ENOSPC`), doing nothing.
    Errno(i32),
    /// For `WriteAll`: half the buffer is written, then the call fails with ENOSPC.
    ShortWrite,
    /// The process "dies" here: this call and every later one fail, so no clean-up happens.
    Crash,
}

type Hook = Box<dyn Fn(Op, u64) + Send + Sync>;

#[derive(Default)]
struct State {
    counts: std::collections::HashMap<Op, u64>,
    plan: Vec<(Op, u64, Fault)>,
    crashed: bool,
    injected: u64,
    log: Vec<Op>,
}

/// An [`Fs`] that forwards to another one and injects the planned faults.
#[derive(Clone)]
pub struct FaultFs {
    inner: Arc<dyn Fs>,
    state: Arc<Mutex<State>>,
    hook: Arc<Option<Hook>>,
}

impl FaultFs {
    /// Wraps `inner` with no faults planned.
    pub fn new(inner: Arc<dyn Fs>) -> FaultFs {
        FaultFs {
            inner,
            state: Arc::default(),
            hook: Arc::new(None),
        }
    }

    /// Fails the `nth` (1-based) call of `op` with `fault`.
    pub fn fail(self, op: Op, nth: u64, fault: Fault) -> FaultFs {
        if let Ok(mut s) = self.state.lock() {
            s.plan.push((op, nth, fault));
        }
        self
    }

    /// Runs `hook(op, nth)` before every call (after counting it).
    pub fn with_hook(mut self, hook: impl Fn(Op, u64) + Send + Sync + 'static) -> FaultFs {
        self.hook = Arc::new(Some(Box::new(hook)));
        self
    }

    /// How many faults fired so far.
    pub fn injected(&self) -> u64 {
        self.state.lock().map(|s| s.injected).unwrap_or(0)
    }

    /// Whether a simulated crash happened.
    pub fn crashed(&self) -> bool {
        self.state.lock().map(|s| s.crashed).unwrap_or(false)
    }

    /// The operations called so far, in order (to plan faults at every call).
    pub fn log(&self) -> Vec<Op> {
        self.state.lock().map(|s| s.log.clone()).unwrap_or_default()
    }

    /// Counts a call and returns the fault to apply, if any.
    fn enter(&self, op: Op) -> Option<Fault> {
        let (nth, fault) = {
            let mut s = self.state.lock().ok()?;
            s.log.push(op);
            let nth = {
                let c = s.counts.entry(op).or_insert(0);
                *c += 1;
                *c
            };
            if s.crashed {
                return Some(Fault::Crash);
            }
            let fault = s
                .plan
                .iter()
                .find(|(o, n, _)| *o == op && *n == nth)
                .map(|(_, _, f)| *f);
            if let Some(f) = fault {
                s.injected += 1;
                if f == Fault::Crash {
                    s.crashed = true;
                }
            }
            (nth, fault)
        };
        if let Some(hook) = self.hook.as_ref() {
            hook(op, nth);
        }
        fault
    }

    fn check(&self, op: Op) -> io::Result<()> {
        match self.enter(op) {
            None => Ok(()),
            Some(f) => Err(error_for(f)),
        }
    }
}

fn error_for(f: Fault) -> io::Error {
    match f {
        Fault::Errno(n) => io::Error::from_raw_os_error(n),
        Fault::ShortWrite => io::Error::from_raw_os_error(libc::ENOSPC),
        Fault::Crash => io::Error::other("simulated crash: the process is gone"),
    }
}

struct FaultFile {
    inner: Box<dyn FileHandle>,
    fs: FaultFs,
}

impl FileHandle for FaultFile {
    fn meta(&self) -> io::Result<Meta> {
        self.fs.check(Op::Meta)?;
        self.inner.meta()
    }
    fn read_all(&mut self, cap: u64) -> io::Result<Vec<u8>> {
        self.fs.check(Op::ReadAll)?;
        self.inner.read_all(cap)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self.fs.enter(Op::WriteAll) {
            None => self.inner.write_all(buf),
            Some(Fault::ShortWrite) => {
                self.inner.write_all(&buf[..buf.len() / 2])?;
                Err(error_for(Fault::ShortWrite))
            }
            Some(f) => Err(error_for(f)),
        }
    }
    fn sync(&mut self) -> io::Result<()> {
        self.fs.check(Op::Sync)?;
        self.inner.sync()
    }
    fn set_mode(&mut self, mode: u32) -> io::Result<()> {
        self.fs.check(Op::SetMode)?;
        self.inner.set_mode(mode)
    }
    fn set_owner(&mut self, uid: u32, gid: u32) -> io::Result<()> {
        self.fs.check(Op::SetOwner)?;
        self.inner.set_owner(uid, gid)
    }
    fn xattrs(&self) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        self.fs.check(Op::Xattrs)?;
        self.inner.xattrs()
    }
    fn set_xattr(&self, name: &OsStr, value: &[u8]) -> io::Result<()> {
        self.fs.check(Op::SetXattr)?;
        self.inner.set_xattr(name, value)
    }
    fn remove_xattr(&self, name: &OsStr) -> io::Result<()> {
        self.fs.check(Op::RemoveXattr)?;
        self.inner.remove_xattr(name)
    }
    fn lock(&self) -> io::Result<()> {
        self.fs.check(Op::Lock)?;
        self.inner.lock()
    }
    fn try_lock(&self) -> io::Result<bool> {
        self.fs.check(Op::TryLock)?;
        self.inner.try_lock()
    }
    fn link_at(&self, path: &Path) -> io::Result<()> {
        self.fs.check(Op::LinkTemp)?;
        self.inner.link_at(path)
    }
}

impl Fs for FaultFs {
    fn symlink_metadata(&self, path: &Path) -> io::Result<Meta> {
        self.check(Op::SymlinkMetadata)?;
        self.inner.symlink_metadata(path)
    }
    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        self.check(Op::ReadLink)?;
        self.inner.read_link(path)
    }
    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        self.check(Op::ReadDir)?;
        self.inner.read_dir(path)
    }
    fn open_read(&self, path: &Path) -> io::Result<Box<dyn FileHandle>> {
        self.check(Op::OpenRead)?;
        Ok(Box::new(FaultFile {
            inner: self.inner.open_read(path)?,
            fs: self.clone(),
        }))
    }
    fn create_unnamed(&self, dir: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        self.check(Op::CreateUnnamed)?;
        Ok(Box::new(FaultFile {
            inner: self.inner.create_unnamed(dir, mode)?,
            fs: self.clone(),
        }))
    }
    fn create_exclusive(&self, path: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        self.check(Op::CreateExclusive)?;
        Ok(Box::new(FaultFile {
            inner: self.inner.create_exclusive(path, mode)?,
            fs: self.clone(),
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.check(Op::Rename)?;
        self.inner.rename(from, to)
    }
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.check(Op::RenameNoreplace)?;
        self.inner.rename_noreplace(from, to)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.check(Op::RemoveFile)?;
        self.inner.remove_file(path)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.check(Op::CreateDirAll)?;
        self.inner.create_dir_all(path)
    }
    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        self.check(Op::RemoveDir)?;
        self.inner.remove_dir(path)
    }
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        self.check(Op::SyncDir)?;
        self.inner.sync_dir(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealFs;

    /// A planned short write puts exactly the first half of the buffer into the file and then
    /// fails with ENOSPC, as a disk that fills up mid-write does. The DISK-1 fault tests rely
    /// on that torn state being real: a temp file holding part of the content, which the write
    /// must remove rather than put in place. A planned errno does nothing but fail. Each fault
    /// that fires is counted (the reliability suite reports the count), and only those.
    #[test]
    fn a_short_write_writes_the_first_half_and_every_fired_fault_is_counted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("torn");
        let fs = FaultFs::new(Arc::new(RealFs))
            .fail(Op::WriteAll, 1, Fault::ShortWrite)
            .fail(Op::WriteAll, 2, Fault::Errno(libc::EIO));
        let mut file = fs.create_exclusive(&p, 0o600).unwrap();
        assert_eq!(fs.injected(), 0);
        let err = file.write_all(b"0123456789").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(fs.injected(), 1);
        let err = file.write_all(b"abc").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EIO));
        assert_eq!(fs.injected(), 2);
        file.write_all(b"!").unwrap();
        assert_eq!(fs.injected(), 2);
        drop(file);
        assert_eq!(std::fs::read(&p).unwrap(), b"01234!");
        assert!(!fs.crashed());
    }

    /// An owner change passes through to the file system beneath unless a fault is planned
    /// for it, and a planned fault changes nothing: the DISK-2 owner tests on a `FaultFs`
    /// see the owner the real call left, not one the wrapper pretended.
    #[test]
    fn an_owner_change_reaches_the_file_unless_a_fault_is_planned() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("owned");
        let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::SetOwner, 1, Fault::Errno(libc::EPERM));
        let mut file = fs.create_exclusive(&p, 0o600).unwrap();
        let owner = || {
            let m = std::fs::metadata(&p).unwrap();
            (m.uid(), m.gid())
        };
        let before = owner();
        let err = file.set_owner(4321, 4322).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EPERM));
        assert_eq!(owner(), before);
        let plain = RealFs
            .create_exclusive(&dir.path().join("plain"), 0o600)
            .unwrap()
            .set_owner(4321, 4322);
        match (file.set_owner(4321, 4322), plain) {
            (Ok(()), Ok(())) => assert_eq!(owner(), (4321, 4322)),
            (Err(a), Err(b)) => {
                assert_eq!(a.kind(), b.kind());
                assert_eq!(owner(), before);
            }
            (a, b) => panic!("the wrapper answered {a:?} where the file system answered {b:?}"),
        }
    }

    /// DISK-2: a `readlink` passes through to the file system beneath unless a fault is
    /// planned for it, so a path resolved on a `FaultFs` follows the link that is really
    /// there; a planned fault answers its errno once and the next call passes again.
    #[test]
    fn a_read_link_answers_the_real_target_unless_a_fault_is_planned() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("target", &link).unwrap();
        let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::ReadLink, 2, Fault::Errno(libc::EIO));
        assert_eq!(fs.read_link(&link).unwrap(), Path::new("target"));
        let err = fs.read_link(&link).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EIO));
        assert_eq!(fs.read_link(&link).unwrap(), Path::new("target"));
        assert_eq!(fs.injected(), 1);
    }
}
