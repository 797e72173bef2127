//! MultiEdit (MULTI-1..5): several edits of one file, applied in order, written once or not at
//! all. It shares Edit's pipeline (`edit::apply`); only the input and the report per
//! edit are its own. Pi's list of edits (ALIAS-6), sent to Edit, runs here too, with every
//! edit matched against the original text.

use super::edit::{apply, Run};
use crate::api::{Change, EditSummary, MultiEditInput, MultiEditOutput};
use crate::engine::EditRequest;
use crate::error::ToolResult;
use crate::session::Session;

/// Runs MultiEdit.
pub fn run(session: &Session, input: MultiEditInput) -> ToolResult<MultiEditOutput> {
    run_as(session, input, Run::InOrder)
}

/// Runs Pi's list of edits (ALIAS-6): the edits of `input`, each matched against the file as
/// it is before the call, written together; the answer is MultiEdit's.
pub(crate) fn run_on_original(
    session: &Session,
    input: MultiEditInput,
) -> ToolResult<MultiEditOutput> {
    run_as(session, input, Run::OnOriginal)
}

fn run_as(session: &Session, input: MultiEditInput, how: Run) -> ToolResult<MultiEditOutput> {
    // The model's strings become requests once, here (TEXT-5 normalisation included).
    let MultiEditInput {
        file_path,
        edits,
        dry_run,
    } = input;
    let edits: Vec<EditRequest> = edits
        .into_iter()
        .map(|e| EditRequest::from_strings(e.old_string, e.new_string, e.replace_all))
        .collect();
    let done = apply(
        session,
        &file_path,
        &edits,
        dry_run,
        how,
        super::open::ReadRule::Required,
    )?;
    let mut repairs: Vec<&'static str> = Vec::new();
    let summaries = done
        .reports
        .into_iter()
        .map(|r| {
            for name in &r.repairs {
                if !repairs.contains(name) {
                    repairs.push(name);
                }
            }
            EditSummary {
                old_string: r.old_string,
                new_string: r.new_string,
                replace_all: r.replace_all,
                replacements: r.replacements,
                repairs: r.repairs,
            }
        })
        .collect();
    Ok(MultiEditOutput {
        file_path,
        edits: summaries,
        change: Change::new(done.patch),
        repairs,
        user_modified: false,
        dry_run,
        durable: done.durable,
    })
}
