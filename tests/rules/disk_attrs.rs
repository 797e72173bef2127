//! DISK-1 and D35: a rewritten file keeps everything about it, not only its bytes and mode —
//! its extended attributes and its POSIX ACL — whichever tool rewrote it, Undo included; an
//! attribute that cannot be carried refuses the write with nothing written.
//!
//! These tests set `user.*` attributes and ACLs, which the file system of the temp directory
//! must support; where it does not, a test says so and returns early.

use crate::{sb, sb_undo, Sb};
use editref::api::ApplyPatchInput;
use editref::disk::{Fault, FaultFs, Op, RealFs};
use editref::{Code, Config, Session};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

const ACCESS: &str = "system.posix_acl_access";
const DEFAULT: &str = "system.posix_acl_default";
/// The id the ACL format stores for entries that name no user or group.
const UNDEFINED: u32 = u32::MAX;

/// A POSIX ACL in the kernel's extended-attribute form: a version-2 header, then entries of
/// (tag u16, perm u16, id u32), little-endian, sorted by tag then id.
fn acl(entries: &[(u16, u16, u32)]) -> Vec<u8> {
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|&(tag, _, id)| (tag, id));
    let mut blob = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in sorted {
        blob.extend_from_slice(&tag.to_le_bytes());
        blob.extend_from_slice(&perm.to_le_bytes());
        blob.extend_from_slice(&id.to_le_bytes());
    }
    blob
}

/// `user::rw-, user:<uid>:rw-, group::r--, mask::rw-, other::r--` (mode 0664).
fn acl_with_user(uid: u32) -> Vec<u8> {
    acl(&[
        (0x01, 6, UNDEFINED),
        (0x02, 6, uid),
        (0x04, 4, UNDEFINED),
        (0x10, 6, UNDEFINED),
        (0x20, 4, UNDEFINED),
    ])
}

fn get(path: &Path, name: &str) -> Option<Vec<u8>> {
    xattr::get(path, name).unwrap()
}

/// Sets `user.note=hello` and an ACL entry for uid 4242 on `name`; false (with the reason
/// printed) where the file system or the platform takes neither.
fn decorate(t: &Sb, name: &str) -> bool {
    let p = t.p(name);
    if let Err(e) = xattr::set(&p, "user.note", b"hello") {
        eprintln!("skipped: extended attributes are not supported here ({e})");
        return false;
    }
    if let Err(e) = xattr::set(&p, ACCESS, &acl_with_user(4242)) {
        eprintln!("skipped: POSIX ACLs are not supported here ({e})");
        return false;
    }
    true
}

/// Both attributes are on `name` exactly as [`decorate`] set them, with the mode they imply.
fn assert_decorated(t: &Sb, name: &str, after: &str) {
    use std::os::unix::fs::PermissionsExt;
    let p = t.p(name);
    assert_eq!(
        get(&p, "user.note").as_deref(),
        Some(&b"hello"[..]),
        "{after}"
    );
    assert_eq!(get(&p, ACCESS), Some(acl_with_user(4242)), "{after}");
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o664, "{after}");
}

#[test]
fn disk_1_an_edit_keeps_a_user_attribute_and_an_acl_entry() {
    let t = sb();
    t.put("f.txt", b"one\ntwo\n");
    if !decorate(&t, "f.txt") {
        return;
    }
    t.read("f.txt");
    t.edit("f.txt", "two", "2").unwrap();
    assert_eq!(t.get("f.txt"), b"one\n2\n");
    assert_decorated(&t, "f.txt", "Edit");
    t.assert_no_residue();
}

