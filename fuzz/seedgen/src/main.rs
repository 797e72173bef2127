//! Writes seed inputs for every editref fuzz target from the conformance corpus.
//!
//! Usage: `editref-fuzz-seedgen <cases dir> <seeds dir>` (normally through `scripts/fuzz-seeds`).
//!
//! Every case file is parsed as plain YAML (not through the case loader, so that a case the
//! loader would reject still seeds the parsers); its files and tool calls become inputs in the
//! framing of each target (`editref_fuzzing::framing`). Structured seeds are decoded again
//! before they are written, so a framing change cannot silently produce useless seeds.
//! `<seeds dir>/<target>/` is emptied first: the seeds are always exactly what the corpus gives,
//! cut down to the small committed share of `select.rs`.

use base64::Engine as _;
use editref::disk::Fault;
use editref_fuzzing::{
    AtomicCase, AtomicTool, BlockSpec, EditCase, EditSpec, FaultChoice, FileForm, InputKind,
    OldString, QuoteCase, RepairCase, RepairShape, SearchReplaceCase, PARSE_RAW, TARGETS,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod dialect_seeds;
mod patch_seeds;
mod seeds;
mod select;
use dialect_seeds::dialect_seed;
use patch_seeds::apply_patch_seeds;
use seeds::{CallEdit, Seeds};

/// One parsed case: its id, raw text, initial files and tool calls (with the file state each
/// call saw, as far as harness actions tell).
struct Case {
    name: String,
    yaml: String,
    calls: Vec<Call>,
    files: BTreeMap<String, Vec<u8>>,
}

struct Call {
    tool: String,
    input: Value,
    files: BTreeMap<String, Vec<u8>>,
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
}

/// The bytes of a file form of the corpus format, or `None` for links, directories and the like.
fn file_bytes(form: &Value) -> Option<Vec<u8>> {
    if let Some(text) = form.get("text").and_then(Value::as_str) {
        let bom = form.get("bom").and_then(Value::as_bool).unwrap_or(true);
        let utf16 = |big: bool| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(if big { b"\xFE\xFF" } else { b"\xFF\xFE" });
            }
            for u in text.encode_utf16() {
                out.extend_from_slice(&if big {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                });
            }
            out
        };
        return Some(
            match form
                .get("encoding")
                .and_then(Value::as_str)
                .unwrap_or("utf-8")
            {
                "utf-8" => text.as_bytes().to_vec(),
                "utf-8-bom" => [&b"\xEF\xBB\xBF"[..], text.as_bytes()].concat(),
                "utf-16le" => utf16(false),
                "utf-16be" => utf16(true),
                "windows-1252" => encoding_rs::WINDOWS_1252.encode(text).0.into_owned(),
                "shift_jis" => encoding_rs::SHIFT_JIS.encode(text).0.into_owned(),
                _ => return None,
            },
        );
    }
    if let Some(hex) = form.get("bytes_hex").and_then(Value::as_str) {
        let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        return digits
            .chunks(2)
            .map(|p| {
                std::str::from_utf8(p)
                    .ok()
                    .and_then(|s| u8::from_str_radix(s, 16).ok())
            })
            .collect();
    }
    if let Some(b64) = form.get("bytes_b64").and_then(Value::as_str) {
        return base64::engine::general_purpose::STANDARD.decode(b64).ok();
    }
    None
}

