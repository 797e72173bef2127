//! Orphaned temp files removed (DISK-5, D24): after a successful write, [`sweep`] removes the
//! temp files that editref processes killed mid-write left in the same directory.
//!
//! A temp file is an orphan when both of these hold:
//!
//! - the PID in its name ([`temp_owner`]) is not a live process (`kill(pid, 0)` answers
//!   ESRCH) and is not this process; and
//! - nobody holds its `flock`. Every writer holds that lock on its temp file from creation to
//!   the end of its write, and the kernel drops it when the writer dies, so a free lock is the
//!   kernel's own word that the writer is gone — which covers a writer in another PID
//!   namespace, where its PID means nothing here.
//!
//! The PID is checked as well as the lock because a writer on a file system without unnamed
//! files creates its temp file by name and only then takes the lock; in between, only the PID
//! protects it. A PID reused by an unrelated process keeps an orphan until that process ends:
//! a leftover, never a loss.
//!
//! Only names of exactly the temp shape are considered (never a parked file, which holds the
//! old content of a file a batch was deleting), and only regular files still at that name when
//! locked. The cost is bounded: one `lstat` and one listing of the directory per write, and
//! none for a directory larger than [`MAX_DIR_BYTES`] (several thousand entries on common file
//! systems), where a listing per write would cost more than an orphan does.

use super::fs::{Fs, Kind, Meta};
use super::temp::temp_owner;
use std::path::Path;

/// Directories whose size (`st_size`) is above this are not listed for orphans: 256 KiB is
/// several thousand entries on ext4, XFS, btrfs and tmpfs.
pub(super) const MAX_DIR_BYTES: u64 = 256 * 1024;

/// Removes the orphaned temp files of dead writers from `dir`; returns how many went. Every
/// failure is ignored: the write this follows has already succeeded, and an orphan left is
/// only a leftover.
pub(super) fn sweep(fs: &dyn Fs, dir: &Path) -> usize {
    let Ok(meta) = fs.symlink_metadata(dir) else {
        return 0;
    };
    if !listed(&meta) {
        return 0;
    }
    let Ok(names) = fs.read_dir(dir) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for name in names {
        let Some(pid) = name.to_str().and_then(temp_owner) else {
            continue;
        };
        if pid != me && !process_alive(pid) && remove_if_unlocked(fs, &dir.join(&name)) {
            removed += 1;
        }
    }
    removed
}

/// Whether `meta` is of a directory small enough to be listed for orphans: one of at most
/// [`MAX_DIR_BYTES`] (D24 bounds the cost of a sweep by the directory's size).
fn listed(meta: &Meta) -> bool {
    meta.kind == Kind::Dir && meta.len <= MAX_DIR_BYTES
}

/// Whether a process with this PID exists (a process of another user counts: EPERM). PID 0
/// and PIDs out of range count as alive, so that they are never treated as orphans.
pub fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: signal 0 only checks whether the process exists; nothing is sent.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Removes the regular file at `path` if its lock can be taken, i.e. no writer holds it; the
/// lock is held across the removal, and the file must still be the one at `path`.
fn remove_if_unlocked(fs: &dyn Fs, path: &Path) -> bool {
    let Ok(file) = fs.open_read(path) else {
        return false;
    };
    let (Ok(mine), Ok(there)) = (file.meta(), fs.symlink_metadata(path)) else {
        return false;
    };
    if mine.kind != Kind::File || !mine.same_identity(&there) {
        return false;
    }
    matches!(file.try_lock(), Ok(true)) && fs.remove_file(path).is_ok()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::disk::{temp_path, RealFs};

    /// A PID that is not a live process: that of a child that has exited and been waited for.
    pub(in crate::disk) fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// The name of a temp file of `pid`'s writer, in the shape this process gives its own.
    pub(in crate::disk) fn orphan_name(pid: u32) -> String {
        let own = temp_path(Path::new("/d/a.txt"));
        let own = own.file_name().unwrap().to_string_lossy().into_owned();
        own.replace(
            &format!(".editref-{}-", std::process::id()),
            &format!(".editref-{pid}-"),
        )
    }

    #[test]
    fn removes_a_dead_writers_orphan_and_keeps_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead = orphan_name(dead_pid());
        let live = orphan_name(std::os::unix::process::parent_id());
        let mine = orphan_name(std::process::id());
        let locked = orphan_name(dead_pid());
        let parked = crate::disk::parked_path(&d.join("a.txt"));
        for name in [&dead, &live, &mine, &locked] {
            std::fs::write(d.join(name), b"half").unwrap();
        }
        std::fs::write(&parked, b"old content").unwrap();
        std::fs::write(d.join("a.txt"), b"user").unwrap();
        let holder = RealFs.open_read(&d.join(&locked)).unwrap();
        assert!(holder.try_lock().unwrap());
        assert_eq!(sweep(&RealFs, d), 1);
        assert!(!d.join(&dead).exists());
        for name in [&live, &mine, &locked] {
            assert_eq!(std::fs::read(d.join(name)).unwrap(), b"half", "{name}");
        }
        assert_eq!(std::fs::read(&parked).unwrap(), b"old content");
        assert_eq!(std::fs::read(d.join("a.txt")).unwrap(), b"user");
        drop(holder);
        assert_eq!(
            sweep(&RealFs, d),
            1,
            "a lock released by its writer frees the orphan"
        );
        assert!(!d.join(&locked).exists());
    }

    #[test]
    fn a_directory_or_link_of_the_temp_shape_stays() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let sub = orphan_name(dead_pid());
        let link = orphan_name(dead_pid());
        std::fs::create_dir(d.join(&sub)).unwrap();
        std::fs::write(d.join("t"), b"t").unwrap();
        std::os::unix::fs::symlink(d.join("t"), d.join(&link)).unwrap();
        assert_eq!(sweep(&RealFs, d), 0);
        assert!(d.join(&sub).is_dir());
        assert!(d.join(&link).symlink_metadata().is_ok());
        assert_eq!(std::fs::read(d.join("t")).unwrap(), b"t");
    }

    /// D24: a temp file swapped for another between its opening and the last look at its name
    /// is not removed: the file at the name is no longer the one whose lock was judged.
    #[test]
    fn d24_a_temp_file_swapped_after_it_was_opened_stays() {
        use crate::disk::{FaultFs, Op};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(orphan_name(dead_pid()));
        std::fs::write(&path, b"orphan").unwrap();
        let (name, other) = (path.clone(), dir.path().join("other"));
        let fs = FaultFs::new(std::sync::Arc::new(RealFs)).with_hook(move |op, _| {
            if op == Op::SymlinkMetadata {
                std::fs::write(&other, b"swapped in").unwrap();
                std::fs::rename(&other, &name).unwrap();
            }
        });
        assert!(!remove_if_unlocked(&fs, &path));
        assert_eq!(std::fs::read(&path).unwrap(), b"swapped in");
    }

    /// D24: a directory is listed for orphans up to and including 256 KiB of `st_size`, and
    /// not above; anything but a directory is never listed.
    #[test]
    fn d24_directories_up_to_the_size_bound_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        let meta = RealFs.symlink_metadata(dir.path()).unwrap();
        let sized = |len| Meta { len, ..meta };
        assert!(listed(&sized(4096)));
        assert!(listed(&sized(MAX_DIR_BYTES)));
        assert!(!listed(&sized(MAX_DIR_BYTES + 1)));
        let file = Meta {
            kind: Kind::File,
            ..sized(4096)
        };
        assert!(!listed(&file));
    }
}
