//! The strict reader behind every tool's `from_json`: one JSON object, only known keys, each
//! value of the expected kind.
//!
//! Models send tool inputs as loosely typed JSON, so the reader is deliberately forgiving where
//! no meaning can be lost (`"true"` for a boolean, `"5"` for a number, `null` for an absent
//! optional) and strict where a guess could do damage: an unknown key is refused, never
//! ignored, because it usually means the model meant another tool or misspelled a flag. Every
//! refusal names the field, so the model can correct exactly that.

use crate::error::{ToolError, ToolResult};
use serde_json::{Map, Value};

/// Strict access to a tool's input object.
pub(crate) struct Fields<'a> {
    tool: &'static str,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// Checks that `input` is an object whose keys are all in `allowed`.
    pub fn new(tool: &'static str, input: &'a Value, allowed: &[&str]) -> ToolResult<Fields<'a>> {
        let map = input.as_object().ok_or_else(|| {
            ToolError::invalid_input(format!("{tool} expects a JSON object as input"))
        })?;
        if let Some(bad) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(ToolError::invalid_input(format!(
                "An unexpected parameter `{bad}` was provided to {tool}. Its parameters are: {}.",
                allowed.join(", ")
            ))
            .with("field", bad.as_str()));
        }
        Ok(Fields { tool, map })
    }

    fn type_error(&self, key: &str, wanted: &str) -> ToolError {
        ToolError::invalid_input(format!(
            "The parameter `{key}` of {} must be {wanted}.",
            self.tool
        ))
        .with("field", key)
    }

    /// A required string.
    pub fn string(&self, key: &str) -> ToolResult<String> {
        self.str(key).map(str::to_owned)
    }

    /// A required string, borrowed: checks it the way [`Fields::string`] does, for a caller
    /// that then moves it out of an input it owns with [`take_string`].
    pub fn str(&self, key: &str) -> ToolResult<&'a str> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s),
            None | Some(Value::Null) => Err(ToolError::invalid_input(format!(
                "The required parameter `{key}` of {} is missing.",
                self.tool
            ))
            .with("field", key)),
            Some(_) => Err(self.type_error(key, "a string")),
        }
    }

    /// An optional string.
    pub fn opt_string(&self, key: &str) -> ToolResult<Option<String>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.type_error(key, "a string")),
        }
    }

    /// An optional boolean; the strings "true" and "false" are accepted.
    pub fn boolean(&self, key: &str) -> ToolResult<bool> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if s == "true" => Ok(true),
            Some(Value::String(s)) if s == "false" => Ok(false),
            Some(_) => Err(self.type_error(key, "a boolean (true or false)")),
        }
    }

    /// An optional non-negative integer; numeric strings are accepted.
    pub fn integer(&self, key: &str) -> ToolResult<Option<u64>> {
        let v = match self.map.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(v) => v,
        };
        let n = match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        n.map(Some)
            .ok_or_else(|| self.type_error(key, "a non-negative whole number"))
    }

    /// The raw value of a key.
    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }
}

/// Moves the string of `key` out of an input object that [`Fields::str`] has checked, leaving
/// an empty string in its place: the model's text changes hands instead of being copied, which
/// is what keeps a string of many megabytes from being held twice. Anything else (which the
/// check rules out) gives an empty string, never a panic.
pub(crate) fn take_string(input: &mut Value, key: &str) -> String {
    match input.get_mut(key) {
        Some(Value::String(s)) => std::mem::take(s),
        _ => String::new(),
    }
}
