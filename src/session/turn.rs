//! Calls on one file take turns (SESSION-6): from loading the file to recording what was
//! written, a call that changes a file holds that file's turn, so the next call on it loads the
//! file as the previous one left it and checks it against a read state that already knows that
//! write (EDIT-4). Without turns, parallel calls all load the same version, the first to rename
//! wins, and every other one is refused as `stale` for a change editref itself made.
//!
//! Two parts, both keyed by the resolved target path:
//!
//! - within the process, a table of the paths whose turn is held, with the thread holding each:
//!   a call waits until none of its paths is held by another thread (several paths are taken
//!   together, so two calls on overlapping sets cannot each hold what the other waits for); a
//!   thread that already holds a path's turn takes it again without waiting;
//! - between processes, the lock file of each path ([`disk::take_turn_lock`], D34), taken in
//!   the order of the lock files' names, which is the same in every process.
//!
//! A Read takes only the first part: it changes no file, but the entry it records must not be
//! overtaken by a write of the same session that began before it and ends after it.

use super::Session;
use crate::disk::{self, TurnLock};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::ThreadId;

/// The paths whose turn is held in this process: the holding thread and how many turns it
/// took on the path.
struct Table {
    held: Mutex<HashMap<PathBuf, (ThreadId, usize)>>,
    freed: Condvar,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table {
        held: Mutex::new(HashMap::new()),
        freed: Condvar::new(),
    })
}

fn held(t: &Table) -> MutexGuard<'_, HashMap<PathBuf, (ThreadId, usize)>> {
    // The table is only changed by whole inserts and removes: a panic elsewhere cannot leave
    // it half-updated, so a poisoned lock is taken as it is.
    t.held.lock().unwrap_or_else(|e| e.into_inner())
}

/// One call's turn on its files (SESSION-6): held until dropped.
#[must_use = "the turn ends when it is dropped"]
#[derive(Debug)]
pub struct Turn {
    paths: Vec<PathBuf>,
    /// The cross-process locks this turn took (none for paths the thread already held).
    locks: Vec<TurnLock>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        // Other processes first: the lock files go before the paths are free in the table.
        self.locks.clear();
        let t = table();
        let mut held = held(t);
        for p in &self.paths {
            if let Some((_, depth)) = held.get_mut(p) {
                *depth -= 1;
                if *depth == 0 {
                    held.remove(p);
                }
            }
        }
        drop(held);
        t.freed.notify_all();
    }
}

/// Waits for and takes the in-process turn on every path of `paths` (sorted, without
/// repeats); returns those this thread did not hold already.
fn take_in_process(paths: &[PathBuf]) -> Vec<PathBuf> {
    let me = std::thread::current().id();
    let t = table();
    let mut held = held(t);
    while paths
        .iter()
        .any(|p| held.get(p).is_some_and(|(owner, _)| *owner != me))
    {
        held = t.freed.wait(held).unwrap_or_else(|e| e.into_inner());
    }
    let mut new = Vec::new();
    for p in paths {
        let slot = held.entry(p.clone()).or_insert((me, 0));
        if slot.1 == 0 {
            new.push(p.clone());
        }
        slot.1 += 1;
    }
    new
}

impl Session {
    /// SESSION-6: the turn of a call that changes the files at `targets` (resolved paths),
    /// waiting while another call of this process, or another editref process, holds the turn
    /// on any of them. Hold it from before loading until the write is recorded in the read
    /// state; calls on other files go on meanwhile.
    pub fn turn(&self, targets: &[&Path]) -> Turn {
        let mut paths: Vec<PathBuf> = targets.iter().map(|p| p.to_path_buf()).collect();
        paths.sort();
        paths.dedup();
        let new = take_in_process(&paths);
        // One order for every process: that of the lock files' names.
        let mut named: Vec<(PathBuf, &PathBuf)> = new
            .iter()
            .filter_map(|p| disk::turn_lock_path(p).map(|l| (l, p)))
            .collect();
        named.sort();
        let locks = named
            .into_iter()
            .filter_map(|(_, p)| disk::take_turn_lock(p))
            .collect();
        Turn { paths, locks }
    }

    /// [`Session::turn`] for the paths a call names, as the model gave them: each resolved
    /// (PATH-1/2); a path that does not resolve is left out, since the tool refuses it anyway.
    pub fn turn_for(&self, given: &[&str]) -> Turn {
        let targets: Vec<PathBuf> = given
            .iter()
            .filter_map(|g| self.resolve(g).ok().map(|r| r.target))
            .collect();
        let refs: Vec<&Path> = targets.iter().map(PathBuf::as_path).collect();
        self.turn(&refs)
    }

    /// The in-process part of the turn alone, for a Read of `target`: it waits for a write of
    /// the file by this process to be recorded, so that its entry is never older than that
    /// write's (SESSION-6).
    pub fn read_turn(&self, target: &Path) -> Turn {
        let paths = vec![target.to_path_buf()];
        take_in_process(&paths);
        Turn {
            paths,
            locks: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Config;
    use std::sync::mpsc::channel;
    use std::sync::Arc;

    /// SESSION-6: a second turn on a path waits for the first to end; a thread that holds a
    /// turn takes it again without waiting; a turn on another path does not wait at all.
    #[test]
    fn session_6_turns_on_one_path_wait_and_other_paths_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let s = Arc::new(Session::new(Config::new(dir.path())));
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let first = s.turn(&[&a]);
        let again = s.turn(&[&a, &a]);
        drop(again);
        let other = s.turn(&[&b]);
        drop(other);
        let (tx, rx) = channel();
        let (s2, a2) = (s.clone(), a.clone());
        let waiter = std::thread::spawn(move || {
            let _t = s2.turn(&[&a2]);
            tx.send(()).unwrap();
        });
        // Until the first turn ends, the waiter cannot have sent; a turn on `b` still can be
        // taken from this thread meanwhile.
        assert!(rx.try_recv().is_err());
        drop(s.turn(&[&b]));
        assert!(rx.try_recv().is_err());
        drop(first);
        rx.recv().unwrap();
        waiter.join().unwrap();
    }
}
