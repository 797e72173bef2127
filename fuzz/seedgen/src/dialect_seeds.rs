//! Seeds of `dialect_inputs`: the inputs the corpus sends to the text editor (under either
//! name), LineEdit, Edit and Write — other agents' spellings of `param_aliases` included —
//! written as fields of the target's framing.

use crate::seeds::Seeds;
use editref_fuzzing::{DialectCase, FieldSpec, KeySpec, ValueSpec, KEYS};
use serde_json::Value;

/// The reader a corpus tool's input goes to (the tool byte), `None` for the other tools.
fn reader(tool: &str) -> Option<u8> {
    match tool {
        "str_replace_based_edit_tool" => Some(0),
        "str_replace_editor" => Some(4),
        "LineEdit" => Some(1),
        "Edit" => Some(2),
        "Write" => Some(3),
        _ => None,
    }
}

/// A JSON value as the framing writes it, `None` for one it cannot hold.
fn value(v: &Value) -> Option<ValueSpec> {
    Some(match v {
        Value::String(s) => ValueSpec::Text(s.clone()),
        Value::Bool(b) => ValueSpec::Bool(*b),
        Value::Null => ValueSpec::Null,
        Value::Number(n) => match n.as_i64()? {
            i @ 0..=65535 => ValueSpec::Int(i as u16),
            i @ -65536..=-1 => ValueSpec::Neg((-i - 1) as u16),
            _ => return None,
        },
        Value::Array(a) if a.len() == 2 => {
            let x = i16::try_from(a[0].as_i64()?).ok()?;
            let y = i16::try_from(a[1].as_i64()?).ok()?;
            ValueSpec::Range(x, y)
        }
        _ => return None,
    })
}

/// The seed of one corpus call, when its tool has a reader here and its input fits the
/// framing.
pub(crate) fn dialect_seed(name: &str, tool: &str, input: &Value, seeds: &mut Seeds) {
    let Some(tool) = reader(tool) else { return };
    let Some(map) = input.as_object() else { return };
    let fields: Option<Vec<FieldSpec>> = map
        .iter()
        .map(|(k, v)| {
            let key = match KEYS.iter().position(|p| p == k) {
                Some(i) => KeySpec::Pool(i as u8),
                None => KeySpec::Free(k.clone()),
            };
            Some(FieldSpec {
                key,
                value: value(v)?,
            })
        })
        .collect();
    let Some(fields) = fields else { return };
    let case = DialectCase { tool, fields };
    seeds.add_checked("dialect_inputs", name.to_string(), &case, case.to_bytes());
}
