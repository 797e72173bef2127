//! `editref call` with each dialect's tool name (SPEC §15): `apply_patch`, `search_replace`,
//! `str_replace_based_edit_tool` and its older name `str_replace_editor`, `LineEdit` and
//! `Undo` — one call that succeeds, with the exact bytes it leaves, and one that is refused,
//! with the working tree exactly as it was (no temp file, nothing created).
//!
//! `editref call` is one-shot (no `--session`): no earlier Read is required (SESSION-1), and
//! each process opens the journal named by `--undo-dir` (UNDO-7).

mod dialect_support;

use dialect_support::{assert_tree, Sandbox};
use serde_json::json;

#[test]
fn apply_patch_updates_a_crlf_file_and_adds_one_as_one_unit() {
    let s = Sandbox::new(&[("app.py", b"def greet():\r\n    print(\"Hi\")\r\n")]);
    let patch = "*** Begin Patch\n*** Update File: app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello\")\n*** Add File: notes/todo.txt\n+first\n*** End Patch\n";
    let (code, v) = s.call("apply_patch", json!({"input": patch}));
    assert_eq!(code, 0, "{v}");
    let files = v["output"]["files"].as_array().unwrap();
    assert_eq!(files[0]["action"], "updated");
    assert_eq!(files[1]["action"], "created");
    // APPLY-13: the CRLF file keeps its line endings; APPLY-11: a new file is LF.
    assert_tree(
        &s,
        &[
            ("app.py", b"def greet():\r\n    print(\"Hello\")\r\n"),
            ("notes/todo.txt", b"first\n"),
        ],
    );
}

#[test]
fn apply_patch_refused_by_its_second_operation_writes_nothing() {
    let s = Sandbox::new(&[("a.txt", b"one\n"), ("b.txt", b"two\n")]);
    let before = s.tree();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n-one\n+ONE\n*** Update File: b.txt\n-not there\n+TWO\n*** Add File: c.txt\n+three\n*** End Patch\n";
    let (code, v) = s.call("apply_patch", json!({"patch": patch}));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    assert_eq!(v["error"]["patch_line"], 5, "{v}");
    // APPLY-10: the first operation was valid, and is not applied either.
    assert_eq!(s.tree(), before);
}

#[test]
fn search_replace_applies_a_fenced_block() {
    let s = Sandbox::new(&[("src/lib.rs", b"fn a() {\n    1\n}\n")]);
    let reply = "Here is the change:\n\nsrc/lib.rs\n```rust\n<<<<<<< SEARCH\n    1\n=======\n    2\n>>>>>>> REPLACE\n```\n";
    let (code, v) = s.call("search_replace", json!({"text": reply}));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["output"]["files"][0]["action"], "updated", "{v}");
    assert_tree(&s, &[("src/lib.rs", b"fn a() {\n    2\n}\n")]);
}

#[test]
fn search_replace_with_two_matching_places_is_ambiguous_and_writes_nothing() {
    let s = Sandbox::new(&[("a.txt", b"x = 1\ny = 2\nx = 1\n")]);
    let before = s.tree();
    let reply = "a.txt\n<<<<<<< SEARCH\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n";
    let (code, v) = s.call("search_replace", json!({"text": reply}));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "ambiguous", "{v}");
    assert_eq!(v["error"]["lines"], json!([1, 3]), "{v}");
    assert_eq!(s.tree(), before);
}

#[test]
fn text_editor_str_replace_keeps_bom_and_crlf() {
    let s = Sandbox::new(&[("t.txt", b"\xEF\xBB\xBFalpha\r\nbeta\r\n")]);
    let (code, v) = s.call(
        "str_replace_based_edit_tool",
        json!({"command": "str_replace", "path": "t.txt", "old_str": "beta", "new_str": "gamma\ndelta"}),
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["output"]["command"], "str_replace", "{v}");
    assert_tree(&s, &[("t.txt", b"\xEF\xBB\xBFalpha\r\ngamma\r\ndelta\r\n")]);
}

#[test]
fn text_editor_str_replace_of_absent_text_is_not_found() {
    let s = Sandbox::new(&[("t.txt", b"alpha\n")]);
    let before = s.tree();
    let (code, v) = s.call(
        "str_replace_based_edit_tool",
        json!({"command": "str_replace", "path": "t.txt", "old_str": "omega", "new_str": "x"}),
    );
    assert_eq!(
        (code, v["error"]["code"].clone()),
        (1, json!("not_found")),
        "{v}"
    );
    assert_eq!(s.tree(), before);
}

