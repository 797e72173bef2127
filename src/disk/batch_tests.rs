//! BATCH-1: [`write_batch`] changes every file or none, whatever fails and wherever.
//!
//! The main check replays one three-file batch with a fault at each file-system call it makes,
//! one call at a time, and requires after every run: an error leaves all three files old, a
//! success leaves all three new, and no temp file is left either way.

use super::*;
use crate::disk::{is_temp_name, load, Fault, FaultFs, Op, RealFs};
use crate::error::Code;
use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

fn temps(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| is_temp_name(n))
        .collect()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// A directory with a.txt (0640) and b.txt (0755); c.txt does not exist yet.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "old a\n").unwrap();
    std::fs::write(&b, "old b\n").unwrap();
    std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::set_permissions(&b, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Replaces a.txt and b.txt and creates c.txt in one batch, on `fs`.
fn replace_two_create_one(fs: &dyn Fs, dir: &Path) -> Result<Vec<BatchDone>, ToolError> {
    let (a, b, c) = (dir.join("a.txt"), dir.join("b.txt"), dir.join("c.txt"));
    let la = load(fs, &a, 1 << 20).map_err(|_| stale("it could not be loaded"))?;
    let lb = load(fs, &b, 1 << 20).map_err(|_| stale("it could not be loaded"))?;
    let (na, nb, nc) = (
        [Chunk::Original(b"new a\n")],
        [Chunk::Original(b"new b\n")],
        [Chunk::Original(b"new c\n")],
    );
    let ops = [
        BatchOp::Write(WriteRequest {
            target: &a,
            chunks: &na,
            existing: Some(&la),
            fsync: true,
            mode: None,
        }),
        BatchOp::Write(WriteRequest {
            target: &b,
            chunks: &nb,
            existing: Some(&lb),
            fsync: true,
            mode: None,
        }),
        BatchOp::Write(WriteRequest {
            target: &c,
            chunks: &nc,
            existing: None,
            fsync: true,
            mode: None,
        }),
    ];
    write_batch(fs, &ops)
}

fn all_old(dir: &Path) -> bool {
    std::fs::read(dir.join("a.txt")).ok().as_deref() == Some(b"old a\n".as_slice())
        && std::fs::read(dir.join("b.txt")).ok().as_deref() == Some(b"old b\n".as_slice())
        && !dir.join("c.txt").exists()
        && mode(&dir.join("a.txt")) == 0o640
        && mode(&dir.join("b.txt")) == 0o755
}

fn all_new(dir: &Path) -> bool {
    std::fs::read(dir.join("a.txt")).ok().as_deref() == Some(b"new a\n".as_slice())
        && std::fs::read(dir.join("b.txt")).ok().as_deref() == Some(b"new b\n".as_slice())
        && std::fs::read(dir.join("c.txt")).ok().as_deref() == Some(b"new c\n".as_slice())
        && mode(&dir.join("a.txt")) == 0o640
        && mode(&dir.join("b.txt")) == 0o755
}

#[test]
fn batch_1_a_fault_at_any_call_leaves_all_old_or_all_new_and_no_temp() {
    // A clean run, to learn the calls the batch makes (loading included), in order.
    let dir = fixture();
    let probe = FaultFs::new(Arc::new(RealFs));
    replace_two_create_one(&probe, dir.path()).unwrap();
    assert!(all_new(dir.path()));
    let log = probe.log();
    let mut seen: HashMap<Op, u64> = HashMap::new();
    let calls: Vec<(Op, u64)> = log
        .iter()
        .map(|op| {
            let n = seen.entry(*op).or_insert(0);
            *n += 1;
            (*op, *n)
        })
        .collect();
    for op in [
        Op::OpenRead,
        Op::CreateUnnamed,
        Op::LinkTemp,
        Op::WriteAll,
        Op::SetMode,
        Op::Sync,
        Op::Lock,
        Op::SymlinkMetadata,
        Op::Rename,
        Op::SyncDir,
    ] {
        assert!(log.contains(&op), "the batch makes no {op:?} call");
    }
    let mut failed_runs = 0;
    for (op, nth) in calls {
        let dir = fixture();
        let fs = FaultFs::new(Arc::new(RealFs)).fail(op, nth, Fault::Errno(libc::EIO));
        let result = replace_two_create_one(&fs, dir.path());
        assert_eq!(fs.injected(), 1, "{op:?} #{nth} was not reached");
        match result {
            Ok(_) => assert!(all_new(dir.path()), "{op:?} #{nth}: success, not all new"),
            Err(e) => {
                failed_runs += 1;
                assert!(all_old(dir.path()), "{op:?} #{nth}: {}", e.message);
            }
        }
        assert!(
            temps(dir.path()).is_empty(),
            "{op:?} #{nth}: temp file left"
        );
    }
    assert!(failed_runs > 0);
}

#[test]
fn batch_1_a_failed_rename_of_the_third_file_rolls_back_the_first_two() {
    let dir = fixture();
    // a and b are named (links #1 and #2) and renamed, then c is created by link #3, straight
    // to its name; make the create fail.
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::LinkTemp, 3, Fault::Errno(libc::EIO));
    let a_ino = std::fs::metadata(dir.path().join("a.txt")).unwrap();
    let e = replace_two_create_one(&fs, dir.path()).unwrap_err();
    assert_eq!(e.code, Code::Io);
    assert!(!e.message.contains("may hold"), "{}", e.message);
    assert!(all_old(dir.path()));
    // Restored by a rename of the old bytes, not left as it was: a new inode, old mode.
    use std::os::unix::fs::MetadataExt;
    let now = std::fs::metadata(dir.path().join("a.txt")).unwrap();
    assert_ne!(now.ino(), a_ino.ino());
    assert!(temps(dir.path()).is_empty());

    // Three replaces, the third rename failing: the first two get their old bytes back.
    let dir = fixture();
    std::fs::write(dir.path().join("c.txt"), "old c\n").unwrap();
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::Rename, 3, Fault::Errno(libc::EIO));
    let names = ["a.txt", "b.txt", "c.txt"];
    let paths: Vec<_> = names.iter().map(|n| dir.path().join(n)).collect();
    let loaded: Vec<_> = paths
        .iter()
        .map(|p| load(&fs, p, 1 << 20).unwrap())
        .collect();
    let new = [Chunk::Original(b"new\n")];
    let ops: Vec<_> = paths
        .iter()
        .zip(&loaded)
        .map(|(p, l)| {
            BatchOp::Write(WriteRequest {
                target: p,
                chunks: &new,
                existing: Some(l),
                fsync: false,
                mode: None,
            })
        })
        .collect();
    write_batch(&fs, &ops).unwrap_err();
    for (n, old) in names.iter().zip(["old a\n", "old b\n", "old c\n"]) {
        assert_eq!(std::fs::read(dir.path().join(n)).unwrap(), old.as_bytes());
    }
    assert_eq!(mode(&dir.path().join("a.txt")), 0o640);
    assert_eq!(mode(&dir.path().join("b.txt")), 0o755);
    assert!(temps(dir.path()).is_empty());
}

