//! The journal shared by several writers (UNDO-1: a unit is whole or absent).

use super::*;
use crate::disk::{Fault, FaultFs, Op, RealFs};
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
        after: After::Bytes(vec![b"new"]),
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

/// The journal's files that are neither a unit's record nor its blob: the index and the
/// marker, a root's name, and the temp files of writers that died.
fn leftovers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".json") && !n.ends_with(".before"))
        .collect();
    names.sort();
    names
}

/// UNDO-1, UNDO-7: a process killed at any file-system call of a record — pruning included —
/// leaves the journal so that the next record's index names exactly the units whose records are
/// on disk, each whole with its old bytes, and nothing else: no temp file, no blob without a
/// record, no marker. The index never describes a journal other than the one on disk.
#[test]
fn a_crash_at_any_call_of_a_record_never_leaves_the_index_lying() {
    // Two units of a.txt, and a limit of two per file: the third record also prunes.
    let setup = |dir: &Path| -> UndoConfig {
        let mut config = UndoConfig::new(dir.join("undo"));
        config.max_per_file = 2;
        let journal = Journal::new(&RealFs, &config);
        journal
            .record("Edit", &[change(&dir.join("a.txt"), b"one")])
            .unwrap();
        journal
            .record("Edit", &[change(&dir.join("a.txt"), b"two")])
            .unwrap();
        config
    };
    let probe = tempfile::tempdir().unwrap();
    let config = setup(probe.path());
    let fs = FaultFs::new(Arc::new(RealFs));
    let target = probe.path().join("a.txt");
    Journal::new(&fs, &config)
        .record("Edit", &[change(&target, b"three")])
        .unwrap();
    let calls = fs.log();
    assert!(calls.len() > 10, "{calls:?}");
    for (at, op) in calls.iter().enumerate() {
        let nth = calls[..=at].iter().filter(|o| *o == op).count() as u64;
        let dir = tempfile::tempdir().unwrap();
        let config = setup(dir.path());
        let a = dir.path().join("a.txt");
        let fs = FaultFs::new(Arc::new(RealFs)).fail(*op, nth, Fault::Crash);
        let _ = Journal::new(&fs, &config).record("Edit", &[change(&a, b"three")]);
        assert!(fs.crashed(), "call {at} ({op:?}) was reached");

        let journal = Journal::new(&RealFs, &config);
        let b = dir.path().join("b.txt");
        journal.record("Write", &[change(&b, b"bee")]).unwrap();
        let units = journal.units().unwrap();
        let on_disk = std::fs::read(config.dir.join(index::INDEX)).unwrap();
        let of_records = Index::of(units.iter().map(Entry::of).collect(), journal.limits()).0;
        assert_eq!(
            Index::parse(&on_disk),
            Some(of_records),
            "crash at call {at} ({op:?})"
        );
        assert_eq!(
            leftovers(&config.dir),
            ["index"],
            "crash at call {at} ({op:?})"
        );
        let mut blobs = 0;
        for unit in &units {
            for (i, f) in unit.record.files.iter().enumerate() {
                if matches!(f.before, BeforeRecord::Kept { .. }) {
                    blobs += 1;
                    assert!(
                        journal.blob(unit, i).is_ok(),
                        "crash at call {at}: {unit:?}"
                    );
                }
            }
        }
        let on_disk_blobs = std::fs::read_dir(&config.dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".before")
            })
            .count();
        assert_eq!(
            blobs, on_disk_blobs,
            "crash at call {at}: a blob without a record"
        );
        let a_units = units.iter().filter(|u| u.touches(&a)).count();
        assert!(a_units <= 2, "crash at call {at}: {a_units} units of a.txt");
        assert!(units.iter().any(|u| u.touches(&b)));
    }
}

/// UNDO-6: an index left by an older writer that holds more units than the limits allow (or a
/// journal made before the index existed) is brought within them by the next record.
#[test]
fn a_journal_without_an_index_gets_one_within_the_limits() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = UndoConfig::new(dir.path().join("undo"));
    let target = dir.path().join("a.txt");
    for bytes in [b"1", b"2", b"3", b"4"] {
        Journal::new(&RealFs, &config)
            .record("Edit", &[change(&target, bytes)])
            .unwrap();
    }
    std::fs::remove_file(config.dir.join(index::INDEX)).unwrap();
    config.max_per_file = 2;
    let journal = Journal::new(&RealFs, &config);
    journal.record("Edit", &[change(&target, b"5")]).unwrap();
    let units = journal.units().unwrap();
    let kept: Vec<Vec<u8>> = units.iter().map(|u| journal.blob(u, 0).unwrap()).collect();
    assert_eq!(kept, [b"4".to_vec(), b"5".to_vec()]);
    let on_disk = std::fs::read(config.dir.join(index::INDEX)).unwrap();
    let of_records = Index::of(units.iter().map(Entry::of).collect(), journal.limits()).0;
    assert_eq!(Index::parse(&on_disk), Some(of_records));
}
