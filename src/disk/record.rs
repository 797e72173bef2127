//! Recording through the [`Fs`] seam: [`RecordFs`] forwards every call to another `Fs` and
//! keeps the ones that change the file system, in order, as [`Call`]s.
//!
//! A kill keeps the page cache; a power cut does not. What a power cut may leave depends on
//! which of those calls had reached the disk, so the power-loss tests replay a tool's trace
//! through a persistence model and check every state it permits (RELIABILITY.md, "Power
//! loss"). The trace must therefore say exactly what each call did: which file a write went
//! to, at what offset, which directory an entry was made in, which fsync made what durable.
//! Calls that only look (lstat, reads, listings, locks) change nothing on disk and are not
//! kept. Only successful calls are kept: a call that failed did nothing to persist.
//!
//! Written bytes are copied into the trace, so this is for the small files of tests.

use super::fs::{FileHandle, Fs, Meta};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One successful call that changed the file system. Files made through the seam are named by
/// a number, in the order they were made, because an unnamed file has no path until it is
/// linked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// A directory made at this path (one per level `create_dir_all` had to make, outermost
    /// first).
    Mkdir(PathBuf),
    /// A new file without a name in directory `dir` (`O_TMPFILE`).
    CreateUnnamed {
        /// The file's number.
        file: u64,
        /// The directory it was made in.
        dir: PathBuf,
    },
    /// A new empty file made at `path` (exclusive create).
    Create {
        /// The file's number.
        file: u64,
        /// Its name.
        path: PathBuf,
    },
    /// Bytes written to a file made through the seam, at `offset`.
    Write {
        /// The file's number.
        file: u64,
        /// Where the bytes went.
        offset: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// `fchmod` of a file made through the seam.
    SetMode {
        /// The file's number.
        file: u64,
        /// The permission bits.
        mode: u32,
    },
    /// `fsync` of a file made through the seam: its data and mode are durable from here on.
    Sync {
        /// The file's number.
        file: u64,
    },
    /// A file made through the seam given the name `path` (`linkat`).
    Link {
        /// The file's number.
        file: u64,
        /// The new name.
        path: PathBuf,
    },
    /// `rename` (`replace`: over an existing target; otherwise only to a free name).
    Rename {
        /// The old name.
        from: PathBuf,
        /// The new name.
        to: PathBuf,
        /// Whether an existing `to` was allowed to be replaced.
        replace: bool,
    },
    /// `unlink`.
    Unlink(PathBuf),
    /// `rmdir`.
    Rmdir(PathBuf),
    /// `fsync` of a directory: the entries made, renamed and removed in it are durable.
    SyncDir(PathBuf),
}

/// An [`Fs`] that forwards to another one and records every call that changed something.
#[derive(Clone)]
pub struct RecordFs {
    inner: Arc<dyn Fs>,
    calls: Arc<Mutex<Vec<Call>>>,
    next_file: Arc<AtomicU64>,
}

impl RecordFs {
    /// Wraps `inner` with an empty trace.
    pub fn new(inner: Arc<dyn Fs>) -> RecordFs {
        RecordFs {
            inner,
            calls: Arc::default(),
            next_file: Arc::new(AtomicU64::new(1)),
        }
    }

    /// The calls recorded so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    fn push(&self, call: Call) {
        if let Ok(mut c) = self.calls.lock() {
            c.push(call);
        }
    }

    fn made(&self, inner: Box<dyn FileHandle>) -> (u64, Box<dyn FileHandle>) {
        let file = self.next_file.fetch_add(1, Ordering::Relaxed);
        let handle = RecordFile {
            inner,
            fs: self.clone(),
            file,
            offset: 0,
        };
        (file, Box::new(handle))
    }
}

/// A file made through the seam: its writes, mode, fsync and link are recorded.
struct RecordFile {
    inner: Box<dyn FileHandle>,
    fs: RecordFs,
    file: u64,
    offset: u64,
}

