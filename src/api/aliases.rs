//! Other agents' spellings of Edit's and Write's parameters (ALIAS-1..6): a model trained on
//! OpenCode, Kiro, Pi, Anthropic's text editor or Gemini CLI sends the names it knows, and the
//! JSON entry reads them as the canonical ones.
//!
//! A call must stay within one agent's spelling: `filePath` with `old_str` is no agent's
//! input, most likely a model mixing two tools up, and is refused (`invalid_input`) rather than
//! guessed at. The published schemas keep the canonical names (D29); the spellings are a
//! reading of the JSON entry, like `"true"` for a boolean. Pi's list of edits (`edits` of
//! `{oldText, newText}`) is read as MultiEdit's input, for the caller to run with Pi's meaning:
//! every edit matched against the file as it was read (ALIAS-6).

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

/// One accepted key: its spelling, the canonical name ([`IGNORED`] for a key that is read and
/// dropped), and the agents that use it.
type Spelling = (&'static str, &'static str, &'static [Agent]);

/// The canonical name of a key that is read — it must be a string — and has no effect:
/// Gemini CLI's `instruction`, the description of the change its model-driven repair would be
/// given (ALIAS-1). No model's description decides what is written (MATCH-6).
const IGNORED: &str = "";

/// ALIAS-1: Edit's spellings, as the pinned versions of the agents' tools name them (OpenCode
/// 1.18.33, Pi 0.73.1, Gemini CLI 0.61.0 and, for `expected_replacements`, its earlier
/// versions; the text editor as Anthropic defines it; Kiro's as first recorded).
const EDIT: &[Spelling] = &[
    ("file_path", "file_path", &[Claude, Gemini]),
    ("filePath", "file_path", &[OpenCode]),
    ("path", "file_path", &[Kiro, Pi, Anthropic]),
    ("old_string", "old_string", &[Claude, Gemini]),
    ("oldString", "old_string", &[OpenCode]),
    ("oldStr", "old_string", &[Kiro]),
    ("oldText", "old_string", &[Pi]),
    ("old_str", "old_string", &[Anthropic]),
    ("new_string", "new_string", &[Claude, Gemini]),
    ("newString", "new_string", &[OpenCode]),
    ("newStr", "new_string", &[Kiro]),
    ("newText", "new_string", &[Pi]),
    ("new_str", "new_string", &[Anthropic]),
    ("replace_all", "replace_all", &[Claude]),
    ("replaceAll", "replace_all", &[OpenCode]),
    ("allow_multiple", "replace_all", &[Gemini]),
    (
        "expected_replacements",
        "expected_replacements",
        &[Claude, Gemini],
    ),
    ("instruction", IGNORED, &[Gemini]),
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

/// ALIAS-6: the keys of Pi's edit call with a list of edits.
const PI_LIST: [&str; 5] = ["path", "edits", "oldText", "newText", "dry_run"];

/// An Edit call as the JSON entry reads it.
pub(crate) enum EditForm {
    /// One edit: Edit's input with the canonical names.
    One(Value),
    /// Pi's list of edits (ALIAS-6): MultiEdit's input with the canonical names.
    List(Value),
}

/// Edit's input with other agents' spellings read as the canonical names. Pi's list of edits
/// is not one edit: it is refused here, naming `edits` (the JSON entry reads it with
/// [`edit_form`]).
pub(crate) fn edit(input: Value) -> ToolResult<Value> {
    if input.get("edits").is_some() {
        return Err(ToolError::invalid_input(
            "Edit's input is one replacement; `edits`, Pi's list of replacements, is read by \
             the tools' JSON entry, which runs it as one call (or use MultiEdit).",
        )
        .with("field", "edits"));
    }
    canonical("Edit", input, EDIT)
}

/// An Edit call: one edit in any agent's spelling, or Pi's list of edits.
pub(crate) fn edit_form(input: Value) -> ToolResult<EditForm> {
    match input {
        Value::Object(map) if map.contains_key("edits") => pi_list(map).map(EditForm::List),
        input => canonical("Edit", input, EDIT).map(EditForm::One),
    }
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
    // A read-and-dropped key of the wrong kind, refused once the spelling is known to be one
    // agent's (a mixture is the first thing to tell).
    let mut ill_typed: Option<String> = None;
    for (key, value) in map {
        let Some((_, name, spelled_by)) = table.iter().find(|(s, _, _)| *s == key) else {
            out.insert(key, value);
            continue;
        };
        agents.retain(|a| spelled_by.contains(a));
        if *name == IGNORED {
            if !matches!(value, Value::String(_) | Value::Null) && ill_typed.is_none() {
                ill_typed = Some(key);
            }
            continue;
        }
        if out.insert((*name).to_string(), value).is_some() {
            return Err(mixed(tool, &keys, table));
        }
    }
    if agents.is_empty() {
        return Err(mixed(tool, &keys, table));
    }
    if let Some(key) = ill_typed {
        return Err(ToolError::invalid_input(format!(
            "The parameter `{key}` of {tool} must be a string."
        ))
        .with("field", key));
    }
    Ok(Value::Object(out))
}

/// ALIAS-6: Pi's `{path, edits: [{oldText, newText}, …]}` as MultiEdit's input. Pi's older
/// top-level `oldText`/`newText`, given with `edits`, join the list as its last edit, as Pi
/// reads them. Only Pi's keys are taken: a key of another agent is a mixture (ALIAS-3), any
/// other key is refused by name, and an edit is `{oldText, newText}` with a non-empty oldText.
fn pi_list(mut map: Map<String, Value>) -> ToolResult<Value> {
    let keys: Vec<String> = map.keys().cloned().collect();
    if let Some(bad) = keys.iter().find(|k| !PI_LIST.contains(&k.as_str())) {
        if EDIT.iter().any(|(s, _, _)| s == bad) {
            return Err(mixed("Edit", &keys, EDIT));
        }
        return Err(ToolError::invalid_input(format!(
            "An unexpected parameter `{bad}` was provided to Edit with a list of edits. Its \
             parameters are: path, edits (each {{oldText, newText}}), dry_run."
        ))
        .with("field", bad.as_str()));
    }
    let mut list = match map.remove("edits") {
        Some(Value::Array(list)) => list,
        _ => return Err(pi_list_shape()),
    };
    match (map.remove("oldText"), map.remove("newText")) {
        (None, None) => {}
        (Some(old), Some(new)) => {
            let mut last = Map::new();
            last.insert("oldText".into(), old);
            last.insert("newText".into(), new);
            list.push(Value::Object(last));
        }
        (old, _) => {
            let missing = if old.is_none() { "oldText" } else { "newText" };
            return Err(ToolError::invalid_input(format!(
                "`oldText` and `newText` go together: `{missing}` is missing. Put every \
                 replacement into `edits` as {{oldText, newText}}."
            ))
            .with("field", missing));
        }
    }
    let mut edits = Vec::with_capacity(list.len());
    for (index, item) in list.into_iter().enumerate() {
        edits.push(pi_edit(item).map_err(|e| e.with("edit_index", index))?);
    }
    let mut out = Map::new();
    if let Some(path) = map.remove("path") {
        out.insert("file_path".into(), path);
    }
    out.insert("edits".into(), Value::Array(edits));
    if let Some(dry_run) = map.remove("dry_run") {
        out.insert("dry_run".into(), dry_run);
    }
    Ok(Value::Object(out))
}

/// One of Pi's edits, `{oldText, newText}`, as MultiEdit's `{old_string, new_string}`.
fn pi_edit(item: Value) -> ToolResult<Value> {
    let Value::Object(mut item) = item else {
        return Err(pi_list_shape());
    };
    if let Some(bad) = item.keys().find(|k| *k != "oldText" && *k != "newText") {
        return Err(ToolError::invalid_input(format!(
            "An edit of the list has the unexpected key `{bad}`: each edit is {{oldText, \
             newText}}."
        ))
        .with("field", bad.as_str()));
    }
    if item.get("oldText").and_then(Value::as_str) == Some("") {
        return Err(ToolError::invalid_input(
            "`oldText` of an edit is empty: each edit of the list replaces text the file has, \
             so oldText must quote it. To create a file, use Write.",
        )
        .with("field", "old_string"));
    }
    let mut out = Map::new();
    if let Some(old) = item.remove("oldText") {
        out.insert("old_string".into(), old);
    }
    if let Some(new) = item.remove("newText") {
        out.insert("new_string".into(), new);
    }
    Ok(Value::Object(out))
}

fn pi_list_shape() -> ToolError {
    ToolError::invalid_input(
        "The parameter `edits` of Edit must be an array of {oldText, newText} objects.",
    )
    .with("field", "edits")
}

fn mixed(tool: &str, keys: &[String], table: &[Spelling]) -> ToolError {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let canonical: Vec<&str> = {
        let mut c: Vec<&str> = table
            .iter()
            .map(|(_, c, _)| *c)
            .filter(|c| *c != IGNORED)
            .collect();
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
            json!({"path": "a", "oldText": "x", "newText": "y"}),
            json!({"path": "a", "old_str": "x", "new_str": "y"}),
            json!({"file_path": "a", "instruction": "i", "old_string": "x", "new_string": "y",
                   "allow_multiple": true}),
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
            json!({"filePath": "a", "old_string": "x", "new_string": "y"}),
            json!({"file_path": "a", "old_string": "x", "new_string": "y", "instruction": 1,
                   "replace_all": true}),
        ] {
            let err = edit(input.clone()).err().map(|e| e.code.as_str());
            assert_eq!(err, Some("invalid_input"), "{input}");
        }
    }

    #[test]
    fn alias_1_instruction_is_read_and_dropped() {
        let out = edit(
            json!({"file_path": "a", "instruction": "why", "old_string": "x",
                              "new_string": "y"}),
        )
        .unwrap_or(Value::Null);
        assert!(out.get("instruction").is_none(), "{out}");
        // Of the wrong kind it is named, once the spelling is one agent's.
        let e = edit(
            json!({"file_path": "a", "instruction": [1], "old_string": "x",
                            "new_string": "y"}),
        )
        .err()
        .map(|e| e.fields["field"].clone());
        assert_eq!(e, Some(json!("instruction")));
    }

    #[test]
    fn alias_6_pis_list_is_multi_edits_input() {
        let form = edit_form(
            json!({"path": "a", "edits": [{"oldText": "x", "newText": "y"}],
                                    "oldText": "p", "newText": "q", "dry_run": true}),
        );
        let Ok(EditForm::List(v)) = form else {
            panic!("not a list")
        };
        assert_eq!(
            v,
            json!({"file_path": "a", "edits": [{"old_string": "x", "new_string": "y"},
                                               {"old_string": "p", "new_string": "q"}],
                   "dry_run": true})
        );
        let Ok(EditForm::One(v)) = edit_form(json!({"path": "a", "oldText": "x", "newText": "y"}))
        else {
            panic!("not one edit")
        };
        assert_eq!(
            v,
            json!({"file_path": "a", "old_string": "x", "new_string": "y"})
        );
    }
}
