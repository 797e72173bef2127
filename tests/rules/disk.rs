//! DISK-1..6 (SPEC §10, writing to disk): atomic replacement, symlinks, hard links, read-only
//! files, orphan temp files, fsync.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::disk::{Fault, FaultFs, Op, RealFs};
use editref::{Code, Config, Session};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

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
