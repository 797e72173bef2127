//! Opening an existing text file for a change that is not a plain Edit: the checks every
//! writer shares (EDIT-1 steps 3, 5, 6, 8 and 9), in spec order, ending with the decoded
//! document.
//!
//! LineEdit, the text editor's `str_replace`/`insert` and the dialects that change several
//! files (`apply_patch`, `search_replace`) compute their replaced spans in their own way, but
//! must open files exactly as Edit does: same refusals, same codes, same read requirement.
//! They call [`open_text`], decode with [`Opened::document`], and write the rendered chunks
//! through the session ([`Session::write_file`] or [`Session::write_files`]).

use super::{decode_error, is_notebook, load, metadata_checks, not_found, stat};
use crate::disk::Loaded;
use crate::error::{msg, Code, ToolError, ToolResult};
use crate::session::{Resolved, Session};
use crate::text::Document;

/// What a change requires of the session's reads (SESSION-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadRule {
    /// A full, fresh Read of the file, as for Edit (LineEdit: line numbers only mean something
    /// against the text the model saw).
    Required,
    /// No Read needed: the call carries the text it replaces, which must be found in the file
    /// as it is (DIALECT-1). A Read the session did make must still be fresh (SESSION-2).
    IfRead,
}

/// An existing regular text file, checked and loaded for a change.
pub struct Opened {
    /// The resolved path.
    pub resolved: Resolved,
    /// The file's bytes, with the handle the write-time check locks.
    pub loaded: Loaded,
}

/// Resolves, checks and loads an existing file for a change. A missing file is
/// `file_not_found`; notebooks are refused with `use_notebook_edit`.
pub fn open_text(session: &Session, given: &str, rule: ReadRule) -> ToolResult<Opened> {
    let r = session.resolve(given)?;
    if !r.exists {
        return Err(not_found(session, &r));
    }
    let meta = stat(session, &r)?;
    metadata_checks(session, &r, &meta)?;
    if is_notebook(&r.lexical) || is_notebook(&r.target) {
        return Err(ToolError::new(
            Code::UseNotebookEdit,
            msg::USE_NOTEBOOK_EDIT,
        ));
    }
    let loaded = load(session, &r, session.config().max_edit_size)?;
    let opened = Opened {
        resolved: r,
        loaded,
    };
    let fingerprint = || {
        Document::decode(&opened.loaded.bytes)
            .ok()
            .map(|d| d.fingerprint())
    };
    match rule {
        ReadRule::Required => {
            session.check_fresh(&opened.resolved.target, &opened.loaded.meta, fingerprint)?
        }
        ReadRule::IfRead => session.check_fresh_if_read(
            &opened.resolved.target,
            &opened.loaded.meta,
            fingerprint,
        )?,
    }
    Ok(opened)
}

impl Opened {
    /// The file as text (TEXT-1): `encoding` or `binary` when it is not.
    pub fn document(&self) -> ToolResult<Document<'_>> {
        Document::decode(&self.loaded.bytes).map_err(|e| decode_error(e, &self.resolved.given))
    }
}