#[test]
fn str_replace_editor_is_the_same_tool_by_its_older_name() {
    let s = Sandbox::new(&[("t.txt", b"one\ntwo\n")]);
    let (code, v) = s.call(
        "str_replace_editor",
        json!({"command": "insert", "path": "t.txt", "insert_line": 1, "insert_text": "one and a half"}),
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["output"]["command"], "insert", "{v}");
    assert_tree(&s, &[("t.txt", b"one\none and a half\ntwo\n")]);
}

#[test]
fn str_replace_editor_insert_past_the_end_names_insert_line() {
    let s = Sandbox::new(&[("t.txt", b"one\ntwo\n")]);
    let before = s.tree();
    let (code, v) = s.call(
        "str_replace_editor",
        json!({"command": "insert", "path": "t.txt", "insert_line": 5, "insert_text": "x"}),
    );
    assert_eq!(code, 1, "{v}");
    // EDITOR-5: told in the insert command's words, with the line count.
    assert_eq!(v["error"]["code"], "invalid_input", "{v}");
    assert_eq!(v["error"]["field"], "insert_line", "{v}");
    assert_eq!(v["error"]["lines"], 2, "{v}");
    assert_eq!(s.tree(), before);
}

#[test]
fn line_edit_replaces_a_range_with_the_files_line_endings() {
    let s = Sandbox::new(&[("f.txt", b"one\r\ntwo\r\nthree\r\nfour\r\n")]);
    let (code, v) = s.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 2, "end_line": 3, "new_content": "2\n3\n3.5",
               "expected_text": "two\nthree\n"}),
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["output"]["oldText"], "two\nthree\n", "{v}");
    // LINES-3: CRLF for the new lines, and a line break added after the last.
    assert_tree(&s, &[("f.txt", b"one\r\n2\r\n3\r\n3.5\r\nfour\r\n")]);
}

#[test]
fn line_edit_whose_lines_moved_is_stale() {
    let s = Sandbox::new(&[("f.txt", b"zero\none\ntwo\n")]);
    let before = s.tree();
    let (code, v) = s.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 1, "end_line": 1, "new_content": "ONE",
               "expected_text": "one"}),
    );
    assert_eq!(code, 1, "{v}");
    // LINES-4: the lines hold something else now, and the error says what.
    assert_eq!(v["error"]["code"], "stale", "{v}");
    assert_eq!(v["error"]["actual"], "zero\n", "{v}");
    assert_eq!(s.tree(), before);
}

#[test]
fn undo_takes_back_a_call_of_another_process() {
    let s = Sandbox::new(&[("u.txt", b"caf\xE9\r\n")]);
    let (code, v) = s.call(
        "Edit",
        json!({"file_path": "u.txt", "old_string": "café", "new_string": "thé"}),
    );
    assert_eq!(code, 0, "{v}");
    assert_tree(&s, &[("u.txt", b"th\xE9\r\n")]);
    let (code, v) = s.call("Undo", json!({"file_path": "u.txt"}));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["output"]["undone"][0]["tool"], "Edit", "{v}");
    assert_eq!(
        v["output"]["undone"][0]["files"][0]["action"], "restored",
        "{v}"
    );
    // UNDO-4: the old bytes, windows-1252 and CRLF, back as they were.
    assert_tree(&s, &[("u.txt", b"caf\xE9\r\n")]);
}

#[test]
fn undo_of_a_file_changed_since_is_stale() {
    let s = Sandbox::new(&[("u.txt", b"one\n")]);
    let (code, v) = s.call(
        "Edit",
        json!({"file_path": "u.txt", "old_string": "one", "new_string": "two"}),
    );
    assert_eq!(code, 0, "{v}");
    s.put("u.txt", b"someone else's\n");
    let before = s.tree();
    let (code, v) = s.call("Undo", json!({"file_path": "u.txt"}));
    assert_eq!(
        (code, v["error"]["code"].clone()),
        (1, json!("stale")),
        "{v}"
    );
    // UNDO-2: the other writer's change stays; the unit stays too.
    assert_eq!(s.tree(), before);
    s.put("u.txt", b"two\n");
    let (code, v) = s.call("Undo", json!({"file_path": "u.txt"}));
    assert_eq!(code, 0, "{v}");
    assert_tree(&s, &[("u.txt", b"one\n")]);
}
