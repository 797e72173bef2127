//! PATH-4 against hostile content: a 10 MB single line, a 2 GiB sparse file, a notebook (and
//! call inputs) nested 10,000 levels deep, a MultiEdit with 1,001 edits, a 50 MB old_string and
//! a 100 MB protocol line for `editref serve`.
//!
//! Each input runs in its own `editref` process under a watchdog, so a hang or a crash (a
//! signal, a panic's exit code 101, a stack overflow) fails the test instead of stalling or
//! killing it. Each must be answered with a coded error or a correct result (exact bytes on
//! disk), and its peak resident memory — `ru_maxrss` from `wait4`, not a timing — is held to
//! PATH-4's "small multiple": above the [`memory::baseline`] of the same binary, at most
//! [`memory::MEMORY_FACTOR`] × the bytes the call handles (request, file and reply) for every
//! input of 1 MiB and more, and at most [`memory::SMALL_ALLOWANCE`] for smaller ones.
//!
//! Sizes: `EDITREF_RELIABILITY_LINE_MB` (smoke 1, CI 2), `EDITREF_RELIABILITY_OLD_MB` (smoke 5,
//! CI 10), `EDITREF_RELIABILITY_PROTOCOL_MB` (smoke 10, CI 20) — the published figures use 10,
//! 50 and 100 (see `scripts/reliability`); the sparse file, the nesting depth and the edit
//! count are always the full ones.

#[path = "reliability_content/memory.rs"]
mod memory;
mod reliability_support;

use memory::{Hostile, Program};
use reliability_support as rs;
use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// `editref call` (one-shot, or with a session file) on `request`, read from a file so that
/// this process does not hold it while the child runs.
fn call(dir: &Path, session: Option<&str>, request: Value) -> (Value, rs::Run, u64) {
    let file = dir.join("request.json");
    let body = request.to_string().into_bytes();
    drop(request);
    let len = body.len() as u64;
    std::fs::write(&file, &body).expect("write the request");
    drop(body);
    let mut args = vec!["call", "--no-fsync"];
    if let Some(s) = session {
        args.extend(["--session", s]);
    }
    let run = rs::run_measured(dir, &args, rs::Stdin::File(file));
    let reply = if run.code.is_some() {
        run.json()
    } else {
        Value::Null
    };
    (reply, run, len)
}

/// A value's JSON, cut for messages.
fn short(v: &Value) -> String {
    let s = v.to_string();
    s.chars().take(300).collect()
}

fn code(reply: &Value) -> String {
    rs::code_of(reply).unwrap_or_else(|| "ok".into())
}

