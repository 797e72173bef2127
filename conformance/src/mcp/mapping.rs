//! What `--mcp` translates, kept apart from the connection so it can be tested without a
//! server: corpus tool names to the server's tool names (`--mcp-tools`), the tools a server
//! lists to the features it declares (`--mcp-features` overrides), and an MCP tool result to
//! the [`Reply`] the runner judges.
//!
//! The rules, as the README states them:
//!
//! - a corpus tool the server does not list is a feature the server lacks;
//! - a server that lists all five tools declares the vocabulary of the five ([`FEATURES`] but
//!   [`EXTRA_FEATURES`]): it is held to every case of them, the way `editref mcp` is; one that
//!   lists fewer declares only the tool features of the tools it lists; each tool beyond the
//!   five that it lists (`Undo`, `LineEdit`, the dialects) adds its own feature, and
//!   `param_aliases` is declared only with `--mcp-features`;
//! - a result without `isError` is the output: its `structuredContent`; else, when its text is
//!   one JSON object (servers that predate structured content, Claude Code's among them, send
//!   their result that way), that object; else `{"content": TEXT}`;
//!   one with `isError: true` is the error object (`structuredContent.error` when it carries a
//!   `code` and a `message`, else `{"code": "error", "message": TEXT}`).

use crate::adapter::Reply;
use editref_protocol::{EXTRA_FEATURES, FEATURES, TOOLS};
use rmcp_client::model::CallToolResult;
use serde_json::{json, Value};

/// The feature each of the five corpus tools stands for.
const TOOL_FEATURES: [(&str, &str); 5] = [
    ("Read", "read"),
    ("Edit", "edit"),
    ("MultiEdit", "multi_edit"),
    ("Write", "write"),
    ("NotebookEdit", "notebook_edit"),
];

/// The feature of each tool beyond the five: listed, it adds its feature.
const EXTRA_TOOL_FEATURES: [(&str, &str); 6] = [
    ("Undo", "undo"),
    ("LineEdit", "line_edit"),
    ("str_replace_based_edit_tool", "text_editor"),
    ("str_replace_editor", "text_editor"),
    ("apply_patch", "apply_patch"),
    ("search_replace", "search_replace"),
];

/// Corpus tool names to the server's tool names; identity for a tool not named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolMap {
    renamed: Vec<(String, String)>,
}

impl ToolMap {
    /// Parses `Edit=edit_file,Read=read_text_file`. A name that is not a corpus tool, an empty
    /// server name or a tool given twice is an error that says so.
    pub fn parse(spec: &str) -> Result<ToolMap, String> {
        let mut renamed: Vec<(String, String)> = Vec::new();
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((ours, theirs)) = pair.split_once('=') else {
                return Err(format!(
                    "--mcp-tools: '{pair}' is not CORPUS_TOOL=SERVER_TOOL"
                ));
            };
            let (ours, theirs) = (ours.trim(), theirs.trim());
            if !TOOLS.contains(&ours) {
                return Err(format!(
                    "--mcp-tools: '{ours}' is not a corpus tool; the tools are {}",
                    TOOLS.join(", ")
                ));
            }
            if theirs.is_empty() {
                return Err(format!("--mcp-tools: no server tool name for {ours}"));
            }
            if renamed.iter().any(|(o, _)| o == ours) {
                return Err(format!("--mcp-tools: {ours} is mapped twice"));
            }
            renamed.push((ours.to_string(), theirs.to_string()));
        }
        Ok(ToolMap { renamed })
    }

    /// The server's name for the corpus tool `tool`.
    pub fn server_name<'a>(&'a self, tool: &'a str) -> &'a str {
        self.renamed
            .iter()
            .find(|(o, _)| o == tool)
            .map_or(tool, |(_, t)| t.as_str())
    }

    /// The name a call of the corpus tool `tool` goes to on a server that lists `listed`.
    /// `str_replace_editor` is the text editor's other name (EDITOR-1): a server offers the
    /// tool under one of its two names, so a call of the name it does not list goes to the
    /// one it does.
    pub fn call_name<'a>(&'a self, tool: &'a str, listed: &[String]) -> &'a str {
        let name = self.server_name(tool);
        let other = match tool {
            "str_replace_editor" => "str_replace_based_edit_tool",
            "str_replace_based_edit_tool" => "str_replace_editor",
            _ => return name,
        };
        let other = self.server_name(other);
        if !listed.iter().any(|l| l == name) && listed.iter().any(|l| l == other) {
            other
        } else {
            name
        }
    }
}

