//! Loading a file: [`load`] opens it without blocking on special files, checks that it is a
//! regular file within the size cap, and maps it or reads it into memory ([`FileBytes`]).
//!
//! The open handle stays inside [`Loaded`], next to the bytes, because the write needs it
//! later: the write-time lock is taken on the inode that was loaded, and a mapping's lease
//! (which holds other writers off) lives as long as that handle.

use super::fs::{FileBytes, FileHandle, Fs, Kind, Meta};
use std::io;
use std::path::Path;

/// A file read from disk, with the open handle kept for the write-time lock.
pub struct Loaded {
    /// The file's bytes (mapped for large files; declared before `handle`, so that a mapping
    /// is dropped before the handle that holds its lease).
    pub bytes: FileBytes,
    /// `fstat` of the handle the bytes came from.
    pub meta: Meta,
    pub(super) handle: Box<dyn FileHandle>,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("len", &self.bytes.len())
            .field("meta", &self.meta)
            .finish()
    }
}

/// Why a load failed.
#[derive(Debug)]
pub enum LoadError {
    /// Not a regular file (after opening; a swap since the first look also lands here).
    NotRegular(Kind),
    /// Larger than the cap.
    TooLarge(u64),
    /// Any OS error.
    Io(io::Error),
}

/// Opens and reads a regular file of at most `cap` bytes, never blocking on special files.
pub fn load(fs: &dyn Fs, path: &Path, cap: u64) -> Result<Loaded, LoadError> {
    let mut handle = fs.open_read(path).map_err(LoadError::Io)?;
    let meta = handle.meta().map_err(LoadError::Io)?;
    if meta.kind != Kind::File {
        return Err(LoadError::NotRegular(meta.kind));
    }
    if meta.len > cap {
        return Err(LoadError::TooLarge(meta.len));
    }
    let bytes = match handle.map_all(cap).map_err(LoadError::Io)? {
        Some(mapped) => mapped,
        None => FileBytes::Owned(handle.read_all(cap).map_err(|e| {
            if e.kind() == io::ErrorKind::FileTooLarge {
                LoadError::TooLarge(cap + 1)
            } else {
                LoadError::Io(e)
            }
        })?),
    };
    Ok(Loaded {
        bytes,
        meta,
        handle,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealFs;

    /// The size cap is inclusive: a file of exactly the cap loads whole, and a larger one is
    /// refused as too large with its own size (the message tells the model how large it is),
    /// before a byte of it is read.
    #[test]
    fn a_file_of_exactly_the_cap_loads_and_a_larger_one_is_refused_with_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(&load(&RealFs, &p, 10).unwrap().bytes[..], b"0123456789");
        for cap in [0, 1, 9] {
            match load(&RealFs, &p, cap) {
                Err(LoadError::TooLarge(n)) => assert_eq!(n, 10, "cap {cap}"),
                other => panic!("cap {cap}: {other:?}"),
            }
        }
    }

    /// A file that grows past the cap while it is read is refused as too large, with a size
    /// over the cap (at least one byte more, all that the read saw), never with the cap itself
    /// — "too large (10 bytes; the limit is 10 bytes)" would tell the model nothing.
    #[test]
    fn a_file_that_grows_past_the_cap_while_read_is_too_large_by_a_byte_at_least() {
        use crate::disk::{FaultFs, Op};
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        let grown = p.clone();
        let fs = FaultFs::new(std::sync::Arc::new(RealFs)).with_hook(move |op, _| {
            if op == Op::ReadAll {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&grown)
                    .unwrap();
                f.write_all(b"more").unwrap();
            }
        });
        match load(&fs, &p, 10) {
            Err(LoadError::TooLarge(n)) => assert_eq!(n, 11),
            other => panic!("{other:?}"),
        }
    }

    /// A loaded file shows up in debug output (logs, failed assertions) by its length and
    /// metadata, never by its bytes, which can be hundreds of megabytes.
    #[test]
    fn a_loaded_file_debugs_as_its_length_and_metadata_without_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"secret content\n").unwrap();
        let loaded = load(&RealFs, &p, 1 << 20).unwrap();
        let shown = format!("{loaded:?}");
        assert!(
            shown.starts_with("Loaded { len: 15, meta: Meta {"),
            "{shown}"
        );
        assert!(shown.contains("kind: File"), "{shown}");
        assert!(!shown.contains("secret"), "{shown}");
    }
}