#[test]
fn batch_1_only_a_failed_rollback_names_the_files_that_may_hold_new_content() {
    let dir = fixture();
    // Rename #1 and #2 replace a and b, link #3 (creating c) fails, and the rollback's first
    // rename (putting b back; newest first) fails too.
    let fs = FaultFs::new(Arc::new(RealFs))
        .fail(Op::LinkTemp, 3, Fault::Errno(libc::EIO))
        .fail(Op::Rename, 3, Fault::Errno(libc::EIO));
    let e = replace_two_create_one(&fs, dir.path()).unwrap_err();
    let b = dir.path().join("b.txt");
    assert!(
        e.message.contains(&b.display().to_string()) && e.message.contains("may hold"),
        "{}",
        e.message
    );
    assert!(!e.message.contains("a.txt"), "{}", e.message);
    // a was put back; b holds its new content, as the message says; c was never created.
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"old a\n");
    assert_eq!(std::fs::read(&b).unwrap(), b"new b\n");
    assert!(!dir.path().join("c.txt").exists());
    assert!(temps(dir.path()).is_empty());
}

#[test]
fn batch_1_a_delete_parks_the_file_and_removes_it_when_all_is_in_place() {
    let dir = fixture();
    let b = dir.path().join("b.txt");
    let fs = FaultFs::new(Arc::new(RealFs));
    let lb = load(&fs, &b, 1 << 20).unwrap();
    let done = write_batch(
        &fs,
        &[BatchOp::Delete {
            target: &b,
            existing: &lb,
        }],
    )
    .unwrap();
    assert!(matches!(done.as_slice(), [BatchDone::Deleted { .. }]));
    assert!(!b.exists());
    assert!(temps(dir.path()).is_empty());
    // Moved aside (never replacing anything), then removed.
    let log = fs.log();
    let park = log.iter().position(|o| *o == Op::RenameNoreplace).unwrap();
    assert!(log[park..].contains(&Op::RemoveFile));

    // A later failure moves the parked file back: same inode, same bytes, same mode.
    let dir = fixture();
    let b = dir.path().join("b.txt");
    let c = dir.path().join("c.txt");
    use std::os::unix::fs::MetadataExt;
    let ino = std::fs::metadata(&b).unwrap().ino();
    // The delete parks b (rename_noreplace), then creating c (a link) fails.
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::LinkTemp, 1, Fault::Errno(libc::EIO));
    let lb = load(&fs, &b, 1 << 20).unwrap();
    let nc = [Chunk::Original(b"new c\n")];
    write_batch(
        &fs,
        &[
            BatchOp::Delete {
                target: &b,
                existing: &lb,
            },
            BatchOp::Write(WriteRequest {
                target: &c,
                chunks: &nc,
                existing: None,
                fsync: false,
                mode: None,
            }),
        ],
    )
    .unwrap_err();
    assert_eq!(std::fs::read(&b).unwrap(), b"old b\n");
    assert_eq!(std::fs::metadata(&b).unwrap().ino(), ino);
    assert_eq!(mode(&b), 0o755);
    assert!(!c.exists());
    assert!(temps(dir.path()).is_empty());
}