#[test]
fn a_single_line_of_many_megabytes() {
    let size = rs::mib("LINE_MB", 1, 2);
    let sandbox = rs::sandbox();
    let dir = sandbox.path();
    // Only hashes stay in this process.
    let (file, before, after, all) = {
        let half = "abcdefghij".repeat(size / 20);
        let before = format!("{half}NEEDLE{half}");
        std::fs::write(dir.join("line.txt"), &before).expect("write");
        let h = |s: &str| xxhash_rust::xxh3::xxh3_64(s.as_bytes());
        (
            before.len() as u64,
            h(&before),
            h(&format!("{half}REPLACED{half}")),
            h(&before.replace('j', "JJ")),
        )
    };
    let on_disk = || rs::hash_file(&dir.join("line.txt"));
    let mut h = Hostile::new("single_line");

    // Read without limit is refused by size (READ-2); with a limit it is the whole line.
    let (r, run, n) = call(
        dir,
        Some("s.json"),
        json!({"tool": "Read", "input": {"file_path": "line.txt"}}),
    );
    h.check("Read of a long line without limit", &run, n + file);
    assert_eq!(code(&r), "too_large");
    let (r, run, n) = call(
        dir,
        Some("s.json"),
        json!({"tool": "Read", "input": {"file_path": "line.txt", "limit": 1}}),
    );
    h.check("Read of a long line with limit 1", &run, n + file);
    assert_eq!(code(&r), "ok", "{}", short(&r));
    assert_eq!(r["output"]["file"]["numLines"], json!(1));
    // Edit inside the line, after that read (session) and one-shot.
    let (r, run, n) = call(
        dir,
        Some("s.json"),
        json!({"tool": "Edit", "input": {"file_path": "line.txt", "old_string": "NEEDLE", "new_string": "REPLACED"}}),
    );
    h.check("Edit inside a long line", &run, n + file);
    assert_eq!(code(&r), "ok", "{}", short(&r));
    assert_eq!(on_disk(), after);
    let (r, run, n) = call(
        dir,
        None,
        json!({"tool": "Edit", "input": {"file_path": "line.txt", "old_string": "REPLACED", "new_string": "NEEDLE"}}),
    );
    h.check("one-shot Edit inside a long line", &run, n + file);
    assert_eq!(code(&r), "ok");
    assert_eq!(on_disk(), before);
    // A replace_all of a character the whole line is made of.
    let (r, run, n) = call(
        dir,
        None,
        json!({"tool": "Edit", "input": {"file_path": "line.txt", "old_string": "j", "new_string": "JJ", "replace_all": true}}),
    );
    h.check("replace_all of a million hits", &run, n + file);
    assert_eq!(code(&r), "ok");
    assert_eq!(on_disk(), all);
    assert!(rs::residue(dir).is_empty());
    h.rec.set("line_bytes", file);
    h.write(0);
}

#[test]
fn a_sparse_file_of_two_gib_is_refused_by_size() {
    let sandbox = rs::sandbox();
    let dir = sandbox.path();
    let mut h = Hostile::new("sparse_2gib");
    let mut corrupted = 0;
    for name in ["sparse.txt", "sparse.ipynb"] {
        let p = dir.join(name);
        let mut f = std::fs::File::create(&p).expect("create");
        f.write_all(b"hello\n").expect("write");
        f.set_len(2 << 30).expect("make it sparse");
        drop(f);
        let meta = std::fs::metadata(&p).expect("stat");
        let requests = if name.ends_with(".ipynb") {
            vec![
                (
                    "NotebookEdit",
                    json!({"tool": "NotebookEdit", "input": {"notebook_path": name, "cell_id": "cell-0", "new_source": "x"}}),
                ),
                (
                    "Read (notebook)",
                    json!({"tool": "Read", "input": {"file_path": name}}),
                ),
            ]
        } else {
            vec![
                (
                    "Read",
                    json!({"tool": "Read", "input": {"file_path": name}}),
                ),
                (
                    "Read (limit 1)",
                    json!({"tool": "Read", "input": {"file_path": name, "limit": 1}}),
                ),
                (
                    "Edit",
                    json!({"tool": "Edit", "input": {"file_path": name, "old_string": "hello", "new_string": "bye"}}),
                ),
                (
                    "MultiEdit",
                    json!({"tool": "MultiEdit", "input": {"file_path": name, "edits": [{"old_string": "hello", "new_string": "bye"}]}}),
                ),
                (
                    "Write",
                    json!({"tool": "Write", "input": {"file_path": name, "content": "small\n"}}),
                ),
            ]
        };
        for (label, req) in requests {
            let (r, run, _) = call(dir, None, req.clone());
            // The file is never loaded: memory stays at the program's own size.
            h.check(&format!("{label} of a 2 GiB sparse file"), &run, 0);
            assert_eq!(code(&r), "too_large", "{req}: {}", short(&r));
            let now = std::fs::metadata(&p).expect("stat");
            if (now.len(), now.ino(), now.mtime(), now.mtime_nsec())
                != (meta.len(), meta.ino(), meta.mtime(), meta.mtime_nsec())
            {
                corrupted += 1;
            }
            let mut head = [0u8; 6];
            std::io::Read::read_exact(&mut std::fs::File::open(&p).expect("open"), &mut head)
                .expect("read");
            assert_eq!(&head, b"hello\n");
        }
    }
    assert!(rs::residue(dir).is_empty());
    h.write(corrupted);
    assert_eq!(corrupted, 0, "a refused call changed the sparse file");
}