/// The features a server declares, given the names of the tools it lists.
pub fn derive_features(map: &ToolMap, listed: &[String]) -> Vec<String> {
    let offered: Vec<&str> = TOOL_FEATURES
        .iter()
        .filter(|(tool, _)| listed.iter().any(|l| l == map.server_name(tool)))
        .map(|(_, feature)| *feature)
        .collect();
    let mut features: Vec<String> = if offered.len() == TOOL_FEATURES.len() {
        FEATURES
            .iter()
            .filter(|f| !EXTRA_FEATURES.contains(f))
            .map(|f| f.to_string())
            .collect()
    } else {
        offered.into_iter().map(str::to_string).collect()
    };
    for (tool, feature) in EXTRA_TOOL_FEATURES {
        let offered = listed.iter().any(|l| l == map.server_name(tool));
        if offered && !features.iter().any(|f| f == feature) {
            features.push(feature.to_string());
        }
    }
    features
}

/// Parses `--mcp-features a,b,c` (blanks and repeats dropped, order kept). `all` stands for
/// the whole vocabulary: the declaration of a server that implements every feature, whose
/// tool list cannot show all of them (`param_aliases` is a matter of input spellings).
pub fn parse_features(spec: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let each = spec.split(',').map(str::trim).filter(|f| !f.is_empty());
    let expanded = each.flat_map(|f| {
        if f == "all" {
            FEATURES.to_vec()
        } else {
            vec![f]
        }
    });
    for f in expanded {
        if !out.iter().any(|o| o == f) {
            out.push(f.to_string());
        }
    }
    out
}

/// The text of a result: its text blocks, joined by newlines.
fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// An MCP tool result as the reply the runner judges.
pub fn to_reply(result: &CallToolResult) -> Reply {
    if result.is_error == Some(true) {
        let structured = result
            .structured_content
            .as_ref()
            .and_then(|s| s.get("error"))
            .filter(|e| {
                e.get("code").is_some_and(Value::is_string)
                    && e.get("message").is_some_and(Value::is_string)
            });
        return Reply::Err(match structured {
            Some(e) => e.clone(),
            None => json!({"code": "error", "message": text_of(result)}),
        });
    }
    Reply::Ok(match &result.structured_content {
        Some(s) => s.clone(),
        None => {
            let text = text_of(result);
            // The server's own JSON, read as it wrote it; any other text is shown as content.
            match serde_json::from_str::<Value>(&text) {
                Ok(object @ Value::Object(_)) => object,
                _ => json!({"content": text}),
            }
        }
    })
}

