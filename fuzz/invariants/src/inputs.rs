//! `inputs`: everything a caller can send (PATH-4): protocol lines, tool-input JSON, notebook
//! JSON, and corpus YAML. None may panic, every refusal must carry a known code, and a refusal
//! must leave the sandbox exactly as it was.
//!
//! Framing: the first byte picks the parser ([`InputKind`]); the rest is its input:
//! - protocol: request lines, run through [`editref::protocol::serve`] after an opening
//!   `case_start` (any `case_start` in the input is pointed at the sandbox);
//! - tool calls: lines `Tool<TAB>{json input}` run through [`Session::call`];
//! - notebook: a first line with NotebookEdit's input (without `notebook_path`), then the
//!   notebook text;
//! - corpus case: the text of a case file.

use crate::sandbox::Sandbox;
use crate::{ensure, Check};
use editref::error::Code;
use editref::tools::notebook;
use editref::{Config, Session};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The parser an `inputs` input goes to (its first byte, modulo 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// Adapter protocol request lines.
    Protocol,
    /// `Tool<TAB>json` lines for `Session::call`.
    ToolCalls,
    /// NotebookEdit input line, then notebook text.
    Notebook,
    /// A conformance case file.
    CorpusCase,
}

impl InputKind {
    const ALL: [InputKind; 4] = [
        InputKind::Protocol,
        InputKind::ToolCalls,
        InputKind::Notebook,
        InputKind::CorpusCase,
    ];

    /// The first byte that selects this parser (seed writing).
    pub fn tag(self) -> u8 {
        InputKind::ALL.iter().position(|&k| k == self).unwrap_or(0) as u8
    }
}

/// Dispatches on the first byte; see the module documentation for the framing.
pub fn inputs(data: &[u8]) -> Check {
    let Some((&first, rest)) = data.split_first() else {
        return Ok(());
    };
    match InputKind::ALL[usize::from(first) % 4] {
        InputKind::Protocol => protocol_lines(rest),
        InputKind::ToolCalls => tool_calls(rest),
        InputKind::Notebook => notebook_text(rest),
        InputKind::CorpusCase => corpus_case(&String::from_utf8_lossy(rest)),
    }
}

/// The corpus YAML loader: never panics; a rejected file yields errors that each name the file
/// and say what is wrong, and an accepted case has the id its path gives it and at least one step.
fn corpus_case(text: &str) -> Check {
    match editref_conform::load::parse_case("fuzz.yaml", "fuzz/case.yaml", text.as_bytes()) {
        Ok(case) => {
            if case.id != "fuzz/case" {
                return Err(format!("accepted case has id {:?}, not fuzz/case", case.id));
            }
            if case.steps.is_empty() {
                return Err("accepted a case without steps".into());
            }
            Ok(())
        }
        Err(errors) => {
            if errors.is_empty() {
                return Err("rejected a case without saying why".into());
            }
            match errors
                .iter()
                .find(|e| e.message.is_empty() || e.file != "fuzz.yaml")
            {
                Some(e) => Err(format!("load error without a message or file: {e:?}")),
                None => Ok(()),
            }
        }
    }
}

/// A few files of every kind the tools treat differently, so that calls reach deep paths.
fn fixtures(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let w = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(p, bytes).map_err(|e| e.to_string())
    };
    w("a.txt", b"one\ntwo\nthree\n")?;
    w("crlf.txt", b"alpha\r\nbeta\r\ngamma\r\n")?;
    w(
        "bom.txt",
        "\u{FEFF}h\u{e9}llo \u{201C}world\u{201D}\n".as_bytes(),
    )?;
    w("u16.txt", b"\xFF\xFEh\0i\0\n\0")?;
    w("latin1.txt", b"caf\xE9 na\xEFve r\xE9sum\xE9 text here\n")?;
    w("bin.dat", b"\x00\x01\x02")?;
    w("sub/b.txt", b"<name>x</name>\n\n\nHuman: hi\n")?;
    w("nb.ipynb", NOTEBOOK.as_bytes())?;
    w("ro.txt", b"read only\n")?;
    std::fs::set_permissions(dir.join("ro.txt"), std::fs::Permissions::from_mode(0o444))
        .map_err(|e| e.to_string())?;
    w("hl1.txt", b"linked\n")?;
    std::fs::hard_link(dir.join("hl1.txt"), dir.join("hl2.txt")).map_err(|e| e.to_string())?;
    std::os::unix::fs::symlink("a.txt", dir.join("link.txt")).map_err(|e| e.to_string())?;
    std::os::unix::fs::symlink(
        Path::new("..").join(outside_name(dir)),
        dir.join("escape.txt"),
    )
    .map_err(|e| e.to_string())?;
    Ok(())
}