fn nested(depth: usize, open: &str, close: &str, leaf: &str) -> String {
    let mut s = String::with_capacity(depth * (open.len() + close.len()) + leaf.len());
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(leaf);
    for _ in 0..depth {
        s.push_str(close);
    }
    s
}

#[test]
fn json_nested_ten_thousand_levels_deep() {
    const DEPTH: usize = 10_000;
    let sandbox = rs::sandbox();
    let dir = sandbox.path();
    let mut h = Hostile::new("deep_nesting");
    let deep_array = nested(DEPTH, "[", "]", "1");
    let deep_object = nested(DEPTH, "{\"a\":", "}", "1");
    for (name, deep, kind) in [
        ("arrays.ipynb", &deep_array, "arrays"),
        ("objects.ipynb", &deep_object, "objects"),
    ] {
        let nb = format!(
            "{{\n \"cells\": [\n  {{\n   \"cell_type\": \"code\",\n   \"id\": \"c1\",\n   \"metadata\": {{\"deep\": {deep}}},\n   \"outputs\": [],\n   \"source\": [\"x = 1\"]\n  }}\n ],\n \"metadata\": {{}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}}\n"
        );
        std::fs::write(dir.join(name), &nb).expect("write");
        for (req, want) in [
            (
                json!({"tool": "Read", "input": {"file_path": name}}),
                "invalid_notebook",
            ),
            (
                json!({"tool": "NotebookEdit", "input": {"notebook_path": name, "cell_id": "c1", "new_source": "y = 2"}}),
                "invalid_notebook",
            ),
            (
                json!({"tool": "Edit", "input": {"file_path": name, "old_string": "x = 1", "new_string": "y = 2"}}),
                "use_notebook_edit",
            ),
        ] {
            let (r, run, n) = call(dir, None, req.clone());
            h.check(
                &format!(
                    "{} of a notebook with {kind} nested {DEPTH} deep",
                    req["tool"].as_str().unwrap_or("")
                ),
                &run,
                n + nb.len() as u64,
            );
            assert_eq!(code(&r), want, "{}: {}", short(&req), short(&r));
            assert_eq!(std::fs::read_to_string(dir.join(name)).expect("read"), nb);
        }
    }
    // The call itself nested that deep (as raw text: it cannot even be built as a value).
    for (deep, kind) in [(&deep_array, "arrays"), (&deep_object, "objects")] {
        let raw = format!("{{\"tool\":\"Edit\",\"input\":{{\"file_path\":\"x.txt\",\"old_string\":{deep},\"new_string\":\"y\"}}}}");
        let run = rs::run_measured(dir, &["call"], Some(raw.clone().into_bytes()));
        h.check(
            &format!("a call with {kind} nested {DEPTH} deep"),
            &run,
            raw.len() as u64,
        );
        assert_eq!(code(&run.json()), "invalid_input");
        // And as a protocol line.
        let lines = format!("{{\"type\":\"hello\",\"protocol\":1}}\n{raw}\n{{\"type\":\"bye\"}}\n");
        let run = rs::run_measured(dir, &["serve", "--no-fsync"], Some(lines.into_bytes()));
        h.check_program(
            &format!("a protocol line with {kind} nested {DEPTH} deep"),
            &run,
            raw.len() as u64,
            Program::Serve,
        );
        let replies: Vec<Value> = String::from_utf8_lossy(&run.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("reply line"))
            .collect();
        assert_eq!(replies.len(), 2, "{replies:?}");
        assert_eq!(replies[1]["error"]["code"], json!("invalid_input"));
    }
    assert!(rs::residue(dir).is_empty());
    h.write(0);
}