#[test]
fn disk_1_write_multi_edit_apply_patch_and_undo_keep_the_attributes() {
    let t = sb_undo();
    t.put("f.txt", b"a\nb\n");
    if !decorate(&t, "f.txt") {
        return;
    }
    t.read("f.txt");
    t.call("Write", json!({"file_path": "f.txt", "content": "x\ny\n"}))
        .unwrap();
    assert_eq!(t.get("f.txt"), b"x\ny\n");
    assert_decorated(&t, "f.txt", "Write");
    t.call(
        "MultiEdit",
        json!({"file_path": "f.txt", "edits": [
            {"old_string": "x", "new_string": "1"},
            {"old_string": "y", "new_string": "2"}]}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"1\n2\n");
    assert_decorated(&t, "f.txt", "MultiEdit");
    let body = "*** Begin Patch\n*** Update File: f.txt\n 1\n-2\n+two\n*** End Patch\n";
    t.s.apply_patch(ApplyPatchInput::new(body.to_string()))
        .unwrap();
    assert_eq!(t.get("f.txt"), b"1\ntwo\n");
    assert_decorated(&t, "f.txt", "apply_patch");
    t.call("Undo", json!({"file_path": "f.txt"})).unwrap();
    assert_eq!(t.get("f.txt"), b"1\n2\n");
    assert_decorated(&t, "f.txt", "Undo");
    t.assert_no_residue();
}

/// The temp file is made in the file's directory, so it is given that directory's default
/// ACL; a file that has no ACL of its own must not come out of an edit with one.
#[test]
fn disk_1_a_file_without_an_acl_gains_none_from_its_directorys_default() {
    let t = sb();
    t.put("d/f.txt", b"old\n");
    let default = acl(&[
        (0x01, 6, UNDEFINED),
        (0x02, 7, 4242),
        (0x04, 5, UNDEFINED),
        (0x10, 7, UNDEFINED),
        (0x20, 5, UNDEFINED),
    ]);
    if let Err(e) = xattr::set(t.p("d"), DEFAULT, &default) {
        eprintln!("skipped: POSIX default ACLs are not supported here ({e})");
        return;
    }
    let mode_before = std::fs::metadata(t.p("d/f.txt")).unwrap();
    t.read("d/f.txt");
    t.edit("d/f.txt", "old", "new").unwrap();
    assert_eq!(t.get("d/f.txt"), b"new\n");
    assert_eq!(get(&t.p("d/f.txt"), ACCESS), None);
    use std::os::unix::fs::MetadataExt;
    let after = std::fs::metadata(t.p("d/f.txt")).unwrap();
    assert_eq!(after.mode(), mode_before.mode());
    t.assert_no_residue();
}

/// A session on `t`'s root through `fs`, with `t`'s read state.
fn through(t: &Sb, fs: &FaultFs) -> Session {
    let s = Session::with_fs(
        Config::new(&t.root).with_root(&t.root),
        Arc::new(fs.clone()),
    );
    s.set_read_state(t.s.read_state());
    s
}

/// D35: an attribute the new copy cannot be given (no privilege for its namespace, a file
/// system that does not take it) refuses the write with `attribute_not_kept`, naming the
/// attribute; any other failure is `io`. Either way the file keeps its bytes and attributes
/// and no temp file is left.
#[test]
fn disk_1_an_attribute_that_cannot_be_carried_refuses_with_nothing_written() {
    for (errno, code) in [
        (libc::EPERM, Code::AttributeNotKept),
        (libc::EOPNOTSUPP, Code::AttributeNotKept),
        (libc::EIO, Code::Io),
    ] {
        let t = sb();
        t.put("f.txt", b"keep\n");
        if !decorate(&t, "f.txt") {
            return;
        }
        t.read("f.txt");
        let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::SetXattr, 1, Fault::Errno(errno));
        let s = through(&t, &fs);
        let err = s
            .call(
                "Edit",
                &json!({"file_path": "f.txt", "old_string": "keep", "new_string": "lost"}),
            )
            .unwrap_err();
        assert_eq!(err.code, code, "errno {errno}: {}", err.message);
        assert_eq!(fs.injected(), 1, "errno {errno}");
        assert!(err.message.contains("user.note") || err.message.contains(ACCESS));
        assert_eq!(t.get("f.txt"), b"keep\n", "errno {errno}");
        assert_decorated(&t, "f.txt", "the refusal");
        t.assert_no_residue();
    }
}

/// Reading the old file's attributes failing is an `io` refusal too, before anything is in
/// place.
#[test]
fn disk_1_attributes_that_cannot_be_read_refuse_with_nothing_written() {
    let t = sb();
    t.put("f.txt", b"keep\n");
    if !decorate(&t, "f.txt") {
        return;
    }
    t.read("f.txt");
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::Xattrs, 1, Fault::Errno(libc::EIO));
    let err = through(&t, &fs)
        .call("Write", &json!({"file_path": "f.txt", "content": "lost\n"}))
        .unwrap_err();
    assert_eq!(err.code, Code::Io, "{}", err.message);
    assert_eq!(t.get("f.txt"), b"keep\n");
    assert_decorated(&t, "f.txt", "the refusal");
    t.assert_no_residue();
}
