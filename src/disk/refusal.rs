//! The refusals a write returns, shared by every step of it (`atomic.rs`, `staged.rs`,
//! `batch.rs`): an I/O error with the step that failed, and `stale`.

use crate::error::{Code, ToolError};
use std::io;

/// An I/O error of step `what` as the refusal the model sees: an escape from the root is
/// `outside_root`, a denied permission `permission_denied`, anything else `io`; the message
/// says the file was left untouched.
pub(super) fn io_error(what: &str, e: &io::Error) -> ToolError {
    if crate::error::is_escape(e) {
        return ToolError::escaped(what);
    }
    let code = match e.kind() {
        io::ErrorKind::PermissionDenied => Code::PermissionDenied,
        _ => Code::Io,
    };
    ToolError::new(
        code,
        format!("Could not {what}: {e}. The file was left untouched."),
    )
}

/// The file changed (or its directory was swapped) while a call was working on it, after its
/// own checks had passed (SESSION-3): `what` says what happened, in words that fit after
/// "while this call was writing it,". Calls on one file take turns (SESSION-6), so this is never
/// a change made by editref in this process.
pub(super) fn stale(what: &str) -> ToolError {
    ToolError::new(
        Code::Stale,
        format!(
            "File has been modified since read: while this call was writing it, {what}. \
             Another program made that change; nothing was written. Read it again before \
             attempting to write it."
        ),
    )
}