#[test]
fn batch_1_every_target_is_checked_before_the_first_rename() {
    // b changes after it was loaded: stale, and a — first in the batch — is untouched.
    let dir = fixture();
    let b = dir.path().join("b.txt");
    let b2 = b.clone();
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, nth| {
        // The second lock is b's, taken by the check of phase 2.
        if op == Op::Lock && nth == 2 {
            std::fs::write(&b2, "someone else\n").unwrap();
        }
    });
    let e = replace_two_create_one(&fs, dir.path()).unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"old a\n");
    assert_eq!(std::fs::read(&b).unwrap(), b"someone else\n");
    assert!(!dir.path().join("c.txt").exists());
    assert!(!fs.log().contains(&Op::Rename));
    assert!(temps(dir.path()).is_empty());

    // The path of a file to create is taken meanwhile: stale, nothing renamed.
    let dir = fixture();
    let c = dir.path().join("c.txt");
    let c2 = c.clone();
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, nth| {
        if op == Op::Lock && nth == 1 {
            std::fs::write(&c2, "theirs\n").unwrap();
        }
    });
    let e = replace_two_create_one(&fs, dir.path()).unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert_eq!(std::fs::read(&c).unwrap(), b"theirs\n");
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"old a\n");
    assert!(!fs.log().contains(&Op::Rename));
    assert!(temps(dir.path()).is_empty());
}

/// DISK-5: a batch that succeeds sweeps every directory it wrote into for the temp files of
/// dead writers, as a single write does; a live writer's temp file stays.
#[test]
fn disk_5_a_batch_sweeps_the_orphans_of_dead_writers_from_its_directories() {
    use crate::disk::orphans::tests::{dead_pid, orphan_name};
    let dir = fixture();
    let dead = dir.path().join(orphan_name(dead_pid()));
    let live = dir
        .path()
        .join(orphan_name(std::os::unix::process::parent_id()));
    std::fs::write(&dead, b"half").unwrap();
    std::fs::write(&live, b"half").unwrap();
    replace_two_create_one(&RealFs, dir.path()).unwrap();
    assert!(all_new(dir.path()));
    assert!(!dead.exists(), "the dead writer's temp file went");
    assert_eq!(std::fs::read(&live).unwrap(), b"half");
}

