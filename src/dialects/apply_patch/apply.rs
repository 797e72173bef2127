//! Applying a parsed patch to the files (APPLY-10..20): every operation is opened, checked and
//! computed in memory, in patch order; only when all of them can be applied are the files
//! written, as one unit (BATCH-1). Codex applies file by file and leaves the files before a
//! failing one changed; editref leaves all of them as they were.
//!
//! Updates are located by [`super::seek::locate`] in the file's LF view and rendered by the
//! document, so line endings, encoding and BOM of untouched text stay byte for byte (TEXT-6).

use super::parse::{parse, parse_operation, ParseError};
use super::seek::{locate, LocateError};
use super::{FileOp, Patch as V4aPatch};
use crate::api::{ApplyPatchInput, Change, FileAction, FileChange, FilesOutput, PatchOperation};
use crate::dialects::stage::{commit, first_repeat, After, Staged};
use crate::disk::Kind;
use crate::error::{Code, ToolError, ToolResult};
use crate::patch::Patch;
use crate::session::Session;
use crate::text::{Fingerprint, Replacement};
use crate::tools::open::{open_text, Opened, ReadRule};

/// The tool's name in the undo journal and in messages.
const TOOL: &str = "apply_patch";

/// Runs apply_patch on a whole patch (`{"input": PATCH}`).
pub fn run(session: &Session, input: ApplyPatchInput) -> ToolResult<FilesOutput> {
    let patch = parse(&input.input).map_err(parse_error)?;
    apply(session, &patch, input.dry_run)
}

/// Runs apply_patch on one operation of the Responses API shape.
pub fn run_operation(session: &Session, op: PatchOperation) -> ToolResult<FilesOutput> {
    let parsed = parse_operation(&op.kind, &op.path, &op.diff).map_err(parse_error)?;
    apply(session, &V4aPatch { ops: vec![parsed] }, false)
}

fn parse_error(e: ParseError) -> ToolError {
    let mut err = ToolError::new(
        Code::InvalidPatch,
        format!("The patch could not be read: {}. Nothing was written; send the whole patch again, corrected.", e.to_string().trim_end_matches('.')),
    )
    .with("line", e.line)
    .with("expected", e.expected.clone());
    if let Some(earlier) = e.earlier {
        err = err.with("earlier_line", earlier);
    }
    err
}

/// Stages every operation, then writes them all or none.
fn apply(session: &Session, patch: &V4aPatch, dry_run: bool) -> ToolResult<FilesOutput> {
    // SESSION-6: the turn of every file the patch adds, updates, deletes or moves to, taken
    // together before the first is loaded.
    let mut named: Vec<&str> = Vec::new();
    for op in &patch.ops {
        named.push(op.path());
        if let FileOp::Update {
            move_to: Some(to), ..
        } = op
        {
            named.push(to);
        }
    }
    let _turn = session.turn_for(&named);
    let mut staged = Vec::with_capacity(patch.ops.len() + 1);
    let mut lines = Vec::with_capacity(patch.ops.len() + 1);
    let mut files = Vec::with_capacity(patch.ops.len());
    for op in &patch.ops {
        stage(session, op, &mut staged, &mut files).map_err(|e| e.with("patch_line", op.line()))?;
        lines.resize(staged.len(), op.line());
    }
    same_file_twice(&staged, &lines)?;
    let durable = if dry_run {
        true
    } else {
        commit(session, TOOL, &staged)?
    };
    Ok(FilesOutput {
        files,
        dry_run,
        durable,
    })
}

