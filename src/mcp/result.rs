//! A tool's outcome as an MCP tool result: `structuredContent` is exactly the JSON that
//! [`Session::call`](crate::Session::call) returns, and `content` is what the model reads — the
//! numbered lines, or a one-line summary and the diff.
//!
//! A refusal is a result too, never a protocol error: the model has to read the message to do
//! better on the next call, and clients show protocol errors only as an opaque failure. It is
//! `isError: true` with the text `refused (CODE): MESSAGE` and `structuredContent`
//! `{"error": {code, message, ...fields}}` (SPEC §13.2). Each tool's `outputSchema` admits that
//! object beside the tool's result ([`super::tools::output_schema_of`]): a client that checks
//! every structured content against the schema, as the official TypeScript SDK does, then
//! hands the refusal on as a result instead of throwing (SPEC MCP-3).

use crate::ToolError;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{json, Value};

/// The MCP result of one call of `tool`.
pub fn to_result(tool: &str, outcome: Result<Value, ToolError>) -> CallToolResult {
    match outcome {
        Ok(output) => success(tool, output),
        Err(e) => refusal(&e),
    }
}

/// A refusal: the code and message for the model, the error object for programs.
pub fn refusal(e: &ToolError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "refused ({}): {}",
        e.code, e.message
    ))]);
    result.structured_content = Some(json!({ "error": e.to_json() }));
    result
}

fn success(tool: &str, output: Value) -> CallToolResult {
    let content = match tool {
        "Read" => read_content(&output),
        "Edit" => vec![ContentBlock::text(edit_text(&output))],
        "MultiEdit" => vec![ContentBlock::text(multi_edit_text(&output))],
        "Write" => vec![ContentBlock::text(write_text(&output))],
        "NotebookEdit" => vec![ContentBlock::text(notebook_text(&output))],
        _ => vec![ContentBlock::text(output.to_string())],
    };
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(output);
    result
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn read_content(out: &Value) -> Vec<ContentBlock> {
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

fn notebook_cells(out: &Value) -> String {
    let cells = out.get("cells").and_then(Value::as_array);
    let mut text = String::new();
    for cell in cells.into_iter().flatten() {
        let kind = cell.get("cellType").and_then(Value::as_str).unwrap_or("");
        text.push_str(&format!(
            "<cell id=\"{}\" type=\"{kind}\">\n{}\n</cell>\n",
            str_of(cell, "cellId"),
            str_of(cell, "source")
        ));
    }
    text
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn dry(out: &Value, done: &str, would: &str) -> String {
    let dry_run = out.get("dryRun").and_then(Value::as_bool).unwrap_or(false);
    if dry_run { would } else { done }.to_string()
}

fn with_diff(summary: String, diff: &str) -> String {
    if diff.is_empty() {
        summary
    } else {
        format!("{summary}\n{diff}")
    }
}

fn edit_text(out: &Value) -> String {
    let n = out.get("replacements").and_then(Value::as_u64).unwrap_or(0);
    let summary = format!(
        "{} {} in {}",
        dry(out, "Replaced", "Would replace"),
        plural(n, "occurrence"),
        str_of(out, "filePath")
    );
    with_diff(summary, str_of(out, "diff"))
}

fn multi_edit_text(out: &Value) -> String {
    let edits = out.get("edits").and_then(Value::as_array);
    let count = edits.map_or(0, Vec::len) as u64;
    let replaced: u64 = edits
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("replacements").and_then(Value::as_u64))
        .sum();
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
        let n = |k: &str| h.get(k).and_then(Value::as_u64).unwrap_or(0);
        diff.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            n("oldStart"),
            n("oldLines"),
            n("newStart"),
            n("newLines")
        ));
        for line in h
            .get("lines")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    fn text(r: &CallToolResult) -> String {
        r.content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .unwrap_or_default()
    }

    #[test]
    fn a_refusal_is_an_error_result_with_the_code() {
        let e = ToolError::new(Code::Ambiguous, "twice");
        let r = to_result("Edit", Err(e));
        assert_eq!(r.is_error, Some(true));
        assert_eq!(text(&r), "refused (ambiguous): twice");
        assert_eq!(r.structured_content.unwrap()["error"]["code"], "ambiguous");
    }

    #[test]
    fn an_edit_reads_as_a_summary_and_the_diff() {
        let out = json!({"filePath": "a.txt", "replacements": 1, "diff": "@@ -1 +1 @@\n-a\n+b\n"});
        let r = to_result("Edit", Ok(out.clone()));
        assert_eq!(r.is_error, Some(false));
        assert_eq!(
            text(&r),
            "Replaced 1 occurrence in a.txt\n@@ -1 +1 @@\n-a\n+b\n"
        );
        assert_eq!(r.structured_content, Some(out));
    }

    #[test]
    fn a_write_shows_the_hunks_as_a_diff() {
        let out = json!({"type": "update", "filePath": "a.txt", "structuredPatch": [
            {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}
        ]});
        let r = to_result("Write", Ok(out));
        assert_eq!(text(&r), "Updated a.txt\n@@ -1,1 +1,1 @@\n-a\n+b\n");
    }
}
