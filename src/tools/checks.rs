//! The checks and refusals every tool shares, in the words the model will read: a missing
//! file with a near name, special files, directories, size, hard links, read-only modes, load
//! and decode failures mapped to their codes.
//!
//! Kept in one place so that the same condition gets the same code and message from every
//! tool, whatever order the tools run their steps in.

use crate::disk::{self, Kind, LoadError, Loaded, Meta};
use crate::error::{Code, ToolError, ToolResult};
use crate::session::{Resolved, Session};
use crate::text::DecodeError;
use std::path::Path;

/// `file_not_found` with the working directory and a near name when one exists.
pub(crate) fn not_found(session: &Session, r: &Resolved) -> ToolError {
    let mut message = format!(
        "File does not exist. Note: your current working directory is {}.",
        session.config().cwd.display()
    );
    if let Some(s) = suggestion(session, &r.lexical) {
        message.push_str(&format!(" Did you mean {s}?"));
    }
    ToolError::new(Code::FileNotFound, message)
}

/// A sibling that differs only in case or extension.
fn suggestion(session: &Session, path: &Path) -> Option<String> {
    let parent = path.parent()?;
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let stem = path.file_stem()?.to_string_lossy().to_lowercase();
    let names = session.fs().read_dir(parent).ok()?;
    let mut names: Vec<String> = names
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    names.sort();
    let pick = names
        .iter()
        .find(|n| n.to_lowercase() == name)
        .or_else(|| {
            names.iter().find(|n| {
                Path::new(n.as_str())
                    .file_stem()
                    .is_some_and(|s| s.to_string_lossy().to_lowercase() == stem)
            })
        })?;
    Some(parent.join(pick).display().to_string())
}

/// `lstat` of a resolved, existing target.
pub(crate) fn stat(session: &Session, r: &Resolved) -> ToolResult<Meta> {
    session
        .fs()
        .symlink_metadata(&r.target)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => not_found(session, r),
            std::io::ErrorKind::PermissionDenied => ToolError::new(
                Code::PermissionDenied,
                format!("Permission denied reading '{}': {e}.", r.given),
            ),
            _ => ToolError::io(&format!("Could not stat '{}'", r.given), &e),
        })
}

/// PATH-3: special files are never opened for writing.
pub(crate) fn refuse_special(r: &Resolved, meta: &Meta) -> ToolResult<()> {
    match meta.kind {
        Kind::Fifo | Kind::Socket | Kind::Device => Err(ToolError::new(
            Code::NotRegularFile,
            format!(
                "'{}' is not a regular file (it is a {}). Only regular files can be edited or written.",
                r.given,
                kind_name(meta.kind)
            ),
        )),
        _ => Ok(()),
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::File => "regular file",
        Kind::Dir => "directory",
        Kind::Symlink => "symbolic link",
        Kind::Fifo => "named pipe",
        Kind::Socket => "socket",
        Kind::Device => "device",
    }
}

/// EDIT-1 step 5: the metadata checks every writer runs on an existing file (also under
/// `dry_run`).
pub(crate) fn metadata_checks(session: &Session, r: &Resolved, meta: &Meta) -> ToolResult<()> {
    if meta.kind == Kind::Dir {
        return Err(ToolError::new(
            Code::IsDirectory,
            format!(
                "'{}' is a directory, not a file. Give the path of a file inside it.",
                r.given
            ),
        ));
    }
    refuse_special(r, meta)?;
    let limit = session.config().max_edit_size;
    if meta.len > limit {
        return Err(ToolError::new(
            Code::TooLarge,
            format!(
                "File is too large to edit ({}). Maximum editable file size is {}.",
                human_size(meta.len),
                human_size(limit)
            ),
        ));
    }
    if meta.nlink > 1 {
        return Err(ToolError::new(
            Code::HardLink,
            format!(
                "'{}' has {} hard links. Replacing it would split the links apart, so it was left untouched; edit it with a tool that writes in place, or remove the other links first.",
                r.given, meta.nlink
            ),
        ));
    }
    if meta.mode & 0o200 == 0 {
        return Err(ToolError::new(
            Code::PermissionDenied,
            format!(
                "'{}' is read-only (mode {:o}). It was left untouched; make it writable first if it really should change.",
                r.given, meta.mode
            ),
        ));
    }
    Ok(())
}

/// Loads a file for a writer, mapping failures to codes.
pub(crate) fn load(session: &Session, r: &Resolved, cap: u64) -> ToolResult<Loaded> {
    disk::load(session.fs(), &r.target, cap).map_err(|e| match e {
        LoadError::NotRegular(kind) => ToolError::new(
            Code::NotRegularFile,
            format!(
                "'{}' is a {}, not a regular file.",
                r.given,
                kind_name(kind)
            ),
        ),
        LoadError::TooLarge(n) => ToolError::new(
            Code::TooLarge,
            format!(
                "'{}' is too large ({}; the limit is {}).",
                r.given,
                human_size(n),
                human_size(cap)
            ),
        ),
        LoadError::Io(e) if e.kind() == std::io::ErrorKind::PermissionDenied => ToolError::new(
            Code::PermissionDenied,
            format!(
                "Permission denied reading '{}': {e}. The file was left untouched.",
                r.given
            ),
        ),
        LoadError::Io(e) if e.raw_os_error() == Some(libc::ELOOP) => ToolError::new(
            Code::Stale,
            format!(
                "'{}' was replaced by a symbolic link while it was being opened. Read it again.",
                r.given
            ),
        ),
        LoadError::Io(e) => ToolError::io(&format!("Could not read '{}'", r.given), &e),
    })
}

/// TEXT-1/TEXT-7 refusals.
pub(crate) fn decode_error(e: DecodeError, given: &str) -> ToolError {
    match e {
        DecodeError::Binary => ToolError::new(
            Code::Binary,
            format!("'{given}' looks like a binary file (it contains NUL bytes), so it was left untouched. Text tools cannot edit it."),
        ),
        DecodeError::Encoding(why) => ToolError::new(
            Code::Encoding,
            format!("'{given}' cannot be decoded without loss: {why}. The file was left untouched."),
        ),
    }
}

/// `encoding` for text the file's encoding cannot hold (D11, D14).
pub(crate) fn unrepresentable(c: char, enc: &str, given: &str) -> ToolError {
    ToolError::new(
        Code::Encoding,
        format!(
            "The new text contains {c:?} (U+{:04X}), which the file's encoding ({enc}) cannot represent. '{given}' was left untouched; use characters the encoding has.",
            c as u32
        ),
    )
}

/// `formatFileSize` style: bytes, then KB/MB/GB with one decimal.
pub(crate) fn human_size(n: u64) -> String {
    if n < 1024 {
        return format!("{n} bytes");
    }
    let units = ["KB", "MB", "GB", "TB"];
    let mut v = n as f64 / 1024.0;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s).to_string();
    format!("{s}{}", units[i])
}

/// Whether a path names a notebook.
pub(crate) fn is_notebook(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "ipynb")
}
