//! The new content of one file, staged beside its target (DISK-1, DISK-5): [`prepare`] writes
//! it, [`Prepared`] puts it in place or takes it back.
//!
//! The content goes into a file without a name (`O_TMPFILE` in the target's directory) and is
//! given one only at the last moment: the temp name just before the rename over an existing
//! target, or the target's own name for a new file. A process killed while writing — by far
//! the longest part of a write — therefore leaves nothing in the directory. Where the file
//! system cannot make unnamed files, a named temp file is created exclusively instead, as
//! before. Either way the writer holds an exclusive `flock` on its temp file from creation to
//! the end of the write, so that a later edit can tell an orphan from a live write (D24).

use super::dirs::NewDirs;
use super::fs::{FileHandle, Fs, Meta};
use super::refusal::{io_error, stale};
use super::request::WriteRequest;
use super::temp::temp_path;
use crate::error::ToolError;
use crate::text::Chunk;
use std::io;
use std::path::{Path, PathBuf};

/// Removes a named temp file of this write, trying again a few times when the removal is
/// refused for any reason but its absence: with a root, the removal is made beneath the root
/// (D30), and another process swapping a directory of the path for a symlink at that instant
/// makes one attempt fail although the file is there; the swap does not last, the file must
/// not (DISK-1).
fn remove_temp(fs: &dyn Fs, name: &Path) {
    for _ in 0..32 {
        match fs.remove_file(name) {
            Ok(()) => return,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return,
            Err(_) => std::thread::yield_now(),
        }
    }
}

/// The complete new content of one file, mode set and (with fsync) flushed: everything of a
/// write except putting it in place.
pub(super) struct Prepared {
    /// The open temp file: kept while it has no name (the descriptor is the only way to it)
    /// and while it holds its lock; closed once it is in place.
    file: Option<Box<dyn FileHandle>>,
    /// The temp file's name, once it has one (always, for the named fallback).
    name: Option<PathBuf>,
    /// Its metadata (what the target will have once it is in place).
    pub meta: Meta,
    /// The parent directories created for a new file, taken back if the write fails.
    pub dirs: NewDirs,
}

impl Prepared {
    /// Takes the preparation back: the temp file goes (an unnamed one with its descriptor),
    /// and so do the directories it created (WRITE-1 creates them only for a write that
    /// succeeds).
    pub fn discard(&mut self, fs: &dyn Fs) {
        self.drop_temp(fs);
        self.dirs.remove(fs);
    }

    /// Removes the temp file, keeping the directories (a batch takes those back last).
    pub fn drop_temp(&mut self, fs: &dyn Fs) {
        if let Some(name) = self.name.take() {
            remove_temp(fs, &name);
        }
        self.file = None;
    }

    /// Gives an unnamed temp file its temp name beside `target` (a fresh one if the first is
    /// taken) and returns the name.
    fn named(&mut self, target: &Path) -> Result<PathBuf, ToolError> {
        if let Some(name) = &self.name {
            return Ok(name.clone());
        }
        let file = self.file.as_ref().ok_or_else(|| {
            io_error(
                "find the prepared content",
                &io::Error::other("the temp file is closed"),
            )
        })?;
        let mut last = None;
        for _ in 0..8 {
            let temp = temp_path(target);
            match file.link_at(&temp) {
                Ok(()) => {
                    self.name = Some(temp.clone());
                    return Ok(temp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(io_error("name the temporary file", &e)),
            }
        }
        let e = last.unwrap_or_else(|| io::Error::other("no free temp name"));
        Err(io_error("name the temporary file", &e))
    }

    /// Names the temp file now and closes it (its lock goes with it): for a batch of many
    /// files, which would otherwise hold a descriptor per file. From here on only the PID in
    /// its name tells a later edit that it is not an orphan.
    pub fn name_and_close(&mut self, target: &Path) -> Result<(), ToolError> {
        self.named(target)?;
        self.file = None;
        Ok(())
    }

    /// Renames the content over the existing file at `target` (named first if it has no name
    /// yet). On failure the temp file is still there for [`Prepared::discard`].
    pub fn replace(&mut self, fs: &dyn Fs, target: &Path) -> Result<(), ToolError> {
        let temp = self.named(target)?;
        fs.rename(&temp, target)
            .map_err(|e| io_error("move the new file into place", &e))?;
        self.placed();
        Ok(())
    }

    /// Puts the content at `target`, which must not exist yet (a new file): `stale` when
    /// something appeared there meanwhile, never a silent overwrite. An unnamed file is linked
    /// straight to `target` (which fails when the name is taken, as the no-replace rename does),
    /// so a new file never has a temp name at all.
    pub fn create(&mut self, fs: &dyn Fs, target: &Path) -> Result<(), ToolError> {
        let taken = |e: io::Error| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                stale("a file appeared where it was to be made")
            } else {
                io_error("move the new file into place", &e)
            }
        };
        match (&self.name, &self.file) {
            (Some(temp), _) => fs.rename_noreplace(temp, target).map_err(taken)?,
            (None, Some(file)) => file.link_at(target).map_err(taken)?,
            (None, None) => {
                return Err(io_error(
                    "find the prepared content",
                    &io::Error::other("the temp file is closed"),
                ))
            }
        }
        self.placed();
        Ok(())
    }

