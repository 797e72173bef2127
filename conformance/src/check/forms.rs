//! The expectation forms that stand for a check rather than a value, inside a call's expected
//! `output`: `{absent: true}` (the field must not be there) and `{shape: TYPE}` (the field must
//! be of that JSON type: `string`, `integer`, `number`, `boolean`, `array`, `object`, `null`,
//! or a list of them). Like `{contains: TEXT}`, each is read so only as an object with that
//! one key; the protocol's results have no field of either form.

use serde_json::{Map, Value};

/// Whether `expected` is `{absent: true}`.
pub fn absent(expected: &Value) -> bool {
    matches!(expected, Value::Object(m) if m.len() == 1 && m.get("absent") == Some(&Value::Bool(true)))
}

/// The JSON types a `{shape: TYPE}` expectation allows, `None` for any other value.
pub fn shape(expected: &Value) -> Option<Vec<&str>> {
    let Value::Object(m) = expected else {
        return None;
    };
    match (m.len(), m.get("shape")) {
        (1, Some(Value::String(t))) if TYPES.contains(&t.as_str()) => Some(vec![t.as_str()]),
        (1, Some(Value::Array(ts))) => {
            let names: Option<Vec<&str>> = ts
                .iter()
                .map(|t| t.as_str().filter(|t| TYPES.contains(t)))
                .collect();
            names.filter(|n| !n.is_empty())
        }
        _ => None,
    }
}

/// The JSON type names a `shape` may name.
pub const TYPES: [&str; 7] = [
    "string", "integer", "number", "boolean", "array", "object", "null",
];

/// The JSON type of `v`, as a schema names it (`integer` for a whole number).
pub fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `v` is of one of `types` (an integer is a number too).
pub fn fits(types: &[&str], v: &Value) -> bool {
    let t = type_of(v);
    types
        .iter()
        .any(|w| *w == t || (*w == "number" && t == "integer"))
}

/// Whether an expected object is one of the forms (`contains`, `absent`, `shape`): a leaf, for
/// the rules that class a check by the fields it names.
pub fn is_form(m: &Map<String, Value>) -> bool {
    let v = Value::Object(m.clone());
    absent(&v)
        || shape(&v).is_some()
        || (m.len() == 1 && m.get("contains").is_some_and(Value::is_string))
}
