//! The JSON a result is written as does not depend on how it is written. `editref call` and
//! `editref serve` write a tool's typed output straight into the reply line, `structuredPatch`
//! from the diff text; before, the output went through a `serde_json::Value` tree built with a
//! string per hunk line (`Patch::hunks`). Every reply must be the same bytes either way.
//!
//! `old_bytes` below is that earlier path, written out in the test: the output as a `Value`,
//! its `structuredPatch` made from the owned hunks, inside the reply's `json!` object,
//! serialized. Real outputs of every tool are compared with it — in process, through
//! `protocol::serve` and through the `editref call` binary.

use editref::api::{EditOutput, MultiEditOutput};
use editref::protocol::{self, Server};
use editref::undo::TempJournal;
use editref::{CallOutput, Config, Session};
use serde_json::{json, Value};
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_editref");

const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 3,\n   \"id\": \"c1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"print(1)\\n\",\n    \"x = 'é'\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

/// A file of `lines` lines, every one holding the token (a replace_all with as many hits),
/// with quotes, a tab, non-ASCII and a control character that JSON must escape.
fn many_hits(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("\tlet v{i} = TOKEN_A(\"é\\\"{i}\", '\u{1}');\n"))
        .collect()
}

/// Puts the files every call below needs into `dir`.
fn fill(dir: &Path) {
    std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(dir.join("m.txt"), "alpha beta\ngamma\ndelta\n").unwrap();
    std::fs::write(dir.join("big.txt"), many_hits(5000)).unwrap();
    std::fs::write(dir.join("n.ipynb"), NB).unwrap();
    std::fs::write(dir.join("crlf.txt"), "x\r\ny\r\n").unwrap();
}

/// One call of each tool, and refusals: (tool, input).
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("Read", json!({"file_path": "a.txt"})),
        (
            "Read",
            json!({"file_path": "big.txt", "offset": 10, "limit": 3}),
        ),
        ("Read", json!({"file_path": "m.txt"})),
        ("Read", json!({"file_path": "n.ipynb"})),
        ("Read", json!({"file_path": "crlf.txt"})),
        ("Read", json!({"file_path": "big.txt", "limit": 6000})),
        (
            "Edit",
            json!({"file_path": "a.txt", "old_string": "two", "new_string": "2\n2b"}),
        ),
        (
            "Edit",
            json!({"file_path": "a.txt", "old_string": "missing", "new_string": "x"}),
        ),
        (
            "Edit",
            json!({"file_path": "big.txt", "old_string": "TOKEN_A", "new_string": "TOKEN_B", "replace_all": true}),
        ),
        (
            "Edit",
            json!({"file_path": "crlf.txt", "old_string": "y", "new_string": "\"y\"\n"}),
        ),
        (
            "MultiEdit",
            json!({"file_path": "m.txt", "edits": [
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "delta\n", "new_string": ""},
                {"old_string": "gamma", "new_string": "<γ>\t\"g\""}
            ]}),
        ),
        (
            "MultiEdit",
            json!({"file_path": "m.txt", "edits": [{"old_string": "ALPHA", "new_string": "ALPHA"}]}),
        ),
        (
            "Write",
            json!({"file_path": "new/w.txt", "content": "fresh\n"}),
        ),
        (
            "Write",
            json!({"file_path": "a.txt", "content": "rewritten\n\u{7f}\n"}),
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "n.ipynb", "cell_id": "c1", "new_source": "y = \"2\""}),
        ),
        (
            "LineEdit",
            json!({"file_path": "m.txt", "start_line": 1, "end_line": 1, "new_content": "line one\n"}),
        ),
        ("Undo", json!({"file_path": "m.txt"})),
        (
            "search_replace",
            json!({"text": "m.txt\n<<<<<<< SEARCH\nALPHA beta\n=======\nalpha\n>>>>>>> REPLACE\n"}),
        ),
        (
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: m.txt\n@@\n-alpha\n+alpha, patched\n*** End Patch\n"}),
        ),
        (
            "str_replace_based_edit_tool",
            json!({"command": "str_replace", "path": "a.txt", "old_str": "rewritten", "new_str": "re-written"}),
        ),
        ("Nope", json!({})),
    ]
}

fn session(dir: &Path, journal: &TempJournal) -> Session {
    let mut config = Config::new(dir).with_root(dir);
    config.fsync = false;
    config.undo = Some(journal.config());
    Session::new(config)
}