/// The name, next to the sandbox, that `escape.txt` points to: a tripwire for PATH-2.
fn outside_name(dir: &Path) -> String {
    format!(
        "{}.outside",
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    )
}

/// PATH-2: nothing may have been written through `escape.txt`.
fn check_confined(dir: &Path) -> Check {
    let outside = dir.with_file_name(outside_name(dir));
    if std::fs::symlink_metadata(&outside).is_ok() {
        let _ = std::fs::remove_file(&outside);
        return Err(String::from(
            "a file was written outside the root through a symlink (PATH-2)",
        ));
    }
    Ok(())
}

const NOTEBOOK: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"id\": \"abc\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x = 1\\n\",\n    \"print(x)\"\n   ]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"def\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Title\"\n   ]\n  }\n ],\n \"metadata\": {\n  \"language_info\": {\n   \"name\": \"python\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

/// Every entry under `dir`: kind, bytes or link target, and permission bits.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (char, Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let rel = p
                .strip_prefix(dir)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| p.clone());
            let mode = meta.permissions().mode() & 0o7777;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&p)
                    .map(|t| t.into_os_string().into_encoded_bytes())
                    .unwrap_or_default();
                out.insert(rel, ('l', target, 0));
            } else if meta.is_dir() {
                out.insert(rel, ('d', Vec::new(), mode));
                stack.push(p);
            } else {
                out.insert(rel, ('f', std::fs::read(&p).unwrap_or_default(), mode));
            }
        }
    }
    out
}

/// A refusal's JSON carries a code from the spec's table.
fn check_error_json(e: &Value) -> Check {
    let code = e.get("code").and_then(Value::as_str);
    ensure!(
        code.and_then(Code::parse).is_some(),
        "error without a known code: {e}"
    );
    Ok(())
}

fn tool_calls(rest: &[u8]) -> Check {
    let sandbox = Sandbox::new()?;
    let dir = sandbox.path();
    fixtures(dir)?;
    let mut config = Config::new(dir).with_root(dir);
    config.fsync = false;
    let session = Session::new(config);
    for line in rest.split(|&b| b == b'\n').take(32) {
        let line = String::from_utf8_lossy(line);
        let (tool, raw) = line.split_once('\t').unwrap_or(("Edit", &line));
        let input = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()));
        let before = snapshot(dir);
        match session.call(tool, &input) {
            Ok(out) => ensure!(out.is_object(), "{tool} returned a non-object: {out}"),
            Err(e) => {
                check_error_json(&e.to_json())?;
                ensure!(
                    snapshot(dir) == before,
                    "{tool} refused ({}) but the sandbox changed",
                    e.code.as_str()
                );
            }
        }
        ensure!(
            sandbox.temp_files().is_empty(),
            "{tool} left temp files: {:?}",
            sandbox.temp_files()
        );
        check_confined(dir)?;
    }
    Ok(())
}

fn protocol_lines(rest: &[u8]) -> Check {
    let sandbox = Sandbox::new()?;
    let dir = sandbox.path();
    fixtures(dir)?;
    let sandbox_json = Value::String(dir.to_string_lossy().into_owned());
    let mut script = format!(
        "{}\n",
        json!({"type": "case_start", "sandbox": sandbox_json})
    )
    .into_bytes();
    for line in rest.split(|&b| b == b'\n').take(64) {
        script.extend_from_slice(&confine(line, &sandbox_json));
        script.push(b'\n');
    }
    let expected = expected_replies(&script);
    let mut out = Vec::new();
    editref::protocol::serve(&script[..], &mut out, true)
        .map_err(|e| format!("serve failed: {e}"))?;
    let replies: Vec<&[u8]> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    ensure!(
        replies.len() == expected,
        "{} replies to {expected} requests",
        replies.len()
    );
    for r in replies {
        let v: Value = serde_json::from_slice(r)
            .map_err(|e| format!("reply is not JSON ({e}): {}", String::from_utf8_lossy(r)))?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        ensure!(
            ["hello", "ready", "result", "done", "error"].contains(&kind),
            "reply of unknown type: {v}"
        );
        if let Some(e) = v.get("error") {
            check_error_json(e)?;
        }
        if kind == "error" {
            ensure!(
                v.get("error").is_some(),
                "error reply without an error: {v}"
            );
        }
        if kind == "result" {
            match v.get("ok") {
                Some(Value::Bool(true)) => ensure!(
                    v.get("output").is_some_and(Value::is_object),
                    "ok result without output object: {v}"
                ),
                Some(Value::Bool(false)) => {
                    ensure!(v.get("error").is_some(), "failed result without error: {v}")
                }
                _ => return Err(format!("result without ok flag: {v}")),
            }
        }
    }
    ensure!(
        sandbox.temp_files().is_empty(),
        "protocol calls left temp files: {:?}",
        sandbox.temp_files()
    );
    check_confined(dir)
}