impl FileHandle for RecordFile {
    fn meta(&self) -> io::Result<Meta> {
        self.inner.meta()
    }
    fn read_all(&mut self, cap: u64) -> io::Result<Vec<u8>> {
        self.inner.read_all(cap)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)?;
        self.fs.push(Call::Write {
            file: self.file,
            offset: self.offset,
            bytes: buf.to_vec(),
        });
        self.offset += buf.len() as u64;
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()?;
        self.fs.push(Call::Sync { file: self.file });
        Ok(())
    }
    fn set_mode(&mut self, mode: u32) -> io::Result<()> {
        self.inner.set_mode(mode)?;
        self.fs.push(Call::SetMode {
            file: self.file,
            mode,
        });
        Ok(())
    }
    fn set_owner(&mut self, uid: u32, gid: u32) -> io::Result<()> {
        self.inner.set_owner(uid, gid)
    }
    fn xattrs(&self) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        self.inner.xattrs()
    }
    // Extended attributes are passed through but not kept: the persistence model tracks
    // names, bytes and modes, as it does not track owners either.
    fn set_xattr(&self, name: &OsStr, value: &[u8]) -> io::Result<()> {
        self.inner.set_xattr(name, value)
    }
    fn remove_xattr(&self, name: &OsStr) -> io::Result<()> {
        self.inner.remove_xattr(name)
    }
    fn lock(&self) -> io::Result<()> {
        self.inner.lock()
    }
    fn try_lock(&self) -> io::Result<bool> {
        self.inner.try_lock()
    }
    fn link_at(&self, path: &Path) -> io::Result<()> {
        self.inner.link_at(path)?;
        self.fs.push(Call::Link {
            file: self.file,
            path: path.to_path_buf(),
        });
        Ok(())
    }
}

