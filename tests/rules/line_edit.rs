//! LINES-1..6 (SPEC §15, LineEdit): lines replaced by number — input, ranges, line breaks, the
//! expected_text guard, the order of checks, results and dry runs.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb, Sb};
use editref::Code;
use serde_json::{json, Value};

fn line_edit(t: &Sb, start: u64, end: u64, content: &str) -> Result<Value, editref::ToolError> {
    t.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": start, "end_line": end, "new_content": content}),
    )
}

/// Puts `before` into f.txt, reads it, runs the LineEdit and returns the bytes on disk.
fn lines(before: &[u8], start: u64, end: u64, content: &str) -> Vec<u8> {
    let t = sb();
    t.put("f.txt", before);
    t.read("f.txt");
    line_edit(&t, start, end, content).unwrap();
    t.assert_no_residue();
    t.get("f.txt")
}

#[test]
fn lines_1_input_fields_are_checked() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    for input in [
        json!({"file_path": "f.txt", "start_line": 1, "new_content": "x"}),
        json!({"file_path": "f.txt", "start_line": 1, "end_line": 1}),
        json!({"file_path": "f.txt", "start_line": "one", "end_line": 1, "new_content": "x"}),
        json!({"file_path": "f.txt", "start_line": 1, "end_line": 1, "new_content": "x", "line": 1}),
        json!({"file_path": "f.txt", "start_line": -1, "end_line": 1, "new_content": "x"}),
    ] {
        t.refused("f.txt", Code::InvalidInput, "LineEdit", input);
    }
    // The lenient forms of D29: numeric strings are whole numbers.
    t.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": "1", "end_line": "1", "new_content": "b"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
}

#[test]
fn lines_2_ranges_outside_the_file_name_its_line_count() {
    let t = sb();
    t.put("f.txt", b"a\nb\nc\n");
    t.read("f.txt");
    // The largest whole number the JSON entry reads is refused like any other, not overflowed.
    for (start, end) in [
        (0, 0),
        (0, 1),
        (5, 4),
        (2, 4),
        (3, 1),
        (4, 4),
        (1, u64::MAX),
        (u64::MAX, u64::MAX),
    ] {
        let e = t.refused(
            "f.txt",
            Code::InvalidInput,
            "LineEdit",
            json!({"file_path": "f.txt", "start_line": start, "end_line": end, "new_content": "x"}),
        );
        assert_eq!(e.fields.get("lines"), Some(&json!(3)), "{start}-{end}");
    }
    // An empty file has no lines: only an insertion at line 1 fits.
    t.put("e.txt", b"");
    t.read("e.txt");
    let e = t.refused(
        "e.txt",
        Code::InvalidInput,
        "LineEdit",
        json!({"file_path": "e.txt", "start_line": 1, "end_line": 1, "new_content": "x"}),
    );
    assert_eq!(e.fields.get("lines"), Some(&json!(0)));
}

#[test]
fn lines_2_end_before_start_inserts_and_ranges_replace_whole_lines() {
    assert_eq!(lines(b"a\nb\nc\n", 2, 3, "X\nY\n"), b"a\nX\nY\n");
    assert_eq!(lines(b"a\nb\nc\n", 2, 2, "B"), b"a\nB\nc\n");
    assert_eq!(lines(b"a\nb\nc\n", 1, 0, "top"), b"top\na\nb\nc\n");
    assert_eq!(lines(b"a\nb\nc\n", 3, 2, "mid"), b"a\nb\nmid\nc\n");
    assert_eq!(lines(b"a\nb\nc\n", 4, 3, "end"), b"a\nb\nc\nend\n");
    assert_eq!(lines(b"a\nb\nc\n", 1, 3, "all\n"), b"all\n");
    assert_eq!(lines(b"", 1, 0, "first"), b"first");
}

#[test]
fn lines_3_line_breaks() {
    // Replaced lines ended with a break: so does the new text.
    assert_eq!(lines(b"a\nb\nc\n", 2, 2, "x\ny"), b"a\nx\ny\nc\n");
    // CRLF file: inserted breaks take the dominant ending; CRLF in the content is read as LF.
    assert_eq!(
        lines(b"a\r\nb\r\nc\r\n", 2, 2, "x\r\ny\nz"),
        b"a\r\nx\r\ny\r\nz\r\nc\r\n"
    );
    // Mixed endings outside the lines are kept byte for byte.
    assert_eq!(
        lines(b"a\r\nb\nc\r\nd\r\n", 2, 2, "B"),
        b"a\r\nB\r\nc\r\nd\r\n"
    );
    // No final newline: replacing the last line keeps it that way, unless the content has one.
    assert_eq!(lines(b"a\nb", 2, 2, "B"), b"a\nB");
    assert_eq!(lines(b"a\nb", 2, 2, "B\n"), b"a\nB\n");
    // Inserting at the end of such a file starts a new line.
    assert_eq!(lines(b"a\nb", 3, 2, "c"), b"a\nb\nc");
    // Empty content deletes the lines with their breaks; the last line's break before it stays.
    assert_eq!(lines(b"a\nb\nc\n", 2, 2, ""), b"a\nc\n");
    assert_eq!(lines(b"a\nb", 2, 2, ""), b"a\n");
    assert_eq!(lines(b"a\nb\n", 1, 2, ""), b"");
}

