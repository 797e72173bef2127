//! What the model reads of a tool's result (the text `content` of an MCP result): Read's
//! numbered lines, and for a change a short summary followed by the unified diff. The
//! structured result stays as the tool returned it; this only words it.
//!
//! Each function takes the tool's JSON result (SPEC §13.1, §15) and never fails: a field that
//! is missing reads as empty, so an unexpected shape gives a thinner summary, not an error.

use rmcp::model::ContentBlock;
use serde_json::Value;

/// The text of a change made by `tool` (any tool but Read and the text editor): a one-line
/// summary and, where the result has one, the diff.
pub fn change_text(tool: &str, out: &Value) -> String {
    match tool {
        // Pi's list of edits sent to Edit answers as MultiEdit does (ALIAS-6).
        "Edit" if out.get("edits").is_some() => multi_edit_text(out),
        "Edit" => edit_text(out),
        "MultiEdit" => multi_edit_text(out),
        "Write" => write_text(out),
        "NotebookEdit" => notebook_text(out),
        "Undo" => undo_text(out),
        "LineEdit" => line_edit_text(out),
        "apply_patch" | "search_replace" => files_text(out),
        _ => out.to_string(),
    }
}

/// Read's result as the model reads it: the numbered lines, an image as an image, a notebook
/// as its cells.
pub fn read_content(out: &Value) -> Vec<ContentBlock> {
    let file = out.get("file").unwrap_or(&Value::Null);
    let text = match str_of(out, "type") {
        "text" => str_of(file, "content").to_string(),
        "file_unchanged" => format!(
            "{} has not changed since it was last read in full; that content is still current.",
            str_of(file, "filePath")
        ),
        "image" => {
            return vec![ContentBlock::image(
                str_of(out, "base64"),
                str_of(out, "mediaType"),
            )]
        }
        "pdf" => format!(
            "A PDF of {} bytes; its base64 is in the structured result (field base64).",
            out.get("originalSize").unwrap_or(&Value::Null)
        ),
        "notebook" => notebook_cells(out),
        _ => out.to_string(),
    };
    vec![ContentBlock::text(text)]
}

