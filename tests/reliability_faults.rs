//! DISK-1, DISK-5 and SESSION-3 under injected faults, through the file-system seam
//! (`editref::disk::FaultFs` behind a library `Session`).
//!
//! Named cases pin the error code of each classic failure — ENOSPC, EIO on write and on fsync,
//! EACCES on the directory, a failing rename, and the file deleted, replaced or modified
//! between the checks and the write. The sweep then fails *every* file-system call that each
//! tool makes, one at a time, with EIO, ENOSPC, EACCES, a short write and a simulated crash
//! (that call and every later one fail, so no clean-up runs). After every fault: the result is
//! either the exact expected bytes or a coded error with every file as it was and no residue
//! (after a crash, old-or-new bytes and at most an orphan temp file); and the same session then
//! completes the call.

mod reliability_support;

use editref::disk::{Fault, FaultFs, Op, RealFs};
use editref::{Config, Session};
use reliability_support as rs;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

const TEXT: &str = "alpha\nbeta\ngamma\n";

const NOTEBOOK: &str = r#"{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "c1",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "1\n"
     ]
    }
   ],
   "source": [
    "print(1)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;

const NOTEBOOK_AFTER: &str = r#"{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "c1",
   "metadata": {},
   "outputs": [],
   "source": [
    "print(2)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;

/// One tool call on a small tree, with the tree it must produce.
struct Scenario {
    name: &'static str,
    /// Files present before the call.
    files: &'static [(&'static str, &'static str)],
    /// File read (in full) before the call, when the tool needs it.
    read: Option<&'static str>,
    tool: &'static str,
    input: fn() -> Value,
    /// Files after a successful call (all others unchanged).
    after: &'static [(&'static str, &'static str)],
    /// The file the call creates, if any (its new parent directories may outlive a failure).
    creates: Option<&'static str>,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "edit",
            files: &[("f.txt", TEXT)],
            read: Some("f.txt"),
            tool: "Edit",
            input: || json!({"file_path": "f.txt", "old_string": "beta", "new_string": "BETA"}),
            after: &[("f.txt", "alpha\nBETA\ngamma\n")],
            creates: None,
        },
        Scenario {
            name: "multi_edit",
            files: &[("f.txt", TEXT)],
            read: Some("f.txt"),
            tool: "MultiEdit",
            input: || {
                json!({"file_path": "f.txt", "edits": [
                    {"old_string": "alpha", "new_string": "ALPHA"},
                    {"old_string": "gamma\n", "new_string": "gamma\ndelta\n"}]})
            },
            after: &[("f.txt", "ALPHA\nbeta\ngamma\ndelta\n")],
            creates: None,
        },
        Scenario {
            name: "write_update",
            files: &[("f.txt", TEXT)],
            read: Some("f.txt"),
            tool: "Write",
            input: || json!({"file_path": "f.txt", "content": "replaced\n"}),
            after: &[("f.txt", "replaced\n")],
            creates: None,
        },
        Scenario {
            name: "write_create",
            files: &[("f.txt", TEXT)],
            read: None,
            tool: "Write",
            input: || json!({"file_path": "sub/dir/new.txt", "content": "created\n"}),
            after: &[("f.txt", TEXT), ("sub/dir/new.txt", "created\n")],
            creates: Some("sub/dir/new.txt"),
        },
        Scenario {
            name: "edit_create",
            files: &[("f.txt", TEXT)],
            read: None,
            tool: "Edit",
            input: || json!({"file_path": "made.txt", "old_string": "", "new_string": "made\n"}),
            after: &[("f.txt", TEXT), ("made.txt", "made\n")],
            creates: Some("made.txt"),
        },
        Scenario {
            name: "notebook_edit",
            files: &[("nb.ipynb", NOTEBOOK)],
            read: Some("nb.ipynb"),
            tool: "NotebookEdit",
            input: || json!({"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "print(2)"}),
            after: &[("nb.ipynb", NOTEBOOK_AFTER)],
            creates: None,
        },
    ]
}

/// A sandbox with the scenario's files, read as the scenario needs, and a session on a
/// `FaultFs` that has seen nothing but its own construction.
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    fs: FaultFs,
    session: Session,
    before: BTreeMap<PathBuf, rs::Node>,
}

fn setup(s: &Scenario) -> Setup {
    let dir = rs::sandbox();
    let root = dir.path().join("root");
    for (name, text) in s.files {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write fixture");
    }
    std::fs::create_dir_all(dir.path().join("outside")).expect("mkdir outside");
    std::fs::write(dir.path().join("outside/secret.txt"), "outside\n").expect("write");
    let config = || Config::new(&root).with_root(&root);
    let reader = Session::new(config());
    if let Some(p) = s.read {
        reader
            .call("Read", &json!({ "file_path": p }))
            .expect("the Read before the call");
    }
    let fs = FaultFs::new(Arc::new(RealFs));
    let session = Session::with_fs(config(), Arc::new(fs.clone()));
    session.set_read_state(reader.read_state());
    let before = rs::snapshot(dir.path());
    Setup {
        root: root.clone(),
        _dir: dir,
        fs,
        session,
        before,
    }
}

impl Setup {
    fn top(&self) -> &Path {
        self._dir.path()
    }

    /// Plans `fault` at the `n`-th (1-based) call of `op` made from now on.
    fn fail(&self, op: Op, n: u64, fault: Fault) {
        let base = self.fs.log().iter().filter(|o| **o == op).count() as u64;
        let _ = self.fs.clone().fail(op, base + n, fault);
    }

    fn call(&self, s: &Scenario) -> Result<Value, editref::ToolError> {
        self.session.call(s.tool, &(s.input)())
    }

    /// The differences from the tree before the call, ignoring new empty parent directories of
    /// a created file.
    fn changes(&self, s: &Scenario) -> Vec<String> {
        let after = rs::snapshot(self.top());
        let mut out = rs::diff(&self.before, &after);
        if let Some(c) = s.creates {
            let target = Path::new("root").join(c);
            out.retain(|line| {
                let Some(p) = line.strip_prefix("added: ") else {
                    return true;
                };
                let p = Path::new(p);
                !(target.starts_with(p) && p != target && after.get(p) == Some(&rs::Node::Dir))
            });
        }
        out
    }

    /// Asserts the tree is exactly the scenario's result.
    fn assert_done(&self, s: &Scenario, what: &str) {
        for (name, text) in s.after {
            assert_eq!(
                std::fs::read(self.root.join(name)).ok().as_deref(),
                Some(text.as_bytes()),
                "{what}: {name} does not hold the expected bytes"
            );
        }
        assert!(
            rs::residue(self.top()).is_empty(),
            "{what}: temp residue after success"
        );
        let after = rs::snapshot(self.top());
        for p in after.keys() {
            let known = self.before.contains_key(p)
                || s.creates
                    .is_some_and(|c| Path::new("root").join(c).starts_with(p));
            assert!(known, "{what}: unexpected entry {}", p.display());
        }
    }

    /// Asserts a refusal left everything as it was.
    fn assert_untouched(&self, s: &Scenario, what: &str) {
        let changes = self.changes(s);
        assert!(changes.is_empty(), "{what}: the tree changed: {changes:?}");
    }
}

fn code(r: &Result<Value, editref::ToolError>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => e.code.as_str(),
    }
}

