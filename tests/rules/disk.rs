//! DISK-1..6 (SPEC §10, writing to disk): atomic replacement, symlinks, hard links, read-only
//! files, orphan temp files, fsync.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb, sb_with};
use editref::{Code, Config, Session};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

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

#[test]
fn disk_6_fsync_off_is_reported() {
    let t = sb_with(|mut c| {
        c.fsync = false;
        c
    });
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let out = t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(out["durable"], false);
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    assert!(t.edit("f.txt", "a", "b").unwrap().get("durable").is_none());
    // A directory sync that fails after the rename: the edit is in place, but not durable.
    use editref::disk::{Fault, FaultFs, Op, RealFs};
    let fs =
        FaultFs::new(std::sync::Arc::new(RealFs)).fail(Op::SyncDir, 1, Fault::Errno(libc::EIO));
    let s = Session::with_fs(Config::new(&t.root).one_shot(), std::sync::Arc::new(fs));
    let out = s
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "b", "new_string": "c"}),
        )
        .unwrap();
    assert_eq!(out["durable"], false);
    assert_eq!(t.get("f.txt"), b"c\n");
    t.assert_no_residue();
}
