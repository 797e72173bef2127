//! Edit (EDIT-1..7), and the pipeline MultiEdit shares with it.
//!
//! The checks run in the order of EDIT-1. The file is loaded once, early; the same bytes serve
//! the staleness check, the engine and the write-time check. Nothing read from the text decides
//! an answer before the staleness check: step 2 compares the strings as sent, and the repairs,
//! which read the text, run in the engine after steps 7-9.

use super::edit_window;
use super::open::ReadRule;
use super::{decode_error, is_notebook, load, metadata_checks, not_found, stat};
use crate::api::{Change, EditInput, EditOutput};
use crate::disk::{Loaded, WriteRequest};
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
    run_named(
        session,
        input,
        rule,
        Run::Single.tool_name(),
        Deletion::WithLineBreak,
    )
}

/// What a deletion (an empty `new_string`) removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deletion {
    /// The hit, and the line break right after it when the hit stops short of one (EDIT-2).
    WithLineBreak,
    /// Exactly the hit: the text editor's `str_replace` (EDITOR-4).
    Exact,
}

/// Runs Edit with another read requirement, under another tool's name in the undo journal
/// (the text editor's `str_replace`), so that undo reports the call the model made, and with
/// that tool's deletions.
pub fn run_named(
    session: &Session,
    input: EditInput,
    rule: ReadRule,
    tool: &str,
    deletion: Deletion,
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
    if deletion == Deletion::Exact {
        edit = edit.with_exact_deletion();
    }
    let done = apply_named(
        session,
        &file_path,
        std::slice::from_ref(&edit),
        dry_run,
        Run::Single,
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

/// How the edits of one call apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Run {
    /// One Edit.
    Single,
    /// A MultiEdit: each edit on the text the one before it left (MULTI-1).
    InOrder,
    /// Pi's list of edits, called as Edit: each edit on the original text (ALIAS-6).
    OnOriginal,
}

impl Run {
    /// Whether the call is a list of edits, whose errors name the edit (`edit_index`).
    fn is_list(self) -> bool {
        self != Run::Single
    }

    /// The tool's name in the undo journal: the tool the model called.
    fn tool_name(self) -> &'static str {
        match self {
            Run::InOrder => "MultiEdit",
            Run::Single | Run::OnOriginal => "Edit",
        }
    }

    /// The engine's answer for `edits` on `text`.
    fn engine(self, text: &str, edits: &[EditRequest]) -> ToolResult<engine::Applied> {
        match self {
            Run::OnOriginal => engine::apply_to_original(text, edits),
            Run::Single | Run::InOrder => engine::apply(text, edits),
        }
        .map_err(|f| indexed(self, f.index, f.error))
    }
}

/// Attaches `edit_index` to errors of a list of edits that belong to one edit.
fn indexed(run: Run, index: usize, e: ToolError) -> ToolError {
    if run.is_list() {
        e.with("edit_index", index)
    } else {
        e
    }
}

/// The shared pipeline: EDIT-1 steps 2–12, EDIT-3, MULTI-1..5 and ALIAS-6.
pub(crate) fn apply(
    session: &Session,
    path: &str,
    edits: &[EditRequest],
    dry_run: bool,
    run: Run,
    rule: ReadRule,
) -> ToolResult<Done> {
    apply_named(session, path, edits, dry_run, run, rule, run.tool_name())
}

/// [`apply`], recording the write under `tool` in the undo journal.
pub(crate) fn apply_named(
    session: &Session,
    path: &str,
    edits: &[EditRequest],
    dry_run: bool,
    run: Run,
    rule: ReadRule,
    tool: &str,
) -> ToolResult<Done> {
    // Step 2: no_change, on the strings as sent. Repair reads the file's text, which counts
    // only once the staleness check has passed: a no_change that repair causes is the engine's
    // answer at step 10, after steps 7-9 (EDIT-1).
    if let Some(index) = edits.iter().position(|e| e.old_string() == e.new_string()) {
        return Err(indexed(
            run,
            index,
            ToolError::new(Code::NoChange, msg::NO_CHANGE),
        ));
    }

    // Step 3: path rules.
    let r = session.resolve(path)?;
    // SESSION-6: from the load to the entry recorded after the write, the file is this call's.
    let _turn = session.turn(&[&r.target]);
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
        return create(session, &r, edits, dry_run, run, tool);
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
    let loaded = &load(session, &r, session.config().max_edit_size)?;
    let doc = Document::decode(&loaded.bytes);
    // Steps 7–8: read state and staleness check 1.
    let fingerprint = || doc.as_ref().ok().map(Document::fingerprint);
    match rule {
        ReadRule::Required => session.check_fresh(&r.target, &loaded.meta, fingerprint)?,
        ReadRule::IfRead => session.check_fresh_if_read(&r.target, &loaded.meta, fingerprint)?,
    }
    // Step 9.
    let mut doc = doc.map_err(|e| decode_error(e, &r.given))?;
    // Steps 10–12 and MULTI-1..4: a single Edit's old_string found in the stored text of a
    // CRLF or UTF-16 file runs on a window of the file's lines, and the view of the whole file
    // is never built; anything else runs on the whole view.
    let stored_hits = stored_hits_of(&doc, edits);
    let windowed = match (&stored_hits, edits) {
        (Some(hits), [edit]) => edit_window::apply(&r.given, &doc, edit, hits),
        _ => None,
    };
    let (reports, patch, spans) = match windowed {
        Some(w) => (w.reports, w.patch, Spans::Stored(w.stored)),
        None => {
            let applied = run.engine(doc.view(), edits)?;
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
    run: Run,
    tool: &str,
) -> ToolResult<Done> {
    let doc = Document::empty(edits[0].new_eol());
    let applied = run.engine("", edits)?;
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
