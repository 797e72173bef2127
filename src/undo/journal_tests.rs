//! The journal shared by several writers (UNDO-1: a unit is whole or absent).

use super::*;
use crate::disk::{FaultFs, Op, RealFs};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// What the second writer reports to the first.
#[derive(Debug, PartialEq, Eq)]
enum Second {
    /// It is about to wait for the journal's lock.
    Locking,
    /// Its record (and so its prune) is done.
    Done,
}

fn change(target: &Path, bytes: &'static [u8]) -> Change<'static> {
    Change {
        target: target.to_path_buf(),
        before: Before::File { bytes, mode: 0o644 },
        after: Some(ContentHash::of(b"new")),
    }
}

/// UNDO-1, UNDO-6: a second writer records (and prunes) exactly while the first has written
/// its blob but not yet its record. Its prune must not take that blob for a crash leftover:
/// both units end up whole, each with its old bytes.
#[test]
fn a_prune_between_another_writers_blob_and_record_keeps_the_blob() {
    let dir = tempfile::tempdir().unwrap();
    let config = UndoConfig::new(dir.path().join("undo"));
    let (tx, rx) = mpsc::channel::<Second>();
    let tx = Mutex::new(tx);
    let rx = Mutex::new(rx);
    let second: Arc<Mutex<Option<JoinHandle<io::Result<()>>>>> = Arc::default();
    let first_fs = {
        let config = config.clone();
        let second = Arc::clone(&second);
        // The first writer's second rename is its record's; its blob is in place by then.
        FaultFs::new(Arc::new(RealFs)).with_hook(move |op, nth| {
            if op != Op::Rename || nth != 2 {
                return;
            }
            let tx = tx.lock().unwrap().clone();
            let config = config.clone();
            let target = dir_of(&config).join("b.txt");
            let done = tx.clone();
            let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, _| {
                if op == Op::Lock {
                    let _ = tx.send(Second::Locking);
                }
            });
            *second.lock().unwrap() = Some(std::thread::spawn(move || {
                let r = Journal::new(&fs, &config).record("Write", &[change(&target, b"old b")]);
                let _ = done.send(Second::Done);
                r
            }));
            // Either the second writer waits for the lock the first holds, or (without one)
            // it has recorded and pruned right here, between the first one's blob and record.
            let first = rx.lock().unwrap().recv().unwrap();
            assert!(matches!(first, Second::Locking | Second::Done));
        })
    };
    let a = dir.path().join("a.txt");
    Journal::new(&first_fs, &config)
        .record("Edit", &[change(&a, b"old a")])
        .unwrap();
    let handle = second.lock().unwrap().take().expect("the hook ran");
    handle.join().unwrap().unwrap();

    let journal = Journal::new(&RealFs, &config);
    let units = journal.units().unwrap();
    assert_eq!(units.len(), 2, "{units:?}");
    for unit in &units {
        let want: &[u8] = if unit.record.tool == "Edit" {
            b"old a"
        } else {
            b"old b"
        };
        assert_eq!(
            journal.blob(unit, 0).ok().as_deref(),
            Some(want),
            "the {} unit lost its old bytes",
            unit.record.tool
        );
    }
}

/// UNDO-1: the lock of a journal directory that does not exist yet holds nothing and creates
/// nothing.
#[test]
fn locking_a_missing_journal_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = UndoConfig::new(dir.path().join("undo"));
    let lock = Journal::new(&RealFs, &config).lock().unwrap();
    drop(lock);
    assert!(!dir.path().join("undo").exists());
}

fn dir_of(config: &UndoConfig) -> PathBuf {
    config.dir.parent().unwrap_or(Path::new("/")).to_path_buf()
}
