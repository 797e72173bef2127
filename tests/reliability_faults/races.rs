//! SESSION-3 under races: the file deleted, replaced or modified by another process between the
//! checks and the write. Each call must be `stale`, and the other process's work must survive.
//!
//! The suite is one binary in modules by kind of fault; the scenarios (one tool call each, with
//! the tree it must produce) and their sandbox are shared from `main.rs`.

use crate::{code, rs, scenario, UPDATERS};
use editref::disk::{FaultFs, Op, RealFs};
use editref::{Config, Session};
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// What the races came to: races run, changes that really happened in the window, calls
/// refused with `stale`, and calls answered otherwise (each counted, so the report shows what
/// happened).
#[derive(Default)]
struct Races {
    runs: u64,
    staged: u64,
    stale: u64,
    wrong_code: Vec<String>,
}

/// Another process changes the file at the `n`-th call of `op`; the call must be `stale` and
/// the other process's work must survive untouched.
fn race(
    tally: &mut Races,
    name: &str,
    op: Op,
    n: u64,
    change: impl Fn(&Path, &Path) + Send + Sync + 'static,
    check: impl Fn(&Path, &Path),
) {
    let s = scenario(name);
    let dir = rs::sandbox();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(outside.join("secret.txt"), "outside\n").expect("write");
    for (name, text) in s.files {
        std::fs::write(root.join(name), text).expect("write fixture");
    }
    let config = || Config::new(&root).with_root(&root);
    let reader = Session::new(config());
    if let Some(p) = s.read {
        reader
            .call("Read", &json!({ "file_path": p }))
            .expect("Read");
    }
    let fired = Arc::new(AtomicBool::new(false));
    // Armed once the session exists: the hook fires at the n-th call of `op` *of the tool call*.
    let at = Arc::new(AtomicU64::new(u64::MAX));
    let (r2, o2, f2, at2) = (root.clone(), outside.clone(), fired.clone(), at.clone());
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |o, nth| {
        if o == op && nth == at2.load(Ordering::SeqCst) && !f2.swap(true, Ordering::SeqCst) {
            change(&r2, &o2);
        }
    });
    let session = Session::with_fs(config(), Arc::new(fs.clone()));
    session.set_read_state(reader.read_state());
    let base = fs.log().iter().filter(|o| **o == op).count() as u64;
    at.store(base + n, Ordering::SeqCst);
    let r = session.call(s.tool, &(s.input)());
    tally.runs += 1;
    assert!(fired.load(Ordering::SeqCst), "{name}: the change never ran");
    tally.staged += 1;
    if code(&r) == "stale" {
        tally.stale += 1;
    } else {
        tally
            .wrong_code
            .push(format!("{name} raced at {op:?}: {r:?}"));
    }
    check(&root, &outside);
    assert!(
        rs::residue(dir.path()).is_empty(),
        "{name} raced at {op:?}: residue {:?}",
        rs::residue(dir.path())
    );
}

fn target_of(name: &str) -> &'static str {
    match name {
        "notebook_edit" => "nb.ipynb",
        "write_create" => "sub/dir/new.txt",
        "edit_create" => "made.txt",
        _ => "f.txt",
    }
}

#[test]
fn changes_between_the_checks_and_the_write_are_stale() {
    let mut rec = rs::Record::new("faults", "races");
    let mut races = Races::default();
    // Both moments: right after validation (the temp file is about to be created) and at the
    // write-time lock (check 2 is about to run).
    for (op, n) in [(Op::CreateUnnamed, 1), (Op::Lock, 1)] {
        for name in UPDATERS {
            let t = target_of(name);
            // Deleted: stays deleted (never resurrected).
            race(
                &mut races,
                name,
                op,
                n,
                move |root, _| std::fs::remove_file(root.join(t)).expect("delete"),
                move |root, _| assert!(!root.join(t).exists(), "{t} came back"),
            );
            // Replaced by another file with the same bytes (D8: identity counts).
            race(
                &mut races,
                name,
                op,
                n,
                move |root, _| {
                    let bytes = std::fs::read(root.join(t)).expect("read");
                    std::fs::write(root.join("replacement"), bytes).expect("write");
                    std::fs::rename(root.join("replacement"), root.join(t)).expect("rename");
                },
                move |root, _| {
                    let want = scenario(name).files[0].1;
                    assert_eq!(std::fs::read_to_string(root.join(t)).expect("read"), want);
                },
            );
            // Modified in place by another writer.
            race(
                &mut races,
                name,
                op,
                n,
                move |root, _| {
                    std::fs::write(root.join(t), "someone else's work\n").expect("write")
                },
                move |root, _| {
                    assert_eq!(
                        std::fs::read_to_string(root.join(t)).expect("read"),
                        "someone else's work\n"
                    )
                },
            );
            // Replaced by a symlink to a file outside the root.
            race(
                &mut races,
                name,
                op,
                n,
                move |root, outside| {
                    std::fs::remove_file(root.join(t)).expect("delete");
                    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join(t))
                        .expect("symlink");
                },
                move |root, outside| {
                    assert!(std::fs::symlink_metadata(root.join(t))
                        .expect("lstat")
                        .file_type()
                        .is_symlink());
                    assert_eq!(
                        std::fs::read_to_string(outside.join("secret.txt")).expect("read"),
                        "outside\n"
                    );
                },
            );
        }
    }
    // A file created by someone else at the path being created, just before the new file is
    // linked to its name (renamed there, on a file system without unnamed files).
    for name in ["write_create", "edit_create"] {
        let t = target_of(name);
        race(
            &mut races,
            name,
            Op::LinkTemp,
            1,
            move |root, _| std::fs::write(root.join(t), "theirs\n").expect("write"),
            move |root, _| {
                assert_eq!(
                    std::fs::read_to_string(root.join(t)).expect("read"),
                    "theirs\n"
                )
            },
        );
    }
    rec.set("runs", races.runs)
        .set("races", races.staged)
        .set("refused_with_code", races.stale)
        .set("wrong_code", races.wrong_code.len() as u64);
    rec.write();
    assert!(
        races.wrong_code.is_empty(),
        "not stale: {:#?}",
        races.wrong_code
    );
}