/// A JSON-RPC error answering a call, as the reply the runner judges.
pub fn protocol_error(message: impl Into<String>) -> Reply {
    Reply::Err(json!({"code": "protocol_error", "message": message.into()}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp_client::model::ContentBlock;

    #[test]
    fn tool_names_map_and_default_to_identity() {
        let map = ToolMap::parse("Edit=edit_file, Read = read_text_file").unwrap();
        assert_eq!(map.server_name("Edit"), "edit_file");
        assert_eq!(map.server_name("Read"), "read_text_file");
        assert_eq!(map.server_name("Write"), "Write");
        assert_eq!(ToolMap::parse("").unwrap(), ToolMap::default());
        for bad in ["Bash=bash", "Edit", "Edit=", "Edit=a,Edit=b"] {
            assert!(ToolMap::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn features_follow_the_listed_tools() {
        let all: Vec<String> = TOOLS.iter().map(|t| t.to_string()).collect();
        let map = ToolMap::default();
        // Every tool listed: the whole vocabulary but param_aliases, which a list cannot show.
        let derived = derive_features(&map, &all);
        assert_eq!(derived.len(), FEATURES.len() - 1);
        assert!(!derived.iter().any(|f| f == "param_aliases"));
        let five: Vec<String> = all.iter().take(5).cloned().collect();
        let core = derive_features(&map, &five);
        assert_eq!(core.len(), FEATURES.len() - EXTRA_FEATURES.len());
        assert!(!core.iter().any(|f| f == "undo"));
        let some = vec!["read_text_file".to_string(), "Write".into(), "other".into()];
        let map = ToolMap::parse("Read=read_text_file").unwrap();
        assert_eq!(derive_features(&map, &some), ["read", "write"]);
        assert!(derive_features(&ToolMap::default(), &[]).is_empty());
        let editor = vec!["str_replace_editor".to_string()];
        assert_eq!(
            derive_features(&ToolMap::default(), &editor),
            ["text_editor"]
        );
        assert_eq!(parse_features("read, edit,,read"), ["read", "edit"]);
        assert_eq!(
            parse_features("all"),
            FEATURES,
            "all is the whole vocabulary"
        );
        assert_eq!(parse_features("edit,all").len(), FEATURES.len());
    }

    #[test]
    fn the_text_editor_is_called_by_the_name_listed() {
        let map = ToolMap::default();
        let new = vec!["str_replace_based_edit_tool".to_string()];
        let old = vec!["str_replace_editor".to_string()];
        assert_eq!(
            map.call_name("str_replace_editor", &new),
            "str_replace_based_edit_tool"
        );
        assert_eq!(
            map.call_name("str_replace_based_edit_tool", &old),
            "str_replace_editor"
        );
        assert_eq!(
            map.call_name("str_replace_editor", &old),
            "str_replace_editor"
        );
        assert_eq!(map.call_name("Edit", &new), "Edit");
        // Listing neither: the name asked for, which the server will refuse.
        assert_eq!(
            map.call_name("str_replace_editor", &[]),
            "str_replace_editor"
        );
    }

    #[test]
    fn results_become_replies() {
        let out = json!({"filePath": "a", "replacements": 1});
        let mut ok = CallToolResult::success(vec![ContentBlock::text("done")]);
        assert_eq!(to_reply(&ok), Reply::Ok(json!({"content": "done"})));
        ok.structured_content = Some(out.clone());
        assert_eq!(to_reply(&ok), Reply::Ok(out.clone()));

        // A result whose text is a JSON object is that object; other JSON stays text.
        let as_text = CallToolResult::success(vec![ContentBlock::text(out.to_string())]);
        assert_eq!(to_reply(&as_text), Reply::Ok(out.clone()));
        let list = CallToolResult::success(vec![ContentBlock::text("[1, 2]")]);
        assert_eq!(to_reply(&list), Reply::Ok(json!({"content": "[1, 2]"})));

        let mut err = CallToolResult::error(vec![
            ContentBlock::text("no such"),
            ContentBlock::text("file"),
        ]);
        assert_eq!(
            to_reply(&err),
            Reply::Err(json!({"code": "error", "message": "no such\nfile"}))
        );
        // An error object without a message is not the editref shape: the text is used.
        err.structured_content = Some(json!({"error": {"code": "not_found"}}));
        assert_eq!(
            to_reply(&err),
            Reply::Err(json!({"code": "error", "message": "no such\nfile"}))
        );
        let e = json!({"code": "ambiguous", "message": "twice", "count": 2});
        err.structured_content = Some(json!({ "error": e }));
        assert_eq!(to_reply(&err), Reply::Err(e));
    }
}