fn scenario(name: &str) -> Scenario {
    scenarios()
        .into_iter()
        .find(|s| s.name == name)
        .expect("known scenario")
}

/// Injects one fault into the call of each named scenario and checks the code, that nothing
/// changed, and that the same session then completes the call. Returns how many calls ran and
/// how many faults fired.
fn named(names: &[&str], op: Op, n: u64, fault: Fault, want: &str) -> (u64, u64) {
    let mut fired = 0;
    for name in names {
        let s = scenario(name);
        let t = setup(&s);
        t.fail(op, n, fault);
        let r = t.call(&s);
        let what = format!("{name} with {fault:?} at {op:?} #{n}");
        assert_eq!(code(&r), want, "{what}: {r:?}");
        t.assert_untouched(&s, &what);
        fired += t.fs.injected();
        let again = t.call(&s);
        assert!(again.is_ok(), "{what}: the retry failed: {again:?}");
        t.assert_done(&s, &format!("{what}, retried"));
    }
    (names.len() as u64, fired)
}

const WRITERS: [&str; 6] = [
    "edit",
    "multi_edit",
    "write_update",
    "write_create",
    "edit_create",
    "notebook_edit",
];
const UPDATERS: [&str; 4] = ["edit", "multi_edit", "write_update", "notebook_edit"];

