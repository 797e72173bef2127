//! Edit's and MultiEdit's inputs and outputs: exact string replacement in one file, once or
//! as an all-or-nothing sequence.

use super::fields::{take_string, Fields};
use super::patch::Change;
use crate::error::{ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Replace exact text in a file.
///
/// Read the whole file first in this session; the edit is refused if the file changed since.
/// `old_string` must occur exactly once unless `replace_all` is set — copy it from the file
/// with enough surrounding lines to be unique, without the line-number prefixes Read shows.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// The file to change: absolute, or relative to the session's working directory.
    pub file_path: String,
    /// The exact text to replace, as it appears in the file. Empty only to create a new file.
    pub old_string: String,
    /// The text to put in its place; must differ from `old_string`.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replace_all: bool,
    /// Replace every occurrence, and refuse unless there are exactly this many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub expected_replacements: Option<u64>,
    /// Check everything and report the diff, but write nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

impl EditInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 6] = [
        "file_path",
        "old_string",
        "new_string",
        "replace_all",
        "expected_replacements",
        "dry_run",
    ];

    /// An edit replacing the single occurrence of `old_string` in `file_path`.
    pub fn new(
        file_path: impl Into<String>,
        old_string: impl Into<String>,
        new_string: impl Into<String>,
    ) -> EditInput {
        EditInput {
            file_path: file_path.into(),
            old_string: old_string.into(),
            new_string: new_string.into(),
            ..EditInput::default()
        }
    }

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<EditInput> {
        Self::from_value(input.clone())
    }

    /// [`EditInput::from_json`] on an input the caller hands over: the same checks in the same
    /// order, with the strings moved out of it rather than copied (a JSON front end has no
    /// further use for the input once it is parsed).
    pub fn from_value(input: Value) -> ToolResult<EditInput> {
        Self::from_canonical(super::aliases::edit(input)?)
    }

    /// Edit's input once other agents' spellings are read as the canonical names.
    fn from_canonical(mut input: Value) -> ToolResult<EditInput> {
        let f = Fields::new("Edit", &input, &Self::FIELDS)?;
        let expected_replacements = f.integer("expected_replacements")?;
        if expected_replacements == Some(0) {
            return Err(ToolError::invalid_input(
                "`expected_replacements` of Edit must be at least 1: an edit that replaces nothing changes nothing.",
            )
            .with("field", "expected_replacements"));
        }
        f.str("file_path")?;
        f.str("old_string")?;
        f.str("new_string")?;
        let replace_all = f.boolean("replace_all")?;
        let dry_run = f.boolean("dry_run")?;
        Ok(EditInput {
            file_path: take_string(&mut input, "file_path"),
            old_string: take_string(&mut input, "old_string"),
            new_string: take_string(&mut input, "new_string"),
            replace_all,
            expected_replacements,
            dry_run,
        })
    }
}

/// One replacement of a MultiEdit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditSpec {
    /// The exact text to replace, in the file as the earlier edits left it.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replace_all: bool,
}