#[test]
fn batch_1_a_directory_is_synced_once_after_every_rename_into_it() {
    // DISK-6: the renames of a batch become durable with an fsync of their directory; one
    // fsync after the last rename covers them all, so three files in one directory cost one.
    let dir = fixture();
    let fs = crate::disk::RecordFs::new(Arc::new(RealFs));
    let done = replace_two_create_one(&fs, dir.path()).unwrap();
    assert!(all_new(dir.path()));
    assert!(temps(dir.path()).is_empty());
    assert!(done
        .iter()
        .all(|d| matches!(d, BatchDone::Written(w) if w.durable)));
    let calls = fs.calls();
    let syncs: Vec<usize> = calls
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == crate::disk::Call::SyncDir(dir.path().to_path_buf()))
        .map(|(i, _)| i)
        .collect();
    let last_rename = calls
        .iter()
        .rposition(|c| {
            matches!(
                c,
                crate::disk::Call::Rename { .. } | crate::disk::Call::Link { .. }
            )
        })
        .unwrap();
    assert_eq!(syncs.len(), 1, "{calls:?}");
    assert!(syncs[0] > last_rename, "{calls:?}");
}

/// Creates `n` new files in `dir` in one batch through a [`crate::disk::RecordFs`] and
/// returns the recorded calls.
fn create_many(dir: &Path, n: usize) -> Vec<crate::disk::Call> {
    let targets: Vec<_> = (0..n).map(|i| dir.join(format!("f{i}.txt"))).collect();
    let chunks: Vec<_> = (0..n)
        .map(|i| [Chunk::New(format!("file {i}\n").into_bytes())])
        .collect();
    let ops: Vec<_> = targets
        .iter()
        .zip(&chunks)
        .map(|(target, chunks)| {
            BatchOp::Write(WriteRequest {
                target,
                chunks,
                existing: None,
                fsync: false,
                mode: None,
            })
        })
        .collect();
    let fs = crate::disk::RecordFs::new(Arc::new(RealFs));
    write_batch(&fs, &ops).unwrap();
    for (i, t) in targets.iter().enumerate() {
        assert_eq!(std::fs::read(t).unwrap(), format!("file {i}\n").as_bytes());
    }
    assert!(temps(dir).is_empty());
    fs.calls()
}

/// BATCH-1: a batch of up to 64 files keeps each new content unnamed until it is put in
/// place, so a new file is linked straight to its name and never has a temp name; a larger
/// batch names each temp file as soon as it is written and lets its descriptor go (a
/// descriptor per file would run into the process's limit), then renames them in. Both end
/// with every file whole and no temp file left.
#[test]
fn batch_1_only_a_batch_of_more_than_64_files_names_its_temp_files_early() {
    use crate::disk::Call;
    let dir = tempfile::tempdir().unwrap();
    let small = create_many(dir.path(), 64);
    if !small
        .iter()
        .any(|c| matches!(c, Call::CreateUnnamed { .. }))
    {
        // No unnamed temp files on this file system: every temp file is named from the start.
        return;
    }
    let linked: Vec<&Path> = small
        .iter()
        .filter_map(|c| match c {
            Call::Link { path, .. } => Some(path.as_path()),
            _ => None,
        })
        .collect();
    assert_eq!(linked.len(), 64);
    assert!(linked
        .iter()
        .all(|p| !is_temp_name(&p.file_name().unwrap().to_string_lossy())));
    assert!(!small.iter().any(|c| matches!(c, Call::Rename { .. })));

    let dir = tempfile::tempdir().unwrap();
    let large = create_many(dir.path(), 65);
    let first_rename = large
        .iter()
        .position(|c| matches!(c, Call::Rename { .. }))
        .unwrap();
    let named_early = large[..first_rename]
        .iter()
        .filter(|c| matches!(c, Call::Link { path, .. } if is_temp_name(&path.file_name().unwrap().to_string_lossy())))
        .count();
    assert_eq!(named_early, 65);
    let renames = large
        .iter()
        .filter(|c| matches!(c, Call::Rename { replace: false, .. }))
        .count();
    assert_eq!(renames, 65);
}

