//! The dialects as subcommands: the text editor's commands as flags, `apply-patch` and
//! `search-replace` reading their text from an argument, a file or stdin.

use super::{human, print_change, usage, Common};
use editref::api::{
    ApplyPatchInput, EditorCommand, FileAction, FilesOutput, SearchReplaceInput, TextEditorInput,
    TextEditorOutput,
};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `editref text-editor`'s arguments.
pub struct EditorArgs {
    /// The command's name.
    pub command: String,
    /// The path.
    pub path: String,
    /// `--view-range FIRST LAST`.
    pub view_range: Option<Vec<i64>>,
    /// `--file-text`.
    pub file_text: Option<String>,
    /// `--old-str`.
    pub old_str: Option<String>,
    /// `--new-str`.
    pub new_str: Option<String>,
    /// `--insert-line`.
    pub insert_line: Option<u64>,
    /// `--insert-text`.
    pub insert_text: Option<String>,
}

/// `editref text-editor COMMAND PATH [flags]`: built as the tool's JSON input, so the
/// command line is held to exactly the tool's rules (a flag of another command is refused).
pub fn text_editor(common: &Common, a: EditorArgs) -> ExitCode {
    let text = |v: Option<String>| -> Result<Option<String>, String> {
        v.map(|t| super::argument_text(&t).map_err(|e| e.to_string()))
            .transpose()
    };
    let (file_text, insert_text) = match (text(a.file_text), text(a.insert_text)) {
        (Ok(f), Ok(i)) => (f, i),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let mut input = json!({"command": a.command, "path": a.path});
    let fields: [(&str, Option<Value>); 6] = [
        ("view_range", a.view_range.map(|r| json!(r))),
        ("file_text", file_text.map(Value::String)),
        ("old_str", a.old_str.map(Value::String)),
        ("new_str", a.new_str.map(Value::String)),
        ("insert_line", a.insert_line.map(|n| json!(n))),
        ("insert_text", insert_text.map(Value::String)),
    ];
    for (key, value) in fields {
        if let (Some(v), Some(map)) = (value, input.as_object_mut()) {
            map.insert(key.to_string(), v);
        }
    }
    let parsed = match TextEditorInput::from_json(&input) {
        Ok(p) => p,
        Err(e) => return usage(&super::words::TEXT_EDITOR.apply(&e.message)),
    };
    let command = parsed.command;
    human(
        &common.clone().speaking(super::words::TEXT_EDITOR),
        |s| s.text_editor(parsed),
        |out, done| print_editor(out, command, done),
    )
}

fn print_editor(
    out: &mut dyn Write,
    command: EditorCommand,
    done: &TextEditorOutput,
) -> std::io::Result<()> {
    match done {
        TextEditorOutput::View { result, .. } => super::print_read(out, result),
        TextEditorOutput::ViewDirectory { entries, .. } => {
            for e in entries {
                writeln!(out, "{}", e.path)?;
            }
            Ok(())
        }
        TextEditorOutput::Create { result, .. } => super::print_write(out, result),
        TextEditorOutput::StrReplace { path, result } => {
            print_change(out, result.change.diff(), result.dry_run, path, "")
        }
        TextEditorOutput::Insert { path, result } => {
            print_change(out, result.change.diff(), result.dry_run, path, "")
        }
        TextEditorOutput::UndoEdit { path, .. } => {
            writeln!(out, "{} {path}", command.name())
        }
    }
}

/// `editref apply-patch [PATCH] [--cwd DIR] [--dry-run]`. A patch argument that is not a
/// file reference is the patch itself (it starts with `*** Begin Patch`).
pub fn apply_patch(common: &Common, patch: &str, cwd: Option<PathBuf>, dry_run: bool) -> ExitCode {
    let text = match super::argument_text(patch) {
        Ok(t) => t,
        Err(e) => return usage(&format!("could not read the patch: {e}")),
    };
    let input = ApplyPatchInput {
        input: text,
        dry_run,
    };
    super::human_in(common, cwd, |s| s.apply_patch(input), print_files)
}

/// `editref search-replace [REPLY] [--cwd DIR] [--dry-run]`.
pub fn search_replace(
    common: &Common,
    reply: &str,
    cwd: Option<PathBuf>,
    dry_run: bool,
) -> ExitCode {
    let text = match super::argument_text(reply) {
        Ok(t) => t,
        Err(e) => return usage(&format!("could not read the reply: {e}")),
    };
    let input = SearchReplaceInput { text, dry_run };
    super::human_in(common, cwd, |s| s.search_replace(input), print_files)
}

/// The human form of a multi-file change: each file's diff, then one line per file.
pub fn print_files(out: &mut dyn Write, done: &FilesOutput) -> std::io::Result<()> {
    for f in &done.files {
        super::print_diff(out, f.change.diff())?;
    }
    for f in &done.files {
        let what = match f.action {
            FileAction::Created => "created",
            FileAction::Updated => "changed",
            FileAction::Deleted => "deleted",
            FileAction::Moved => "moved",
        };
        let verb = if done.dry_run { "would be " } else { "" };
        match &f.moved_to {
            Some(to) => writeln!(out, "{verb}{what} {} -> {to}", f.file_path)?,
            None => writeln!(out, "{verb}{what} {}", f.file_path)?,
        }
    }
    Ok(())
}
