//! What in a tool's result does not fit the result shape the protocol defines for that tool
//! (SPEC.md §13.1): a field the protocol does not define, or a field of another JSON type.
//!
//! The shapes are the JSON Schemas editref publishes for its result types, so they name every
//! field the protocol documents — those the reference sends only sometimes (`dryRun`,
//! `durable`) included. A field documented as optional is never "extra", whether or not the
//! reference sent it this time; it only has to be of its type. A field no shape names is
//! reported as one the protocol does not define. Where a schema says nothing of a value
//! (a notebook cell's `outputs`), anything goes.

use crate::check::forms::{fits, type_of};
use crate::class::{self, Class};
use editref::api::{
    output_schema, EditOutput, FilesOutput, LineEditOutput, MultiEditOutput, NotebookEditOutput,
    ReadOutput, TextEditorOutput, UndoOutput, WriteOutput,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One place where a result does not fit its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misfit {
    /// The field's dotted path; `[]` stands for any element of an array (`edits[].foo`).
    pub path: String,
    /// `None`: the protocol does not define the field; else the types it allows there.
    pub want: Option<Vec<String>>,
    /// The JSON type found.
    pub got: &'static str,
}

/// The result schemas by tool name.
fn schemas() -> &'static BTreeMap<&'static str, Value> {
    static SCHEMAS: OnceLock<BTreeMap<&'static str, Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let editor: Value = output_schema::<TextEditorOutput>().into();
        let files: Value = output_schema::<FilesOutput>().into();
        BTreeMap::from([
            ("Read", output_schema::<ReadOutput>().into()),
            ("Edit", output_schema::<EditOutput>().into()),
            ("MultiEdit", output_schema::<MultiEditOutput>().into()),
            ("Write", output_schema::<WriteOutput>().into()),
            ("NotebookEdit", output_schema::<NotebookEditOutput>().into()),
            ("Undo", output_schema::<UndoOutput>().into()),
            ("LineEdit", output_schema::<LineEditOutput>().into()),
            ("str_replace_based_edit_tool", editor.clone()),
            ("str_replace_editor", editor),
            ("apply_patch", files.clone()),
            ("search_replace", files),
        ])
    })
}

/// Every misfit of `output`, a successful result of `tool`, in field order; none for a tool
/// the protocol gives no shape.
pub fn misfits(tool: &str, output: &Value) -> Vec<Misfit> {
    let mut out = Vec::new();
    if let Some(schema) = schemas().get(tool) {
        walk(schema, output, "", &mut out);
    }
    out.dedup();
    out
}

/// The branch of a `oneOf` that `v` takes: the first whose constant fields (`type`,
/// `command`) it has, or, for plain values, the first of its type.
fn branch<'a>(branches: &'a [Value], v: &Value) -> Option<&'a Value> {
    branches.iter().find(|b| {
        let consts_match = b
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|props| {
                props.iter().all(|(k, p)| match p.get("const") {
                    Some(c) => v.get(k) == Some(c),
                    None => true,
                })
            });
        let plain = b.get("const").is_some() && types(b).is_some_and(|t| fits_names(&t, v));
        consts_match || plain
    })
}

/// The types a schema allows, `None` when it says nothing.
fn types(schema: &Value) -> Option<Vec<String>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.clone()]),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
        ),
        _ => None,
    }
}

fn fits_names(want: &[String], v: &Value) -> bool {
    let names: Vec<&str> = want.iter().map(String::as_str).collect();
    fits(&names, v)
}

/// Checks `v` against `schema` below `path`.
fn walk(schema: &Value, v: &Value, path: &str, out: &mut Vec<Misfit>) {
    if let Some(branches) = schema.get("oneOf").and_then(Value::as_array) {
        // A value no branch takes (a `type` the protocol has not) is a value difference the
        // comparison of fields reports; its shape is not judged.
        if let Some(b) = branch(branches, v) {
            walk(b, v, path, out);
        }
        return;
    }
    if let Some(want) = types(schema) {
        if !fits_names(&want, v) {
            out.push(Misfit {
                path: path.to_string(),
                want: Some(want),
                got: type_of(v),
            });
            return;
        }
    }
    let at = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Object(m) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (k, x) in m {
                match props.get(k) {
                    Some(s) => walk(s, x, &at(k), out),
                    None => out.push(Misfit {
                        path: at(k),
                        want: None,
                        got: type_of(x),
                    }),
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for x in items {
                    walk(s, x, &format!("{path}[]"), out);
                }
            }
        }
        _ => {}
    }
}