fn parse_case(path: &Path, root: &Path) -> Option<Case> {
    let yaml = std::fs::read_to_string(path).ok()?;
    let rel = path.strip_prefix(root).unwrap_or(path).with_extension("");
    let name = rel.to_string_lossy().replace(['/', '\\'], "__");
    let mut case = Case {
        name,
        yaml,
        calls: Vec::new(),
        files: BTreeMap::new(),
    };
    // A MultiEdit case may list a thousand aliases of one anchor; that is data, not a bomb.
    let mut budget = serde_saphyr::Budget::default();
    budget.enforce_alias_anchor_ratio = false;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    let doc: Value = match serde_saphyr::from_str_with_options(&case.yaml, options) {
        Ok(v) => v,
        Err(e) => {
            eprintln!(
                "warning: {}: not parsed as YAML ({e}); only the corpus-case seed is written",
                path.display()
            );
            return Some(case);
        }
    };
    if let Some(files) = doc.get("files").and_then(Value::as_object) {
        for (p, form) in files {
            if let Some(bytes) = file_bytes(form) {
                case.files.insert(p.clone(), bytes);
            }
        }
    }
    let mut state = case.files.clone();
    for step in doc
        .get("steps")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(call) = step.get("call") {
            let tool = call
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let input = call.get("input").cloned().unwrap_or(Value::Null);
            case.calls.push(Call {
                tool,
                input,
                files: state.clone(),
            });
        } else if let Some(m) = step.get("modify") {
            if let (Some(p), Some(bytes)) = (m.get("path").and_then(Value::as_str), file_bytes(m)) {
                state.insert(p.to_string(), bytes);
            }
        } else if let Some(p) = step
            .get("remove")
            .and_then(|r| r.get("path"))
            .and_then(Value::as_str)
        {
            state.remove(p);
        }
    }
    Some(case)
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// An edit whose strings are sent exactly as the corpus has them.
fn verbatim(old: &str, new: &str, replace_all: bool) -> EditSpec {
    EditSpec {
        replace_all,
        guided: false,
        old: OldString::Given {
            text: old.to_string(),
            expanded: false,
        },
        new: new.to_string(),
    }
}

/// The edits of an Edit or MultiEdit call whose strings are strings.
fn edits_of(call: &Call) -> Option<Vec<CallEdit>> {
    let one = |v: &Value| {
        Some(CallEdit {
            old: str_field(v, "old_string")?,
            new: str_field(v, "new_string")?,
            replace_all: matches!(v.get("replace_all"), Some(Value::Bool(true)))
                || v.get("replace_all") == Some(&json!("true")),
        })
    };
    match call.tool.as_str() {
        "Edit" => Some(vec![one(&call.input)?]),
        "MultiEdit" => call
            .input
            .get("edits")?
            .as_array()?
            .iter()
            .take(16)
            .map(one)
            .collect(),
        _ => None,
    }
}

