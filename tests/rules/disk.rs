//! DISK-1..6 (SPEC §10, writing to disk): atomic replacement, symlinks, hard links, read-only
//! files, orphan temp files, fsync.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::disk::{is_temp_name, Fault, FaultFs, Op, RealFs};
use editref::{Code, Config, Session};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};

#[test]
fn disk_1_mode_kept_no_temp_left() {
    let t = sb();
    t.put("run.sh", b"echo a\n");
    std::fs::set_permissions(t.p("run.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    t.read("run.sh");
    t.edit("run.sh", "a", "b").unwrap();
    assert_eq!(t.get("run.sh"), b"echo b\n");
    assert_eq!(
        std::fs::metadata(t.p("run.sh"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o751
    );
    t.assert_no_residue();
}

#[test]
fn disk_2_symlinks_stay_links() {
    let t = sb();
    t.put("real/target.txt", b"a\n");
    std::os::unix::fs::symlink("real/target.txt", t.p("link.txt")).unwrap();
    std::os::unix::fs::symlink("link.txt", t.p("chain.txt")).unwrap();
    t.read("chain.txt");
    t.edit("chain.txt", "a", "b").unwrap();
    assert!(std::fs::symlink_metadata(t.p("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::symlink_metadata(t.p("chain.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(t.get("real/target.txt"), b"b\n");
}

#[test]
fn disk_3_hard_links_refused() {
    let t = sb();
    t.put("a.txt", b"a\n");
    std::fs::hard_link(t.p("a.txt"), t.p("b.txt")).unwrap();
    t.read("a.txt");
    t.refused(
        "a.txt",
        Code::HardLink,
        "Edit",
        json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(t.get("b.txt"), b"a\n");
}

#[test]
fn disk_4_read_only_refused() {
    let t = sb();
    t.put("ro.txt", b"a\n");
    std::fs::set_permissions(t.p("ro.txt"), std::fs::Permissions::from_mode(0o444)).unwrap();
    t.read("ro.txt");
    t.refused(
        "ro.txt",
        Code::PermissionDenied,
        "Edit",
        json!({"file_path": "ro.txt", "old_string": "a", "new_string": "b"}),
    );
    t.refused(
        "ro.txt",
        Code::PermissionDenied,
        "Write",
        json!({"file_path": "ro.txt", "content": "b"}),
    );
}

#[test]
fn disk_5_orphan_temp_files_are_never_read_back() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.put(".f.txt.editref-1-deadbeef.tmp", b"half");
    t.read("f.txt");
    t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
    assert_eq!(t.get(".f.txt.editref-1-deadbeef.tmp"), b"half");
}

/// A PID that is no live process: that of a child that has exited and been waited for.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn disk_5_orphans_of_dead_writers_are_removed_by_the_next_edit() {
    let t = sb();
    let dead = format!(".f.txt.editref-{}-0badf00d.tmp", dead_pid());
    let dead_elsewhere = format!("sub/.g.txt.editref-{}-0badf00d.tmp", dead_pid());
    let live = format!(
        ".f.txt.editref-{}-0badf00d.tmp",
        std::os::unix::process::parent_id()
    );
    let parked = format!(".f.txt.editref-{}-0badf00d.parked.tmp", dead_pid());
    t.put("f.txt", b"a\n");
    for name in [&dead, &dead_elsewhere, &live, &parked] {
        t.put(name, b"half");
    }
    t.read("f.txt");
    t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
    assert!(!t.p(&dead).exists(), "the dead writer's orphan stayed");
    // Another directory is not this write's business; a live writer's temp file and a
    // batch's parked file (the only copy of a file's old content) are never touched.
    for name in [&dead_elsewhere, &live, &parked] {
        assert_eq!(t.get(name), b"half", "{name}");
    }
}

#[test]
fn disk_5_a_temp_file_whose_lock_is_held_stays() {
    use std::os::unix::io::AsRawFd;
    let t = sb();
    let name = format!(".f.txt.editref-{}-0badf00d.tmp", dead_pid());
    t.put("f.txt", b"a\n");
    t.put(&name, b"half");
    // A writer in another PID namespace: its PID means nothing here, its lock does.
    let held = std::fs::File::open(t.p(&name)).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    t.read("f.txt");
    t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
    assert_eq!(t.get(&name), b"half");
    drop(held);
    t.edit("f.txt", "b", "c").unwrap();
    assert_eq!(t.get("f.txt"), b"c\n");
    assert!(
        !t.p(&name).exists(),
        "the orphan stayed once its lock was free"
    );
}

/// A session on `t`'s root through `fs`, with `t`'s read state.
fn through(t: &crate::Sb, fs: &FaultFs) -> Session {
    let s = Session::with_fs(
        Config::new(&t.root).with_root(&t.root),
        Arc::new(fs.clone()),
    );
    s.set_read_state(t.s.read_state());
    s
}

/// The names in `dir` with the temp-file shape.
fn temps_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| is_temp_name(n))
        .collect()
}

#[test]
fn disk_5_no_temp_file_has_a_name_while_the_content_is_written() {
    for tool in ["Edit", "Write", "Write new"] {
        let t = sb();
        t.put("f.txt", b"a\n");
        t.read("f.txt");
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let (seen2, root) = (seen.clone(), t.root.clone());
        let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, _| {
            if matches!(op, Op::WriteAll | Op::Sync | Op::SetMode) {
                seen2.lock().unwrap().extend(temps_in(&root));
            }
        });
        let s = through(&t, &fs);
        let (input, file, want) = match tool {
            "Edit" => (
                json!({"tool": "Edit", "file_path": "f.txt", "old_string": "a", "new_string": "b"}),
                "f.txt",
                &b"b\n"[..],
            ),
            "Write" => (
                json!({"tool": "Write", "file_path": "f.txt", "content": "w\n"}),
                "f.txt",
                &b"w\n"[..],
            ),
            _ => (
                json!({"tool": "Write", "file_path": "n.txt", "content": "n\n"}),
                "n.txt",
                &b"n\n"[..],
            ),
        };
        let name = input["tool"].as_str().unwrap().to_string();
        let mut input = input;
        input.as_object_mut().unwrap().remove("tool");
        s.call(&name, &input).unwrap();
        assert_eq!(t.get(file), want, "{tool}");
        assert!(fs.log().contains(&Op::CreateUnnamed), "{tool}");
        assert!(!fs.log().contains(&Op::CreateExclusive), "{tool}");
        assert_eq!(*seen.lock().unwrap(), Vec::<String>::new(), "{tool}");
        t.assert_no_residue();

        // Killed while writing: nothing was named, so nothing is left.
        t.put("f.txt", b"a\n");
        let _ = std::fs::remove_file(t.p("n.txt"));
        t.read("f.txt");
        let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::WriteAll, 1, Fault::Crash);
        let s = through(&t, &fs);
        assert!(s.call(&name, &input).is_err(), "{tool}");
        assert!(fs.crashed());
        assert_eq!(t.get("f.txt"), b"a\n", "{tool}");
        assert!(!t.p("n.txt").exists(), "{tool}");
        t.assert_no_residue();
    }
}

#[test]
fn disk_5_without_unnamed_files_a_named_temp_file_is_the_fallback() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (seen2, root) = (seen.clone(), t.root.clone());
    let fs = FaultFs::new(Arc::new(RealFs))
        .fail(Op::CreateUnnamed, 1, Fault::Errno(libc::EOPNOTSUPP))
        .fail(Op::CreateUnnamed, 2, Fault::Errno(libc::EOPNOTSUPP))
        .with_hook(move |op, _| {
            if op == Op::WriteAll {
                seen2.lock().unwrap().extend(temps_in(&root));
            }
        });
    let s = through(&t, &fs);
    s.call(
        "Edit",
        &json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
    s.call("Write", &json!({"file_path": "n.txt", "content": "n\n"}))
        .unwrap();
    assert_eq!(t.get("n.txt"), b"n\n");
    assert_eq!(
        fs.log()
            .iter()
            .filter(|o| **o == Op::CreateExclusive)
            .count(),
        2
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        2,
        "the fallback writes a named file"
    );
    t.assert_no_residue();
    // Another failure of the unnamed create is the write's error, not a fallback.
    t.read("f.txt");
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::CreateUnnamed, 1, Fault::Errno(libc::EACCES));
    let e = through(&t, &fs)
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "b", "new_string": "c"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::PermissionDenied);
    assert_eq!(t.get("f.txt"), b"b\n");
    t.assert_no_residue();
}