impl EditSpec {
    /// The fields of one edit.
    pub const FIELDS: [&'static str; 3] = ["old_string", "new_string", "replace_all"];
}

/// Apply several replacements to one file, in order, each to the result of the one before;
/// all are written together or none is.
///
/// The same rules as Edit hold for every edit; an edit may not target text an earlier edit
/// of the same call wrote.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultiEditInput {
    /// The file to change: absolute, or relative to the session's working directory.
    pub file_path: String,
    /// The edits, 1 to 1000 of them.
    pub edits: Vec<EditSpec>,
    /// Check everything and report the diff, but write nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

/// Most edits one MultiEdit may carry.
pub const MAX_EDITS: usize = 1000;

impl MultiEditInput {
    /// The input fields, in schema order (unknown fields are refused).
    pub const FIELDS: [&'static str; 3] = ["file_path", "edits", "dry_run"];

    /// Parses a JSON input the way models send it (see [`crate::api`] for what is tolerated).
    pub fn from_json(input: &Value) -> ToolResult<MultiEditInput> {
        Self::from_value(input.clone())
    }

    /// [`MultiEditInput::from_json`] on an input the caller hands over: the same checks in the
    /// same order, with the strings moved out of it rather than copied.
    pub fn from_value(input: Value) -> ToolResult<MultiEditInput> {
        Self::parse("MultiEdit", input)
    }

    /// MultiEdit's input, its messages naming `tool`, the tool the model called: MultiEdit, or
    /// Edit for Pi's list of edits in the canonical names (ALIAS-6).
    fn parse(tool: &'static str, mut input: Value) -> ToolResult<MultiEditInput> {
        let f = Fields::new(tool, &input, &Self::FIELDS)?;
        f.str("file_path")?;
        let dry_run = f.boolean("dry_run")?;
        let list = match f.raw("edits") {
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(ToolError::invalid_input(format!("The parameter `edits` of {tool} must be an array of {{old_string, new_string, replace_all?}} objects.")).with("field", "edits"))
            }
            None => {
                return Err(ToolError::invalid_input(format!("The required parameter `edits` of {tool} is missing.")).with("field", "edits"))
            }
        };
        if list.is_empty() || list.len() > MAX_EDITS {
            return Err(ToolError::invalid_input(format!(
                "{tool} takes 1 to {MAX_EDITS} edits; {} were given. Split larger changes into several calls.",
                list.len()
            ))
            .with("field", "edits"));
        }
        let mut flags = Vec::with_capacity(list.len());
        for (index, e) in list.iter().enumerate() {
            let checked = (|| {
                let ef = Fields::new(tool, e, &EditSpec::FIELDS)?;
                ef.str("old_string")?;
                ef.str("new_string")?;
                ef.boolean("replace_all")
            })();
            flags.push(checked.map_err(|err| err.with("edit_index", index))?);
        }
        // Every check has passed: the strings change hands.
        let file_path = take_string(&mut input, "file_path");
        let edits = match input.get_mut("edits") {
            Some(Value::Array(list)) => list
                .iter_mut()
                .zip(flags)
                .map(|(e, replace_all)| EditSpec {
                    old_string: take_string(e, "old_string"),
                    new_string: take_string(e, "new_string"),
                    replace_all,
                })
                .collect(),
            _ => Vec::new(),
        };
        Ok(MultiEditInput {
            file_path,
            edits,
            dry_run,
        })
    }
}

/// An Edit call as the JSON entry reads it (ALIAS-1..6): one edit in any agent's spelling, or
/// Pi's list of edits, which runs as a MultiEdit whose edits are all matched against the file
/// as it was read.
#[derive(Debug)]
pub(crate) enum EditCall {
    /// One edit.
    One(EditInput),
    /// Pi's list of edits, in MultiEdit's canonical input (ALIAS-6).
    List(MultiEditInput),
}

impl EditCall {
    /// Reads an Edit call, moving its strings out of `input`.
    pub(crate) fn from_value(input: Value) -> ToolResult<EditCall> {
        Ok(match super::aliases::edit_form(input)? {
            super::aliases::EditForm::One(v) => EditCall::One(EditInput::from_canonical(v)?),
            super::aliases::EditForm::List(v) => EditCall::List(MultiEditInput::parse("Edit", v)?),
        })
    }
}

/// What Edit did (EDIT-5).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditOutput {
    /// The path as given.
    pub file_path: String,
    /// The file's own text that was replaced (at the first hit): differs from the request
    /// when a repair or the curly-quote fallback found it.
    pub old_string: String,
    /// The text written (at the first hit), after quote styling.
    pub new_string: String,
    /// Whether `replace_all` was set.
    pub replace_all: bool,
    /// How many occurrences were replaced.
    pub replacements: usize,
    /// `structuredPatch` and `diff`.
    #[serde(flatten)]
    pub change: Change,
    /// Input repairs that fired (`desanitize`, `line_prefix`, `unicode_escape`); a hit found by
    /// the curly-quote fallback (MATCH-2) shows in `old_string` instead.
    pub repairs: Vec<&'static str>,
    /// Always false: nobody edited the proposed change before it was applied.
    pub user_modified: bool,
    /// Present and true on a dry run: nothing was written.
    #[serde(skip_serializing_if = "is_false")]
    pub dry_run: bool,
    /// Present and false when the write was not fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}

/// What one edit of a MultiEdit did (MULTI-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditSummary {
    /// The file's own text that was replaced (at the first hit).
    pub old_string: String,
    /// The text written (at the first hit).
    pub new_string: String,
    /// Whether `replace_all` was set.
    pub replace_all: bool,
    /// How many occurrences were replaced.
    pub replacements: usize,
    /// Input repairs that fired for this edit.
    pub repairs: Vec<&'static str>,
}