impl Fs for RecordFs {
    fn symlink_metadata(&self, path: &Path) -> io::Result<Meta> {
        self.inner.symlink_metadata(path)
    }
    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        self.inner.read_link(path)
    }
    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        self.inner.read_dir(path)
    }
    fn open_read(&self, path: &Path) -> io::Result<Box<dyn FileHandle>> {
        // A file opened for reading is never written through its handle (only locked), so it
        // needs no number.
        self.inner.open_read(path)
    }
    fn create_unnamed(&self, dir: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        let (file, handle) = self.made(self.inner.create_unnamed(dir, mode)?);
        self.push(Call::CreateUnnamed {
            file,
            dir: dir.to_path_buf(),
        });
        Ok(handle)
    }
    fn create_exclusive(&self, path: &Path, mode: u32) -> io::Result<Box<dyn FileHandle>> {
        let (file, handle) = self.made(self.inner.create_exclusive(path, mode)?);
        self.push(Call::Create {
            file,
            path: path.to_path_buf(),
        });
        Ok(handle)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename(from, to)?;
        self.push(Call::Rename {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            replace: true,
        });
        Ok(())
    }
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename_noreplace(from, to)?;
        self.push(Call::Rename {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            replace: false,
        });
        Ok(())
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_file(path)?;
        self.push(Call::Unlink(path.to_path_buf()));
        Ok(())
    }
    /// Records one [`Call::Mkdir`] per level that was missing before the call (outermost
    /// first), which is what `mkdir -p` made.
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let mut missing = Vec::new();
        let mut at = Some(path);
        while let Some(d) = at.filter(|d| !d.as_os_str().is_empty()) {
            if self.inner.symlink_metadata(d).is_ok() {
                break;
            }
            missing.push(d.to_path_buf());
            at = d.parent();
        }
        self.inner.create_dir_all(path)?;
        for d in missing.into_iter().rev() {
            self.push(Call::Mkdir(d));
        }
        Ok(())
    }
    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_dir(path)?;
        self.push(Call::Rmdir(path.to_path_buf()));
        Ok(())
    }
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        self.inner.sync_dir(path)?;
        self.push(Call::SyncDir(path.to_path_buf()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::{atomic_write, RealFs, WriteRequest};
    use crate::text::Chunk;

    /// DISK-1, DISK-6: the trace of creating a file in a new directory names every call that
    /// changes the disk, in order, and the fsyncs that make it durable.
    #[test]
    fn a_creation_is_recorded_call_by_call() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("a/new.txt");
        let fs = RecordFs::new(Arc::new(RealFs));
        let chunks = [Chunk::New(b"hello\n".to_vec())];
        atomic_write(
            &fs,
            &WriteRequest {
                target: &target,
                chunks: &chunks,
                existing: None,
                fsync: true,
                mode: Some(0o640),
            },
        )
        .unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"hello\n");
        let calls = fs.calls();
        assert_eq!(calls.first(), Some(&Call::Mkdir(tmp.path().join("a"))));
        let file = match calls.get(1) {
            Some(Call::CreateUnnamed { file, .. } | Call::Create { file, .. }) => *file,
            other => panic!("expected the temp file, got {other:?}"),
        };
        assert!(calls.contains(&Call::Write {
            file,
            offset: 0,
            bytes: b"hello\n".to_vec()
        }));
        assert!(calls.contains(&Call::SetMode { file, mode: 0o640 }));
        assert!(calls.contains(&Call::Sync { file }));
        assert!(calls.contains(&Call::SyncDir(tmp.path().join("a"))));
        assert!(
            calls.contains(&Call::SyncDir(tmp.path().to_path_buf())),
            "the directory holding the new directory is synced too, or a power cut could lose \
             both (DISK-6)"
        );
    }

    /// The power-loss model places each recorded write at its offset, so consecutive writes
    /// to one file must be recorded where they landed: the second one right after the first,
    /// not over it. A trace that put both at offset 0 would make the model see a torn file
    /// where the disk holds the whole content (DISK-5).
    #[test]
    fn consecutive_writes_are_recorded_at_the_offsets_they_land_at() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        let fs = RecordFs::new(Arc::new(RealFs));
        let mut file = fs.create_exclusive(&path, 0o600).unwrap();
        file.write_all(b"ab").unwrap();
        file.write_all(b"cde").unwrap();
        file.write_all(b"f").unwrap();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), b"abcdef");
        let file = match fs.calls().first() {
            Some(Call::Create { file, .. }) => *file,
            other => panic!("expected the create, got {other:?}"),
        };
        let write = |offset: u64, bytes: &[u8]| Call::Write {
            file,
            offset,
            bytes: bytes.to_vec(),
        };
        assert_eq!(
            fs.calls()[1..],
            [write(0, b"ab"), write(2, b"cde"), write(5, b"f")]
        );
    }

    /// A recorded handle reads, describes and locks its file as the plain one does: a file
    /// made for writing refuses to be read alike (`EBADF`), its metadata is the file's, and its
    /// locks are the file's (D24 relies on the lock of a writer's temp file).
    #[test]
    fn a_recorded_file_reads_and_locks_as_the_plain_one_does() {
        let tmp = tempfile::tempdir().unwrap();
        let (o, p, q) = (
            tmp.path().join("o"),
            tmp.path().join("p"),
            tmp.path().join("q"),
        );
        let fs = RecordFs::new(Arc::new(RealFs));
        let mut file = fs.create_exclusive(&p, 0o600).unwrap();
        let mut plain = RealFs.create_exclusive(&o, 0o600).unwrap();
        let code = |r: io::Result<Vec<u8>>| r.map_err(|e| e.raw_os_error());
        assert_eq!(code(plain.read_all(1 << 20)), Err(Some(libc::EBADF)));
        assert_eq!(code(file.read_all(1 << 20)), Err(Some(libc::EBADF)));
        std::fs::write(&p, b"written beside\n").unwrap();
        let meta = file.meta().unwrap();
        assert_eq!(
            (meta.len, meta.ino),
            (15, RealFs.symlink_metadata(&p).unwrap().ino)
        );
        file.lock().unwrap();
        let other = RealFs.open_read(&p).unwrap();
        assert!(
            !other.try_lock().unwrap(),
            "the recorded handle holds the lock"
        );
        drop(file);
        assert!(other.try_lock().unwrap(), "the lock went with the handle");
        let held = fs.create_exclusive(&q, 0o600).unwrap();
        let plain = RealFs.open_read(&q).unwrap();
        plain.lock().unwrap();
        assert!(!held.try_lock().unwrap(), "the plain handle holds the lock");
        drop(plain);
        assert!(held.try_lock().unwrap());
    }

    /// DISK-2: a recorded handle changes the owner as the plain one does — the owner is part
    /// of what a replaced file keeps. (Given to another user where the process may, refused
    /// alike where it may not.)
    #[test]
    fn an_owner_change_passes_through_the_recording() {
        let tmp = tempfile::tempdir().unwrap();
        let fs = RecordFs::new(Arc::new(RealFs));
        let mut recorded = fs.create_unnamed(tmp.path(), 0o600).unwrap();
        let mut plain = RealFs.create_unnamed(tmp.path(), 0o600).unwrap();
        let (uid, gid) = (4321, 4322);
        let want = plain.set_owner(uid, gid).map_err(|e| e.kind());
        assert_eq!(recorded.set_owner(uid, gid).map_err(|e| e.kind()), want);
        let owner = |h: &dyn FileHandle| h.meta().map(|m| (m.uid, m.gid)).unwrap();
        assert_eq!(owner(recorded.as_ref()), owner(plain.as_ref()));
    }

    /// DISK-6: the calls on names and directories are made on the disk and recorded as made,
    /// in order; a call that fails is not recorded.
    #[test]
    fn calls_on_names_and_directories_are_made_and_recorded() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("a/b"));
        let (f, g, h) = (b.join("f"), b.join("g"), b.join("h"));
        let fs = RecordFs::new(Arc::new(RealFs));
        fs.create_dir_all(&b).unwrap();
        drop(fs.create_exclusive(&f, 0o600).unwrap());
        std::fs::write(&h, b"h").unwrap();
        fs.rename_noreplace(&f, &g).unwrap();
        assert!(fs.rename_noreplace(&g, &h).is_err(), "h is taken");
        fs.rename(&g, &h).unwrap();
        assert_eq!(std::fs::read(&h).unwrap(), b"", "the empty file replaced h");
        fs.remove_file(&h).unwrap();
        fs.sync_dir(&b).unwrap();
        fs.remove_dir(&b).unwrap();
        assert!(a.is_dir() && !b.exists());
        let calls: Vec<Call> = fs
            .calls()
            .into_iter()
            .filter(|c| !matches!(c, Call::Create { .. }))
            .collect();
        let rename = |from: &Path, to: &Path, replace| Call::Rename {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            replace,
        };
        assert_eq!(
            calls,
            vec![
                Call::Mkdir(a.clone()),
                Call::Mkdir(b.clone()),
                rename(&f, &g, false),
                rename(&g, &h, true),
                Call::Unlink(h.clone()),
                Call::SyncDir(b.clone()),
                Call::Rmdir(b.clone()),
            ]
        );
    }

    /// DISK-2: the reads that resolution makes — `lstat`, `readlink`, a listing — reach the
    /// disk through the recording and answer what they answer without it, so a recorded
    /// write through a symlink lands on the link's target.
    #[test]
    fn reads_pass_through_the_recording() {
        let tmp = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::write(d.join("target"), b"t").unwrap();
        std::os::unix::fs::symlink("target", d.join("link")).unwrap();
        let fs = RecordFs::new(Arc::new(RealFs));
        assert_eq!(fs.read_link(&d.join("link")).unwrap(), Path::new("target"));
        assert_eq!(
            fs.symlink_metadata(&d.join("target")).unwrap(),
            RealFs.symlink_metadata(&d.join("target")).unwrap()
        );
        let mut names = fs.read_dir(&d).unwrap();
        names.sort();
        assert_eq!(names, ["link", "target"]);
        assert_eq!(
            crate::disk::real_path(&fs, &d.join("link")).unwrap(),
            (d.join("target"), true)
        );
    }

    /// DISK-1: short chunks are gathered into writes of at most `DIRECT_WRITE` bytes, so a
    /// replace_all with a hundred thousand hits makes neither a write call per hit nor a
    /// second copy of the whole file in the gathering buffer; the writes land in order and
    /// hold exactly the content.
    #[test]
    fn disk_1_short_chunks_are_gathered_into_bounded_writes() {
        use crate::disk::staged::DIRECT_WRITE;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let mut chunks = Vec::new();
        let mut expected = Vec::new();
        for i in 0..60_000u32 {
            let bytes = format!("{i},").into_bytes();
            expected.extend_from_slice(&bytes);
            chunks.push(Chunk::New(bytes));
        }
        let fs = RecordFs::new(Arc::new(RealFs));
        crate::disk::atomic::tests::create(&fs, &p, &chunks).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), expected);
        let writes: Vec<usize> = fs
            .calls()
            .iter()
            .filter_map(|c| match c {
                Call::Write { bytes, .. } => Some(bytes.len()),
                _ => None,
            })
            .collect();
        assert!(writes.iter().all(|&n| n <= DIRECT_WRITE), "{writes:?}");
        assert!(
            writes.len() <= expected.len() / (DIRECT_WRITE - 8) + 1,
            "{writes:?}"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }
}
