//! EDITOR-1..6 and DIALECT-1 (SPEC §15, Anthropic's text editor tool): each command, its
//! parameters, and what it requires of the session's reads.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb, sb_undo, Sb};
use editref::Code;
use serde_json::{json, Value};

const TOOL: &str = "str_replace_based_edit_tool";

fn ed(t: &Sb, input: Value) -> Result<Value, editref::ToolError> {
    t.call(TOOL, input)
}

#[test]
fn editor_1_parameters_belong_to_their_command() {
    let t = sb();
    t.put("f.txt", b"a\nb\n");
    for input in [
        json!({"command": "view", "path": "f.txt", "old_str": "a"}),
        json!({"command": "create", "path": "f.txt", "file_text": "x", "insert_line": 1}),
        json!({"command": "str_replace", "path": "f.txt", "old_str": "a", "file_text": "x"}),
        json!({"command": "insert", "path": "f.txt", "insert_line": 1, "insert_text": "x",
               "view_range": [1, 2]}),
        json!({"command": "undo_edit", "path": "f.txt", "new_str": "x"}),
        json!({"command": "delete", "path": "f.txt"}),
        json!({"command": "view", "path": "f.txt", "steps": 2}),
        json!({"command": "create", "path": "f.txt"}),
        json!({"command": "str_replace", "path": "f.txt", "new_str": "x"}),
        json!({"command": "insert", "path": "f.txt", "insert_text": "x"}),
        json!({"path": "f.txt"}),
    ] {
        let e = t.refused("f.txt", Code::InvalidInput, TOOL, input.clone());
        assert!(e.message.starts_with("InputValidationError"), "{input}");
    }
    // A parameter of another command sent as null is as good as absent.
    ed(
        &t,
        json!({"command": "view", "path": "f.txt", "old_str": null, "insert_line": null}),
    )
    .unwrap();
    // The older name of the tool is the same tool.
    let out = t
        .call(
            "str_replace_editor",
            json!({"command": "str_replace", "path": "f.txt", "old_str": "b", "new_str": "B"}),
        )
        .unwrap();
    assert_eq!(out["command"], "str_replace");
    assert_eq!(t.get("f.txt"), b"a\nB\n");
}

