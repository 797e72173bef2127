//! The lock that makes editref processes take turns on one file (SESSION-6, D34): an exclusive
//! `flock` on a small lock file named after the target's path, in a directory private to the
//! user.
//!
//! Why not lock the target itself: every write renames a new inode over the path, so a lock on
//! the old inode says nothing to a process that opens the path afterwards. Why not the parent
//! directory's `flock`: that would make every file of the directory wait for every other, also
//! between the threads of one process. A lock file per path keeps unrelated files apart, and the
//! kernel drops a `flock` when its holder dies, however it dies.
//!
//! Where: `/tmp/editref-<uid>/turns/<32 hex digits of xxh3-128 of the path>.lock`. `/tmp` and the
//! effective uid, not `$TMPDIR` or `$XDG_RUNTIME_DIR`, because every process of the user must
//! find the same file whatever its environment. The directory must be the user's own, a real
//! directory and closed to others; when it is not (or cannot be made), there is no cross-process
//! turn and the write-time check (SESSION-3) stays the only guard, as before.
//!
//! Who cleans: the holder removes the lock file before it lets go, so nothing stays behind. A
//! taker that finds, once it holds the lock, that the file it locked is no longer the one at the
//! path (its holder removed it meanwhile) starts again with the file now there. A holder killed
//! with its lock leaves the file; the kernel has released the lock, so the next taker uses that
//! file and removes it in turn.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A held cross-process turn on one target. Dropping it removes the lock file and releases
/// the lock.
#[derive(Debug)]
pub struct TurnLock {
    file: File,
    path: PathBuf,
}

impl Drop for TurnLock {
    fn drop(&mut self) {
        // Only the file this holder locked is removed: should someone have deleted it by hand,
        // a file made since by another taker is theirs.
        if let (Ok(mine), Ok(there)) = (self.file.metadata(), std::fs::symlink_metadata(&self.path))
        {
            if (mine.dev(), mine.ino()) == (there.dev(), there.ino()) {
                let _ = std::fs::remove_file(&self.path);
            }
        }
        let _ = self.file.unlock();
    }
}

/// The directory of the lock files, made on first use; `None` when it is not safe to use.
fn turn_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        let base = PathBuf::from(format!("/tmp/editref-{uid}"));
        let dir = base.join("turns");
        for d in [&base, &dir] {
            let _ = std::fs::DirBuilder::new().mode(0o700).create(d);
            let meta = std::fs::symlink_metadata(d).ok()?;
            let private =
                meta.file_type().is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0;
            if !private {
                return None;
            }
        }
        Some(dir)
    })
    .as_deref()
}

/// The lock file of `target` (a resolved path), or `None` when there is no place for lock
/// files. Public so that a program (or a test) can see or hold the same lock.
pub fn turn_lock_path(target: &Path) -> Option<PathBuf> {
    let hash = xxhash_rust::xxh3::xxh3_128(target.as_os_str().as_bytes());
    turn_dir().map(|d| d.join(format!("{hash:032x}.lock")))
}

/// Takes the cross-process turn on `target`, waiting while another process holds it. `None`
/// when lock files cannot be used here (no private directory, a file system without `flock`):
/// the call then goes ahead without a turn, guarded by the write-time check alone.
pub fn take_turn_lock(target: &Path) -> Option<TurnLock> {
    let path = turn_lock_path(target)?;
    // Each round either holds the lock on the file at the path, or saw it removed by its
    // holder and tries the new one; a holder removes it only once, so this ends.
    loop {
        match lock_at(&path) {
            Ok(Some(lock)) => return Some(lock),
            Ok(None) => continue,
            Err(_) => return None,
        }
    }
}

/// One round: opens (or makes) the lock file, waits for its lock, and checks that the file
/// locked is still the one at the path (`Ok(None)` when it is not).
fn lock_at(path: &Path) -> io::Result<Option<TurnLock>> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    loop {
        match file.lock() {
            Ok(()) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    let mine = file.metadata()?;
    match std::fs::symlink_metadata(path) {
        Ok(there) if (there.dev(), there.ino()) == (mine.dev(), mine.ino()) => Ok(Some(TurnLock {
            file,
            path: path.to_path_buf(),
        })),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D34: the lock file is named by the path alone — one path, one file; two paths, two —
    /// and lives in a directory closed to other users.
    #[test]
    fn session_6_one_lock_file_per_path_in_a_private_directory() {
        let a = turn_lock_path(Path::new("/some/dir/a.txt")).expect("a place for lock files");
        let again = turn_lock_path(Path::new("/some/dir/a.txt")).unwrap();
        let b = turn_lock_path(Path::new("/some/dir/b.txt")).unwrap();
        assert_eq!(a, again);
        assert_ne!(a, b);
        let dir = std::fs::symlink_metadata(a.parent().unwrap()).unwrap();
        assert_eq!(dir.mode() & 0o077, 0);
    }

    /// D34: while one holder has the turn another taker waits; the holder removes the lock
    /// file when it lets go, so nothing is left once every turn is over.
    #[test]
    fn session_6_a_turn_excludes_others_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("f.txt");
        let path = turn_lock_path(&target).unwrap();
        let first = take_turn_lock(&target).expect("the turn");
        assert!(path.exists());
        // Another open file description cannot lock it meanwhile.
        let other = File::open(&path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(first);
        assert!(!path.exists(), "the holder removes its lock file");
        let second = take_turn_lock(&target).expect("the turn again");
        drop(second);
        assert!(!path.exists());
    }

    /// D34: a lock file left by a holder that died (its lock gone with it) is taken over, and
    /// removed by the new holder.
    #[test]
    fn session_6_a_left_lock_file_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("left.txt");
        let path = turn_lock_path(&target).unwrap();
        std::fs::write(&path, b"").unwrap();
        let lock = take_turn_lock(&target).expect("the turn");
        drop(lock);
        assert!(!path.exists());
    }
}
