//! A file opened beneath the root: a [`RealFile`] whose `link_at` names it beneath the root
//! too (`linkat` into its directory's handle), so that giving an unnamed temp file its name —
//! the moment a new file appears — cannot be diverted by a swapped-in symlink either.

use super::root::Root;
use crate::disk::fs::{FileBytes, FileHandle, Meta, RealFile};
use crate::disk::link;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;

pub(super) struct BeneathFile {
    inner: RealFile,
    root: Arc<Root>,
}

impl BeneathFile {
    pub(super) fn new(inner: RealFile, root: Arc<Root>) -> BeneathFile {
        BeneathFile { inner, root }
    }
}

impl FileHandle for BeneathFile {
    fn meta(&self) -> io::Result<Meta> {
        self.inner.meta()
    }

    fn read_all(&mut self, cap: u64) -> io::Result<Vec<u8>> {
        self.inner.read_all(cap)
    }

    fn map_all(&mut self, cap: u64) -> io::Result<Option<FileBytes>> {
        self.inner.map_all(cap)
    }

    fn content_stable(&self) -> bool {
        self.inner.content_stable()
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
    }

    fn set_mode(&mut self, mode: u32) -> io::Result<()> {
        self.inner.set_mode(mode)
    }

    fn set_owner(&mut self, uid: u32, gid: u32) -> io::Result<()> {
        self.inner.set_owner(uid, gid)
    }

    fn xattrs(&self) -> io::Result<Vec<(OsString, Vec<u8>)>> {
        self.inner.xattrs()
    }

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

    /// As [`RealFile`]'s, with the new name made in its directory's handle opened beneath the
    /// root.
    fn link_at(&self, path: &Path) -> io::Result<()> {
        let Some(rel) = self.root.below(path) else {
            return self.inner.link_at(path);
        };
        let (dir, name) = self.root.parent(rel)?;
        link::link_unnamed(self.inner.0.as_raw_fd(), dir.as_raw_fd(), &name)
    }
}
