//! SESSION-6 through `editref mcp`: agents send parallel tool calls, and 40 Edits of distinct
//! lines of one file, all in flight at once in one MCP session, all apply.
//!
//! Driven with raw JSON-RPC lines over stdio, so that the test controls what an SDK would not
//! let it: the 40 requests go out in one write before a single reply is read. No sleeps: every
//! wait is for a line from the server, bounded by a timeout that fails the test instead of
//! hanging it.

#![cfg(feature = "mcp")]

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

/// Upper bound for any one answer.
const WAIT: Duration = Duration::from_secs(60);

const N: usize = 40;

fn numbered(edited: bool) -> Vec<u8> {
    (0..N)
        .map(|i| {
            if edited {
                format!("line {i:02}: EDITED by call {i}\n")
            } else {
                format!("line {i:02}: as it was\n")
            }
        })
        .collect::<String>()
        .into_bytes()
}

fn request(id: usize, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string() + "\n"
}

/// SESSION-6: one Read, then 40 Edits of distinct lines of it sent together in one session;
/// every one is answered as applied (one replacement, no `isError`) and the file's final bytes
/// are exactly the 40 edits, each once, with no temp file left.
#[test]
fn session_6_forty_parallel_edits_in_one_mcp_session_all_apply() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("f.txt"), numbered(false)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_editref"))
        .args(["mcp", "--no-fsync", "--no-undo", "--root"])
        .arg(&root)
        .current_dir(&root)
        .env(
            "XDG_STATE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start editref mcp");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Ok(msg) = serde_json::from_str(&line) else {
                break;
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
    });
    let reply = |id: usize| loop {
        let msg = lines.recv_timeout(WAIT).expect("the server answered");
        if msg.get("id") == Some(&json!(id)) {
            return msg;
        }
    };
    stdin
        .write_all(
            request(
                0,
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "parallel", "version": "1"}}),
            )
            .as_bytes(),
        )
        .unwrap();
    assert!(reply(0).get("result").is_some());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    writeln!(stdin, "{initialized}").unwrap();
    let read = json!({"name": "Read", "arguments": {"file_path": "f.txt"}});
    stdin
        .write_all(request(1, "tools/call", read).as_bytes())
        .unwrap();
    assert_eq!(reply(1)["result"]["isError"], json!(false));

    // All 40 requests in one write, before any reply is read.
    let mut batch = String::new();
    for i in 0..N {
        let args = json!({"file_path": "f.txt",
                          "old_string": format!("line {i:02}: as it was"),
                          "new_string": format!("line {i:02}: EDITED by call {i}")});
        batch.push_str(&request(
            100 + i,
            "tools/call",
            json!({"name": "Edit", "arguments": args}),
        ));
    }
    stdin.write_all(batch.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut answers: HashMap<usize, Value> = HashMap::new();
    while answers.len() < N {
        let msg = lines.recv_timeout(WAIT).expect("the server answered");
        if let Some(id) = msg.get("id").and_then(Value::as_u64) {
            answers.insert(id as usize - 100, msg);
        }
    }
    let refused: Vec<String> = answers
        .iter()
        .filter(|(_, m)| m["result"]["isError"] != json!(false))
        .map(|(i, m)| format!("{i}: {}", m["result"]["content"][0]["text"]))
        .collect();
    assert!(refused.is_empty(), "{} refused: {refused:?}", refused.len());
    for m in answers.values() {
        assert_eq!(m["result"]["structuredContent"]["replacements"], 1, "{m}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(std::fs::read(root.join("f.txt")).unwrap(), numbered(true));
    let entries: Vec<_> = std::fs::read_dir(&root).unwrap().collect();
    assert_eq!(entries.len(), 1, "only f.txt is left: {entries:?}");
}