/// A session on `root` whose file system records every operation, with `fs` as planned.
fn logged(root: &std::path::Path, fsync: bool, fs: FaultFs) -> Session {
    let mut c = Config::new(root).one_shot();
    c.fsync = fsync;
    Session::with_fs(c, Arc::new(fs))
}

fn edit_json(old: &str, new: &str) -> serde_json::Value {
    json!({"file_path": "f.txt", "old_string": old, "new_string": new})
}

/// DISK-6 with D12 and DISK-1: fsync off writes the new bytes without a single fsync and says
/// `durable: false`; fsync on syncs the temp file before the rename and the directory after
/// it, and says nothing; a directory sync that fails after the rename leaves the new bytes in
/// place and says `durable: false`.
#[test]
fn disk_6_fsync_off_is_reported() {
    let t = sb();
    t.put("f.txt", b"a\n");

    // fsync off: the edit lands, no fsync of any kind, and the result says so.
    let fs = FaultFs::new(Arc::new(RealFs));
    let out = logged(&t.root, false, fs.clone())
        .call("Edit", &edit_json("a", "b"))
        .unwrap();
    assert_eq!(out["durable"], false);
    assert_eq!(t.get("f.txt"), b"b\n");
    let log = fs.log();
    assert!(log.contains(&Op::Rename), "{log:?}");
    assert!(
        !log.contains(&Op::Sync),
        "fsync off, yet a file sync: {log:?}"
    );
    assert!(
        !log.contains(&Op::SyncDir),
        "fsync off, yet a dir sync: {log:?}"
    );
    t.assert_no_residue();

    // fsync on: temp file synced before the rename, directory synced after it.
    let fs = FaultFs::new(Arc::new(RealFs));
    let out = logged(&t.root, true, fs.clone())
        .call("Edit", &edit_json("b", "c"))
        .unwrap();
    assert!(out.get("durable").is_none(), "{out}");
    assert_eq!(t.get("f.txt"), b"c\n");
    let log = fs.log();
    let at = |op: Op| log.iter().position(|o| *o == op);
    let rename = at(Op::Rename).expect("a rename");
    assert!(at(Op::Sync).is_some_and(|i| i < rename), "{log:?}");
    assert!(
        log[rename..].contains(&Op::SyncDir),
        "no directory sync after the rename: {log:?}"
    );
    t.assert_no_residue();

    // The directory sync after the rename fails: the edit is in place, but not durable.
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::SyncDir, 1, Fault::Errno(libc::EIO));
    let out = logged(&t.root, true, fs.clone())
        .call("Edit", &edit_json("c", "d"))
        .unwrap();
    assert_eq!(out["durable"], false);
    assert_eq!(fs.injected(), 1, "the directory sync was never tried");
    assert_eq!(t.get("f.txt"), b"d\n");
    t.assert_no_residue();
}