/// The output as the earlier path made it: a `Value`, `structuredPatch` from owned hunks.
fn old_value(output: &CallOutput) -> Value {
    let mut value = serde_json::to_value(output).unwrap();
    let patch = match output {
        CallOutput::Edit(EditOutput { change, .. })
        | CallOutput::MultiEdit(MultiEditOutput { change, .. }) => Some(change.patch()),
        _ => None,
    };
    if let Some(patch) = patch {
        value["structuredPatch"] = serde_json::to_value(patch.hunks()).unwrap();
    }
    value
}

#[test]
fn a_typed_output_is_written_as_its_value_was() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let journal = TempJournal::new().unwrap();
    let s = session(dir.path(), &journal);
    let mut seen = 0;
    for (tool, input) in calls() {
        let Ok(output) = s.call_output(tool, input) else {
            continue;
        };
        seen += 1;
        let old = old_value(&output);
        assert_eq!(serde_json::to_value(&output).unwrap(), old, "{tool}");
        assert_eq!(
            String::from_utf8(serde_json::to_vec(&output).unwrap()).unwrap(),
            String::from_utf8(serde_json::to_vec(&old).unwrap()).unwrap(),
            "{tool}"
        );
    }
    // Every call but the three refusals (not_found, no_change, an unknown tool).
    assert_eq!(seen, calls().len() - 3);
}

/// The protocol transcript of `calls()` on a fresh copy of the files: through `serve` (typed
/// outputs written straight into the line) and through the earlier loop (each reply a `Value`,
/// written with `to_writer`). Both make `structuredPatch` the same way; that this way gives the
/// bytes of the owned hunks is what `a_typed_output_is_written_as_its_value_was` checks.
fn transcripts() -> (Vec<u8>, Vec<u8>) {
    let mut script = String::from("{\"type\":\"hello\",\"protocol\":1}\n");
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    fill(a.path());
    fill(b.path());
    let start = |dir: &Path| json!({"type": "case_start", "id": "x", "sandbox": dir}).to_string();
    let mut lines_a = vec![start(a.path())];
    let mut lines_b = vec![start(b.path())];
    for (seq, (tool, input)) in calls().into_iter().enumerate() {
        let line = json!({"type": "call", "seq": seq, "tool": tool, "input": input}).to_string();
        lines_a.push(line.clone());
        lines_b.push(line);
    }
    let end = "{\"type\":\"case_end\"}\n{\"type\":\"bye\"}\n";
    let script_a = format!("{script}{}\n{end}", lines_a.join("\n"));
    script.push_str(&lines_b.join("\n"));
    script.push('\n');
    script.push_str(end);
    let mut new = Vec::new();
    protocol::serve(script_a.as_bytes(), &mut new, true).unwrap();
    let mut old = Vec::new();
    let mut server = Server::default();
    server.no_fsync = true;
    for line in script.lines() {
        let (reply, next) = server.handle(line);
        if next == protocol::Next::Exit {
            break;
        }
        serde_json::to_writer(&mut old, &reply).unwrap();
        old.push(b'\n');
    }
    // The sandboxes differ only in their names, which no reply carries.
    (new, old)
}

#[test]
fn serve_writes_every_reply_as_before() {
    let (new, old) = transcripts();
    let (new, old) = (
        String::from_utf8(new).unwrap(),
        String::from_utf8(old).unwrap(),
    );
    assert_eq!(new.lines().count(), calls().len() + 3);
    assert!(
        new.contains("\"structuredPatch\":[{\"oldStart\":1"),
        "{new}"
    );
    assert!(new.contains("\"code\":\"not_found\""));
    for (n, o) in new.lines().zip(old.lines()) {
        assert_eq!(n, o);
    }
    assert_eq!(new, old);
}

#[test]
fn call_writes_a_large_result_as_before() {
    // The binary's answer to a replace_all of 5,000 hits, against the earlier bytes of the same
    // call made in process on a copy of the file.
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    fill(a.path());
    fill(b.path());
    let input = json!({"file_path": "big.txt", "old_string": "TOKEN_A", "new_string": "TOKEN_B", "replace_all": true});
    let mut child = std::process::Command::new(BIN)
        .args(["call", "--no-fsync", "--no-undo"])
        .current_dir(a.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            json!({"tool": "Edit", "input": input})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let mut config = Config::new(b.path()).one_shot();
    config.fsync = false;
    let output = Session::new(config).call_output("Edit", input).unwrap();
    let old = format!("{}\n", json!({"ok": true, "output": old_value(&output)}));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), old);
    assert_eq!(
        std::fs::read(a.path().join("big.txt")).unwrap(),
        std::fs::read(b.path().join("big.txt")).unwrap()
    );
}
