//! A tool's outcome as an MCP tool result: `structuredContent` is exactly the JSON that
//! [`Session::call`](crate::Session::call) returns, and `content` is what the model reads — the
//! numbered lines, or a short summary and the diff ([`super::summary`]).
//!
//! A refusal is a result too, never a protocol error: the model has to read the message to do
//! better on the next call, and clients show protocol errors only as an opaque failure. It is
//! `isError: true` with the text `refused (CODE): MESSAGE` and `structuredContent`
//! `{"error": {code, message, ...fields}}` (SPEC §13.2). Each tool's `outputSchema` admits that
//! object beside the tool's result ([`super::tools::output_schema_of`]): a client that checks
//! every structured content against the schema, as the official TypeScript SDK does, then
//! hands the refusal on as a result instead of throwing (SPEC MCP-3).

use super::summary;
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
        "Read" => summary::read_content(&output),
        "str_replace_based_edit_tool" | "str_replace_editor" => {
            summary::text_editor_content(&output)
        }
        _ => vec![ContentBlock::text(summary::change_text(tool, &output))],
    };
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(output);
    result
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
        let e = ToolError::new(Code::Ambiguous, "twice").with("count", 2);
        let r = to_result("Edit", Err(e));
        assert_eq!(r.is_error, Some(true));
        assert_eq!(text(&r), "refused (ambiguous): twice");
        assert_eq!(
            r.structured_content,
            Some(json!({"error": {"code": "ambiguous", "message": "twice", "count": 2}}))
        );
    }

    #[test]
    fn a_result_carries_the_output_as_structured_content() {
        let out = json!({"filePath": "a.txt", "replacements": 1, "diff": "@@ -1 +1 @@\n-a\n+b\n"});
        let r = to_result("Edit", Ok(out.clone()));
        assert_eq!(r.is_error, Some(false));
        assert_eq!(
            text(&r),
            "Replaced 1 occurrence in a.txt\n@@ -1 +1 @@\n-a\n+b\n"
        );
        assert_eq!(r.structured_content, Some(out));
    }
}
