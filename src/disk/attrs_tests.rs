//! D35: which attributes a replacement carries, and what one that cannot be carried does.

use super::*;
use crate::disk::{Fault, FaultFs, Fs, Op, RealFs};
use std::sync::Arc;

fn attrs(list: &[(&str, &[u8])]) -> Vec<(OsString, Vec<u8>)> {
    list.iter()
        .map(|(n, v)| (OsString::from(n), v.to_vec()))
        .collect()
}

/// Every attribute of the old file that the new copy lacks or holds with another value is
/// set; one the new copy holds equal is left alone (an SELinux label the policy already gave
/// needs no privilege to keep); one the old file lacks — an ACL inherited from the directory's
/// default — is removed. Namespaces are not told apart: what the process can list, it carries.
#[test]
fn the_plan_sets_what_differs_removes_what_the_old_file_lacks_and_keeps_what_is_equal() {
    let wanted = attrs(&[
        ("user.note", b"hello"),
        ("security.selinux", b"user_u:object_r:home_t:s0"),
        ("trusted.x", b"1"),
        ("system.posix_acl_access", b"\x02\0\0\0"),
    ]);
    let present = attrs(&[
        ("security.selinux", b"user_u:object_r:home_t:s0"),
        ("trusted.x", b"2"),
        ("user.inherited", b"?"),
    ]);
    let steps = plan(&wanted, &present);
    assert_eq!(
        steps,
        [
            Step::Remove(OsStr::new("user.inherited")),
            Step::Set(OsStr::new("user.note"), b"hello"),
            Step::Set(OsStr::new("trusted.x"), b"1"),
            Step::Set(OsStr::new("system.posix_acl_access"), b"\x02\0\0\0"),
        ]
    );
    assert!(plan(&wanted, &wanted).is_empty());
    assert!(plan(&[], &[]).is_empty());
}

/// A set refused for want of privilege, support or room is `attribute_not_kept`; a failing
/// disk is an I/O error like any other.
#[test]
fn privilege_support_and_room_make_an_attribute_uncarriable_and_nothing_else_does() {
    for errno in [
        libc::EPERM,
        libc::EACCES,
        libc::ENOTSUP,
        libc::EOPNOTSUPP,
        libc::EINVAL,
        libc::ENOSPC,
        libc::E2BIG,
        libc::ERANGE,
    ] {
        assert!(uncarriable(&io::Error::from_raw_os_error(errno)), "{errno}");
    }
    for errno in [libc::EIO, libc::EBADF, libc::EROFS] {
        assert!(
            !uncarriable(&io::Error::from_raw_os_error(errno)),
            "{errno}"
        );
    }
    let err = not_kept(
        OsStr::new("security.capability"),
        SET,
        &io::Error::from_raw_os_error(libc::EPERM),
    );
    assert_eq!(err.code, Code::AttributeNotKept);
    assert!(
        err.message.contains("'security.capability'"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("Nothing was written"),
        "{}",
        err.message
    );
}

/// On real files: the new copy ends with exactly the old file's attributes; a refused set
/// stops at once with the refusal naming the attribute.
#[test]
fn carry_gives_the_new_copy_exactly_the_old_files_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    std::fs::write(&old, b"o").unwrap();
    std::fs::write(&new, b"n").unwrap();
    if let Err(e) = xattr::set(&old, "user.note", b"hello") {
        eprintln!("skipped: extended attributes are not supported here ({e})");
        return;
    }
    xattr::set(&new, "user.stray", b"x").unwrap();
    let from = RealFs.open_read(&old).unwrap();
    let to = RealFs.open_read(&new).unwrap();
    carry(from.as_ref(), to.as_ref()).unwrap();
    let names: Vec<_> = xattr::list(&new).unwrap().collect();
    assert_eq!(names, [OsString::from("user.note")]);
    assert_eq!(xattr::get(&new, "user.note").unwrap().unwrap(), b"hello");

    xattr::set(&old, "user.more", b"m").unwrap();
    let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::SetXattr, 1, Fault::Errno(libc::EPERM));
    let to = fs.open_read(&new).unwrap();
    let err = carry(from.as_ref(), to.as_ref()).unwrap_err();
    assert_eq!(err.code, Code::AttributeNotKept);
    assert!(err.message.contains("'user.more'"), "{}", err.message);
    assert_eq!(xattr::get(&new, "user.more").unwrap(), None);
}
