//! Other agents' spellings of Edit's and Write's parameters (ALIAS-1..4): a model trained on
//! OpenCode, Kiro, Pi, Anthropic's text editor or Gemini CLI sends the names it knows, and the
//! JSON entry reads them as the canonical ones.
//!
//! A call must stay within one agent's spelling: `filePath` with `old_str` is no agent's
//! input, most likely a model mixing two tools up, and is refused (`invalid_input`) rather than
//! guessed at. The published schemas keep the canonical names (D29); the spellings are a
//! reading of the JSON entry, like `"true"` for a boolean.

use crate::error::{ToolError, ToolResult};
use serde_json::{Map, Value};

/// The agents whose spellings are read. A key belongs to every agent that spells it so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    Claude,
    Gemini,
    OpenCode,
    Kiro,
    Pi,
    Anthropic,
}

use Agent::*;

const ALL: &[Agent] = &[Claude, Gemini, OpenCode, Kiro, Pi, Anthropic];

/// One accepted key: its spelling, the canonical name, and the agents that use it.
type Spelling = (&'static str, &'static str, &'static [Agent]);

/// ALIAS-1: Edit's spellings.
const EDIT: &[Spelling] = &[
    ("file_path", "file_path", &[Claude, Gemini]),
    ("filePath", "file_path", &[OpenCode, Pi]),
    ("path", "file_path", &[Kiro, Anthropic]),
    ("old_string", "old_string", &[Claude, Gemini, Pi]),
    ("oldString", "old_string", &[OpenCode]),
    ("oldStr", "old_string", &[Kiro]),
    ("old_str", "old_string", &[Anthropic]),
    ("new_string", "new_string", &[Claude, Gemini, Pi]),
    ("newString", "new_string", &[OpenCode]),
    ("newStr", "new_string", &[Kiro]),
    ("new_str", "new_string", &[Anthropic]),
    ("replace_all", "replace_all", &[Claude, Pi]),
    ("replaceAll", "replace_all", &[OpenCode]),
    (
        "expected_replacements",
        "expected_replacements",
        &[Claude, Gemini],
    ),
    ("dry_run", "dry_run", ALL),
];

/// ALIAS-1: Write's spellings.
const WRITE: &[Spelling] = &[
    ("file_path", "file_path", &[Claude, Gemini]),
    ("filePath", "file_path", &[OpenCode]),
    ("path", "file_path", &[Kiro, Pi, Anthropic]),
    ("content", "content", &[Claude, Gemini, OpenCode, Pi]),
    ("text", "content", &[Kiro]),
    ("file_text", "content", &[Anthropic]),
];

/// Edit's input with other agents' spellings read as the canonical names.
pub(crate) fn edit(input: Value) -> ToolResult<Value> {
    canonical("Edit", input, EDIT)
}

/// Write's input with other agents' spellings read as the canonical names.
pub(crate) fn write(input: Value) -> ToolResult<Value> {
    canonical("Write", input, WRITE)
}

/// ALIAS-2/3: renames the keys of `input` to the canonical names when every key is spelled the
/// way one agent spells it. Keys outside the table are left for the strict reader, which
/// refuses them by name. A non-object is left as it is, for the same reason. The values are
/// moved, never copied: an `old_string` of many megabytes stays one string.
fn canonical(tool: &str, input: Value, table: &[Spelling]) -> ToolResult<Value> {
    let Value::Object(map) = input else {
        return Ok(input);
    };
    if map
        .keys()
        .all(|k| table.iter().any(|(s, c, _)| s == k && s == c))
    {
        return Ok(Value::Object(map));
    }
    let keys: Vec<String> = map.keys().cloned().collect();
    let mut agents: Vec<Agent> = ALL.to_vec();
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        let Some((_, name, spelled_by)) = table.iter().find(|(s, _, _)| *s == key) else {
            out.insert(key, value);
            continue;
        };
        agents.retain(|a| spelled_by.contains(a));
        if out.insert((*name).to_string(), value).is_some() {
            return Err(mixed(tool, &keys, table));
        }
    }
    if agents.is_empty() {
        return Err(mixed(tool, &keys, table));
    }
    Ok(Value::Object(out))
}

fn mixed(tool: &str, keys: &[String], table: &[Spelling]) -> ToolError {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let canonical: Vec<&str> = {
        let mut c: Vec<&str> = table.iter().map(|(_, c, _)| *c).collect();
        c.dedup();
        c
    };
    ToolError::invalid_input(format!(
        "The parameters of {tool} mix the spellings of different tools ({}). Use one \
         spelling for all of them, e.g. {}.",
        keys.join(", "),
        canonical.join(", ")
    ))
    .with("field", keys.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn alias_1_each_agent_spelling_reads_as_canonical() {
        for input in [
            json!({"filePath": "a", "oldString": "x", "newString": "y", "replaceAll": true}),
            json!({"path": "a", "oldStr": "x", "newStr": "y"}),
            json!({"filePath": "a", "old_string": "x", "new_string": "y"}),
            json!({"path": "a", "old_str": "x", "new_str": "y"}),
        ] {
            let out = edit(input.clone()).unwrap_or(Value::Null);
            assert_eq!(out["file_path"], "a", "{input}");
            assert_eq!(out["old_string"], "x", "{input}");
            assert_eq!(out["new_string"], "y", "{input}");
        }
    }

    #[test]
    fn alias_3_mixed_spellings_are_refused() {
        for input in [
            json!({"filePath": "a", "old_str": "x", "new_str": "y"}),
            json!({"path": "a", "oldString": "x", "newString": "y"}),
            json!({"file_path": "a", "filePath": "a", "old_string": "x", "new_string": "y"}),
            json!({"path": "a", "oldStr": "x", "new_str": "y"}),
        ] {
            let err = edit(input.clone()).err().map(|e| e.code.as_str());
            assert_eq!(err, Some("invalid_input"), "{input}");
        }
    }
}
