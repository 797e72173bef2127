//! Edit (EDIT-1..7), and the pipeline MultiEdit shares with it.
//!
//! The checks run in the order of EDIT-1. The file is loaded once, early, so that input repair
//! can see the text (step 2 compares the *repaired* strings); the same bytes then serve the
//! staleness check, the engine and the write-time check.

use super::edit_window;
use super::open::ReadRule;
use super::{decode_error, is_notebook, load, metadata_checks, not_found, stat};
use crate::api::{Change, EditInput, EditOutput};
use crate::disk::{Kind, Loaded, WriteRequest};
use crate::engine::{self, EditReport, EditRequest};
use crate::error::{msg, Code, ToolError, ToolResult};
use crate::patch;
use crate::session::{Entry, Scope, Session};
use crate::text::{Document, Fingerprint, Replacement};

/// Runs Edit.
pub fn run(session: &Session, input: EditInput) -> ToolResult<EditOutput> {
    run_as(session, input, ReadRule::Required)
}

/// Runs Edit with another read requirement: the text editor's `str_replace` carries the text
/// it replaces and needs no earlier view (DIALECT-1).
pub fn run_as(session: &Session, input: EditInput, rule: ReadRule) -> ToolResult<EditOutput> {
    run_named(session, input, rule, tool_name(false))
}

/// Runs Edit with another read requirement and under another tool's name in the undo journal
/// (the text editor's `str_replace`), so that undo reports the call the model made.
pub fn run_named(
    session: &Session,
    input: EditInput,
    rule: ReadRule,
    tool: &str,
) -> ToolResult<EditOutput> {
    // The model's strings become a request once, here (TEXT-5 normalisation included).
    let EditInput {
        file_path,
        old_string,
        new_string,
        replace_all,
        expected_replacements,
        dry_run,
    } = input;
    let mut edit = EditRequest::from_strings(old_string, new_string, replace_all);
    if let Some(n) = expected_replacements {
        edit = edit.with_expected_count(usize::try_from(n).unwrap_or(usize::MAX));
    }
    let done = apply_named(
        session,
        &file_path,
        std::slice::from_ref(&edit),
        dry_run,
        false,
        rule,
        tool,
    )?;
    let Some(report) = done.reports.into_iter().next() else {
        return Err(ToolError::invalid_input("Edit produced no report."));
    };
    // The request (and with it the model's strings) is not needed for the output.
    drop(edit);
    Ok(EditOutput {
        file_path,
        old_string: report.old_string,
        new_string: report.new_string,
        replace_all: report.replace_all,
        replacements: report.replacements,
        change: Change::new(done.patch),
        repairs: report.repairs,
        user_modified: false,
        dry_run,
        durable: done.durable,
    })
}

/// What a successful Edit or MultiEdit produced, before it is shaped as the tool's output.
#[derive(Debug)]
pub(crate) struct Done {
    /// One report per edit, in order.
    pub reports: Vec<EditReport>,
    /// The patch of all edits together (EDIT-6).
    pub patch: patch::Patch,
    /// Whether the write was fully fsynced (true for dry runs, which write nothing).
    pub durable: bool,
}

/// The tool's name in the undo journal.
fn tool_name(multi: bool) -> &'static str {
    if multi {
        "MultiEdit"
    } else {
        "Edit"
    }
}

/// Attaches `edit_index` to errors of MultiEdit that belong to one edit.
fn indexed(multi: bool, index: usize, e: ToolError) -> ToolError {
    if multi {
        e.with("edit_index", index)
    } else {
        e
    }
}

/// The shared pipeline: EDIT-1 steps 2–12, EDIT-3 and MULTI-1..5.
pub(crate) fn apply(
    session: &Session,
    path: &str,
    edits: &[EditRequest],
    dry_run: bool,
    multi: bool,
    rule: ReadRule,
) -> ToolResult<Done> {
    apply_named(session, path, edits, dry_run, multi, rule, tool_name(multi))
}