/// A text editor command's result, worded as the tool it ran as (EDITOR-2..6): `view` as
/// Read, `create` as Write, `str_replace` as Edit, `insert` as LineEdit, `undo_edit` as Undo,
/// and a directory as its entries, one per line.
pub fn text_editor_content(out: &Value) -> Vec<ContentBlock> {
    let result = out.get("result").unwrap_or(&Value::Null);
    let text = match str_of(out, "command") {
        "view" => return read_content(result),
        "view_directory" => directory_text(out),
        "create" => write_text(result),
        "str_replace" => edit_text(result),
        "insert" => line_edit_text(result),
        "undo_edit" => undo_text(result),
        _ => out.to_string(),
    };
    vec![ContentBlock::text(text)]
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn u64_of(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn items<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

fn notebook_cells(out: &Value) -> String {
    let mut text = String::new();
    for cell in items(out, "cells") {
        text.push_str(&format!(
            "<cell id=\"{}\" type=\"{}\">\n{}\n</cell>\n",
            str_of(cell, "cellId"),
            str_of(cell, "cellType"),
            str_of(cell, "source")
        ));
    }
    text
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `done`, or `would` for a dry run.
fn dry<'a>(out: &Value, done: &'a str, would: &'a str) -> &'a str {
    if out.get("dryRun").and_then(Value::as_bool) == Some(true) {
        would
    } else {
        done
    }
}

fn with_diff(summary: String, diff: &str) -> String {
    if diff.is_empty() {
        summary
    } else {
        format!("{summary}\n{diff}")
    }
}

fn edit_text(out: &Value) -> String {
    let summary = format!(
        "{} {} in {}",
        dry(out, "Replaced", "Would replace"),
        plural(u64_of(out, "replacements"), "occurrence"),
        str_of(out, "filePath")
    );
    with_diff(summary, str_of(out, "diff"))
}

fn multi_edit_text(out: &Value) -> String {
    let count = items(out, "edits").count() as u64;
    let replaced: u64 = items(out, "edits").map(|e| u64_of(e, "replacements")).sum();
    let summary = format!(
        "{} {} ({}) to {}",
        dry(out, "Applied", "Would apply"),
        plural(count, "edit"),
        plural(replaced, "replacement"),
        str_of(out, "filePath")
    );
    with_diff(summary, str_of(out, "diff"))
}

fn write_text(out: &Value) -> String {
    let verb = if str_of(out, "type") == "create" {
        "Created"
    } else {
        "Updated"
    };
    let summary = format!("{verb} {}", str_of(out, "filePath"));
    with_diff(summary, &hunks_diff(out.get("structuredPatch")))
}

/// Unified-diff text from `structuredPatch` hunks (Write's result carries only the hunks).
fn hunks_diff(hunks: Option<&Value>) -> String {
    let mut diff = String::new();
    for h in hunks.and_then(Value::as_array).into_iter().flatten() {
        diff.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            u64_of(h, "oldStart"),
            u64_of(h, "oldLines"),
            u64_of(h, "newStart"),
            u64_of(h, "newLines")
        ));
        for line in items(h, "lines") {
            diff.push_str(line.as_str().unwrap_or(""));
            diff.push('\n');
        }
    }
    diff
}

fn notebook_text(out: &Value) -> String {
    let verb = match str_of(out, "edit_mode") {
        "insert" => "Inserted",
        "delete" => "Deleted",
        _ => "Replaced",
    };
    format!(
        "{verb} {} cell {} of {}",
        str_of(out, "cell_type"),
        str_of(out, "cell_id"),
        str_of(out, "notebook_path")
    )
}

/// `Undid 1 write of a.txt:` and one line per step undone, newest first, naming the tool and
/// what became of each file.
fn undo_text(out: &Value) -> String {
    let steps: Vec<&Value> = items(out, "undone").collect();
    let mut text = format!(
        "Undid {} of {}:",
        plural(steps.len() as u64, "write"),
        str_of(out, "filePath")
    );
    for step in steps {
        let files: Vec<String> = items(step, "files")
            .map(|f| format!("{} {}", str_of(f, "filePath"), str_of(f, "action")))
            .collect();
        text.push_str(&format!(
            "\n- {}: {}",
            str_of(step, "tool"),
            files.join(", ")
        ));
    }
    text
}

fn line_edit_text(out: &Value) -> String {
    let (start, end) = (u64_of(out, "startLine"), u64_of(out, "endLine"));
    let path = str_of(out, "filePath");
    let summary = if end < start {
        format!(
            "{} before line {start} of {path}",
            dry(out, "Inserted", "Would insert")
        )
    } else if end == start {
        format!(
            "{} line {start} of {path}",
            dry(out, "Replaced", "Would replace")
        )
    } else {
        format!(
            "{} lines {start}-{end} of {path}",
            dry(out, "Replaced", "Would replace")
        )
    };
    with_diff(summary, str_of(out, "diff"))
}

/// apply_patch and search_replace: `Changed 2 files: a.txt updated, b.txt created`, then each
/// file's diff (each starts with its own `---`/`+++` header).
fn files_text(out: &Value) -> String {
    let files: Vec<&Value> = items(out, "files").collect();
    let named: Vec<String> = files
        .iter()
        .map(|f| match f.get("movedTo").and_then(Value::as_str) {
            Some(to) => format!("{} moved to {to}", str_of(f, "filePath")),
            None => format!("{} {}", str_of(f, "filePath"), str_of(f, "action")),
        })
        .collect();
    let mut text = format!(
        "{} {}: {}",
        dry(out, "Changed", "Would change"),
        plural(files.len() as u64, "file"),
        named.join(", ")
    );
    for f in files {
        let diff = str_of(f, "diff");
        if !diff.is_empty() {
            text.push('\n');
            text.push_str(diff);
        }
    }
    text
}

fn directory_text(out: &Value) -> String {
    let entries: Vec<&str> = items(out, "entries").map(|e| str_of(e, "path")).collect();
    let n = entries.len();
    format!(
        "{n} {} in {}:\n{}",
        if n == 1 { "entry" } else { "entries" },
        str_of(out, "path"),
        entries.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn only_text(blocks: Vec<ContentBlock>) -> String {
        assert_eq!(blocks.len(), 1);
        blocks[0]
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default()
    }

    #[test]
    fn a_write_shows_the_hunks_as_a_diff() {
        let out = json!({"type": "update", "filePath": "a.txt", "structuredPatch": [
            {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}
        ]});
        assert_eq!(
            change_text("Write", &out),
            "Updated a.txt\n@@ -1,1 +1,1 @@\n-a\n+b\n"
        );
    }

    #[test]
    fn an_edit_with_pis_list_is_told_as_a_multi_edit() {
        let out = json!({"filePath": "a.txt", "edits": [
            {"oldString": "a", "newString": "b", "replacements": 1},
            {"oldString": "c", "newString": "d", "replacements": 1}
        ], "diff": ""});
        assert_eq!(
            change_text("Edit", &out),
            "Applied 2 edits (2 replacements) to a.txt"
        );
    }

    #[test]
    fn undo_names_each_step_and_file() {
        let out = json!({"filePath": "a.txt", "undone": [
            {"tool": "apply_patch", "files": [
                {"filePath": "a.txt", "action": "restored"},
                {"filePath": "b.txt", "action": "removed"}
            ]},
            {"tool": "Edit", "files": [{"filePath": "a.txt", "action": "restored"}]}
        ]});
        assert_eq!(
            change_text("Undo", &out),
            "Undid 2 writes of a.txt:\n- apply_patch: a.txt restored, b.txt removed\n- Edit: a.txt restored"
        );
    }

    #[test]
    fn line_edit_says_which_lines_and_shows_the_diff() {
        let diff = "--- a/f\n+++ b/f\n@@ -2,2 +2,1 @@\n-b\n-c\n+B\n";
        let out = json!({"filePath": "f", "startLine": 2, "endLine": 3, "diff": diff});
        assert_eq!(
            change_text("LineEdit", &out),
            format!("Replaced lines 2-3 of f\n{diff}")
        );
        let one = json!({"filePath": "f", "startLine": 4, "endLine": 4, "diff": ""});
        assert_eq!(change_text("LineEdit", &one), "Replaced line 4 of f");
        let insert = json!({"filePath": "f", "startLine": 1, "endLine": 0, "dryRun": true});
        assert_eq!(
            change_text("LineEdit", &insert),
            "Would insert before line 1 of f"
        );
    }

    #[test]
    fn patches_and_blocks_list_the_files_then_their_diffs() {
        let (da, db) = (
            "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
            "--- a/c.txt\n+++ b/c.txt\n@@ -0,0 +1,1 @@\n+new\n",
        );
        let out = json!({"files": [
            {"filePath": "a.txt", "action": "updated", "diff": da},
            {"filePath": "c.txt", "action": "created", "diff": db},
            {"filePath": "d.txt", "action": "moved", "movedTo": "e.txt", "diff": ""}
        ]});
        let want = format!(
            "Changed 3 files: a.txt updated, c.txt created, d.txt moved to e.txt\n{da}\n{db}"
        );
        assert_eq!(change_text("apply_patch", &out), want);
        assert_eq!(change_text("search_replace", &out), want);
    }

    #[test]
    fn the_text_editor_reads_as_the_tool_each_command_ran_as() {
        let edit = json!({"command": "str_replace", "path": "a.txt", "result":
            {"filePath": "a.txt", "replacements": 1, "diff": "@@ -1 +1 @@\n-a\n+b\n"}});
        assert_eq!(
            only_text(text_editor_content(&edit)),
            "Replaced 1 occurrence in a.txt\n@@ -1 +1 @@\n-a\n+b\n"
        );
        let view = json!({"command": "view", "path": "a.txt", "result":
            {"type": "text", "file": {"filePath": "a.txt", "content": "1\tb"}}});
        assert_eq!(only_text(text_editor_content(&view)), "1\tb");
        let dir = json!({"command": "view_directory", "path": "src",
            "entries": [{"path": "a.rs"}, {"path": "m/"}]});
        assert_eq!(
            only_text(text_editor_content(&dir)),
            "2 entries in src:\na.rs\nm/"
        );
        let undo = json!({"command": "undo_edit", "path": "a.txt", "result": {"filePath": "a.txt",
            "undone": [{"tool": "str_replace_based_edit_tool",
                        "files": [{"filePath": "a.txt", "action": "restored"}]}]}});
        assert_eq!(
            only_text(text_editor_content(&undo)),
            "Undid 1 write of a.txt:\n- str_replace_based_edit_tool: a.txt restored"
        );
    }
}
