//! The parent directories a new file needs (WRITE-1, DISK-1): [`NewDirs`] creates the missing
//! ones and remembers which they were, so that a write that fails afterwards can take them
//! back and leave the tree exactly as it found it.

use super::fs::Fs;
use std::io;
use std::path::{Path, PathBuf};

/// The directories one write created, outermost first.
#[derive(Debug, Default)]
pub(super) struct NewDirs {
    made: Vec<PathBuf>,
}

impl NewDirs {
    /// Creates `dir` and every missing ancestor. Which ones were missing is decided before
    /// creating (an `lstat` per level, walking up until something exists), so a directory that
    /// was already there is never counted as ours. An `lstat` that fails otherwise than with
    /// "not found" is the error of the write (a directory it may not search, say).
    pub(super) fn create(fs: &dyn Fs, dir: &Path) -> io::Result<NewDirs> {
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at {
            if d.as_os_str().is_empty() {
                break;
            }
            match fs.symlink_metadata(d) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(d.to_path_buf()),
                Err(e) => return Err(e),
            }
            at = d.parent();
        }
        if missing.is_empty() {
            return Ok(NewDirs::default());
        }
        missing.reverse();
        let made = NewDirs { made: missing };
        if let Err(e) = fs.create_dir_all(dir) {
            // `mkdir -p` may have made some levels before failing.
            made.remove(fs);
            return Err(e);
        }
        Ok(made)
    }

    /// DISK-6 for a new file in new directories: fsyncs the directory that holds each one this
    /// write created (the existing ancestor, then each new level but the last, which holds the
    /// file and is synced with it). A directory's entry persists only once the directory that
    /// holds it is fsynced, so without this a power cut after a durable write could still lose
    /// the new directories, and the file with them. Returns whether every sync succeeded.
    pub(super) fn sync_parents(&self, fs: &dyn Fs) -> bool {
        self.made
            .iter()
            .filter_map(|d| d.parent())
            .all(|p| fs.sync_dir(p).is_ok())
    }

    /// Removes the directories this write created, deepest first. `rmdir` only removes an
    /// empty directory, so anything another process put there meanwhile keeps its place (and
    /// the directories above it stay too).
    pub(super) fn remove(&self, fs: &dyn Fs) {
        for d in self.made.iter().rev() {
            if fs.remove_dir(d).is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealFs;

    #[test]
    fn creates_and_removes_only_the_missing_levels() {
        let tmp = tempfile::tempdir().unwrap();
        let kept = tmp.path().join("kept");
        std::fs::create_dir(&kept).unwrap();
        let deep = kept.join("a/b/c");
        let made = NewDirs::create(&RealFs, &deep).unwrap();
        assert!(deep.is_dir());
        assert_eq!(
            made.made,
            vec![kept.join("a"), kept.join("a/b"), deep.clone()]
        );
        made.remove(&RealFs);
        assert!(kept.is_dir());
        assert!(!kept.join("a").exists());
    }

    #[test]
    fn a_directory_someone_filled_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let deep = tmp.path().join("a/b");
        let made = NewDirs::create(&RealFs, &deep).unwrap();
        std::fs::write(tmp.path().join("a/other.txt"), b"x").unwrap();
        made.remove(&RealFs);
        assert!(!deep.exists());
        assert_eq!(std::fs::read(tmp.path().join("a/other.txt")).unwrap(), b"x");
    }

    #[test]
    fn nothing_missing_nothing_made() {
        let tmp = tempfile::tempdir().unwrap();
        let made = NewDirs::create(&RealFs, tmp.path()).unwrap();
        assert!(made.made.is_empty());
        made.remove(&RealFs);
        assert!(tmp.path().is_dir());
    }
}