fn text_of(bytes: &[u8]) -> String {
    match editref::text::decode(bytes) {
        Ok(d) => d.text.into_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn seeds_of(case: &Case, seeds: &mut Seeds) {
    seeds.add(
        "inputs",
        format!("{}-yaml", case.name),
        [&[InputKind::CorpusCase.tag()][..], case.yaml.as_bytes()].concat(),
    );
    for (p, bytes) in &case.files {
        let tag = p.replace(['/', '\\', '.'], "_");
        seeds.add(
            "document_roundtrip",
            format!("{}-{tag}", case.name),
            bytes.clone(),
        );
    }

    // The protocol and tool-call scripts of the whole case.
    let mut protocol = String::from(
        "{\"type\":\"hello\",\"protocol\":1}\n{\"type\":\"case_start\",\"sandbox\":\"sandbox\"}\n",
    );
    let mut tool_lines = String::new();
    for (seq, call) in case.calls.iter().enumerate() {
        protocol.push_str(
            &json!({"type": "call", "seq": seq + 1, "tool": call.tool, "input": call.input})
                .to_string(),
        );
        protocol.push('\n');
        tool_lines.push_str(&format!("{}\t{}\n", call.tool, call.input));
    }
    protocol.push_str("{\"type\":\"case_end\"}\n{\"type\":\"bye\"}\n");
    if !case.calls.is_empty() {
        seeds.add(
            "inputs",
            format!("{}-protocol", case.name),
            [&[InputKind::Protocol.tag()][..], protocol.as_bytes()].concat(),
        );
        seeds.add(
            "inputs",
            format!("{}-calls", case.name),
            [&[InputKind::ToolCalls.tag()][..], tool_lines.as_bytes()].concat(),
        );
    }

    for (i, call) in case.calls.iter().enumerate() {
        let name = format!("{}-{i}", case.name);
        let path = call
            .input
            .get("file_path")
            .or_else(|| call.input.get("notebook_path"))
            .and_then(Value::as_str);
        let file = path.and_then(|p| call.files.get(p)).cloned();
        dialect_seed(&name, &call.tool, &call.input, seeds);

        if call.tool == "NotebookEdit" {
            let mut params = call.input.clone();
            if let Some(obj) = params.as_object_mut() {
                obj.remove("notebook_path");
            }
            let body = file.clone().unwrap_or_default();
            let bytes = [
                &[InputKind::Notebook.tag()][..],
                params.to_string().as_bytes(),
                b"\n",
                &body,
            ]
            .concat();
            seeds.add("inputs", name.clone(), bytes);
        }

        if call.tool == "Write" {
            if let Some(content) = str_field(&call.input, "content") {
                let mut patch = format!("*** Begin Patch\n*** Add File: {}\n", path.unwrap_or("f"));
                for l in content.lines() {
                    patch.push('+');
                    patch.push_str(l);
                    patch.push('\n');
                }
                patch.push_str("*** End Patch\n");
                seeds.add(
                    "apply_patch_parse",
                    format!("{name}-add"),
                    [&[PARSE_RAW][..], patch.as_bytes()].concat(),
                );
                let tool = if file.is_some() {
                    AtomicTool::Write
                } else {
                    AtomicTool::WriteCreate
                };
                let a = AtomicCase {
                    tool,
                    fault: FaultChoice(Fault::Errno(libc_enospc())),
                    position: 7,
                    flags: 0,
                    form: FileForm::Raw,
                    body: file.clone().unwrap_or_default(),
                    edit: verbatim("", &content, false),
                };
                seeds.add_checked("atomic_write", name.clone(), &a, a.to_bytes());
            }
        }

        let Some(edits) = edits_of(call).filter(|e| !e.is_empty()) else {
            continue;
        };
        let file = file.unwrap_or_default();
        // The corpus's strings verbatim, on the file's bytes as they are.
        let e = EditCase {
            form: FileForm::Raw,
            body: file.clone(),
            edits: edits
                .iter()
                .map(|c| verbatim(&c.old, &c.new, c.replace_all))
                .collect(),
        };
        seeds.add_checked("edit_vs_model", name.clone(), &e, e.to_bytes());

        let text = text_of(&file);
        for (k, edit) in edits.iter().enumerate().take(4) {
            // param bits 5-7: the corpus's file text verbatim, without stand-ins.
            let r = RepairCase {
                shape: RepairShape::AsGiven,
                param: 0xE0,
                start: 0,
                len: 0,
                shift: 0,
                body: text.clone().into_bytes(),
                old: edit.old.clone(),
                new: edit.new.clone(),
            };
            seeds.add_checked("repair", format!("{name}-{k}"), &r, r.to_bytes());
            for (s, shape) in [
                RepairShape::Sanitized,
                RepairShape::Prefixed,
                RepairShape::Escaped,
            ]
            .into_iter()
            .enumerate()
            {
                let start = text.find(edit.old.as_str()).unwrap_or(0);
                let shaped = RepairCase {
                    shape,
                    param: 0xE0 | s as u8,
                    start: start.min(u16::MAX as usize) as u16,
                    len: edit.old.len().clamp(1, u16::MAX as usize) as u16,
                    ..r.clone()
                };
                seeds.add_checked(
                    "repair",
                    format!("{name}-{k}-{s}"),
                    &shaped,
                    shaped.to_bytes(),
                );
            }
            let q = QuoteCase {
                text: text.clone(),
                new: edit.new.clone(),
                actual: edit.old.clone(),
            };
            seeds.add_checked("quotes", format!("{name}-{k}"), &q, q.to_bytes());
            let sr = search_replace_seed(path.unwrap_or("file.txt"), &text, edit, k);
            seeds.add_checked(
                "search_replace_parse",
                format!("{name}-{k}"),
                &sr,
                sr.to_bytes(),
            );
        }

        apply_patch_seeds(&name, path.unwrap_or("file.txt"), &text, &edits, seeds);

        if edits.len() == 1 || call.tool == "MultiEdit" {
            let creating = edits[0].old.is_empty() && !call.files.contains_key(path.unwrap_or(""));
            let tool = match (creating, call.tool.as_str()) {
                (true, _) => AtomicTool::EditCreate,
                (false, "MultiEdit") => AtomicTool::MultiEdit,
                _ => AtomicTool::Edit,
            };
            for (j, (fault, position)) in [
                (Fault::Crash, 9),
                (Fault::ShortWrite, 0),
                (Fault::Errno(libc_enospc()), 13),
            ]
            .into_iter()
            .enumerate()
            {
                let a = AtomicCase {
                    tool,
                    fault: FaultChoice(fault),
                    position,
                    flags: 0,
                    form: FileForm::Raw,
                    body: file.clone(),
                    edit: verbatim(&edits[0].old, &edits[0].new, edits[0].replace_all),
                };
                seeds.add_checked("atomic_write", format!("{name}-{j}"), &a, a.to_bytes());
            }
        }
    }
}

/// A `search_replace_parse` input from one edit: the edit written as an Aider block (as the raw
/// reply and as a block to render), and its strings searched flexibly in the file, planted into
/// it with an indentation that depends on `k`.
fn search_replace_seed(path: &str, text: &str, edit: &CallEdit, k: usize) -> SearchReplaceCase {
    let line = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    SearchReplaceCase {
        raw: format!(
            "{path}\n```\n<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n```\n",
            line(&edit.old),
            line(&edit.new)
        ),
        eol: k as u8,
        blocks: vec![BlockSpec {
            style: (k as u16).wrapping_mul(0x2493),
            path: path.to_string(),
            search: edit.old.clone(),
            replace: edit.new.clone(),
            prose: "Change:\n".to_string(),
        }],
        tail: String::new(),
        view: text.to_string(),
        plant: 1 | ((k as u8) << 1),
        at: k as u16,
        search: edit.old.clone(),
        replace: edit.new.clone(),
    }
}

/// ENOSPC on Linux (the seeds only need some errno the fault table knows).
fn libc_enospc() -> i32 {
    28
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(cases), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: editref-fuzz-seedgen <conformance cases dir> <seeds dir>");
        return ExitCode::from(2);
    };
    let cases = PathBuf::from(cases);
    let out = PathBuf::from(out);
    let mut paths = Vec::new();
    yaml_files(&cases, &mut paths);
    paths.sort();
    if paths.is_empty() {
        eprintln!("no case files (*.yaml) under {}", cases.display());
        return ExitCode::from(1);
    }
    let mut seeds = Seeds::default();
    for p in &paths {
        if let Some(case) = parse_case(p, &cases) {
            seeds_of(&case, &mut seeds);
        }
    }
    if !seeds.errors.is_empty() {
        for e in &seeds.errors {
            eprintln!("error: {e}");
        }
        return ExitCode::from(1);
    }
    for target in TARGETS {
        let dir = out.join(target);
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("cannot create {}: {e}", dir.display());
            return ExitCode::from(1);
        }
        let mut list = select::corpus_share(seeds.by_target.remove(target).unwrap_or_default());
        list.extend(select::random_share(target));
        list.extend(select::generator_share(target));
        for (name, bytes) in &list {
            if let Err(e) = std::fs::write(dir.join(name), bytes) {
                eprintln!("cannot write seed {name}: {e}");
                return ExitCode::from(1);
            }
        }
        println!("{target:<20} {:>5} seeds", list.len());
    }
    println!("from {} case files under {}", paths.len(), cases.display());
    ExitCode::SUCCESS
}