#[test]
fn editor_2_view_of_a_file_is_a_read() {
    let t = sb();
    t.put("f.txt", b"a\r\nb\r\nc\r\n");
    let out = ed(
        &t,
        json!({"command": "view", "path": "f.txt", "view_range": [2, 3]}),
    )
    .unwrap();
    assert_eq!(out["command"], "view");
    assert_eq!(out["result"]["file"]["content"], "2\tb\n3\tc");
    // A partial view is a partial read: insert needs the whole file.
    t.refused(
        "f.txt",
        Code::PartialRead,
        TOOL,
        json!({"command": "insert", "path": "f.txt", "insert_line": 1, "insert_text": "x"}),
    );
    let out = ed(
        &t,
        json!({"command": "view", "path": "f.txt", "view_range": [1, -1]}),
    )
    .unwrap();
    assert_eq!(out["result"]["file"]["content"], "1\ta\n2\tb\n3\tc");
    ed(
        &t,
        json!({"command": "insert", "path": "f.txt", "insert_line": 1, "insert_text": "x"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"a\r\nx\r\nb\r\nc\r\n");
    for range in [json!([0, 2]), json!([3, 2]), json!([1]), json!(["1", 2])] {
        t.refused(
            "f.txt",
            Code::InvalidInput,
            TOOL,
            json!({"command": "view", "path": "f.txt", "view_range": range}),
        );
    }
    let e = ed(&t, json!({"command": "view", "path": "nope.txt"})).unwrap_err();
    assert_eq!(e.code, Code::FileNotFound);
}

#[test]
fn editor_2_view_of_a_directory_lists_two_levels_without_hidden_entries() {
    let t = sb();
    for name in [
        "src/main.rs",
        "src/deep/mod.rs",
        "src/deep/deeper/far.rs",
        "src/.cache",
        ".git/HEAD",
        "README",
    ] {
        t.put(name, b"x\n");
    }
    std::os::unix::fs::symlink("src", t.p("linked")).unwrap();
    let out = ed(&t, json!({"command": "view", "path": "."})).unwrap();
    assert_eq!(out["command"], "view_directory");
    let entries: Vec<&str> = out["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        entries,
        ["README", "linked", "src/", "src/deep/", "src/main.rs"]
    );
    t.refused(
        "README",
        Code::InvalidInput,
        TOOL,
        json!({"command": "view", "path": "src", "view_range": [1, 2]}),
    );
}

#[test]
fn editor_3_create_is_write() {
    let t = sb();
    ed(
        &t,
        json!({"command": "create", "path": "new/dir/f.txt", "file_text": "one\r\ntwo"}),
    )
    .unwrap();
    assert_eq!(t.get("new/dir/f.txt"), b"one\r\ntwo");
    // Replacing an existing file needs a full view first (where Anthropic's reference refuses
    // create over any existing file).
    t.put("old.txt", b"\xEF\xBB\xBFold\n");
    t.refused(
        "old.txt",
        Code::NotRead,
        TOOL,
        json!({"command": "create", "path": "old.txt", "file_text": "new\n"}),
    );
    ed(&t, json!({"command": "view", "path": "old.txt"})).unwrap();
    let out = ed(
        &t,
        json!({"command": "create", "path": "old.txt", "file_text": "new\n"}),
    )
    .unwrap();
    assert_eq!(out["result"]["type"], "update");
    assert_eq!(t.get("old.txt"), b"\xEF\xBB\xBFnew\n");
    t.assert_no_residue();
}

#[test]
fn editor_4_str_replace_is_edit_and_needs_no_view() {
    let t = sb();
    t.put("f.txt", b"alpha\r\nbeta\r\nbeta\r\n");
    let e = t.refused(
        "f.txt",
        Code::Ambiguous,
        TOOL,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "beta", "new_str": "x"}),
    );
    assert_eq!(e.fields.get("count"), Some(&json!(2)));
    t.refused(
        "f.txt",
        Code::NotFound,
        TOOL,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "gamma", "new_str": "x"}),
    );
    t.refused(
        "f.txt",
        Code::InvalidInput,
        TOOL,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "", "new_str": "x"}),
    );
    t.refused(
        "f.txt",
        Code::NoChange,
        TOOL,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "alpha", "new_str": "alpha"}),
    );
    let out = ed(
        &t,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "alpha\nbeta", "new_str": "A\nB"}),
    )
    .unwrap();
    assert_eq!(out["result"]["replacements"], 1);
    assert_eq!(t.get("f.txt"), b"A\r\nB\r\nbeta\r\n");
    // A deletion removes exactly old_str, whether new_str is absent or empty: the line break
    // after it stays (EDITOR-4; Edit's EDIT-2 would take it), as in Anthropic's reference.
    ed(
        &t,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "B"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"A\r\n\r\nbeta\r\n");
    ed(
        &t,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "A", "new_str": ""}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"\r\n\r\nbeta\r\n");
    // A line goes with its break when old_str names the break.
    ed(
        &t,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "\nbeta\n"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"\r\n");
    let e = ed(
        &t,
        json!({"command": "str_replace", "path": "nope.txt", "old_str": "a", "new_str": "b"}),
    )
    .unwrap_err();
    assert_eq!(e.code, Code::FileNotFound);
    assert!(!t.p("nope.txt").exists());
    t.assert_no_residue();
}

#[test]
fn dialect_1_a_read_that_was_made_must_be_fresh() {
    let t = sb();
    t.put("f.txt", b"one\ntwo\n");
    ed(&t, json!({"command": "view", "path": "f.txt"})).unwrap();
    t.modify("f.txt", b"one\ntwo\nthree\n");
    t.refused(
        "f.txt",
        Code::Stale,
        TOOL,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "two", "new_str": "2"}),
    );
    // A partial view made earlier counts the same way.
    let p = sb();
    p.put("f.txt", b"one\ntwo\n");
    ed(
        &p,
        json!({"command": "view", "path": "f.txt", "view_range": [1, 1]}),
    )
    .unwrap();
    p.modify("f.txt", b"one\ntwo\nthree\n");
    p.refused(
        "f.txt",
        Code::Stale,
        TOOL,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "two", "new_str": "2"}),
    );
}