#[test]
fn named_faults_give_the_right_code_and_change_nothing() {
    let mut rec = rs::Record::new("faults", "named");
    let mut fired = 0;
    let mut calls = 0;
    let mut tally = |(c, f): (u64, u64)| {
        calls += c;
        fired += f;
    };
    // ENOSPC while writing the temp file, outright and after half the bytes.
    tally(named(
        &WRITERS,
        Op::WriteAll,
        1,
        Fault::Errno(libc::ENOSPC),
        "io",
    ));
    tally(named(&WRITERS, Op::WriteAll, 1, Fault::ShortWrite, "io"));
    // EIO on write and on fsync.
    tally(named(
        &WRITERS,
        Op::WriteAll,
        1,
        Fault::Errno(libc::EIO),
        "io",
    ));
    tally(named(&WRITERS, Op::Sync, 1, Fault::Errno(libc::EIO), "io"));
    // EACCES on the directory: the temp file cannot be created.
    tally(named(
        &WRITERS,
        Op::CreateExclusive,
        1,
        Fault::Errno(libc::EACCES),
        "permission_denied",
    ));
    // A failing rename (I/O error, busy, cross-device).
    for errno in [libc::EIO, libc::EBUSY, libc::EXDEV] {
        tally(named(&UPDATERS, Op::Rename, 1, Fault::Errno(errno), "io"));
        tally(named(
            &["write_create", "edit_create"],
            Op::RenameNoreplace,
            1,
            Fault::Errno(errno),
            "io",
        ));
    }
    // fchmod failing.
    tally(named(
        &WRITERS,
        Op::SetMode,
        1,
        Fault::Errno(libc::EPERM),
        "permission_denied",
    ));
    rec.set("calls", calls)
        .set("faults_injected", fired)
        .set("refused_with_code", calls);
    rec.write();
}

