//! ALIAS-1..5 (SPEC §15, parameter spellings): other agents' names for Edit's and Write's
//! parameters, mixed spellings, canonical schemas, and Gemini CLI's expected_replacements.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb, sb_undo};
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
            json!({"path": "f.txt", "oldText": "two", "newText": "2"}),
            "Pi (its older single replacement)",
        ),
        (
            json!({"path": "f.txt", "old_str": "two", "new_str": "2"}),
            "text editor",
        ),
        (
            json!({"file_path": "f.txt", "instruction": "Write the number as a digit.",
                   "old_string": "two", "new_string": "2"}),
            "Gemini CLI 0.61.0",
        ),
        (
            json!({"file_path": "f.txt", "old_string": "two", "new_string": "2",
                   "expected_replacements": 1}),
            "Gemini CLI, earlier versions",
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
    // Gemini CLI's allow_multiple is replace_all; its instruction changes nothing.
    let t = sb();
    t.put("f.txt", b"x x\n");
    t.read("f.txt");
    let out = t
        .call(
            "Edit",
            json!({"file_path": "f.txt", "instruction": "Rename x to y everywhere.",
                   "old_string": "x", "new_string": "y", "allow_multiple": true}),
        )
        .unwrap();
    assert_eq!(out["replaceAll"], true);
    assert_eq!(t.get("f.txt"), b"y y\n");
    t.refused(
        "f.txt",
        Code::Ambiguous,
        "Edit",
        json!({"file_path": "f.txt", "instruction": "", "old_string": "y", "new_string": "z",
               "allow_multiple": false}),
    );
    let e = t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"file_path": "f.txt", "instruction": 7, "old_string": "y", "new_string": "z"}),
    );
    assert_eq!(e.fields.get("field"), Some(&json!("instruction")));
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
        // No agent spells Edit with OpenCode's path and Claude Code's strings.
        json!({"filePath": "f.txt", "old_string": "a", "new_string": "b"}),
        // Pi has no replace_all; Claude Code has no instruction or allow_multiple.
        json!({"path": "f.txt", "oldText": "a", "newText": "b", "replace_all": true}),
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "instruction": "x",
               "replace_all": true}),
        json!({"path": "f.txt", "oldText": "a", "new_str": "b"}),
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

