//! ALIAS-1..5 (SPEC §15, parameter spellings): other agents' names for Edit's and Write's
//! parameters, mixed spellings, canonical schemas, and Gemini CLI's expected_replacements.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::api::{EditInput, WriteInput};
use editref::Code;
use serde_json::json;

#[test]
fn alias_1_each_agents_edit_spelling() {
    for (input, agent) in [
        (
            json!({"filePath": "f.txt", "oldString": "two", "newString": "2"}),
            "OpenCode",
        ),
        (
            json!({"path": "f.txt", "oldStr": "two", "newStr": "2"}),
            "Kiro",
        ),
        (
            json!({"filePath": "f.txt", "old_string": "two", "new_string": "2"}),
            "Pi",
        ),
        (
            json!({"path": "f.txt", "old_str": "two", "new_str": "2"}),
            "text editor",
        ),
        (
            json!({"file_path": "f.txt", "old_string": "two", "new_string": "2",
                   "expected_replacements": 1}),
            "Gemini CLI",
        ),
    ] {
        let t = sb();
        t.put("f.txt", b"one\r\ntwo\r\n");
        t.read("f.txt");
        let out = t.call("Edit", input).unwrap();
        assert_eq!(out["replacements"], 1, "{agent}");
        assert_eq!(t.get("f.txt"), b"one\r\n2\r\n", "{agent}");
        t.assert_no_residue();
    }
    // OpenCode's replaceAll, and dry_run in any spelling.
    let t = sb();
    t.put("f.txt", b"x x\n");
    t.read("f.txt");
    let dry = t
        .call(
            "Edit",
            json!({"filePath": "f.txt", "oldString": "x", "newString": "y", "replaceAll": true,
                   "dry_run": true}),
        )
        .unwrap();
    assert_eq!(dry["replacements"], 2);
    assert_eq!(t.get("f.txt"), b"x x\n");
    t.call(
        "Edit",
        json!({"filePath": "f.txt", "oldString": "x", "newString": "y", "replaceAll": "true"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"y y\n");
}

#[test]
fn alias_1_each_agents_write_spelling() {
    for (input, file) in [
        (json!({"filePath": "a.txt", "content": "oc\n"}), "a.txt"),
        (json!({"path": "b.txt", "text": "kiro\n"}), "b.txt"),
        (json!({"path": "c.txt", "content": "pi\n"}), "c.txt"),
        (json!({"path": "d.txt", "file_text": "editor\n"}), "d.txt"),
        (
            json!({"file_path": "e.txt", "content": "gemini\n"}),
            "e.txt",
        ),
    ] {
        let t = sb();
        let content = input
            .as_object()
            .and_then(|m| m.values().nth(1))
            .and_then(|v| v.as_str())
            .unwrap()
            .to_string();
        let out = t.call("Write", input).unwrap();
        assert_eq!(out["type"], "create");
        assert_eq!(t.get(file), content.as_bytes());
    }
    // An existing file still needs a full Read, whatever the spelling (WRITE-2).
    let t = sb();
    t.put("f.txt", b"old\n");
    t.refused(
        "f.txt",
        Code::NotRead,
        "Write",
        json!({"path": "f.txt", "text": "new\n"}),
    );
}

#[test]
fn alias_2_a_spelling_is_read_as_the_canonical_field_it_stands_for() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    // The lenient readings of D29 apply to the spelled fields as to the canonical ones.
    let e = t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"filePath": "f.txt", "oldString": 1, "newString": "b"}),
    );
    assert_eq!(e.fields.get("field"), Some(&json!("old_string")));
    // A required field missing is named by its canonical name.
    let e = t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"filePath": "f.txt", "oldString": "a"}),
    );
    assert_eq!(e.fields.get("field"), Some(&json!("new_string")));
}