/// [`apply`], recording the write under `tool` in the undo journal.
pub(crate) fn apply_named(
    session: &Session,
    path: &str,
    edits: &[EditRequest],
    dry_run: bool,
    multi: bool,
    rule: ReadRule,
    tool: &str,
) -> ToolResult<Done> {
    // Resolve and load quietly: failures are reported at their own step below.
    let resolved = session.resolve(path);
    // SESSION-6: from the load to the entry recorded after the write, the file is this call's.
    let _turn = resolved.as_ref().ok().map(|r| session.turn(&[&r.target]));
    let early: Option<Loaded> = resolved.as_ref().ok().and_then(|r| {
        let meta = session.fs().symlink_metadata(&r.target).ok()?;
        if meta.kind != Kind::File || meta.len > session.config().max_edit_size {
            return None;
        }
        load(session, r, session.config().max_edit_size).ok()
    });
    let early_doc = early.as_ref().map(|l| Document::decode(&l.bytes));

    // A single Edit's old_string found in the stored text of a CRLF file: the edit then runs
    // on a window of the file's lines, and the view of the whole file is never built.
    let mut stored_hits = match &early_doc {
        Some(Ok(d)) => stored_hits_of(d, edits),
        _ => None,
    };

    // Step 2: no_change, after repair against the text it applies to.
    for (index, edit) in edits.iter().enumerate() {
        let same = if index == 0 {
            match (&early_doc, &stored_hits) {
                // Found as given: no repair fires (REPAIR-4).
                (_, Some(hits)) if !hits.is_empty() => edit.old_string() == edit.new_string(),
                (Some(Ok(d)), _) => {
                    let r = engine::repaired(d.view(), edit);
                    r.old == r.new
                }
                _ => {
                    let r = engine::repaired("", edit);
                    r.old == r.new
                }
            }
        } else {
            edit.old_string() == edit.new_string()
        };
        if same {
            return Err(indexed(
                multi,
                index,
                ToolError::new(Code::NoChange, msg::NO_CHANGE),
            ));
        }
    }

    // Step 3: path rules.
    let r = resolved?;
    let creating = edits[0].old_string().is_empty();
    let meta = if r.exists {
        let m = stat(session, &r)?;
        super::refuse_special(&r, &m)?;
        Some(m)
    } else {
        None
    };

    // Step 4: a missing file is created only by an empty old_string.
    let Some(meta) = meta else {
        if !creating {
            return Err(not_found(session, &r));
        }
        if is_notebook(&r.lexical) || is_notebook(&r.target) {
            return Err(ToolError::new(
                Code::UseNotebookEdit,
                msg::USE_NOTEBOOK_EDIT,
            ));
        }
        return create(session, &r, edits, dry_run, multi, tool);
    };

    // Step 5: metadata checks (also under dry_run).
    metadata_checks(session, &r, &meta)?;
    // Step 6.
    if is_notebook(&r.lexical) || is_notebook(&r.target) {
        return Err(ToolError::new(
            Code::UseNotebookEdit,
            msg::USE_NOTEBOOK_EDIT,
        ));
    }
    // The early load is used when it is still the same file; its document is decoded once.
    let reloaded;
    let (loaded, doc) = match (&early, early_doc) {
        (Some(l), Some(doc)) if l.meta.same_identity(&meta) => (l, doc),
        _ => {
            reloaded = load(session, &r, session.config().max_edit_size)?;
            let doc = Document::decode(&reloaded.bytes);
            stored_hits = doc.as_ref().ok().and_then(|d| stored_hits_of(d, edits));
            (&reloaded, doc)
        }
    };
    // Steps 7–8: read state and staleness check 1.
    let fingerprint = || doc.as_ref().ok().map(Document::fingerprint);
    match rule {
        ReadRule::Required => session.check_fresh(&r.target, &loaded.meta, fingerprint)?,
        ReadRule::IfRead => session.check_fresh_if_read(&r.target, &loaded.meta, fingerprint)?,
    }
    // Step 9.
    let mut doc = doc.map_err(|e| decode_error(e, &r.given))?;
    // Steps 10–12 and MULTI-1..4: on a window of the file when the stored text found the
    // edit's hits, else on the whole view.
    let windowed = match (&stored_hits, edits) {
        (Some(hits), [edit]) => edit_window::apply(&r.given, &doc, edit, hits),
        _ => None,
    };
    let (reports, patch, spans) = match windowed {
        Some(w) => (w.reports, w.patch, Spans::Stored(w.stored)),
        None => {
            let applied =
                engine::apply(doc.view(), edits).map_err(|f| indexed(multi, f.index, f.error))?;
            if creating && !doc.eol_counts().any() {
                doc.set_dominant(edits[0].new_eol());
            }
            let patch = patch::Patch::new(&r.given, doc.view(), &applied.replacements);
            (applied.edits, patch, Spans::View(applied.replacements))
        }
    };
    // DIALECT-1: a call that needed no Read leaves the file fully read only when the session
    // had read it in full before; otherwise it would stand in for the Read that a LineEdit or
    // an insert by line number requires.
    let full = match rule {
        ReadRule::Required => true,
        ReadRule::IfRead => session
            .entry(&r.target)
            .is_some_and(|e| e.scope == Scope::Full),
    };
    let durable = if dry_run {
        true
    } else {
        write(session, tool, &r, &doc, &spans, Some(loaded), full)?
    };
    Ok(Done {
        reports,
        patch,
        durable,
    })
}

