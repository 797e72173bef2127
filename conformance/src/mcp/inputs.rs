//! What `--mcp-input` and `--mcp-error` translate: a server whose tools take arguments of their
//! own shape (the reference filesystem server's `edit_file {path, edits: [{oldText, newText}]}`)
//! and whose errors are only text can still be certified through `--mcp`, without an adapter.
//!
//! An input template is the server's arguments as JSON in which a string `"$name"` stands for
//! the corpus input's field `name` (any JSON value). A field the call does not carry leaves its
//! key out; every field the template does not name is not sent. An error rule gives a SPEC.md
//! error code to the error results whose text contains a given piece of text. Both only rename
//! and relabel what the call and the server said; neither can change a value.

use serde_json::{Map, Value};

/// Per corpus tool, the template of the server's arguments (`--mcp-input TOOL=JSON`).
#[derive(Debug, Clone, Default)]
pub struct InputMap {
    templates: Vec<(String, Value)>,
}

impl InputMap {
    /// Parses the `--mcp-input` values, each `TOOL=JSON` with a JSON object on the right.
    pub fn parse(specs: &[String]) -> Result<InputMap, String> {
        let mut templates = Vec::new();
        for spec in specs {
            let Some((tool, json)) = spec.split_once('=') else {
                return Err(format!(
                    "--mcp-input {spec:?}: write TOOL={{...}}, e.g. Write={{\"path\":\"$file_path\",\"content\":\"$content\"}}"
                ));
            };
            let tool = tool.trim();
            if !editref_protocol::TOOLS.contains(&tool) {
                return Err(format!(
                    "--mcp-input {spec:?}: {tool:?} is not a corpus tool (one of {})",
                    editref_protocol::TOOLS.join(", ")
                ));
            }
            let template: Value = serde_json::from_str(json)
                .map_err(|e| format!("--mcp-input {spec:?}: the template is not JSON: {e}"))?;
            if !template.is_object() {
                return Err(format!(
                    "--mcp-input {spec:?}: the template must be a JSON object (the arguments)"
                ));
            }
            templates.push((tool.to_string(), template));
        }
        Ok(InputMap { templates })
    }

    /// The arguments to send for a call of `tool` with `input`: the template filled in, or the
    /// input itself when the tool has no template.
    pub fn arguments(&self, tool: &str, input: &Map<String, Value>) -> Map<String, Value> {
        match self.templates.iter().find(|(t, _)| t == tool) {
            Some((_, template)) => match fill(template, input) {
                Some(Value::Object(args)) => args,
                _ => Map::new(),
            },
            None => input.clone(),
        }
    }
}

/// `template` with every `"$name"` replaced by `input[name]`; `None` where that field is absent.
fn fill(template: &Value, input: &Map<String, Value>) -> Option<Value> {
    match template {
        Value::String(s) => match s.strip_prefix('$') {
            Some(name) if is_field_name(name) => input.get(name).cloned(),
            _ => Some(template.clone()),
        },
        // Items whose field the call lacks are left out; a list of the call's own is mapped
        // element by element with `$each` (see `each`).
        Value::Array(items) => Some(Value::Array(
            items.iter().filter_map(|i| fill(i, input)).collect(),
        )),
        Value::Object(fields) => {
            if let Some(mapped) = each(fields, input) {
                return mapped;
            }
            Some(Value::Object(
                fields
                    .iter()
                    .filter_map(|(k, v)| fill(v, input).map(|v| (k.clone(), v)))
                    .collect(),
            ))
        }
        _ => Some(template.clone()),
    }
}