/// ALIAS-6: Pi 0.73.1's call, `{path, edits: [{oldText, newText}]}`, runs as one write whose
/// edits are all matched against the file as it was read; MultiEdit's answer.
#[test]
fn alias_6_pis_list_of_edits_is_matched_against_the_file_as_read() {
    let t = sb_undo();
    t.put("f.txt", b"one\r\ntwo\r\nthree\r\n");
    t.read("f.txt");
    let out = t
        .call(
            "Edit",
            json!({"path": "f.txt", "edits": [{"oldText": "three", "newText": "3"},
                                              {"oldText": "one\ntwo", "newText": "1\n2"}]}),
        )
        .unwrap();
    assert_eq!(t.get("f.txt"), b"1\r\n2\r\n3\r\n");
    assert_eq!(out["edits"][0]["oldString"], "three");
    assert_eq!(out["edits"][1]["replacements"], 1);
    assert_eq!(out["repairs"], json!([]));
    t.assert_no_residue();
    // One write, one undo unit, recorded as the Edit the model called.
    let undone = t.call("Undo", json!({"file_path": "f.txt"})).unwrap();
    assert_eq!(undone["undone"][0]["tool"], "Edit");
    assert_eq!(t.get("f.txt"), b"one\r\ntwo\r\nthree\r\n");

    // A single edit in the list, the form Pi's model sends most.
    t.read("f.txt");
    t.call(
        "Edit",
        json!({"path": "f.txt", "edits": [{"oldText": "two", "newText": "2"}]}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"one\r\n2\r\nthree\r\n");
    // Pi's older oldText/newText given with edits join the list as its last edit.
    t.call(
        "Edit",
        json!({"path": "f.txt", "edits": [{"oldText": "one", "newText": "1"}],
               "oldText": "three", "newText": "3"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"1\r\n2\r\n3\r\n");
    // dry_run in Pi's list too.
    let dry = t
        .call(
            "Edit",
            json!({"path": "f.txt", "edits": [{"oldText": "1", "newText": "one"}],
                   "dry_run": true}),
        )
        .unwrap();
    assert_eq!(dry["dryRun"], true);
    assert_eq!(t.get("f.txt"), b"1\r\n2\r\n3\r\n");
}

/// ALIAS-6: what the list refuses — each with `edit_index`, the file untouched, nothing left.
#[test]
fn alias_6_refusals_name_the_edit() {
    let t = sb();
    t.put("f.txt", b"a b\nx x\nabcd\n");
    t.read("f.txt");
    let edits = |list: serde_json::Value| json!({"path": "f.txt", "edits": list});
    for (list, code, index) in [
        // Text only an earlier edit of the list writes is not in the file the model read.
        (
            json!([{"oldText": "a b", "newText": "c b"}, {"oldText": "c b", "newText": "d"}]),
            Code::NotFound,
            1,
        ),
        // Uniqueness is judged in the file as read, whatever the other edits change.
        (
            json!([{"oldText": "x x", "newText": "y x"}, {"oldText": "x", "newText": "z"}]),
            Code::Ambiguous,
            1,
        ),
        // Two edits replacing the same text.
        (
            json!([{"oldText": "bc", "newText": "X"}, {"oldText": "abc", "newText": "Y"}]),
            Code::EditConflict,
            1,
        ),
        (
            json!([{"oldText": "a b", "newText": "a b"}, {"oldText": "zz", "newText": "q"}]),
            Code::NoChange,
            0,
        ),
        // oldText must quote text of the file; an empty one cannot.
        (
            json!([{"oldText": "a", "newText": "A"}, {"oldText": "", "newText": "q"}]),
            Code::InvalidInput,
            1,
        ),
        // Each edit is {oldText, newText}.
        (
            json!([{"old_string": "a", "new_string": "A"}]),
            Code::InvalidInput,
            0,
        ),
    ] {
        let e = t.refused("f.txt", code, "Edit", edits(list.clone()));
        assert_eq!(e.fields.get("edit_index"), Some(&json!(index)), "{list}");
    }
    // Keys of other agents with the list are a mixture; other keys are refused by name.
    for (input, field) in [
        (
            json!({"file_path": "f.txt", "edits": [{"oldText": "a", "newText": "A"}]}),
            "file_path,edits",
        ),
        (
            json!({"path": "f.txt", "edits": [{"oldText": "a", "newText": "A"}], "bogus": 1}),
            "bogus",
        ),
        (json!({"path": "f.txt", "edits": "a"}), "edits"),
        (
            json!({"path": "f.txt", "edits": [], "oldText": "a"}),
            "newText",
        ),
        (json!({"path": "f.txt", "edits": []}), "edits"),
    ] {
        let e = t.refused("f.txt", Code::InvalidInput, "Edit", input.clone());
        assert_eq!(e.fields.get("field"), Some(&json!(field)), "{input}");
    }
    // The read requirement and staleness hold as for any Edit.
    t.put("g.txt", b"g\n");
    t.refused(
        "g.txt",
        Code::NotRead,
        "Edit",
        json!({"path": "g.txt", "edits": [{"oldText": "g", "newText": "G"}]}),
    );
    t.read("g.txt");
    t.modify("g.txt", b"g\nh\n");
    t.refused(
        "g.txt",
        Code::Stale,
        "Edit",
        json!({"path": "g.txt", "edits": [{"oldText": "g", "newText": "G"}]}),
    );
    // Edit's typed input is one replacement: its JSON reader names `edits`.
    let e = EditInput::from_json(&json!({"path": "f.txt", "edits": []})).unwrap_err();
    assert_eq!(e.fields.get("field"), Some(&json!("edits")));
}