#[test]
fn multi_edit_with_a_thousand_and_one_edits() {
    let sandbox = rs::sandbox();
    let dir = sandbox.path();
    let mut h = Hostile::new("multi_edit_1001");
    let text: String = (0..1001).map(|i| format!("token-{i:04} stays\n")).collect();
    std::fs::write(dir.join("many.txt"), &text).expect("write");
    let edits = |n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| json!({"old_string": format!("token-{i:04} stays"), "new_string": format!("token-{i:04} CHANGED")}))
            .collect()
    };
    let (r, run, n) = call(
        dir,
        None,
        json!({"tool": "MultiEdit", "input": {"file_path": "many.txt", "edits": edits(1001)}}),
    );
    h.check("MultiEdit with 1,001 edits", &run, n + text.len() as u64);
    assert_eq!(code(&r), "invalid_input");
    assert_eq!(
        std::fs::read_to_string(dir.join("many.txt")).expect("read"),
        text
    );
    let (r, run, n) = call(
        dir,
        None,
        json!({"tool": "MultiEdit", "input": {"file_path": "many.txt", "edits": edits(1000)}}),
    );
    h.check("MultiEdit with 1,000 edits", &run, n + text.len() as u64);
    assert_eq!(code(&r), "ok", "{}", short(&r));
    let want: String = (0..1001)
        .map(|i| {
            if i < 1000 {
                format!("token-{i:04} CHANGED\n")
            } else {
                format!("token-{i:04} stays\n")
            }
        })
        .collect();
    assert_eq!(
        std::fs::read_to_string(dir.join("many.txt")).expect("read"),
        want
    );
    // 1,000 edits where the last one fails: nothing is written (MULTI-3).
    let mut all: Vec<Value> = (0..999)
        .map(|i| json!({"old_string": format!("token-{i:04} CHANGED"), "new_string": format!("token-{i:04} again")}))
        .collect();
    all.push(json!({"old_string": "not in the file", "new_string": "x"}));
    let (r, run, n) = call(
        dir,
        None,
        json!({"tool": "MultiEdit", "input": {"file_path": "many.txt", "edits": all}}),
    );
    h.check(
        "MultiEdit with 1,000 edits, the last failing",
        &run,
        n + text.len() as u64,
    );
    assert_eq!(code(&r), "not_found");
    assert_eq!(r["error"]["edit_index"], json!(999));
    assert_eq!(
        std::fs::read_to_string(dir.join("many.txt")).expect("read"),
        want
    );
    assert!(rs::residue(dir).is_empty());
    h.write(0);
}

/// Rust-like lines up to `size` bytes: the old_string (made anew for each use, so that this
/// process holds no copy while a child runs).
fn code_block(size: usize) -> String {
    let mut block = String::with_capacity(size + 64);
    let mut i = 0u64;
    while block.len() < size {
        block.push_str(&format!("    let value_{i} = compute({i}, \"text\");\n"));
        i += 1;
    }
    block
}

#[test]
fn an_old_string_of_many_megabytes() {
    let size = rs::mib("OLD_MB", 5, 10);
    let sandbox = rs::sandbox();
    let dir = sandbox.path();
    let mut h = Hostile::new("huge_old_string");
    // Not in a small file: not_found (with its hint), nothing written.
    let small = "fn main() {\n    let value_7 = compute(7, \"text\");\n}\n";
    std::fs::write(dir.join("small.rs"), small).expect("write");
    let (r, run, n) = call(
        dir,
        None,
        json!({"tool": "Edit", "input": {"file_path": "small.rs", "old_string": code_block(size), "new_string": "x"}}),
    );
    h.check("a huge old_string that is not in the file", &run, n);
    assert_eq!(code(&r), "not_found");
    assert_eq!(
        std::fs::read_to_string(dir.join("small.rs")).expect("read"),
        small
    );
    // In a file that holds it: replaced exactly.
    std::fs::write(
        dir.join("big.rs"),
        format!("fn main() {{\n{}}}\n", code_block(size)),
    )
    .expect("write");
    let file = std::fs::metadata(dir.join("big.rs")).expect("stat").len();
    let (r, run, n) = call(
        dir,
        None,
        json!({"tool": "Edit", "input": {"file_path": "big.rs", "old_string": code_block(size), "new_string": "    // gone\n"}}),
    );
    h.check("a huge old_string that is in the file", &run, n + file);
    assert_eq!(code(&r), "ok", "{}", short(&r));
    assert_eq!(
        std::fs::read_to_string(dir.join("big.rs")).expect("read"),
        "fn main() {\n    // gone\n}\n"
    );
    assert!(rs::residue(dir).is_empty());
    h.rec.set("old_string_bytes", size as u64);
    h.write(0);
}