    /// The content is at its target: nothing is left to remove, and the descriptor (whose
    /// lock now sits on the target) is closed at once so that no other writer waits for it.
    fn placed(&mut self) {
        self.name = None;
        self.file = None;
        self.meta.nlink = 1;
    }
}

/// Writes the new content of `req` into a fresh temp file beside the target. On any failure
/// the temp file and any directory created for it are removed again and the target is
/// untouched.
pub(super) fn prepare(fs: &dyn Fs, req: &WriteRequest<'_, '_>) -> Result<Prepared, ToolError> {
    let dir = req.target.parent().unwrap_or(Path::new("/"));
    let dirs = match req.existing {
        None => {
            NewDirs::create(fs, dir).map_err(|e| io_error("create the parent directory", &e))?
        }
        Some(_) => NewDirs::default(),
    };
    // A new file is created as any program creates one (`open(O_CREAT, 0666)`): the kernel
    // then gives it the mode the umask leaves, or the directory's default ACL, and the
    // directory's group where the directory is setgid (WRITE-4, D35). Anything else starts
    // private to its owner (0600): it holds content meant for a file whose mode comes next.
    let create_mode = match (req.existing, req.mode) {
        (None, None) => 0o666,
        _ => 0o600,
    };
    let (name, file) = match create_temp(fs, dir, req.target, create_mode) {
        Ok(created) => created,
        Err(e) => {
            dirs.remove(fs);
            return Err(e);
        }
    };
    let mut file = file;
    match fill(file.as_mut(), req) {
        Ok(meta) => Ok(Prepared {
            file: Some(file),
            name,
            meta,
            dirs,
        }),
        Err(e) => {
            drop(file);
            if let Some(name) = name {
                remove_temp(fs, &name);
            }
            dirs.remove(fs);
            Err(e)
        }
    }
}

