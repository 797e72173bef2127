//! A journal in a fresh directory of the system's temp space, for a session that lives no
//! longer than one conformance case, whose journal must go with it (UNDO-7): `serve` and the
//! harness's built-in adapter.
//!
//! The directory is removed when the journal is dropped. A process killed first (a harness
//! stopping a hung `serve`, a crash test) cannot remove it, so every new temp journal sweeps
//! the ones their owners left: a directory named `editref-undo-<pid>-…`, owned by this user,
//! whose PID is not a live process and whose `.alive` file beside it nobody holds locked. The
//! owner holds that lock for the journal's life and the kernel drops it when the owner dies,
//! so a journal of a live process in another PID namespace, whose PID means nothing here, is
//! never taken. Only this user's directories are looked at, and a symlink never is.

use crate::disk::process_alive;
use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The start of every temp journal's directory name; the owner's PID follows.
const PREFIX: &str = "editref-undo-";
/// What the lock file beside a journal's directory adds to its name.
const ALIVE: &str = ".alive";

/// A journal in a fresh temp directory, removed when dropped (see the module's doc).
#[derive(Debug)]
pub struct TempJournal {
    dir: PathBuf,
    /// The lock file beside `dir`, held locked while the journal lives (`None` where it could
    /// not be made: the journal still works, and only the PID protects it from a sweep).
    alive: Option<File>,
}

impl TempJournal {
    /// Sweeps the temp journals dead owners left, then creates the directory (mode 0700).
    pub fn new() -> std::io::Result<TempJournal> {
        use std::os::unix::fs::DirBuilderExt;
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let base = std::env::temp_dir();
        sweep(&base);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // The nanoseconds only make the name unlikely to be taken; nothing is decided by them.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = base.join(format!("{PREFIX}{}-{nanos}-{n}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let alive = hold_alive(&dir);
        Ok(TempJournal { dir, alive })
    }

    /// The journal's configuration, default limits.
    pub fn config(&self) -> super::UndoConfig {
        super::UndoConfig::new(&self.dir)
    }
}

impl Drop for TempJournal {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if self.alive.take().is_some() {
            let _ = std::fs::remove_file(alive_path(&self.dir));
        }
    }
}

/// The lock file beside a journal's directory.
fn alive_path(dir: &Path) -> PathBuf {
    let mut name = OsString::from(dir.as_os_str());
    name.push(ALIVE);
    PathBuf::from(name)
}

/// Creates the lock file beside `dir` and locks it, or `None`.
fn hold_alive(dir: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(alive_path(dir))
        .ok()?;
    file.try_lock().ok()?;
    Some(file)
}

/// The PID a temp journal's directory name carries, if `name` is one: exactly three numbers
/// after the prefix (PID, nanoseconds, counter). The per-user journal of UNDO-7's last resort,
/// `editref-undo-<uid>`, has one and is never a temp journal.
fn owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let parts: Vec<&str> = rest.split('-').collect();
    let numbers = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if !numbers {
        return None;
    }
    parts[0].parse().ok()
}

/// Removes from `base` the temp journals of owners that are gone (see the module's doc);
/// returns how many went. Every failure is ignored: a journal left is only a leftover.
fn sweep(base: &Path) -> usize {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(base) else {
        return 0;
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut removed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(owner) else {
            continue;
        };
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        let alive = alive_path(&path);
        // A lock file someone holds is a live owner elsewhere; one that is missing is a
        // journal made before the lock file, or whose lock file could not be made.
        let held = File::open(&alive).map(|f| f.try_lock().is_err());
        if matches!(held, Ok(true)) {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
        let _ = std::fs::remove_file(&alive);
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PID that is not a live process: that of a child that has exited and been waited for.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn undo_7_a_dead_owners_temp_journal_is_swept_and_nothing_else() {
        let base = tempfile::tempdir().unwrap();
        let b = base.path();
        let dead = dead_pid();
        let make = |name: &str| {
            let d = b.join(name);
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("index"), b"x").unwrap();
            d
        };
        // Left by a killed owner: swept, with its lock file.
        let gone = make(&format!("{PREFIX}{dead}-1-0"));
        std::fs::write(alive_path(&gone), b"").unwrap();
        // Made before lock files existed: swept on the PID alone.
        let old = make(&format!("{PREFIX}{dead}-2-0"));
        // A dead PID, but its lock is held: an owner in another PID namespace. Kept.
        let elsewhere = make(&format!("{PREFIX}{dead}-3-0"));
        let held = hold_alive(&elsewhere).expect("the lock file");
        // This process's own, and a live process's: kept.
        let own = make(&format!("{PREFIX}{}-4-0", std::process::id()));
        let mut sleeper = std::process::Command::new("cat")
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let live = make(&format!("{PREFIX}{}-5-0", sleeper.id()));
        // Not journals: a file of the shape, a symlink to a directory, other names. Kept.
        std::fs::write(b.join(format!("{PREFIX}{dead}-6-0")), b"x").unwrap();
        let target = make("target");
        std::os::unix::fs::symlink(&target, b.join(format!("{PREFIX}{dead}-7-0"))).unwrap();
        let other = make(&format!("editref-undone-{dead}"));
        // UNDO-7's per-user journal, its uid a dead PID: never a temp journal. Kept.
        let per_user = make(&format!("{PREFIX}{dead}"));

        assert_eq!(sweep(b), 2);
        assert!(!gone.exists() && !alive_path(&gone).exists());
        assert!(!old.exists());
        for kept in [&elsewhere, &own, &live, &target, &other, &per_user] {
            assert!(kept.join("index").exists(), "{kept:?} was removed");
        }
        assert!(alive_path(&elsewhere).exists());
        assert!(b.join(format!("{PREFIX}{dead}-6-0")).is_file());
        assert!(b.join(format!("{PREFIX}{dead}-7-0")).is_symlink());
        drop(held);
        drop(sleeper.stdin.take());
        sleeper.wait().unwrap();
    }

    #[test]
    fn undo_7_a_temp_journal_takes_its_lock_file_with_it() {
        let journal = TempJournal::new().unwrap();
        let dir = journal.dir.clone();
        let alive = alive_path(&dir);
        assert!(dir.is_dir() && alive.is_file());
        // Held: another open description of it cannot take the lock.
        assert!(File::open(&alive).unwrap().try_lock().is_err());
        drop(journal);
        assert!(!dir.exists() && !alive.exists());
    }

    #[test]
    fn only_names_of_the_journal_shape_carry_an_owner() {
        assert_eq!(owner("editref-undo-42-7-0"), Some(42));
        assert_eq!(owner("editref-undo-42-7-0.alive"), None);
        assert_eq!(owner("editref-undo-x-7-0"), None);
        assert_eq!(owner("editref-undo-"), None);
        // UNDO-7's per-user journal in the temp space: never swept.
        assert_eq!(owner("editref-undo-1000"), None);
        assert_eq!(owner("editref-undo-42-7"), None);
        assert_eq!(owner("editref-undo-42-7-0-1"), None);
        assert_eq!(owner("other-42"), None);
    }
}
