//! MULTI-1..5 (SPEC §5, MultiEdit): edits in sequence, conflicts, all or nothing, creating, one
//! write and one patch.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb, Sb};
use editref::Code;
use serde_json::{json, Value};

fn multi(t: &Sb, edits: Value) -> Result<Value, editref::ToolError> {
    t.call("MultiEdit", json!({"file_path": "f.txt", "edits": edits}))
}

#[test]
fn multi_1_sequential() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    // "b c" is inside an earlier new_string (MULTI-2), and so is "b\n" less its line break.
    for edits in [
        json!([{"old_string": "a", "new_string": "b c"}, {"old_string": "b c", "new_string": "d"}]),
        json!([{"old_string": "a", "new_string": "b"}, {"old_string": "b\n", "new_string": "c\n"}]),
    ] {
        let e = t.refused(
            "f.txt",
            Code::EditConflict,
            "MultiEdit",
            json!({"file_path": "f.txt", "edits": edits}),
        );
        assert_eq!(e.fields["edit_index"], 1);
    }
    t.put("f.txt", b"one two\n");
    t.read("f.txt");
    // Edit 1 sees edit 0's result ("1 two"); its old_string is not inside "1", so no conflict.
    multi(&t, json!([{"old_string": "one", "new_string": "1"}, {"old_string": "1 two", "new_string": "x"}])).unwrap();
    assert_eq!(t.get("f.txt"), b"x\n");
    t.assert_no_residue();
    multi(&t, json!([{"old_string": "x", "new_string": "1 2"}, {"old_string": "\n", "new_string": "!\n"}])).unwrap();
    assert_eq!(t.get("f.txt"), b"1 2!\n");
}

#[test]
fn multi_2_conflict_has_edit_index() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let e = t.refused(
        "f.txt",
        Code::EditConflict,
        "MultiEdit",
        json!({"file_path": "f.txt", "edits": [
            {"old_string": "a", "new_string": "xyz"}, {"old_string": "y", "new_string": "q"}]}),
    );
    assert_eq!(e.fields["edit_index"], 1);
    assert_eq!(t.get("f.txt"), b"a\n");
}

#[test]
fn multi_3_all_or_nothing() {
    let t = sb();
    t.put("f.txt", b"a b\n");
    t.read("f.txt");
    let e = multi(
        &t,
        json!([{"old_string": "a", "new_string": "x"}, {"old_string": "zz", "new_string": "y"}]),
    )
    .unwrap_err();
    assert_eq!(
        (e.code, e.fields["edit_index"].clone()),
        (Code::NotFound, json!(1))
    );
    assert_eq!(t.get("f.txt"), b"a b\n");
    t.assert_no_residue();
}

#[test]
fn multi_4_create_then_edit() {
    let t = sb();
    t.call(
        "MultiEdit",
        json!({"file_path": "new.txt", "edits": [
        {"old_string": "", "new_string": "hello world\n"},
        {"old_string": "world", "new_string": "there"}]}),
    )
    .unwrap();
    assert_eq!(t.get("new.txt"), b"hello there\n");
    t.assert_no_residue();
}

#[test]
fn multi_5_one_write_one_patch() {
    let t = sb();
    t.put("f.txt", b"a\nb\n");
    t.read("f.txt");
    let out = multi(
        &t,
        json!([{"old_string": "a", "new_string": "A"}, {"old_string": "b", "new_string": "B"}]),
    )
    .unwrap();
    assert_eq!(out["edits"].as_array().unwrap().len(), 2);
    assert_eq!(out["structuredPatch"].as_array().unwrap().len(), 1);
    assert_eq!(t.get("f.txt"), b"A\nB\n");
}

/// EDIT-2 within a MultiEdit: a `replace_all` deletion of text without a line break takes the
/// break after each hit — except a break the next hit begins with, which is that hit's to
/// delete.
#[test]
fn multi_1_edit_2_a_deletion_at_every_hit_takes_each_line_break() {
    let t = sb();
    t.put("f.txt", b"a\nfoo\nb\nfoo\nc\n");
    t.read("f.txt");
    let out = multi(
        &t,
        json!([
            {"old_string": "a", "new_string": "A"},
            {"old_string": "foo", "new_string": "", "replace_all": true}
        ]),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"A\nb\nc\n", "{out}");
    t.assert_no_residue();

    let t = sb();
    t.put("f.txt", b"a\nfoo\nfoo\nb\n");
    t.read("f.txt");
    multi(
        &t,
        json!([
            {"old_string": "b", "new_string": "B"},
            {"old_string": "\nfoo", "new_string": "", "replace_all": true}
        ]),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"aB\n");
    t.assert_no_residue();
}

#[test]
fn multi_5_edit_7_a_dry_run_leaves_the_read_state_as_it_was() {
    sb().dry_run_keeps_the_read_state(
        "MultiEdit",
        json!({"file_path": "f.txt", "dry_run": true, "edits": [
            {"old_string": "be", "new_string": "BE"}, {"old_string": "ta", "new_string": "TA"}]}),
    );
}

#[test]
fn multi_2_a_conflict_with_an_earlier_edit_that_is_not_the_one_before() {
    // [a→XY, b→Q, XY→Z] on `a b c`: XY was written by edit 0, two edits back. Applied in
    // turn without the rule, the file would become `Z Q c`.
    let t = sb();
    t.put("f.txt", b"a b c\n");
    t.read("f.txt");
    let e = t.refused(
        "f.txt",
        Code::EditConflict,
        "MultiEdit",
        json!({"file_path": "f.txt", "edits": [
            {"old_string": "a", "new_string": "XY"},
            {"old_string": "b", "new_string": "Q"},
            {"old_string": "XY", "new_string": "Z"}]}),
    );
    assert_eq!(e.fields["edit_index"], 2);
    assert!(e.message.contains("written by edit 0"), "{}", e.message);
    // Further back, in the middle of the run, and after a replace_all: the edit that wrote
    // the text is named, however many edits lie between.
    let e = t.refused(
        "f.txt",
        Code::EditConflict,
        "MultiEdit",
        json!({"file_path": "f.txt", "edits": [
            {"old_string": "a", "new_string": "A"},
            {"old_string": "b", "new_string": "<b>"},
            {"old_string": "c", "new_string": "C"},
            {"old_string": " ", "new_string": "_", "replace_all": true},
            {"old_string": "<b", "new_string": "{b"}]}),
    );
    assert_eq!(e.fields["edit_index"], 4);
    assert!(e.message.contains("written by edit 1"), "{}", e.message);
    assert_eq!(t.get("f.txt"), b"a b c\n");
    // The same edits without the last one apply in turn.
    let out = t
        .call(
            "MultiEdit",
            json!({"file_path": "f.txt", "edits": [
                {"old_string": "a", "new_string": "XY"},
                {"old_string": "b", "new_string": "Q"},
                {"old_string": "c", "new_string": "Z"}]}),
        )
        .unwrap();
    assert_eq!(out["edits"].as_array().map(Vec::len), Some(3));
    assert_eq!(t.get("f.txt"), b"XY Q Z\n");
    t.assert_no_residue();
}