/// Everything done to the open temp file: its lock, the content, for a replacement the old
/// file's owner (where permitted), extended attributes and mode, the fsync; returns its
/// metadata.
fn fill(file: &mut dyn FileHandle, req: &WriteRequest<'_, '_>) -> Result<Meta, ToolError> {
    // The lock tells a later edit that this temp file has a live writer (D24). Nobody else
    // can hold it on a fresh file except, on the named fallback, an edit checking whether it
    // is an orphan, which lets go at once and keeps it (its PID is alive); a failure here only
    // leaves the PID to say so.
    let _ = file.try_lock();
    write_chunks(file, req.chunks).map_err(|e| io_error("write the new content", &e))?;
    if let Some(l) = req.existing {
        let mine = file
            .meta()
            .map_err(|e| io_error("stat the temp file", &e))?;
        if (mine.uid, mine.gid) != (l.meta.uid, l.meta.gid) {
            // Owner is kept where permitted; an unprivileged process cannot chown. First of
            // the three: a change of owner clears set-id bits and `security.capability`.
            let _ = file.set_owner(l.meta.uid, l.meta.gid);
        }
        super::attrs::carry(l.handle.as_ref(), &*file)?;
    }
    // The mode comes last, since setting an ACL rewrites the group bits. A new file keeps the
    // one the kernel gave it at creation, set again so that it is part of what the fsync
    // covers in the record of the write (RecordFs) — the same bits, so it changes nothing.
    let mode = match (req.existing, req.mode) {
        (Some(l), _) => l.meta.mode,
        (None, Some(mode)) => mode,
        (None, None) => {
            file.meta()
                .map_err(|e| io_error("stat the temp file", &e))?
                .mode
        }
    };
    file.set_mode(mode)
        .map_err(|e| io_error("set the file mode", &e))?;
    if req.fsync {
        file.sync()
            .map_err(|e| io_error("flush the new content", &e))?;
    }
    file.meta().map_err(|e| io_error("stat the temp file", &e))
}

/// Chunks at least this long are written straight from where they are; shorter ones are
/// gathered first, so that a replace_all with 100,000 hits is not 200,000 write calls.
pub(super) const DIRECT_WRITE: usize = 64 * 1024;

/// A long chunk goes out in `write` calls of at most this many bytes. One `write` of a whole
/// 100 MB file cost the kernel anywhere from 20 to 170 ms of system time from run to run
/// (the same from a mapping as from a heap buffer: the cost is in filling the new file's page
/// cache); 1 MiB pieces took a steady 17 to 30 ms, and 64 KiB pieces about 30 ms.
pub(super) const WRITE_PIECE: usize = 1 << 20;

/// Writes `chunks` in order: long ones directly (in pieces of [`WRITE_PIECE`]), runs of short
/// ones gathered into one write.
fn write_chunks(file: &mut dyn FileHandle, chunks: &[Chunk<'_>]) -> io::Result<()> {
    let mut gathered: Vec<u8> = Vec::new();
    for chunk in chunks {
        let bytes = chunk.bytes();
        if bytes.len() >= DIRECT_WRITE {
            if !gathered.is_empty() {
                file.write_all(&gathered)?;
                gathered.clear();
            }
            for piece in bytes.chunks(WRITE_PIECE) {
                file.write_all(piece)?;
            }
        } else {
            if gathered.len() + bytes.len() > DIRECT_WRITE && !gathered.is_empty() {
                file.write_all(&gathered)?;
                gathered.clear();
            }
            gathered.extend_from_slice(bytes);
        }
    }
    if !gathered.is_empty() {
        file.write_all(&gathered)?;
    }
    Ok(())
}

/// Whether creating an unnamed file failed only because the file system cannot make one
/// (EOPNOTSUPP; EISDIR from a kernel without `O_TMPFILE`; EINVAL), which calls for the named
/// fallback rather than a refusal.
fn unnamed_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP) | Some(libc::EISDIR) | Some(libc::EINVAL)
    )
}

/// An unnamed temp file in `dir` with creation mode `mode`, or where the file system cannot make one, a named one
/// beside `target` created exclusively (with its name).
fn create_temp(
    fs: &dyn Fs,
    dir: &Path,
    target: &Path,
    mode: u32,
) -> Result<(Option<PathBuf>, Box<dyn FileHandle>), ToolError> {
    match fs.create_unnamed(dir, mode) {
        Ok(f) => return Ok((None, f)),
        Err(e) if unnamed_unsupported(&e) => {}
        Err(e) => return Err(io_error("create a temporary file next to the target", &e)),
    }
    let mut last = None;
    for _ in 0..8 {
        let temp = temp_path(target);
        match fs.create_exclusive(&temp, mode) {
            Ok(f) => return Ok((Some(temp), f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(io_error("create a temporary file next to the target", &e)),
        }
    }
    let e = last.unwrap_or_else(|| io::Error::other("no free temp name"));
    Err(io_error("create a temporary file next to the target", &e))
}
