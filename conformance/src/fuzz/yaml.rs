//! A generated case written in the corpus format: the case a run executes (it goes through
//! the loader like every corpus case, so a generated case and a written finding are read by
//! the same code) and, with the reference's outcome as expectations, a finding anyone can
//! replay with `editref conform --corpus`.
//!
//! Strings are written as YAML double-quoted scalars with every character outside printable
//! ASCII-and-Unicode escaped, so bytes such as a lone CR or a BOM survive any editor and any
//! YAML reader; bytes that are not UTF-8 are written as hex.

use super::dialects::{blocks_text, editor_input, patch_text};
use super::gen::{GenCase, GenEdit, GenStep};
use super::parts::Encoding;
pub use super::requires::{guards, requires};
use serde_json::Value;
use std::fmt::Write as _;

/// What a call of the reference answered, as a finding expects it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectCall {
    /// Success, with the parts of the output the finding checks (the corpus's subset rule),
    /// if any.
    Ok {
        /// The expected output (`expect: {ok: true, output: …}`).
        output: Option<Value>,
    },
    /// Refusal with this code.
    Err(String),
}

/// What an entry of the reference's final tree is, as a finding expects it: everything the
/// comparison of two trees looks at, so a finding about any of it replays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectEntry {
    /// A regular file with these bytes and permission bits.
    Bytes(Vec<u8>, u32),
    /// Another name of the file at this case path (a hard link), with these permission bits.
    Hardlink(String, u32),
    /// A symbolic link to this target, as written into the link.
    Symlink(String),
    /// A directory with these permission bits.
    Dir(u32),
    /// Nothing.
    Absent,
}

/// The reference's outcome of a case: one expectation per call, in order, and the final tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    /// One per call step.
    pub calls: Vec<ExpectCall>,
    /// Case path → final entry, sorted.
    pub files: Vec<(String, ExpectEntry)>,
}

/// The header of a written case.
#[derive(Debug, Clone)]
pub struct Meta {
    /// `<area>/<name>`.
    pub id: String,
    /// One line.
    pub title: String,
    /// Rule IDs.
    pub spec: Vec<String>,
    /// Free text (the seed, the classification).
    pub notes: Option<String>,
}

