//! EDIT-1..7 (SPEC §4, Edit): the order of checks, deleting lines, results, structuredPatch, dry
//! runs.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::Code;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

#[test]
fn edit_1_validation_order() {
    let t = sb();
    // schema first
    t.put("f.txt", b"a\n");
    t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"file_path": "f.txt", "old_string": 1, "new_string": "b"}),
    );
    t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "extra": 1}),
    );
    // no_change before path rules (the empty path would be invalid_path)
    t.refused(
        "f.txt",
        Code::NoChange,
        "Edit",
        json!({"file_path": "", "old_string": "a", "new_string": "a"}),
    );
    // missing file: refused, and not created
    t.refused(
        "nope.txt",
        Code::FileNotFound,
        "Edit",
        json!({"file_path": "nope.txt", "old_string": "a", "new_string": "b"}),
    );
    assert!(!t.p("nope.txt").exists());
    // not read
    t.refused(
        "f.txt",
        Code::NotRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
    );
    // empty old_string on a non-blank file
    t.read("f.txt");
    t.refused(
        "f.txt",
        Code::FileExists,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "", "new_string": "b"}),
    );
    // create with parents
    t.call(
        "Edit",
        json!({"file_path": "new/dir/g.txt", "old_string": "", "new_string": "hi\n"}),
    )
    .unwrap();
    assert_eq!(t.get("new/dir/g.txt"), b"hi\n");
    // a blank file takes new_string as its content
    t.put("blank.txt", b"  \n");
    t.read("blank.txt");
    t.call(
        "Edit",
        json!({"file_path": "blank.txt", "old_string": "", "new_string": "full"}),
    )
    .unwrap();
    assert_eq!(t.get("blank.txt"), b"full");
    // directory and notebook
    std::fs::create_dir(t.p("d")).unwrap();
    t.refused(
        "f.txt",
        Code::IsDirectory,
        "Edit",
        json!({"file_path": "d", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(std::fs::read_dir(t.p("d")).unwrap().count(), 0);
    t.put("n.ipynb", b"{}");
    t.refused(
        "n.ipynb",
        Code::UseNotebookEdit,
        "Edit",
        json!({"file_path": "n.ipynb", "old_string": "{", "new_string": "["}),
    );
}

/// EDIT-1: repair reads the file's text, so the `no_change` it causes is decided after the
/// staleness check. A text the model never read — another writer's — decides nothing: the
/// call is `stale`, as every other edit of that file is, and the file keeps the other writer's
/// bytes.
#[test]
fn edit_1_no_change_after_repair_comes_after_the_staleness_check() {
    let t = sb();
    t.put("f.txt", b"");
    t.read("f.txt");
    t.modify("f.txt", b"say <function_results>x\n");
    let repaired = json!({"file_path": "f.txt", "old_string": "<fnr>x",
                          "new_string": "<function_results>x"});
    t.refused("f.txt", Code::Stale, "Edit", repaired.clone());
    t.refused(
        "f.txt",
        Code::Stale,
        "MultiEdit",
        json!({"file_path": "f.txt", "edits": [{"old_string": "<fnr>x",
                                                "new_string": "<function_results>x"}]}),
    );
    assert_eq!(t.get("f.txt"), b"say <function_results>x\n");
    // Once the model has read that text, the repaired strings are the same: no_change.
    t.read("f.txt");
    t.refused("f.txt", Code::NoChange, "Edit", repaired);
    // Strings identical as sent are no_change before anything looks at the file.
    t.modify("f.txt", b"other\n");
    t.refused(
        "f.txt",
        Code::NoChange,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "x", "new_string": "x"}),
    );
    assert_eq!(t.get("f.txt"), b"other\n");
}

#[test]
fn d17_a_blank_file_without_a_break_takes_new_strings_own_ending() {
    // D17: an empty old_string supplying the whole content of a blank file with no line break
    // of its own writes new_string's breaks with new_string's dominant ending.
    let t = sb();
    assert_eq!(t.edited(b"  ", "", "a\r\nb\r\n"), b"a\r\nb\r\n");
    // A blank file with a break of its own gives inserted text its ending (TEXT-6).
    let t = sb();
    assert_eq!(t.edited(b" \n", "", "a\r\nb\r\n"), b"a\nb\n");
}

#[test]
fn edit_2_deleting_takes_the_line_break() {
    let t = sb();
    assert_eq!(t.edited(b"a\nfoo\nb\n", "foo", ""), b"a\nb\n");
    let t = sb();
    assert_eq!(t.edited(b"a\r\nfoo\r\nb\r\n", "foo", ""), b"a\r\nb\r\n");
}

#[test]
fn edit_3_write_rechecks_and_replaces_atomically() {
    let t = sb();
    assert_eq!(t.edited(b"one two\n", "two", "2"), b"one 2\n");
}

