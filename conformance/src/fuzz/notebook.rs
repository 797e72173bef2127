//! Notebooks in generated cases, for a tool that declares `notebook_edit`: a `.ipynb` file as
//! Jupyter writes it (one-space indentation, keys sorted, non-ASCII as itself, a final line
//! break) with a few code and markdown cells, and NotebookEdit calls that replace, insert or
//! delete a cell, by its id or as `cell-N` (NOTEBOOK-2, NOTEBOOK-3).
//!
//! A notebook of nbformat 4.5 has cell ids; one of 4.4 has none, and its cells are named by
//! position. New cells are inserted only into the second kind: in the first the new cell gets an
//! id of its own making (NOTEBOOK-3), which no two runs share, so no two trees could agree.

use super::parts;
use arbitrary::{Result, Unstructured};
use serde_json::{json, Value};

/// The case path of the generated notebook.
pub const PATH: &str = "nb.ipynb";

/// What the generator believes the notebook holds: the names its cells answer to, in order.
#[derive(Debug, Clone)]
pub struct Model {
    /// Whether the cells have ids (nbformat 4.5); without, they are `cell-N`.
    pub with_ids: bool,
    /// The ids of the cells, in order (only with ids).
    pub ids: Vec<String>,
    /// How many cells there are.
    pub cells: usize,
}

impl Model {
    /// The name a call gives cell `i`.
    fn name(&self, i: usize) -> String {
        if self.with_ids {
            self.ids[i].clone()
        } else {
            format!("cell-{i}")
        }
    }
}

/// A cell's `source` as Jupyter stores it: a list of lines, each but the last with its `\n`.
fn source(text: &str) -> Value {
    Value::Array(
        text.split_inclusive('\n')
            .map(|l| Value::String(l.to_string()))
            .collect(),
    )
}

/// A notebook's text and the model of it.
pub fn file(u: &mut Unstructured<'_>) -> Result<(String, Model)> {
    let with_ids = u.ratio(1, 2)?;
    let n = u.int_in_range(1..=4)?;
    let mut cells = Vec::new();
    let mut ids = Vec::new();
    for i in 0..n {
        let lines = u.int_in_range(1..=3)?;
        let text: Vec<String> = (0..lines)
            .map(|_| parts::line(u, false))
            .collect::<Result<_>>()?;
        let code = u.ratio(2, 3)?;
        let id = with_ids.then(|| format!("{}{i}", if code { "c" } else { "m" }));
        // Keys in sorted order, as Jupyter writes them (the map keeps insertion order).
        let mut cell = serde_json::Map::new();
        cell.insert(
            "cell_type".into(),
            json!(if code { "code" } else { "markdown" }),
        );
        if code {
            cell.insert("execution_count".into(), json!(i + 1));
        }
        if let Some(id) = &id {
            cell.insert("id".into(), json!(id));
            ids.push(id.clone());
        }
        cell.insert("metadata".into(), json!({}));
        if code {
            let outputs = if u.ratio(1, 2)? {
                json!([{"name": "stdout", "output_type": "stream", "text": [format!("{i}\n")]}])
            } else {
                json!([])
            };
            cell.insert("outputs".into(), outputs);
        }
        cell.insert("source".into(), source(&text.join("\n")));
        let cell = Value::Object(cell);
        cells.push(cell);
    }
    let nb = json!({
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": if with_ids { 5 } else { 4 },
    });
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(b" "),
    );
    serde::Serialize::serialize(&nb, &mut ser).map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let mut text = String::from_utf8(out).map_err(|_| arbitrary::Error::IncorrectFormat)?;
    text.push('\n');
    Ok((
        text,
        Model {
            with_ids,
            ids,
            cells: n,
        },
    ))
}

/// One NotebookEdit call, as [`super::gen::GenStep::NotebookEdit`] holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotebookCall {
    /// `cell_id`, when sent.
    pub cell: Option<String>,
    /// `new_source`.
    pub source: String,
    /// `cell_type`, when sent.
    pub cell_type: Option<String>,
    /// `edit_mode`, when sent (`replace` is the default).
    pub mode: Option<String>,
}

/// A NotebookEdit of the notebook `model` describes, the model updated with what it does when
/// it succeeds: mostly a replace, sometimes a delete, an insert (without ids only), or a cell
/// that is not there.
pub fn call(u: &mut Unstructured<'_>, model: &mut Model) -> Result<NotebookCall> {
    let source = parts::new_text(u, false, false)?;
    let kind = *u.choose(&["replace", "replace", "replace", "delete", "insert"])?;
    if !model.with_ids && (model.cells == 0 || kind == "insert") {
        // After a cell or at the top; new cells are `cell-N` like the others.
        let at = if model.cells == 0 {
            None
        } else {
            u.int_in_range(0..=model.cells)?.checked_sub(1)
        };
        let cell_type = *u.choose(&["code", "markdown"])?;
        model.cells += 1;
        return Ok(NotebookCall {
            cell: at.map(|i| model.name(i)),
            source,
            cell_type: Some(cell_type.into()),
            mode: Some("insert".into()),
        });
    }
    let i = u.choose_index(model.cells.max(1))?;
    let cell = if model.cells == 0 || u.ratio(1, 8)? {
        "missing".to_string()
    } else {
        model.name(i)
    };
    let known = cell != "missing";
    if kind == "delete" {
        if known {
            model.cells -= 1;
            if model.with_ids {
                model.ids.remove(i);
            }
        }
        return Ok(NotebookCall {
            cell: Some(cell),
            source: String::new(),
            cell_type: None,
            mode: Some("delete".into()),
        });
    }
    let cell_type = if u.ratio(1, 4)? {
        Some((*u.choose(&["code", "markdown"])?).to_string())
    } else {
        None
    };
    Ok(NotebookCall {
        cell: Some(cell),
        source,
        cell_type,
        mode: u.ratio(1, 3)?.then(|| "replace".to_string()),
    })
}

/// The input of a NotebookEdit call on `path`.
pub fn input(path: &str, c: &NotebookCall) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("notebook_path".into(), json!(path));
    if let Some(cell) = &c.cell {
        m.insert("cell_id".into(), json!(cell));
    }
    m.insert("new_source".into(), json!(c.source));
    if let Some(t) = &c.cell_type {
        m.insert("cell_type".into(), json!(t));
    }
    if let Some(mode) = &c.mode {
        m.insert("edit_mode".into(), json!(mode));
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_notebook_is_written_as_jupyter_writes_it() {
        let bytes = crate::fuzz::seed::seed_bytes(3, 2048);
        let (text, model) = file(&mut Unstructured::new(&bytes)).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["cells"].as_array().unwrap().len(), model.cells);
        assert!(text.starts_with("{\n \"cells\": [\n  {\n"), "{text}");
        assert!(text.ends_with("}\n"), "{text}");
    }
}