/// BATCH-1, DISK-6: a batch that creates a file in directories that do not exist yet makes
/// them, and a fault at any call — before the renames or among them — takes them back with
/// everything else: the old file old, no new file, no new directory, no temp file.
#[test]
fn batch_1_a_failed_batch_takes_back_the_directories_it_made() {
    fn run(fs: &dyn Fs, dir: &Path) -> Result<Vec<BatchDone>, ToolError> {
        let (a, c) = (dir.join("a.txt"), dir.join("new/deeper/c.txt"));
        let la = load(fs, &a, 1 << 20).map_err(|_| stale("it could not be loaded"))?;
        let (na, nc) = ([Chunk::Original(b"new a\n")], [Chunk::Original(b"new c\n")]);
        let write = |target, chunks, existing| {
            BatchOp::Write(WriteRequest {
                target,
                chunks,
                existing,
                fsync: false,
                mode: None,
            })
        };
        write_batch(fs, &[write(&a, &na, Some(&la)), write(&c, &nc, None)])
    }
    let probe_dir = fixture();
    let probe = FaultFs::new(Arc::new(RealFs));
    run(&probe, probe_dir.path()).unwrap();
    assert_eq!(
        std::fs::read(probe_dir.path().join("new/deeper/c.txt")).unwrap(),
        b"new c\n"
    );
    let mut seen: HashMap<Op, u64> = HashMap::new();
    let mut failed_after_a_rename = 0;
    for op in probe.log() {
        let n = seen.entry(op).or_insert(0);
        *n += 1;
        let dir = fixture();
        let fs = FaultFs::new(Arc::new(RealFs)).fail(op, *n, Fault::Errno(libc::EIO));
        match run(&fs, dir.path()) {
            Ok(_) => {
                assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"new a\n");
                let c = std::fs::read(dir.path().join("new/deeper/c.txt")).unwrap();
                assert_eq!(c, b"new c\n", "{op:?} #{n}");
            }
            Err(e) => {
                let a = std::fs::read(dir.path().join("a.txt")).unwrap();
                assert_eq!(a, b"old a\n", "{op:?} #{n}: {}", e.message);
                assert!(
                    !dir.path().join("new").exists(),
                    "{op:?} #{n}: directory left"
                );
                if op == Op::LinkTemp || op == Op::Rename {
                    failed_after_a_rename += 1;
                }
            }
        }
        assert!(temps(dir.path()).is_empty(), "{op:?} #{n}: temp file left");
    }
    assert!(failed_after_a_rename > 0);
}

/// BATCH-1: the last look before the renames — that a new file's name is still free — is
/// refused when it cannot be made: an error other than "not found" is no proof that the name
/// is free, and the batch is taken back, every file old and no temp left.
#[test]
fn batch_1_a_new_file_whose_name_cannot_be_looked_at_is_refused() {
    let dir = fixture();
    let probe = FaultFs::new(Arc::new(RealFs));
    replace_two_create_one(&probe, dir.path()).unwrap();
    let log = probe.log();
    let first_rename = log.iter().position(|op| *op == Op::Rename).unwrap();
    // The new file is the batch's last: its look is the last `lstat` before the renames.
    let nth = log[..first_rename]
        .iter()
        .filter(|op| **op == Op::SymlinkMetadata)
        .count() as u64;
    assert!(nth > 0);
    let dir = fixture();
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::SymlinkMetadata, nth, Fault::Errno(libc::EIO));
    let e = replace_two_create_one(&fs, dir.path()).unwrap_err();
    assert_eq!(fs.injected(), 1);
    assert!(all_old(dir.path()), "{}", e.message);
    assert!(temps(dir.path()).is_empty());
}

/// DISK-6 / BATCH-1: a written file of a batch is durable only when fsync was on and its
/// directory's sync succeeded: with fsync off, or with the directory sync failing (EIO
/// injected), the batch succeeds and says it is not durable.
#[test]
fn disk_6_a_batch_is_durable_only_with_fsync_on_and_its_directory_synced() {
    let durable = |fs: &dyn Fs, fsync: bool| {
        let dir = fixture();
        let target = dir.path().join("new.txt");
        let chunks = [Chunk::Original(b"new\n")];
        let ops = [BatchOp::Write(WriteRequest {
            target: &target,
            chunks: &chunks,
            existing: None,
            fsync,
            mode: None,
        })];
        let done = write_batch(fs, &ops).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new\n");
        match done.as_slice() {
            [BatchDone::Written(w)] => w.durable,
            other => panic!("{other:?}"),
        }
    };
    assert!(durable(&RealFs, true));
    assert!(!durable(&RealFs, false));
    let failing = FaultFs::new(Arc::new(RealFs)).fail(Op::SyncDir, 1, Fault::Errno(libc::EIO));
    assert!(!durable(&failing, true));
    assert_eq!(failing.injected(), 1);
}