/// EDIT-3, EDIT-5, MATCH-1 and TEXT-6 under `replace_all`: every hit is replaced — several on
/// one line, on LF lines and on CRLF lines — the endings between them stay exactly as they
/// were, and `replacements` counts them all.
#[test]
fn edit_3_match_1_replace_all_replaces_every_hit_across_lines() {
    let t = sb();
    t.put("f.txt", b"foo = 1\r\nbar foo\nfoo foo\r\nlone\rfoo\nend\n");
    t.read("f.txt");
    let out = t
        .call(
            "Edit",
            json!({"file_path": "f.txt", "old_string": "foo", "new_string": "qux", "replace_all": true}),
        )
        .unwrap();
    assert_eq!(out["replacements"], 5);
    assert_eq!(out["replaceAll"], true);
    assert_eq!(
        t.get("f.txt"),
        b"qux = 1\r\nbar qux\nqux qux\r\nlone\rqux\nend\n"
    );
    t.assert_no_residue();

    // Inserted line breaks take the dominant ending (CRLF here: three CRLF, one LF), at every
    // hit; the lone LF elsewhere is left alone.
    let t = sb();
    t.put("g.txt", b"x;\r\ny = x;\r\nz\nx\r\n");
    t.read("g.txt");
    let out = t
        .call(
            "Edit",
            json!({"file_path": "g.txt", "old_string": "x", "new_string": "a\nb", "replace_all": true}),
        )
        .unwrap();
    assert_eq!(out["replacements"], 3);
    assert_eq!(t.get("g.txt"), b"a\r\nb;\r\ny = a\r\nb;\r\nz\na\r\nb\r\n");
    t.assert_no_residue();
}

#[test]
fn edit_4_second_edit_needs_no_reread() {
    let t = sb();
    t.put("f.txt", b"a b\n");
    t.read("f.txt");
    t.edit("f.txt", "a", "x").unwrap();
    assert_eq!(t.get("f.txt"), b"x b\n");
    t.edit("f.txt", "b", "y").unwrap();
    assert_eq!(t.get("f.txt"), b"x y\n");
}

#[test]
fn edit_5_result_fields() {
    let t = sb();
    t.put("f.txt", "“q”\n".as_bytes());
    t.read("f.txt");
    let out = t.edit("f.txt", "\"q\"", "\"r\"").unwrap();
    assert_eq!(out["oldString"], "“q”");
    assert_eq!(out["newString"], "“r”");
    assert_eq!(out["replacements"], 1);
    assert_eq!(out["replaceAll"], false);
    assert_eq!(out["userModified"], false);
    assert_eq!(out["repairs"], json!([]));
    assert!(out["diff"].as_str().unwrap().contains("+“r”"));
    assert_eq!(t.get("f.txt"), "“r”\n".as_bytes());
    t.assert_no_residue();
}

#[test]
fn edit_6_structured_patch_shape() {
    let t = sb();
    t.put("f.txt", b"1\n2\n3\n4\n5\n");
    t.read("f.txt");
    let out = t.edit("f.txt", "3", "three").unwrap();
    assert_eq!(
        out["structuredPatch"],
        json!([{"oldStart": 1, "oldLines": 5, "newStart": 1, "newLines": 5,
                "lines": [" 1", " 2", "-3", "+three", " 4", " 5"]}])
    );
    assert_eq!(t.get("f.txt"), b"1\n2\nthree\n4\n5\n");
}

#[test]
fn edit_7_dry_run_writes_nothing() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let out = t
        .call(
            "Edit",
            json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "dry_run": true}),
        )
        .unwrap();
    assert_eq!(out["dryRun"], true);
    assert_eq!(t.get("f.txt"), b"a\n");
    t.assert_no_residue();
    // Metadata checks still run under dry_run.
    std::fs::set_permissions(t.p("f.txt"), std::fs::Permissions::from_mode(0o444)).unwrap();
    t.refused(
        "f.txt",
        Code::PermissionDenied,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "dry_run": true}),
    );
}

#[test]
fn edit_7_a_dry_run_leaves_the_read_state_as_it_was() {
    sb().dry_run_keeps_the_read_state(
        "Edit",
        json!({"file_path": "f.txt", "old_string": "beta", "new_string": "BETA", "dry_run": true}),
    );
    sb().dry_run_keeps_the_read_state(
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a\n", "new_string": "A\n",
               "replace_all": true, "dry_run": true}),
    );
}

#[test]
fn edit_7_a_creating_dry_run_does_not_count_as_a_read() {
    let t = sb();
    let out = t
        .call(
            "Edit",
            json!({"file_path": "new.txt", "old_string": "", "new_string": "hello\n",
                   "dry_run": true}),
        )
        .unwrap();
    assert_eq!(out["dryRun"], true);
    assert!(!t.p("new.txt").exists());
    assert_eq!(t.s.entry(&t.p("new.txt")), None);
    assert_eq!(t.s.read_state().len(), 0);
    // Another program creates the file with exactly the dry run's text: it was never read.
    t.put("new.txt", b"hello\n");
    t.refused(
        "new.txt",
        Code::NotRead,
        "Edit",
        json!({"file_path": "new.txt", "old_string": "hello", "new_string": "bye"}),
    );
    assert_eq!(t.get("new.txt"), b"hello\n");
}