/// The hits of a single Edit's `old_string` found in `doc`'s stored text, when it can tell
/// (`Document::find_stored`); MultiEdit always takes the whole view.
fn stored_hits_of(doc: &Document<'_>, edits: &[EditRequest]) -> Option<Vec<(usize, usize)>> {
    match edits {
        [edit] => doc.find_stored(edit.old_string()),
        _ => None,
    }
}

/// An edit's replacements as the writer takes them.
enum Spans {
    /// In offsets of the LF view.
    View(Vec<Replacement>),
    /// In offsets of the stored text (a windowed Edit, `edit_window`).
    Stored(Vec<Replacement>),
}

/// EDIT-1 step 4 / MULTI-4: a new file from an empty old_string, later edits applied to it.
fn create(
    session: &Session,
    r: &crate::session::Resolved,
    edits: &[EditRequest],
    dry_run: bool,
    multi: bool,
    tool: &str,
) -> ToolResult<Done> {
    let doc = Document::empty(edits[0].new_eol());
    let applied = engine::apply("", edits).map_err(|f| indexed(multi, f.index, f.error))?;
    let patch = patch::Patch::new(&r.given, "", &applied.replacements);
    let durable = if dry_run {
        true
    } else {
        write(
            session,
            tool,
            r,
            &doc,
            &Spans::View(applied.replacements),
            None,
            true,
        )?
    };
    Ok(Done {
        reports: applied.edits,
        patch,
        durable,
    })
}

/// EDIT-3 and EDIT-4: encode per TEXT-6, replace atomically, remember the new text as fully
/// read when `full` (else forget the file: a partial entry no longer describes it). Returns
/// whether the write was fully durable.
fn write(
    session: &Session,
    tool: &str,
    r: &crate::session::Resolved,
    doc: &Document<'_>,
    spans: &Spans,
    existing: Option<&Loaded>,
    full: bool,
) -> ToolResult<bool> {
    let chunks = match spans {
        Spans::View(reps) => doc.render(reps),
        Spans::Stored(reps) => doc.render_stored(reps),
    }
    .map_err(|c| super::unrepresentable(c.0, doc.encoding().name(), &r.given))?;
    // EDIT-4 keeps the new text as read; only a session that checks reads before writes ever
    // looks at that entry, and hashing the new text is a whole pass over it. Taken before the
    // write: a mapped file's text is not read after it (disk::FileBytes).
    let fingerprint: Option<Fingerprint> =
        (session.config().read_before_write && full).then(|| match spans {
            Spans::View(reps) => doc.fingerprint_after(reps),
            Spans::Stored(reps) => doc.fingerprint_after_stored(reps),
        });
    let written = session.write_file(
        tool,
        &WriteRequest {
            target: &r.target,
            chunks: &chunks,
            existing,
            fsync: session.config().fsync,
            mode: None,
        },
    )?;
    match fingerprint {
        Some(fingerprint) => session.remember(&r.target, Entry::full(fingerprint, &written.meta)),
        None => session.forget(&r.target),
    }
    Ok(written.durable)
}
