//! Applying patches on real files: the checks that need resolved paths and the file system
//! (APPLY-12, APPLY-14, APPLY-16). Each refusal leaves every file as it was.

use crate::api::ApplyPatchInput;
use crate::error::Code;
use crate::{Config, Session};
use std::path::PathBuf;

fn session() -> (tempfile::TempDir, PathBuf, Session) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let s = Session::new(Config::new(&root).with_root(&root));
    (dir, root, s)
}

fn patch(body: &str, dry_run: bool) -> ApplyPatchInput {
    ApplyPatchInput {
        input: format!("*** Begin Patch\n{body}*** End Patch\n"),
        dry_run,
    }
}

#[test]
fn apply_16_one_file_twice_is_refused_under_dry_run_too() {
    let (_d, root, s) = session();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    for dry_run in [true, false] {
        let body = "*** Update File: a.txt\n-one\n+uno\n*** Delete File: ./a.txt\n";
        let err = s.apply_patch(patch(body, dry_run)).unwrap_err();
        assert_eq!(err.code, Code::InvalidPatch, "{}", err.message);
        assert_eq!(err.fields["line"], 5);
        assert_eq!(err.fields["earlier_line"], 2);
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"one\ntwo\n");
    }
}

#[cfg(unix)]
#[test]
fn apply_12_delete_of_a_symlink_is_refused_and_both_stay() {
    let (_d, root, s) = session();
    std::fs::write(root.join("real.txt"), "kept\n").unwrap();
    std::os::unix::fs::symlink("real.txt", root.join("link.txt")).unwrap();
    let err = s
        .apply_patch(patch("*** Delete File: link.txt\n", false))
        .unwrap_err();
    assert_eq!(err.code, Code::NotRegularFile, "{}", err.message);
    assert_eq!(std::fs::read(root.join("real.txt")).unwrap(), b"kept\n");
    let link = std::fs::symlink_metadata(root.join("link.txt")).unwrap();
    assert!(link.file_type().is_symlink());
}

#[cfg(unix)]
#[test]
fn apply_14_move_of_a_symlink_is_refused_and_nothing_is_created() {
    let (_d, root, s) = session();
    std::fs::write(root.join("real.txt"), "a\nb\n").unwrap();
    std::os::unix::fs::symlink("real.txt", root.join("link.txt")).unwrap();
    let body = "*** Update File: link.txt\n*** Move to: moved.txt\n@@\n-a\n+A\n";
    let err = s.apply_patch(patch(body, false)).unwrap_err();
    assert_eq!(err.code, Code::NotRegularFile, "{}", err.message);
    assert_eq!(std::fs::read(root.join("real.txt")).unwrap(), b"a\nb\n");
    assert!(!root.join("moved.txt").exists());
    assert!(std::fs::symlink_metadata(root.join("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[cfg(unix)]
#[test]
fn apply_13_update_through_a_symlink_changes_the_target_and_keeps_the_link() {
    let (_d, root, s) = session();
    std::fs::write(root.join("real.txt"), "a\nb\n").unwrap();
    std::os::unix::fs::symlink("real.txt", root.join("link.txt")).unwrap();
    s.apply_patch(patch("*** Update File: link.txt\n-a\n+A\n", false))
        .unwrap();
    assert_eq!(std::fs::read(root.join("real.txt")).unwrap(), b"A\nb\n");
    assert!(std::fs::symlink_metadata(root.join("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
}