#[test]
fn lines_3_encodings_and_bom_are_kept() {
    let utf16 = |s: &str| -> Vec<u8> {
        [0xFF, 0xFE]
            .into_iter()
            .chain(s.encode_utf16().flat_map(u16::to_le_bytes))
            .collect()
    };
    assert_eq!(lines(&utf16("a\r\nb\r\n"), 2, 2, "ü"), utf16("a\r\nü\r\n"));
    assert_eq!(
        lines(b"\xEF\xBB\xBFa\nb\n", 1, 0, "z"),
        b"\xEF\xBB\xBFz\na\nb\n"
    );
    // windows-1252: é is one byte, and a character it lacks is refused (D11).
    let fr: &[u8] = b"Le caf\xE9 est pr\xEAt, \xE0 bient\xF4t.\nx\n";
    assert_eq!(
        lines(fr, 2, 2, "th\u{e9}"),
        b"Le caf\xE9 est pr\xEAt, \xE0 bient\xF4t.\nth\xE9\n"
    );
    let t = sb();
    t.put("f.txt", fr);
    t.read("f.txt");
    t.refused(
        "f.txt",
        Code::Encoding,
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 2, "end_line": 2, "new_content": "\u{4e16}"}),
    );
}

#[test]
fn lines_4_expected_text_guards_the_lines() {
    let t = sb();
    t.put("f.txt", b"a\r\nb\r\nc\r\n");
    t.read("f.txt");
    let e = t.refused(
        "f.txt",
        Code::Stale,
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 2, "end_line": 3, "new_content": "x",
               "expected_text": "b\nC"}),
    );
    assert_eq!(e.fields.get("actual"), Some(&json!("b\nc\n")));
    // CRLF in expected_text and one final line break on either side do not matter.
    t.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 2, "end_line": 3, "new_content": "x",
               "expected_text": "b\r\nc\r\n"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"a\r\nx\r\n");
    t.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 1, "end_line": 1, "new_content": "y",
               "expected_text": "a"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"y\r\nx\r\n");
}

#[test]
fn lines_5_needs_a_full_fresh_read_and_keeps_edit_order() {
    let t = sb();
    t.put("f.txt", b"a\nb\nc\n");
    let e = line_edit(&t, 9, 9, "x").unwrap_err();
    // not_read comes before the range check: without a Read there is no line count.
    assert_eq!(e.code, Code::NotRead);
    t.call(
        "Read",
        json!({"file_path": "f.txt", "offset": 1, "limit": 1}),
    )
    .unwrap();
    t.refused(
        "f.txt",
        Code::PartialRead,
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 1, "end_line": 1, "new_content": "x"}),
    );
    t.read("f.txt");
    t.modify("f.txt", b"inserted\na\nb\nc\n");
    t.refused(
        "f.txt",
        Code::Stale,
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 1, "end_line": 1, "new_content": "x"}),
    );
    let e = t
        .call(
            "LineEdit",
            json!({"file_path": "missing.txt", "start_line": 1, "end_line": 0, "new_content": "x"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::FileNotFound);
    assert!(!t.p("missing.txt").exists());
    t.put("nb.ipynb", b"{}");
    t.refused(
        "nb.ipynb",
        Code::UseNotebookEdit,
        "LineEdit",
        json!({"file_path": "nb.ipynb", "start_line": 1, "end_line": 1, "new_content": "x"}),
    );
    std::fs::create_dir(t.p("dir")).unwrap();
    let e = t
        .call(
            "LineEdit",
            json!({"file_path": "dir", "start_line": 1, "end_line": 1, "new_content": "x"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::IsDirectory);
    // no_change is the last check: the new text equals the lines.
    t.read("f.txt");
    t.refused(
        "f.txt",
        Code::NoChange,
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 3, "end_line": 3, "new_content": "b"}),
    );
    // Afterwards the new content counts as read: a second LineEdit needs no new Read.
    line_edit(&t, 1, 1, "A").unwrap();
    line_edit(&t, 2, 2, "B").unwrap();
    assert_eq!(t.get("f.txt"), b"A\nB\nb\nc\n");
}

#[test]
fn lines_6_result_and_dry_run() {
    let t = sb();
    t.put("f.txt", b"a\nb\nc\n");
    t.read("f.txt");
    let dry = t
        .call(
            "LineEdit",
            json!({"file_path": "f.txt", "start_line": 2, "end_line": 2, "new_content": "B",
                   "dry_run": true}),
        )
        .unwrap();
    assert_eq!(dry["dryRun"], true);
    assert_eq!(t.get("f.txt"), b"a\nb\nc\n");
    t.assert_no_residue();
    let out = line_edit(&t, 2, 2, "B").unwrap();
    assert_eq!(out["startLine"], 2);
    assert_eq!(out["endLine"], 2);
    assert_eq!(out["oldText"], "b\n");
    assert!(out.get("dryRun").is_none());
    assert_eq!(
        out["structuredPatch"],
        json!([{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3,
                "lines": [" a", "-b", "+B", " c"]}])
    );
    for key in ["structuredPatch", "diff"] {
        assert_eq!(dry[key], out[key], "{key}");
    }
    let ins = line_edit(&t, 4, 3, "d").unwrap();
    assert_eq!(ins["oldText"], "");
    assert_eq!(t.get("f.txt"), b"a\nB\nc\nd\n");
}

#[test]
fn lines_6_a_dry_run_leaves_the_read_state_as_it_was() {
    sb().dry_run_keeps_the_read_state(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 2, "end_line": 2, "new_content": "BETA",
               "dry_run": true}),
    );
}