/// APPLY-11..14: one operation, computed in memory.
fn stage(
    session: &Session,
    op: &FileOp,
    staged: &mut Vec<Staged>,
    files: &mut Vec<FileChange>,
) -> ToolResult<()> {
    match op {
        FileOp::Add { path, lines, .. } => {
            let r = session.resolve(path)?;
            if r.exists {
                return Err(exists(path, "Add File"));
            }
            let mut text = lines.join("\n");
            if !lines.is_empty() {
                text.push('\n');
            }
            let patch = Patch::new(
                path,
                "",
                &[Replacement {
                    start: 0,
                    end: 0,
                    text: text.clone(),
                }],
            );
            staged.push(Staged {
                given: path.clone(),
                target: r.target,
                before: None,
                after: After::Bytes {
                    fingerprint: Fingerprint::of(&text),
                    bytes: text.into_bytes(),
                },
                mode: None,
            });
            files.push(change(path, FileAction::Created, None, patch));
        }
        FileOp::Delete { path, .. } => {
            let opened = open_text(session, path, ReadRule::IfRead)?;
            refuse_link(session, &opened, "Delete File")?;
            let doc = opened.document()?;
            let view = doc.view();
            let patch = Patch::new(
                path,
                view,
                &[Replacement {
                    start: 0,
                    end: view.len(),
                    text: String::new(),
                }],
            );
            drop(doc);
            staged.push(Staged {
                given: path.clone(),
                target: opened.resolved.target.clone(),
                before: Some(opened),
                after: After::Deleted,
                mode: None,
            });
            files.push(change(path, FileAction::Deleted, None, patch));
        }
        FileOp::Update {
            path,
            move_to,
            chunks,
            ..
        } => {
            let opened = open_text(session, path, ReadRule::IfRead)?;
            let doc = opened.document()?;
            let view = doc.view();
            let replacements = locate(view, chunks).map_err(|e| locate_error(&e, path))?;
            if replacements.is_empty() && move_to.is_none() {
                return Err(ToolError::new(
                    Code::NoChange,
                    format!("The update of '{path}' changes nothing: its chunks add and remove no line. Nothing was written."),
                ));
            }
            let patch = Patch::new(move_to.as_deref().unwrap_or(path), view, &replacements);
            let chunks_out = doc.render(&replacements).map_err(|c| {
                ToolError::new(
                    Code::Encoding,
                    format!(
                        "The new text of '{path}' has '{}', which the file's encoding ({}) cannot hold. Nothing was written.",
                        c.0,
                        doc.encoding().name()
                    ),
                )
            })?;
            let bytes = crate::text::concat(&chunks_out);
            let fingerprint = doc.fingerprint_after(&replacements);
            drop(chunks_out);
            drop(doc);
            match move_to {
                None => {
                    staged.push(Staged {
                        given: path.clone(),
                        target: opened.resolved.target.clone(),
                        before: Some(opened),
                        after: After::Bytes { bytes, fingerprint },
                        mode: None,
                    });
                    files.push(change(path, FileAction::Updated, None, patch));
                }
                Some(dest) => {
                    // APPLY-14: the new file first, then the old one goes; both in one unit.
                    refuse_link(session, &opened, "Move to")?;
                    let d = session.resolve(dest)?;
                    if d.exists {
                        return Err(exists(dest, "Move to"));
                    }
                    let mode = Some(opened.loaded.meta.mode);
                    staged.push(Staged {
                        given: dest.clone(),
                        target: d.target,
                        before: None,
                        after: After::Bytes { bytes, fingerprint },
                        mode,
                    });
                    staged.push(Staged {
                        given: path.clone(),
                        target: opened.resolved.target.clone(),
                        before: Some(opened),
                        after: After::Deleted,
                        mode: None,
                    });
                    files.push(change(path, FileAction::Moved, Some(dest.clone()), patch));
                }
            }
        }
    }
    Ok(())
}

/// APPLY-16 (APPLY-4 once paths are resolved): two operations that reach one file (`a.txt` and
/// `./a.txt`, or a path and a symlink to it) are refused before anything is written — and
/// under `dry_run` too, which must answer as the real call would.
fn same_file_twice(staged: &[Staged], lines: &[usize]) -> ToolResult<()> {
    let Some((i, j)) = first_repeat(staged) else {
        return Ok(());
    };
    let line = lines.get(j).copied().unwrap_or(0);
    let earlier = lines.get(i).copied().unwrap_or(0);
    Err(ToolError::new(
        Code::InvalidPatch,
        format!(
            "'{}' (line {earlier}) and '{}' (line {line}) are the same file; a patch may change \
             each file once. Nothing was written; send the whole patch again with one operation \
             for that file.",
            staged[i].given, staged[j].given
        ),
    )
    .with("line", line)
    .with("earlier_line", earlier)
    .with("expected", "one operation per file"))
}

/// APPLY-12/14: Delete File and the source of Move to name a path; when that path is itself a
/// symbolic link, removing it would either remove the file it points to (leaving a dangling
/// link) or only the link (leaving the content where a move meant to take it away). The patch
/// cannot say which, so neither is done.
fn refuse_link(session: &Session, opened: &Opened, what: &str) -> ToolResult<()> {
    let is_link = session
        .fs()
        .symlink_metadata(&opened.resolved.lexical)
        .map(|m| m.kind == Kind::Symlink)
        .unwrap_or(false);
    if is_link {
        let given = &opened.resolved.given;
        return Err(ToolError::new(
            Code::NotRegularFile,
            format!(
                "'{given}' is a symbolic link, and `{what}` would remove the file it points to \
                 or only the link, which the patch cannot tell apart. Nothing was written; \
                 remove or rename the link itself outside the patch, or use `*** Update File:` to \
                 change the file through it."
            ),
        ));
    }
    Ok(())
}

/// APPLY-11/14: editref does not overwrite a file the patch did not say it replaces.
fn exists(path: &str, what: &str) -> ToolError {
    ToolError::new(
        Code::FileExists,
        format!(
            "'{path}' already exists, and `{what}` would replace it without anyone having read it. Nothing was written; use `*** Update File:` to change it, or `*** Delete File:` first."
        ),
    )
}

fn locate_error(e: &LocateError, path: &str) -> ToolError {
    let shown = e.to_string();
    let shown = shown.trim_end_matches('.');
    match e {
        LocateError::NotFound { patch_line, .. } => ToolError::new(
            Code::NotFound,
            format!("In '{path}', {shown}. Nothing was written."),
        )
        .with("chunk_line", *patch_line),
        LocateError::Ambiguous {
            patch_line,
            lines,
            count,
            ..
        } => ToolError::new(
            Code::Ambiguous,
            format!("In '{path}', {shown}. Nothing was written."),
        )
        .with("chunk_line", *patch_line)
        .with("count", *count)
        .with("lines", lines.clone()),
    }
}

fn change(path: &str, action: FileAction, moved_to: Option<String>, patch: Patch) -> FileChange {
    FileChange {
        file_path: path.to_string(),
        action,
        moved_to,
        change: Change::new(patch),
    }
}