#[test]
fn dialect_1_a_call_that_needed_no_read_does_not_stand_in_for_one() {
    let t = sb();
    t.put("f.txt", b"one\ntwo\n");
    ed(
        &t,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "one", "new_str": "1"}),
    )
    .unwrap();
    // The model has seen only the text it quoted: line numbers still need a view.
    t.refused(
        "f.txt",
        Code::NotRead,
        TOOL,
        json!({"command": "insert", "path": "f.txt", "insert_line": 1, "insert_text": "x"}),
    );
    t.refused(
        "f.txt",
        Code::NotRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "two", "new_string": "2"}),
    );
    // Its own write does not make a second str_replace stale.
    ed(
        &t,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "two", "new_str": "2"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"1\n2\n");
    // After a full view it keeps the file fully read, as Edit does (EDIT-4).
    ed(&t, json!({"command": "view", "path": "f.txt"})).unwrap();
    ed(
        &t,
        json!({"command": "str_replace", "path": "f.txt", "old_str": "1", "new_str": "one"}),
    )
    .unwrap();
    ed(
        &t,
        json!({"command": "insert", "path": "f.txt", "insert_line": 2, "insert_text": "3"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"one\n2\n3\n");
}

#[test]
fn editor_5_insert_after_a_line() {
    let t = sb();
    t.put("f.txt", b"a\nb");
    ed(&t, json!({"command": "view", "path": "f.txt"})).unwrap();
    ed(
        &t,
        json!({"command": "insert", "path": "f.txt", "insert_line": 0, "insert_text": "top"}),
    )
    .unwrap();
    ed(
        &t,
        json!({"command": "insert", "path": "f.txt", "insert_line": 3, "new_str": "end"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"top\na\nb\nend");
    let e = t.refused(
        "f.txt",
        Code::InvalidInput,
        TOOL,
        json!({"command": "insert", "path": "f.txt", "insert_line": 5, "insert_text": "x"}),
    );
    assert_eq!(e.fields.get("lines"), Some(&json!(4)));
    // The message speaks of the parameter the model sent, with its valid range.
    assert_eq!(e.fields.get("field"), Some(&json!("insert_line")));
    assert!(
        e.message.contains("`insert_line` 5") && e.message.contains("1 to 4"),
        "{}",
        e.message
    );
    assert!(!e.message.contains("start_line"), "{}", e.message);
    // The largest insert_line the JSON entry reads is past the end too, and told so — it was
    // given, so it is never reported missing.
    let e = t.refused(
        "f.txt",
        Code::InvalidInput,
        TOOL,
        json!({"command": "insert", "path": "f.txt", "insert_line": u64::MAX, "insert_text": "x"}),
    );
    assert_eq!(e.fields.get("lines"), Some(&json!(4)));
    assert!(e.message.contains("past the end"), "{}", e.message);
    t.refused(
        "f.txt",
        Code::InvalidInput,
        TOOL,
        json!({"command": "insert", "path": "f.txt", "insert_line": 1, "insert_text": "x",
               "new_str": "y"}),
    );
    t.assert_no_residue();
}

/// EDITOR-5: lines are counted as Read counts them, so the line break that ends the last line
/// does not start a line: `insert_line` 3 on `a\nb\n` is past the end (where Anthropic's
/// reference counts a third, empty line and writes the text after it, leaving the file without
/// a final line break), and the message says where the end is.
#[test]
fn editor_5_a_final_line_break_does_not_start_a_line() {
    let t = sb();
    t.put("f.txt", b"a\nb\n");
    ed(&t, json!({"command": "view", "path": "f.txt"})).unwrap();
    let e = t.refused(
        "f.txt",
        Code::InvalidInput,
        TOOL,
        json!({"command": "insert", "path": "f.txt", "insert_line": 3, "insert_text": "x"}),
    );
    assert_eq!(e.fields.get("lines"), Some(&json!(2)));
    assert!(
        e.message.contains("to insert at the end, give 2"),
        "{}",
        e.message
    );
    ed(
        &t,
        json!({"command": "insert", "path": "f.txt", "insert_line": 2, "insert_text": "x"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"a\nb\nx\n");
    t.assert_no_residue();
}

#[test]
fn editor_6_undo_edit_takes_back_the_last_change_whoever_made_it() {
    let t = sb_undo();
    t.put("f.txt", b"a\nb\n");
    ed(&t, json!({"command": "view", "path": "f.txt"})).unwrap();
    t.edit("f.txt", "a", "A").unwrap();
    ed(
        &t,
        json!({"command": "insert", "path": "f.txt", "insert_line": 2, "insert_text": "c"}),
    )
    .unwrap();
    let out = ed(&t, json!({"command": "undo_edit", "path": "f.txt"})).unwrap();
    assert_eq!(out["command"], "undo_edit");
    assert_eq!(out["result"]["undone"][0]["tool"], TOOL);
    assert_eq!(t.get("f.txt"), b"A\nb\n");
    let out = ed(&t, json!({"command": "undo_edit", "path": "f.txt"})).unwrap();
    assert_eq!(out["result"]["undone"][0]["tool"], "Edit");
    assert_eq!(t.get("f.txt"), b"a\nb\n");
    t.refused(
        "f.txt",
        Code::NothingToUndo,
        TOOL,
        json!({"command": "undo_edit", "path": "f.txt"}),
    );
    // The text editor's own writes are recorded under its name.
    ed(
        &t,
        json!({"command": "create", "path": "g.txt", "file_text": "g\n"}),
    )
    .unwrap();
    ed(
        &t,
        json!({"command": "str_replace", "path": "g.txt", "old_str": "g", "new_str": "G"}),
    )
    .unwrap();
    for _ in 0..2 {
        let out = ed(&t, json!({"command": "undo_edit", "path": "g.txt"})).unwrap();
        assert_eq!(out["result"]["undone"][0]["tool"], TOOL);
    }
    assert!(!t.p("g.txt").exists());
}