/// `s` as a YAML double-quoted scalar.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7F}' => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            // Characters YAML readers treat as breaks or marks, and the non-characters, are
            // escaped; everything else is written as itself.
            '\u{85}' | '\u{A0}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c if (0x80..0xA0).contains(&(c as u32)) => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c if (c as u32 & 0xFFFE) == 0xFFFE || (0xFDD0..=0xFDEF).contains(&(c as u32)) => {
                let _ = write!(out, "\\U{:08X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Hex bytes as the corpus writes them (`bytes_hex`).
fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The keys of a file form: text in its encoding (plain text when the encoder cannot take it).
fn form(text: &str, encoding: Encoding) -> String {
    match encoding {
        Encoding::Utf8 => format!("text: {}", quoted(text)),
        e if e.encode(text).is_some() => {
            format!(
                "text: {}, encoding: {}",
                quoted(text),
                quoted(e.corpus_name())
            )
        }
        _ => format!("text: {}", quoted(text)),
    }
}

/// A mode as the corpus writes it (`"0644"`).
fn mode(m: u32) -> String {
    format!("\"{m:04o}\"")
}

/// A JSON value in YAML flow form, strings through [`quoted`].
fn flow(v: &Value) -> String {
    match v {
        Value::String(s) => quoted(s),
        Value::Array(a) => format!("[{}]", a.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", key(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// A mapping key: bare when it is a plain name (`replacements`), quoted otherwise.
fn key(k: &str) -> String {
    let plain = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !["true", "false", "null", "yes", "no", "on", "off", "y", "n"]
            .contains(&k.to_ascii_lowercase().as_str());
    if plain {
        k.to_string()
    } else {
        quoted(k)
    }
}

/// The tool and input of a call step; `None` for harness actions.
pub fn call_of(step: &GenStep) -> Option<(&'static str, Value)> {
    use serde_json::json;
    let edit_json = |e: &GenEdit| {
        let mut m = serde_json::Map::new();
        m.insert("old_string".into(), json!(e.old));
        m.insert("new_string".into(), json!(e.new));
        if e.replace_all {
            m.insert("replace_all".into(), json!(true));
        }
        m
    };
    Some(match step {
        GenStep::Read { path, window } => {
            let mut m = serde_json::Map::new();
            m.insert("file_path".into(), json!(path));
            if let Some((offset, limit)) = window {
                m.insert("offset".into(), json!(offset));
                m.insert("limit".into(), json!(limit));
            }
            ("Read", Value::Object(m))
        }
        GenStep::Edit { path, edit } => {
            let mut m = serde_json::Map::new();
            m.insert("file_path".into(), json!(path));
            m.extend(edit_json(edit));
            ("Edit", Value::Object(m))
        }
        GenStep::MultiEdit { path, edits } => {
            let list: Vec<Value> = edits.iter().map(|e| Value::Object(edit_json(e))).collect();
            ("MultiEdit", json!({"file_path": path, "edits": list}))
        }
        GenStep::Write { path, content } => {
            ("Write", json!({"file_path": path, "content": content}))
        }
        GenStep::Editor { path, command } => {
            ("str_replace_based_edit_tool", editor_input(path, command))
        }
        GenStep::LineEdit {
            path,
            start,
            end,
            content,
            expected,
        } => {
            let mut m = serde_json::Map::new();
            m.insert("file_path".into(), json!(path));
            m.insert("start_line".into(), json!(start));
            m.insert("end_line".into(), json!(end));
            m.insert("new_content".into(), json!(content));
            if let Some(e) = expected {
                m.insert("expected_text".into(), json!(e));
            }
            ("LineEdit", Value::Object(m))
        }
        GenStep::Patch { ops } => ("apply_patch", json!({"input": patch_text(ops)})),
        GenStep::Blocks { blocks } => ("search_replace", json!({"text": blocks_text(blocks)})),
        GenStep::NotebookEdit { path, call } => {
            ("NotebookEdit", super::notebook::input(path, call))
        }
        GenStep::Modify { .. } | GenStep::Touch { .. } | GenStep::Link { .. } => return None,
    })
}

/// The case in corpus YAML. Without expectations every call is only run (the form a fuzz run
/// executes); with them, each call and the final tree are checked against the reference's
/// outcome (the form a finding is written in).
pub fn to_yaml(case: &GenCase, meta: &Meta, expect: Option<&Expectations>) -> String {
    let mut y = String::new();
    let _ = writeln!(y, "id: {}", meta.id);
    let _ = writeln!(y, "title: {}", quoted(&meta.title));
    let _ = writeln!(y, "spec: [{}]", meta.spec.join(", "));
    let _ = writeln!(y, "level: extended");
    let _ = writeln!(y, "requires: [{}]", requires(case).join(", "));
    if !guards(case).is_empty() {
        // Files of kinds every tool meets, required of none (see `requires`).
        let _ = writeln!(y, "tags: [guard]");
    }
    let _ = writeln!(y, "since: \"{}\"", crate::load::embedded_version());
    if let Some(notes) = &meta.notes {
        let _ = writeln!(y, "notes: {}", quoted(notes));
    }
    y.push_str("files:\n");
    for f in &case.files {
        let body = form(&f.text, f.encoding);
        let _ = writeln!(
            y,
            "  {}: {{{body}, mode: {}}}",
            quoted(&f.path),
            mode(f.mode)
        );
    }
    for (link, target) in &case.links {
        let _ = writeln!(y, "  {}: {{symlink: {}}}", quoted(link), quoted(target));
    }
    for (name, file) in &case.hardlinks {
        let _ = writeln!(y, "  {}: {{hardlink: {}}}", quoted(name), quoted(file));
    }
    y.push_str("steps:\n");
    let mut calls = expect.map(|e| e.calls.iter());
    for step in &case.steps {
        match step {
            GenStep::Modify {
                path,
                text,
                encoding,
            } => {
                let body = form(text, *encoding);
                let _ = writeln!(y, "  - modify: {{path: {}, {body}}}", quoted(path));
            }
            GenStep::Touch { path } => {
                let _ = writeln!(y, "  - touch: {{path: {}, mtime: \"+2s\"}}", quoted(path));
            }
            GenStep::Link { path, target } => {
                let _ = writeln!(
                    y,
                    "  - link: {{path: {}, symlink: {}}}",
                    quoted(path),
                    quoted(target)
                );
            }
            _ => {
                let Some((tool, input)) = call_of(step) else {
                    continue;
                };
                let _ = writeln!(y, "  - call: {{tool: {tool}, input: {}}}", flow(&input));
                match calls.as_mut().and_then(Iterator::next) {
                    Some(ExpectCall::Ok {
                        output: Some(output),
                    }) => {
                        let _ = writeln!(y, "    expect: {{ok: true, output: {}}}", flow(output));
                    }
                    Some(ExpectCall::Ok { output: None }) | None => {}
                    Some(ExpectCall::Err(code)) => {
                        let _ = writeln!(y, "    expect: {{error: {code}}}");
                    }
                }
            }
        }
    }
    if let Some(e) = expect {
        if !e.files.is_empty() {
            y.push_str("expect_files:\n");
        }
        for (path, entry) in &e.files {
            let body = match entry {
                ExpectEntry::Absent => "{absent: true}".to_string(),
                ExpectEntry::Bytes(b, m) => format!("{{{}, mode: {}}}", bytes_form(b), mode(*m)),
                ExpectEntry::Hardlink(other, m) => {
                    format!("{{hardlink: {}, mode: {}}}", quoted(other), mode(*m))
                }
                ExpectEntry::Symlink(target) => format!("{{symlink: {}}}", quoted(target)),
                ExpectEntry::Dir(m) => format!("{{dir: true, mode: {}}}", mode(*m)),
            };
            let _ = writeln!(y, "  {}: {body}", quoted(path));
        }
    }
    y
}

/// Exact bytes as the keys of a form: text when they are UTF-8, hex otherwise.
fn bytes_form(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.starts_with('\u{FEFF}') => format!("text: {}", quoted(s)),
        _ => format!("bytes_hex: \"{}\"", hex(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::from_seed;
    use crate::fuzz::parts::Allowed;

    #[test]
    fn quoted_strings_read_back_as_the_same_string() {
        for s in [
            "plain",
            "a\"b\\c",
            "\r\n\t\u{1}\u{7F}",
            "\u{85}\u{2028}\u{FEFF}\u{A0}",
            "caf\u{e9} \u{1F600} \u{201C}x\u{201D}",
            "\u{FFFE}\u{10FFFF}",
        ] {
            let y = format!("v: {}\n", quoted(s));
            let v: std::collections::BTreeMap<String, String> = serde_saphyr::from_str(&y).unwrap();
            assert_eq!(v["v"], s, "{y}");
        }
    }

    #[test]
    fn every_generated_case_loads_with_the_features_it_uses() {
        let all: Vec<String> = editref_protocol::FEATURES
            .iter()
            .map(|s| s.to_string())
            .collect();
        for seed in 0..500 {
            let case = from_seed(seed, &Allowed::new(&all));
            let meta = Meta {
                id: "fuzz/x".into(),
                title: "t".into(),
                spec: vec!["EDIT-1".into()],
                notes: None,
            };
            let y = to_yaml(&case, &meta, None);
            let loaded = crate::load::parse_case("gen", "fuzz/x.yaml", y.as_bytes());
            let loaded = loaded.unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{y}"));
            assert_eq!(
                loaded.files.len(),
                case.files.len() + case.links.len() + case.hardlinks.len()
            );
            assert_eq!(loaded.steps.len(), case.steps.len(), "seed {seed}");
            for f in &case.files {
                let (_, form) = loaded.files.iter().find(|(p, _)| *p == f.path).unwrap();
                let want = f.encoding.encode(&f.text).unwrap();
                assert_eq!(
                    form.content,
                    crate::case::Content::Bytes(want),
                    "seed {seed}"
                );
            }
        }
    }
}
