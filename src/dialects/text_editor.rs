//! Anthropic's text editor tool (EDITOR-1..6): each command runs as the tool that does its
//! job — `view` as Read (or a directory listing), `create` as Write, `str_replace` as Edit,
//! `insert` as LineEdit, `undo_edit` as Undo — under the text editor's parameter names.

use crate::api::{
    DirEntry, EditInput, EditorCommand, LineEditInput, ReadInput, TextEditorInput,
    TextEditorOutput, UndoInput, WriteInput,
};
use crate::disk::Kind;
use crate::error::{Code, ToolError, ToolResult};
use crate::session::Session;
use crate::tools::{self, open::ReadRule};
use std::path::Path;

/// The tool's name in the undo journal and in messages.
const TOOL: &str = "str_replace_based_edit_tool";

/// Entries a directory view lists at most; the rest is summarised in one line.
const MAX_ENTRIES: usize = 1000;

/// Runs one text editor command.
pub fn run(session: &Session, input: TextEditorInput) -> ToolResult<TextEditorOutput> {
    let path = input.path.clone();
    match input.command {
        EditorCommand::View => view(session, input),
        EditorCommand::Create => {
            let content = required(input.file_text, "file_text", "create")?;
            let result = tools::write::run_as(session, WriteInput::new(&path, content), TOOL)?;
            Ok(TextEditorOutput::Create { path, result })
        }
        EditorCommand::StrReplace => {
            let old = required(input.old_str, "old_str", "str_replace")?;
            if old.is_empty() {
                return Err(ToolError::invalid_input(
                    "`old_str` of str_replace is empty. Give the exact text to replace; to make \
                     a new file use the create command.",
                )
                .with("field", "old_str"));
            }
            let edit = EditInput::new(&path, old, input.new_str.unwrap_or_default());
            let result = tools::edit::run_named(
                session,
                edit,
                ReadRule::IfRead,
                TOOL,
                tools::edit::Deletion::Exact,
            )?;
            Ok(TextEditorOutput::StrReplace { path, result })
        }
        EditorCommand::Insert => {
            let line = input
                .insert_line
                .ok_or_else(|| missing("insert_line", "insert"))?;
            let text =
                match (input.insert_text, input.new_str) {
                    (Some(t), None) | (None, Some(t)) => t,
                    (None, None) => return Err(missing("insert_text", "insert")),
                    (Some(_), Some(_)) => return Err(ToolError::invalid_input(
                        "insert takes the text once: as `insert_text` (or, in older versions of \
                         the tool, `new_str`), not both.",
                    )
                    .with("field", "new_str")),
                };
            // No file has a line after line u64::MAX: saturating keeps that insert_line past
            // the end, refused by LineEdit's range check after the file's own checks like any
            // other (EDITOR-5), never reported as missing.
            let start = line.saturating_add(1);
            let result = tools::line_edit::run_as(
                session,
                LineEditInput {
                    file_path: path.clone(),
                    start_line: start,
                    end_line: line,
                    new_content: text,
                    ..LineEditInput::default()
                },
                TOOL,
            )
            .map_err(|e| insert_range(e, line))?;
            Ok(TextEditorOutput::Insert { path, result })
        }
        EditorCommand::UndoEdit => {
            let result = session.undo(UndoInput::new(&path))?;
            Ok(TextEditorOutput::UndoEdit { path, result })
        }
    }
}

/// EDITOR-5: a line range error of the underlying LineEdit told in the insert command's own
/// words (`insert_line`, 0 to the line count), so that the model can correct the parameter it
/// actually sent.
fn insert_range(e: ToolError, line: u64) -> ToolError {
    let lines = match (
        &e.code,
        e.fields.get("lines").and_then(serde_json::Value::as_u64),
    ) {
        (Code::InvalidInput, Some(n)) => n,
        _ => return e,
    };
    // A model used to counting the empty text after a final line break as one more line
    // (EDITOR-5) is told where the end is.
    let end = if lines.checked_add(1) == Some(line) {
        format!(
            " The line break that ends the last line does not start another line: to insert at \
             the end, give {lines}."
        )
    } else {
        String::new()
    };
    ToolError::invalid_input(format!(
        "`insert_line` {line} is past the end of the file, which has {lines} line{}. Give 0 to \
         insert at the top, or a line from 1 to {lines} to insert after it.{end}",
        if lines == 1 { "" } else { "s" }
    ))
    .with("field", "insert_line")
    .with("lines", lines)
}

/// EDITOR-2: a file as Read shows it (a full view counts as a full Read), or a directory
/// listed two levels deep without hidden entries.
fn view(session: &Session, input: TextEditorInput) -> ToolResult<TextEditorOutput> {
    let path = input.path;
    let r = session.resolve(&path)?;
    if r.exists {
        if let Ok(meta) = session.fs().symlink_metadata(&r.target) {
            if meta.kind == Kind::Dir {
                if input.view_range.is_some() {
                    return Err(ToolError::invalid_input(
                        "`view_range` applies to files; a directory is listed whole.",
                    )
                    .with("field", "view_range"));
                }
                let mut entries = Vec::new();
                list(session, &r.target, "", 2, &mut entries);
                return Ok(TextEditorOutput::ViewDirectory { path, entries });
            }
        }
    }
    let mut read = ReadInput::new(&path);
    if let Some([first, last]) = input.view_range {
        let bad = first < 1 || (last != -1 && last < first);
        if bad {
            return Err(ToolError::invalid_input(format!(
                "`view_range` [{first}, {last}] is not a range of lines: the first line is 1 or \
                 more, the last is at least the first, or -1 for the end of the file."
            ))
            .with("field", "view_range"));
        }
        read.offset = u64::try_from(first).ok();
        read.limit = if last == -1 {
            None
        } else {
            u64::try_from(last - first + 1).ok()
        };
    }
    let result = session.read(read)?;
    Ok(TextEditorOutput::View { path, result })
}

/// Lists `dir` into `out`, `depth` levels deep; hidden entries and the contents of symlinked
/// directories are left out (a link is listed, not followed).
fn list(session: &Session, dir: &Path, prefix: &str, depth: u32, out: &mut Vec<DirEntry>) {
    let Ok(mut names) = session.fs().read_dir(dir) else {
        return;
    };
    names.sort();
    for name in names {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if out.len() >= MAX_ENTRIES {
            out.push(DirEntry {
                path: format!("… (more than {MAX_ENTRIES} entries; view a subdirectory)"),
            });
            return;
        }
        let full = dir.join(&name);
        let is_dir = session
            .fs()
            .symlink_metadata(&full)
            .map(|m| m.kind == Kind::Dir)
            .unwrap_or(false);
        let shown = format!("{prefix}{name}{}", if is_dir { "/" } else { "" });
        out.push(DirEntry {
            path: shown.clone(),
        });
        if is_dir && depth > 1 {
            list(session, &full, &shown, depth - 1, out);
        }
    }
}

fn required(value: Option<String>, field: &str, command: &str) -> ToolResult<String> {
    value.ok_or_else(|| missing(field, command))
}

fn missing(field: &str, command: &str) -> ToolError {
    ToolError::invalid_input(format!(
        "The command `{command}` of {TOOL} needs the parameter `{field}`."
    ))
    .with("field", field)
}