/// A misfit as the comparison reports it: the kind, the particulars, the class, and what a
/// written finding expects of the field (its path in the output and the expectation there).
pub struct Reported {
    /// The kind, in general terms.
    pub kind: String,
    /// The particulars.
    pub detail: String,
    /// The class of the field, as the corpus harness classes it.
    pub class: Class,
    /// The field's place in the output (dotted, no `[]`) and what to expect there.
    pub expect: (String, Value),
}

/// The misfits of `got` (the result of a call named `name`, of `tool` with `input`) outside the
/// fields in `covered` (those whose values already differ), reported; `want` is the
/// reference's result, whose value stands in for an array field with a misfit inside.
pub fn reported(
    name: &str,
    tool: &str,
    input: &Value,
    want: &Value,
    got: &Value,
    covered: &[String],
) -> Vec<Reported> {
    let within = |path: &str, field: &str| {
        path == field
            || path
                .strip_prefix(field)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
    };
    misfits(tool, got)
        .into_iter()
        .filter(|m| !covered.iter().any(|c| within(&m.path, c)))
        .map(|m| {
            let field = m.path.split("[]").next().unwrap_or_default().to_string();
            let pointer = format!("/{}", field.replace('.', "/"));
            let expected = if field != m.path {
                // Arrays are compared whole: the reference's array, which has the shape.
                want.pointer(&pointer)
                    .cloned()
                    .unwrap_or_else(|| json!({"shape": "array"}))
            } else {
                match &m.want {
                    None => json!({"absent": true}),
                    Some(t) if t.len() == 1 => json!({"shape": t[0]}),
                    Some(t) => json!({"shape": t}),
                }
            };
            let (kind, detail) = match &m.want {
                None => (
                    format!(
                        "{name}: the result has {}, which the protocol does not define",
                        m.path
                    ),
                    format!(
                        "{} ({}) is not a field of the protocol's result",
                        m.path, m.got
                    ),
                ),
                Some(t) => (
                    format!(
                        "{name}: result field {} is {} where the protocol has {}",
                        m.path,
                        m.got,
                        t.join(" or ")
                    ),
                    format!(
                        "{} is {}, the protocol's {} is {}",
                        m.path,
                        m.got,
                        m.path,
                        t.join(" or ")
                    ),
                ),
            };
            Reported {
                kind,
                detail,
                class: class::of_output_leaf(tool, input, &m.path.replace("[]", "")),
                expect: (field, expected),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extra_and_wrongly_typed_fields_are_misfits_and_documented_optional_ones_are_not() {
        let edit = json!({
            "filePath": "/x", "oldString": "a", "newString": "b", "replaceAll": false,
            "replacements": 1, "structuredPatch": [], "diff": "", "repairs": [],
            "userModified": false, "dryRun": true, "durable": false
        });
        assert_eq!(misfits("Edit", &edit), vec![]);
        let mut bad = edit.clone();
        bad["message"] = json!("edited");
        bad["replacements"] = json!("1");
        bad["structuredPatch"] = json!([{"oldStart": 1, "oldLines": 1, "newStart": 1,
                                          "newLines": 1, "lines": "-a\n+b"}]);
        let found = misfits("Edit", &bad);
        let described: Vec<(String, Option<Vec<String>>, &str)> =
            found.into_iter().map(|m| (m.path, m.want, m.got)).collect();
        assert_eq!(
            described,
            vec![
                (
                    "replacements".into(),
                    Some(vec!["integer".into()]),
                    "string"
                ),
                (
                    "structuredPatch[].lines".into(),
                    Some(vec!["array".into()]),
                    "string"
                ),
                ("message".into(), None, "string"),
            ]
        );
        // A Read's shape follows its `type`; a nullable field takes null.
        let read = json!({"type": "text", "file": {"filePath": "/x", "content": "1\ta",
                          "numLines": 1, "startLine": 1, "totalLines": 1, "encoding": "utf-8"}});
        assert_eq!(misfits("Read", &read)[0].path, "file.encoding");
        let write = json!({"type": "create", "filePath": "/x", "content": "",
                           "structuredPatch": [], "originalFile": null});
        assert_eq!(misfits("Write", &write), vec![]);
        assert_eq!(misfits("NoSuchTool", &json!({"x": 1})), vec![]);
    }
}