/// Points any `case_start` at the sandbox, parsing exactly as the server does, so that the
/// fuzzer can never open a session on a real directory.
fn confine(line: &[u8], sandbox: &Value) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(line) else {
        return line.to_vec();
    };
    let Ok(mut v) = serde_json::from_str::<Value>(text.trim_end_matches(['\n', '\r'])) else {
        return line.to_vec();
    };
    if v.get("type").and_then(Value::as_str) != Some("case_start") {
        return line.to_vec();
    }
    if let Some(obj) = v.as_object_mut() {
        obj.insert("sandbox".into(), sandbox.clone());
    }
    v.to_string().into_bytes()
}

/// How many replies `serve` owes for a script: one per non-blank line before `bye`.
fn expected_replies(script: &[u8]) -> usize {
    let mut n = 0;
    for line in script.split_inclusive(|&b| b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(s) if s.trim().is_empty() => continue,
            Ok(s) => {
                let is_bye = serde_json::from_str::<Value>(s.trim_end_matches(['\n', '\r']))
                    .ok()
                    .and_then(|v| v.get("type").and_then(Value::as_str).map(|t| t == "bye"))
                    .unwrap_or(false);
                if is_bye {
                    return n;
                }
                n += 1;
            }
            Err(_) => n += 1,
        }
    }
    n
}

fn notebook_text(rest: &[u8]) -> Check {
    let (params, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let text = String::from_utf8_lossy(body);
    match notebook::parse(&text) {
        Err(e) => ensure!(
            e.code == Code::InvalidNotebook,
            "notebook parse refused with {}",
            e.code.as_str()
        ),
        Ok(nb) => {
            let s1 = notebook::serialize(&nb, notebook::detect_indent(&text), text.ends_with('\n'));
            let nb2 = notebook::parse(&s1)
                .map_err(|e| format!("serialised notebook does not parse: {}", e.message))?;
            ensure!(nb2 == nb, "parse(serialize(nb)) != nb");
            let s2 = notebook::serialize(&nb2, notebook::detect_indent(&s1), s1.ends_with('\n'));
            ensure!(s1 == s2, "serialisation is not a fixpoint");
        }
    }
    // The same notebook through Read and NotebookEdit.
    let sandbox = Sandbox::new()?;
    let dir = sandbox.path();
    std::fs::write(dir.join("nb.ipynb"), body).map_err(|e| e.to_string())?;
    let mut config = Config::new(dir).with_root(dir);
    config.fsync = false;
    let session = Session::new(config);
    if let Err(e) = session.call("Read", &json!({"file_path": "nb.ipynb"})) {
        check_error_json(&e.to_json())?;
    }
    let mut input = serde_json::from_slice(params).unwrap_or_else(|_| json!({}));
    if let Some(obj) = input.as_object_mut() {
        obj.insert("notebook_path".into(), json!("nb.ipynb"));
    }
    let before = snapshot(dir);
    match session.call("NotebookEdit", &input) {
        Ok(out) => {
            ensure!(out.is_object(), "NotebookEdit returned a non-object");
            let after = std::fs::read(dir.join("nb.ipynb")).map_err(|e| e.to_string())?;
            let doc = editref::text::Document::decode(&after)
                .map_err(|e| format!("edited notebook undecodable: {e:?}"))?;
            notebook::parse(doc.view())
                .map_err(|e| format!("edited notebook does not parse: {}", e.message))?;
        }
        Err(e) => {
            check_error_json(&e.to_json())?;
            ensure!(
                snapshot(dir) == before,
                "NotebookEdit refused ({}) but the sandbox changed",
                e.code.as_str()
            );
        }
    }
    ensure!(
        sandbox.temp_files().is_empty(),
        "NotebookEdit left temp files"
    );
    Ok(())
}