/// Another process changes the file at the `n`-th call of `op`; the call must be `stale` and
/// the other process's work must survive untouched.
fn race(
    name: &str,
    op: Op,
    n: u64,
    change: impl Fn(&Path, &Path) + Send + Sync + 'static,
    check: impl Fn(&Path, &Path),
) -> u64 {
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
    assert!(fired.load(Ordering::SeqCst), "{name}: the change never ran");
    assert_eq!(code(&r), "stale", "{name} raced at {op:?}: {r:?}");
    check(&root, &outside);
    assert!(
        rs::residue(dir.path()).is_empty(),
        "{name} raced at {op:?}: residue {:?}",
        rs::residue(dir.path())
    );
    1
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
    let mut races = 0;
    // Both moments: right after validation (the temp file is about to be created) and at the
    // write-time lock (check 2 is about to run).
    for (op, n) in [(Op::CreateExclusive, 1), (Op::Lock, 1)] {
        for name in UPDATERS {
            let t = target_of(name);
            // Deleted: stays deleted (never resurrected).
            races += race(
                name,
                op,
                n,
                move |root, _| std::fs::remove_file(root.join(t)).expect("delete"),
                move |root, _| assert!(!root.join(t).exists(), "{t} came back"),
            );
            // Replaced by another file with the same bytes (D8: identity counts).
            races += race(
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
            races += race(
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
            races += race(
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
    // A file created by someone else at the path being created, just before the rename.
    for name in ["write_create", "edit_create"] {
        let t = target_of(name);
        races += race(
            name,
            Op::RenameNoreplace,
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
    rec.set("races", races);
    rec.write();
}

/// Every call of every scenario, failed in every way, one at a time.
#[test]
fn every_call_failed_in_every_way_keeps_old_or_new() {
    let mut rec = rs::Record::new("faults", "sweep");
    let mut injected = 0u64;
    let mut runs = 0u64;
    let mut refused = 0u64;
    let mut absorbed = 0u64;
    let mut crashes = 0u64;
    let mut orphans = 0u64;
    let mut codes: BTreeSet<String> = BTreeSet::new();
    let mut lost = 0u64;
    let mut corrupted = 0u64;
    let mut wrong_code = 0u64;
    let mut failures: Vec<String> = Vec::new();
    for s in scenarios() {
        // The calls this scenario makes, from a clean run.
        let clean = setup(&s);
        let start = clean.fs.log().len();
        let r = clean.call(&s);
        assert!(r.is_ok(), "{}: clean run failed: {r:?}", s.name);
        clean.assert_done(&s, s.name);
        let log = clean.fs.log();
        for p in start..log.len() {
            let op = log[p];
            let n = log[start..=p].iter().filter(|o| **o == op).count() as u64;
            let mut faults = vec![
                Fault::Errno(libc::EIO),
                Fault::Errno(libc::ENOSPC),
                Fault::Errno(libc::EACCES),
                Fault::Crash,
            ];
            if op == Op::WriteAll {
                faults.push(Fault::ShortWrite);
            }
            for fault in faults {
                runs += 1;
                let t = setup(&s);
                t.fail(op, n, fault);
                let r = t.call(&s);
                injected += t.fs.injected();
                let what = format!("{}: {fault:?} at {op:?} #{n}", s.name);
                codes.insert(format!("{op:?}/{fault:?} -> {}", code(&r)));
                if fault == Fault::Crash {
                    crashes += 1;
                    // Old or new bytes per file; orphan temp files are the only residue.
                    for line in t.changes(&s) {
                        let rel = line.split_once(": ").map(|x| x.1).unwrap_or("");
                        let p = Path::new(rel);
                        let is_temp = p
                            .file_name()
                            .is_some_and(|n| editref::disk::is_temp_name(&n.to_string_lossy()));
                        let landed = s.after.iter().any(|(name, text)| {
                            Path::new("root").join(name) == p
                                && std::fs::read(t.top().join(p)).ok().as_deref()
                                    == Some(text.as_bytes())
                        });
                        if line.starts_with("added: ") && is_temp {
                            orphans += 1;
                        } else if !landed {
                            corrupted += 1;
                            failures.push(format!("{what}: {line}"));
                        }
                    }
                    continue;
                }
                match &r {
                    Ok(_) => {
                        absorbed += 1;
                        t.assert_done(&s, &what);
                    }
                    Err(e) => {
                        refused += 1;
                        let want = match fault {
                            Fault::Errno(libc::EACCES) => "permission_denied",
                            _ => "io",
                        };
                        if e.code.as_str() != want {
                            wrong_code += 1;
                            failures.push(format!("{what}: code {} (want {want})", e.code));
                        }
                        let changes = t.changes(&s);
                        if !changes.is_empty() {
                            lost += 1;
                            failures.push(format!("{what}: changed {changes:?}"));
                        }
                        match t.call(&s) {
                            Ok(_) => t.assert_done(&s, &format!("{what}, retried")),
                            Err(e) => {
                                lost += 1;
                                failures.push(format!("{what}: retry failed: {e}"))
                            }
                        }
                    }
                }
            }
        }
    }
    rec.set("runs", runs)
        .set("faults_injected", injected)
        .set("refused_with_code", refused)
        .set("absorbed", absorbed)
        .set("simulated_crashes", crashes)
        .set("crash_orphans", orphans)
        .set("lost", lost)
        .set("corrupted", corrupted)
        .set("wrong_code", wrong_code);
    rec.write();
    if std::env::var_os("EDITREF_RELIABILITY_VERBOSE").is_some() {
        for c in &codes {
            eprintln!("{c}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
