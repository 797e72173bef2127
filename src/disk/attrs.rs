//! A file's extended attributes carried to the inode that replaces it (DISK-1, D35).
//!
//! A rename puts a new inode at the path, and a new inode starts with the attributes its
//! creation gave it, not the old file's: a `user.*` note, an SELinux label (`security.*`), a
//! POSIX ACL (`system.posix_acl_access`) would be lost, or one inherited from the directory's
//! default ACL gained, where a tool that rewrites the file in place keeps them. So before the
//! new content is put in place, its temp file is given exactly the attributes the old file
//! has: those it lacks are set, those it has that the old file does not are removed, those
//! equal on both are left alone (an SELinux label the policy already gave it needs no
//! privilege to keep). All of it goes through the descriptors, since the temp file may have no
//! name. An attribute that cannot be carried refuses the write with `attribute_not_kept`
//! before anything is in place: dropping it silently is what the rule forbids.

use super::fs::FileHandle;
use super::refusal::io_error;
use crate::error::{Code, ToolError};
use std::ffi::{OsStr, OsString};
use std::io;

/// One change to the temp file's attributes.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step<'a> {
    /// Set `name` to `value` (missing on the temp file, or different there).
    Set(&'a OsStr, &'a [u8]),
    /// Remove `name` (on the temp file — inherited or given at creation — but not on the old
    /// file).
    Remove(&'a OsStr),
}

/// What turns the temp file's attributes `present` into the old file's `wanted`.
pub(super) fn plan<'a>(
    wanted: &'a [(OsString, Vec<u8>)],
    present: &'a [(OsString, Vec<u8>)],
) -> Vec<Step<'a>> {
    let value = |all: &'a [(OsString, Vec<u8>)], name: &OsStr| {
        all.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    };
    let mut steps: Vec<Step<'a>> = present
        .iter()
        .filter(|(n, _)| value(wanted, n).is_none())
        .map(|(n, _)| Step::Remove(n))
        .collect();
    steps.extend(
        wanted
            .iter()
            .filter(|(n, v)| value(present, n) != Some(v))
            .map(|(n, v)| Step::Set(n, v)),
    );
    steps
}

/// Whether an error listing a file's attributes means only that its file system keeps none
/// (or this platform cannot read them): then there is nothing to carry.
fn none_kept(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
        || e.raw_os_error()
            .is_some_and(|n| n == libc::ENOTSUP || n == libc::EOPNOTSUPP)
}

/// Whether a refused set or removal means the attribute cannot be carried here, for a reason
/// that trying again will not change: no privilege for its namespace (EPERM, EACCES — e.g.
/// `security.capability` or `trusted.*` without the capability), a file system or namespace
/// that does not take it (ENOTSUP, EINVAL), no room for it (ENOSPC, E2BIG, ERANGE). Anything
/// else is an ordinary I/O failure.
pub(super) fn uncarriable(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
        || none_kept(e)
        || matches!(
            e.raw_os_error(),
            Some(
                libc::EPERM
                    | libc::EACCES
                    | libc::EINVAL
                    | libc::ENOSPC
                    | libc::E2BIG
                    | libc::ERANGE
            )
        )
}

/// The `attribute_not_kept` refusal for attribute `name`, which could not be `done` (a clause
/// that follows "could not be") for reason `e`.
pub(super) fn not_kept(name: &OsStr, done: &str, e: &io::Error) -> ToolError {
    ToolError::new(
        Code::AttributeNotKept,
        format!(
            "Cannot write this file safely: the extended attribute '{}' could not be {done} \
             ({e}), and replacing the file would change its attributes. Nothing was written; \
             the file was left as it was. Ask the user to make this change, or to give \
             editref the privilege to set that attribute.",
            name.to_string_lossy()
        ),
    )
}

/// What could not be done to an attribute the new copy must have.
const SET: &str = "given to the new copy of the file";
/// What could not be done to one it must not have.
const REMOVE: &str =
    "removed from the new copy of the file (it was given it at creation; the original lacks it)";

/// The attributes of `file`; none where its file system keeps none.
fn listed(file: &dyn FileHandle, whose: &str) -> Result<Vec<(OsString, Vec<u8>)>, ToolError> {
    match file.xattrs() {
        Ok(all) => Ok(all),
        Err(e) if none_kept(&e) => Ok(Vec::new()),
        Err(e) => Err(io_error(
            &format!("read the extended attributes of {whose}"),
            &e,
        )),
    }
}

/// Gives the temp file `to` exactly the extended attributes of the loaded file `from` (see the
/// module documentation). Called before the mode is set: setting an ACL rewrites the mode's
/// group bits, and the mode set last is the old file's own.
pub(super) fn carry(from: &dyn FileHandle, to: &dyn FileHandle) -> Result<(), ToolError> {
    let wanted = listed(from, "the file")?;
    let present = listed(to, "the new copy")?;
    for step in plan(&wanted, &present) {
        let (name, done, result) = match step {
            Step::Set(name, value) => (name, SET, to.set_xattr(name, value)),
            Step::Remove(name) => (name, REMOVE, to.remove_xattr(name)),
        };
        if let Err(e) = result {
            if uncarriable(&e) {
                return Err(not_kept(name, done, &e));
            }
            return Err(io_error(
                &format!("carry the extended attribute '{}'", name.to_string_lossy()),
                &e,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "attrs_tests.rs"]
mod tests;