/// `{"$each": "$edits", "as": {...}}`: the input's list `edits`, each element put through the
/// template `as` (whose `"$name"`s name the element's fields). MultiEdit's
/// `edits: [{old_string, new_string}]` becomes `edits: [{oldText, newText}]` so.
fn each(fields: &Map<String, Value>, input: &Map<String, Value>) -> Option<Option<Value>> {
    let source = fields.get("$each")?.as_str()?.strip_prefix('$')?;
    let item_template = fields.get("as")?;
    let Some(list) = input.get(source) else {
        return Some(None);
    };
    let Value::Array(items) = list else {
        return Some(Some(list.clone()));
    };
    let mapped = items
        .iter()
        .map(|item| match item {
            Value::Object(fields) => fill(item_template, fields).unwrap_or(Value::Null),
            other => other.clone(),
        })
        .collect();
    Some(Some(Value::Array(mapped)))
}

fn is_field_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Error codes for error results that carry only text (`--mcp-error CODE=TEXT`).
#[derive(Debug, Clone, Default)]
pub struct ErrorRules {
    rules: Vec<(String, String)>,
}

impl ErrorRules {
    /// Parses the `--mcp-error` values, each `CODE=TEXT` with a SPEC.md error code.
    pub fn parse(specs: &[String]) -> Result<ErrorRules, String> {
        let mut rules = Vec::new();
        for spec in specs {
            match spec.split_once('=') {
                Some((code, text)) if !code.trim().is_empty() && !text.is_empty() => {
                    rules.push((code.trim().to_string(), text.to_string()))
                }
                _ => {
                    return Err(format!(
                        "--mcp-error {spec:?}: write CODE=TEXT, e.g. not_found=Could not find"
                    ))
                }
            }
        }
        Ok(ErrorRules { rules })
    }

    /// The code of the first rule whose text `message` contains.
    pub fn code_for(&self, message: &str) -> Option<&str> {
        self.rules
            .iter()
            .find(|(_, text)| message.contains(text.as_str()))
            .map(|(code, _)| code.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn a_template_renames_and_leaves_out_what_the_call_lacks() {
        let map = InputMap::parse(&[
            r#"Edit={"path":"$file_path","edits":[{"oldText":"$old_string","newText":"$new_string"}],"dryRun":"$dry_run"}"#.into(),
        ])
        .unwrap();
        let input = obj(
            json!({"file_path": "a.txt", "old_string": "x", "new_string": "y",
                               "replace_all": true}),
        );
        assert_eq!(
            Value::Object(map.arguments("Edit", &input)),
            json!({"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}]})
        );
        // A tool without a template gets the call's input as it is.
        assert_eq!(map.arguments("Read", &input), input);
    }

    #[test]
    fn each_maps_a_list_element_by_element() {
        let map = InputMap::parse(&[r#"MultiEdit={"path":"$file_path","edits":{"$each":"$edits","as":{"oldText":"$old_string","newText":"$new_string"}}}"#.into()])
            .unwrap();
        let input = obj(json!({"file_path": "a", "edits": [
            {"old_string": "1", "new_string": "2"},
            {"old_string": "3", "new_string": "4", "replace_all": false}
        ]}));
        assert_eq!(
            Value::Object(map.arguments("MultiEdit", &input)),
            json!({"path": "a", "edits": [{"oldText": "1", "newText": "2"},
                                          {"oldText": "3", "newText": "4"}]})
        );
    }

    #[test]
    fn bad_specs_are_usage_errors() {
        for bad in ["Edit", "Bash={}", "Edit=[1]", "Edit={oops"] {
            assert!(InputMap::parse(&[bad.into()]).is_err(), "{bad}");
        }
        assert!(ErrorRules::parse(&["not_found".into()]).is_err());
        assert!(ErrorRules::parse(&["=text".into()]).is_err());
    }

    #[test]
    fn error_rules_give_codes_by_text() {
        let rules = ErrorRules::parse(&[
            "not_found=Could not find exact match".into(),
            "outside_root=Access denied".into(),
        ])
        .unwrap();
        assert_eq!(
            rules.code_for("Error: Could not find exact match for edit:\nx"),
            Some("not_found")
        );
        assert_eq!(
            rules.code_for("Access denied - path outside"),
            Some("outside_root")
        );
        assert_eq!(rules.code_for("ENOENT"), None);
    }
}