/// What MultiEdit did (MULTI-5).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiEditOutput {
    /// The path as given.
    pub file_path: String,
    /// One summary per edit, in order.
    pub edits: Vec<EditSummary>,
    /// `structuredPatch` and `diff` of all edits together.
    #[serde(flatten)]
    pub change: Change,
    /// Every repair that fired, once each.
    pub repairs: Vec<&'static str>,
    /// Always false.
    pub user_modified: bool,
    /// Present and true on a dry run: nothing was written.
    #[serde(skip_serializing_if = "is_false")]
    pub dry_run: bool,
    /// Present and false when the write was not fully fsynced (DISK-6).
    #[serde(skip_serializing_if = "is_true")]
    pub durable: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_4_the_json_entry_moves_the_strings_it_parses() {
        // D29/ALIAS-1: the same input through the canonical names and an agent's spelling; the
        // strings change hands instead of being copied (a 50 MB old_string is held once).
        for key in ["old_string", "oldString"] {
            let old = "x".repeat(1000);
            let input = if key == "old_string" {
                json!({"file_path": "a", "old_string": old, "new_string": "y"})
            } else {
                json!({"filePath": "a", "oldString": old, "newString": "y"})
            };
            let at = input[key].as_str().map(str::as_ptr);
            let parsed = EditInput::from_value(input.clone()).unwrap_or_default();
            assert_eq!(EditInput::from_json(&input).ok(), Some(parsed));
            let moved = EditInput::from_value(input).unwrap_or_default();
            assert_eq!(moved.old_string.len(), 1000);
            assert_eq!(Some(moved.old_string.as_ptr()), at, "{key}");
        }
        let old = "z".repeat(100);
        let input = json!({"file_path": "a", "edits": [{"old_string": "q", "new_string": "r"}, {"old_string": old, "new_string": "s", "replace_all": "true"}]});
        let at = input["edits"][1]["old_string"].as_str().map(str::as_ptr);
        let parsed = MultiEditInput::from_value(input).unwrap_or_default();
        assert_eq!(Some(parsed.edits[1].old_string.as_ptr()), at);
        assert!(parsed.edits[1].replace_all);
    }

    #[test]
    fn d29_the_json_entry_refuses_in_the_same_order() {
        // The first wrong field is the one named, whether the strings are moved or copied.
        let bad =
            json!({"file_path": 1, "old_string": 2, "new_string": "y", "replace_all": "maybe"});
        let err = EditInput::from_value(bad)
            .err()
            .map(|e| e.fields["field"].clone());
        assert_eq!(err, Some(json!("file_path")));
        let bad = json!({"file_path": "a", "old_string": "x", "new_string": "y", "expected_replacements": 0, "replace_all": 3});
        let err = EditInput::from_value(bad)
            .err()
            .map(|e| e.fields["field"].clone());
        assert_eq!(err, Some(json!("expected_replacements")));
        let bad = json!({"file_path": "a", "edits": [{"old_string": "x", "new_string": "y"}, {"old_string": 5, "new_string": "y"}]});
        let err = MultiEditInput::from_value(bad)
            .err()
            .map(|e| e.fields["edit_index"].clone());
        assert_eq!(err, Some(json!(1)));
    }
}