/// `size` bytes of text in 64-byte lines.
fn protocol_content(size: usize) -> String {
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
    line.repeat(size / line.len())
}

#[test]
fn a_protocol_line_of_many_megabytes() {
    let size = rs::mib("PROTOCOL_MB", 10, 20);
    let sandbox = rs::sandbox();
    let dir = sandbox.path();
    let mut h = Hostile::new("huge_protocol_line");
    let sandbox_str = dir.to_str().expect("UTF-8");
    std::fs::write(dir.join("small.txt"), "still here\n").expect("write");
    // The whole conversation goes through a file: this process holds none of it meanwhile.
    let conversation = dir.join("conversation.jsonl");
    {
        let mut out =
            std::io::BufWriter::new(std::fs::File::create(&conversation).expect("create"));
        writeln!(out, "{{\"type\":\"hello\",\"protocol\":1}}").expect("write");
        writeln!(
            out,
            "{{\"type\":\"case_start\",\"sandbox\":{}}}",
            rs::json_str(sandbox_str)
        )
        .expect("write");
        // A line of garbage that size...
        out.write_all(&vec![b'x'; size]).expect("write");
        out.write_all(b"\n").expect("write");
        // ...a valid call that size (Write of the content)...
        let request = json!({"type": "call", "seq": 1, "tool": "Write",
            "input": {"file_path": "big.txt", "content": protocol_content(size)}});
        serde_json::to_writer(&mut out, &request).expect("serialise");
        out.write_all(b"\n").expect("write");
        // ...and the server still answers a normal call afterwards.
        writeln!(out, "{{\"type\":\"call\",\"seq\":2,\"tool\":\"Read\",\"input\":{{\"file_path\":\"small.txt\"}}}}").expect("write");
        writeln!(out, "{{\"type\":\"bye\"}}").expect("write");
        out.flush().expect("flush");
    }
    let handled = std::fs::metadata(&conversation).expect("stat").len();
    let run = rs::run_measured(dir, &["serve", "--no-fsync"], rs::Stdin::File(conversation));
    h.check_program(
        "two protocol lines of many megabytes",
        &run,
        handled,
        Program::Serve,
    );
    let replies: Vec<Value> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("reply line"))
        .collect();
    assert_eq!(replies.len(), 5, "{}", short(&json!(replies)));
    assert_eq!(replies[2]["error"]["code"], json!("invalid_input"));
    assert_eq!(replies[3]["ok"], json!(true), "{}", short(&replies[3]));
    assert_eq!(replies[4]["ok"], json!(true));
    assert_eq!(
        replies[4]["output"]["file"]["content"],
        json!("1\tstill here")
    );
    let want = xxhash_rust::xxh3::xxh3_64(protocol_content(size).as_bytes());
    let corrupted = u64::from(rs::hash_file(&dir.join("big.txt")) != want);
    assert!(rs::residue(dir).is_empty());
    h.rec.set("line_bytes", size as u64);
    h.write(corrupted);
    assert_eq!(corrupted, 0, "the Write of the huge line wrote other bytes");
}