#[test]
fn alias_3_mixed_spellings_are_refused() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    for input in [
        json!({"filePath": "f.txt", "old_str": "a", "new_str": "b"}),
        json!({"path": "f.txt", "oldString": "a", "newString": "b"}),
        json!({"file_path": "f.txt", "filePath": "f.txt", "old_string": "a", "new_string": "b"}),
        json!({"path": "f.txt", "oldStr": "a", "new_str": "b"}),
        json!({"path": "f.txt", "old_str": "a", "new_str": "b", "replace_all": true}),
        json!({"filePath": "f.txt", "oldString": "a", "newString": "b",
               "expected_replacements": 1}),
        json!({"filePath": "f.txt", "oldString": "a", "newString": "b", "bogus": 1}),
    ] {
        t.refused("f.txt", Code::InvalidInput, "Edit", input);
    }
    for input in [
        json!({"filePath": "f.txt", "text": "b\n"}),
        json!({"path": "f.txt", "file_path": "f.txt", "content": "b\n"}),
        json!({"file_path": "f.txt", "file_text": "b\n"}),
    ] {
        t.refused("f.txt", Code::InvalidInput, "Write", input);
    }
    // MultiEdit, Read and NotebookEdit take their own names only.
    t.refused(
        "f.txt",
        Code::InvalidInput,
        "MultiEdit",
        json!({"filePath": "f.txt", "edits": [{"old_string": "a", "new_string": "b"}]}),
    );
}

#[test]
fn alias_4_schemas_and_results_stay_canonical() {
    let edit = serde_json::to_value(editref::api::input_schema::<EditInput>()).unwrap();
    let write = serde_json::to_value(editref::api::input_schema::<WriteInput>()).unwrap();
    for (schema, fields) in [
        (&edit, &EditInput::FIELDS[..]),
        (&write, &WriteInput::FIELDS[..]),
    ] {
        let props = schema["properties"].as_object().unwrap();
        let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
        names.sort_unstable();
        let mut expected = fields.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected);
        assert_eq!(schema["additionalProperties"], false);
    }
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let out = t
        .call(
            "Edit",
            json!({"filePath": "f.txt", "oldString": "a", "newString": "b"}),
        )
        .unwrap();
    assert_eq!(out["oldString"], "a");
    assert_eq!(out["newString"], "b");
}

#[test]
fn alias_5_expected_replacements_replaces_every_hit_when_the_count_matches() {
    let t = sb();
    t.put("f.txt", b"x = 1\ny = x\nz = x\n");
    t.read("f.txt");
    let e = t.refused(
        "f.txt",
        Code::ReplacementCount,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "x", "new_string": "w",
               "expected_replacements": 2}),
    );
    assert_eq!(e.fields.get("expected"), Some(&json!(2)));
    assert_eq!(e.fields.get("count"), Some(&json!(3)));
    assert_eq!(e.fields.get("lines"), Some(&json!([1, 2, 3])));
    // No hit at all is not_found, whatever the count.
    t.refused(
        "f.txt",
        Code::NotFound,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "q", "new_string": "w",
               "expected_replacements": 2}),
    );
    t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "x", "new_string": "w",
               "expected_replacements": 0}),
    );
    let out = t
        .call(
            "Edit",
            json!({"file_path": "f.txt", "old_string": "x", "new_string": "w",
                   "expected_replacements": "3"}),
        )
        .unwrap();
    assert_eq!(out["replacements"], 3);
    assert_eq!(out["replaceAll"], true);
    assert_eq!(t.get("f.txt"), b"w = 1\ny = w\nz = w\n");
    // Counted as MATCH-3 counts: in the quote-folded space when the exact search finds none.
    t.put(
        "q.txt",
        "say \u{201c}hi\u{201d} and \u{201c}hi\u{201d}\n".as_bytes(),
    );
    t.read("q.txt");
    t.call(
        "Edit",
        json!({"file_path": "q.txt", "old_string": "\"hi\"", "new_string": "\"yo\"",
               "expected_replacements": 2}),
    )
    .unwrap();
    assert_eq!(
        t.get("q.txt"),
        "say \u{201c}yo\u{201d} and \u{201c}yo\u{201d}\n".as_bytes()
    );
}
