//! The refusals a write returns, shared by every step of it (`atomic.rs`, `staged.rs`,
//! `batch.rs`): an I/O error with the step that failed, and `stale`.

use crate::error::{msg, Code, ToolError};
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

/// The file changed (or its directory was swapped) between the read and the write.
pub(super) fn stale() -> ToolError {
    ToolError::new(Code::Stale, msg::STALE)
}
