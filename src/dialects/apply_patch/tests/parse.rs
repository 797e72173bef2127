//! APPLY-1..4: what the parser accepts, refuses, and how it reads the per-operation form.

use super::*;

// ---------------------------------------------------------------------------------------------
// APPLY-1: accepted shapes and leniency

#[test]
fn apply_1_every_operation_with_its_lines() {
    let text = [
        "*** Begin Patch",
        "*** Add File: hello.txt",
        "+Hello",
        "+",
        "*** Delete File: old.txt",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ def greet():",
        "-    print(\"Hi\")",
        "+    print(\"Hello\")",
        " ",
        "@@",
        " x",
        "-y",
        "*** End of File",
        "*** End Patch",
    ]
    .join("\n");
    let text = text.as_str();
    let patch = parse(text).unwrap();
    assert_eq!(
        patch.ops,
        vec![
            FileOp::Add {
                path: "hello.txt".into(),
                lines: vec!["Hello".into(), "".into()],
                line: 2
            },
            FileOp::Delete {
                path: "old.txt".into(),
                line: 5
            },
            FileOp::Update {
                path: "src/app.py".into(),
                move_to: Some("src/main.py".into()),
                chunks: vec![
                    chunk(
                        &["def greet():"],
                        &["    print(\"Hi\")", ""],
                        &["    print(\"Hello\")", ""],
                        false,
                        8
                    ),
                    chunk(&[], &["x", "y"], &["x"], true, 12),
                ],
                line: 6
            },
        ]
    );
    assert_eq!(patch.ops[2].path(), "src/app.py");
    assert_eq!(patch.ops[2].line(), 6);
}

#[test]
fn apply_1_markers_padded_and_surrounded_by_blank_lines() {
    let text = "\n  \n   *** Begin Patch  \n*** Delete File: a\n\t*** End Patch \t\n\n";
    let patch = parse(text).unwrap();
    assert_eq!(
        patch.ops,
        vec![FileOp::Delete {
            path: "a".into(),
            line: 4
        }]
    );
}

#[test]
fn apply_1_hunk_headers_padded_and_paths_trimmed() {
    let text = "*** Begin Patch\n   *** Add File:   a b.txt  \n+x\n  *** Delete File: c\n \
                *** Update File: d\n*** Move to:  e \n@@\n-1\n+2\n*** End Patch";
    let ops = parse(text).unwrap().ops;
    assert_eq!(ops[0].path(), "a b.txt");
    assert_eq!(ops[1].path(), "c");
    match &ops[2] {
        FileOp::Update { path, move_to, .. } => {
            assert_eq!(path, "d");
            assert_eq!(move_to.as_deref(), Some("e"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn apply_1_crlf_patch_text_reads_like_lf() {
    let lf = "*** Begin Patch\n*** Update File: a\n@@ fn main() {\n-  old\n+  new\n\n*** Add File: b\n+x\n*** End Patch\n";
    let crlf = lf.replace('\n', "\r\n");
    assert_eq!(parse(&crlf).unwrap(), parse(lf).unwrap());
    // A CR that is not followed by LF belongs to the line.
    let lone = "*** Begin Patch\n*** Add File: b\n+x\ry\n*** End Patch";
    match &parse(lone).unwrap().ops[0] {
        FileOp::Add { lines, .. } => assert_eq!(lines, &vec!["x\ry".to_string()]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn apply_1_heredoc_forms() {
    let inner = "*** Begin Patch\n*** Delete File: a\n*** End Patch";
    let want = vec![FileOp::Delete {
        path: "a".into(),
        line: 5,
    }];
    for opener in [
        "<<EOF",
        "<<'EOF'",
        "<<\"EOF\"",
        "<< 'EOF'",
        "<<-EOF",
        "apply_patch <<'EOF'",
        "apply_patch <<EOF",
        "applypatch <<\"EOF\"",
        "  apply_patch<<'PATCH'  ",
    ] {
        let delim = if opener.contains("PATCH") {
            "PATCH"
        } else {
            "EOF"
        };
        let text = format!("\n{opener}\n\n{inner}\n{delim}\n");
        assert_eq!(parse(&text).map(|p| p.ops), Ok(want.clone()), "{opener}");
    }
}

#[test]
fn apply_1_heredoc_must_be_closed_by_its_delimiter() {
    let e = err("<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n");
    assert_eq!(e.line, 4);
    assert_eq!(
        e.expected,
        "'EOF' as the last line, closing the heredoc opened on line 1"
    );
    assert_eq!(e.found, "'*** End Patch'");
    let e = err("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEND\n");
    assert_eq!((e.line, e.found.as_str()), (5, "'END'"));
    // A heredoc holding no patch.
    let e = err("<<EOF\n\nEOF");
    assert_eq!((e.line, e.expected.as_str()), (3, "'*** Begin Patch'"));
    // Not heredoc openers: a here-string, an empty delimiter, trailing words.
    for not in ["<<<EOF", "<<''", "<<EOF extra"] {
        let e = err(&format!(
            "{not}\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF"
        ));
        assert_eq!(e.line, 1, "{not}");
    }
}

#[test]
fn apply_1_first_chunk_may_omit_the_at_at_line() {
    let chunks =
        chunks_of("*** Begin Patch\n*** Update File: a\n\n  \n a\n-b\n+c\n@@\n-d\n*** End Patch");
    assert_eq!(
        chunks,
        vec![
            chunk(&[], &["a", "b"], &["a", "c"], false, 5),
            chunk(&[], &["d"], &[], false, 8),
        ]
    );
}

#[test]
fn apply_1_empty_line_inside_a_chunk_is_an_empty_context_line() {
    let chunks =
        chunks_of("*** Begin Patch\n*** Update File: a\n@@\n a\n\n-b\n\n+c\n*** End Patch");
    assert_eq!(chunks[0].old, vec!["a", "", "b", ""]);
    assert_eq!(chunks[0].new, vec!["a", "", "", "c"]);
}

#[test]
fn apply_1_end_of_file_marker_padded_on_the_right() {
    let chunks = chunks_of(
        "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End of File  \n@@ z\n+w\n*** End Patch",
    );
    assert!(chunks[0].end_of_file);
    assert!(!chunks[1].end_of_file);
    assert_eq!(chunks[1].anchors, vec!["z"]);
}

#[test]
fn apply_1_several_at_at_lines_narrow_step_by_step() {
    let chunks = chunks_of(
        "*** Begin Patch\n*** Update File: a\n@@ class A:\n@@\n@@ \tdef f(self):\n-x\n*** End Patch",
    );
    // A bare `@@` adds nothing; one space after `@@` is the separator, the rest is kept.
    assert_eq!(chunks[0].anchors, vec!["class A:", "\tdef f(self):"]);
    assert_eq!(chunks[0].line, 3);
}

#[test]
fn apply_1_whitespace_only_anchor_is_a_bare_at_at() {
    let chunks = chunks_of("*** Begin Patch\n*** Update File: a\n@@   \n-x\n*** End Patch");
    assert!(chunks[0].anchors.is_empty());
}

#[test]
fn apply_1_anchor_keeps_indentation_after_the_separator() {
    let chunks =
        chunks_of("*** Begin Patch\n*** Update File: a\n@@     return x\n-y\n*** End Patch");
    assert_eq!(chunks[0].anchors, vec!["    return x"]);
}

#[test]
fn apply_1_add_file_without_lines_is_an_empty_file() {
    let ops = parse("*** Begin Patch\n*** Add File: empty.txt\n*** Delete File: b\n*** End Patch")
        .unwrap()
        .ops;
    assert_eq!(
        ops[0],
        FileOp::Add {
            path: "empty.txt".into(),
            lines: vec![],
            line: 2
        }
    );
}

#[test]
fn apply_1_blank_lines_between_operations_are_skipped() {
    let ops =
        parse("*** Begin Patch\n\n*** Add File: a\n+x\n\n\n*** Delete File: b\n\n*** End Patch")
            .unwrap()
            .ops;
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[1].line(), 7);
}

#[test]
fn apply_1_a_move_line_starts_its_line() {
    // Indented, it is the first context line of a chunk without `@@`.
    let ops = parse("*** Begin Patch\n*** Update File: a\n *** Move to: b\n-x\n*** End Patch")
        .unwrap()
        .ops;
    match &ops[0] {
        FileOp::Update {
            move_to, chunks, ..
        } => {
            assert_eq!(move_to, &None);
            assert_eq!(chunks[0].old, vec!["*** Move to: b", "x"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn apply_1_lines_that_look_like_markers_are_content_behind_their_prefix() {
    let chunks = chunks_of(
        "*** Begin Patch\n*** Update File: a\n@@\n *** Add File: x\n-@@ y\n+*** End Patch\n*** End Patch",
    );
    assert_eq!(chunks[0].old, vec!["*** Add File: x", "@@ y"]);
    assert_eq!(chunks[0].new, vec!["*** Add File: x", "*** End Patch"]);
}

// ---------------------------------------------------------------------------------------------
// APPLY-2: refusals name the line and what was expected there

#[test]
fn apply_2_invalid_hunk_header_message() {
    let e = err("*** Begin Patch\n*** Delete File: a\n\n\n\n\nfoo\n*** End Patch");
    assert_eq!(
        e.to_string(),
        "line 7: expected a hunk header ('*** Add File: PATH', '*** Delete File: PATH' or \
         '*** Update File: PATH'), found 'foo'"
    );
    assert_eq!(e.earlier, None);
}

#[test]
fn apply_2_empty_text() {
    for text in ["", "\n\n", "  \r\n"] {
        let e = err(text);
        assert_eq!(e.expected, "'*** Begin Patch'");
        assert_eq!(e.found, "the end of the patch");
    }
}

#[test]
fn apply_2_missing_begin_marker() {
    let e = err("\n*** Update File: a\n@@\n-x\n*** End Patch");
    assert_eq!(e.line, 2);
    assert_eq!(
        e.expected,
        "'*** Begin Patch' as the first line of the patch"
    );
    assert_eq!(e.found, "'*** Update File: a'");
}

#[test]
fn apply_2_missing_end_marker() {
    let e = err("*** Begin Patch\n*** Update File: a\n@@\n-x\n");
    assert_eq!(e.line, 4);
    assert_eq!(e.expected, "'*** End Patch' as the last line of the patch");
    assert_eq!(e.found, "'-x'");
    let e = err("*** Begin Patch\n");
    assert_eq!((e.line, e.found.as_str()), (2, "the end of the patch"));
    // In a heredoc, the end is the closing line.
    let e = err("<<EOF\n*** Begin Patch\nEOF");
    assert_eq!((e.line, e.found.as_str()), (3, "'EOF'"));
}

#[test]
fn apply_2_no_operations() {
    let e = err("*** Begin Patch\n\n*** End Patch");
    assert_eq!(e.line, 3);
    assert!(e.expected.starts_with("at least one operation"), "{e}");
}

#[test]
fn apply_2_update_without_chunks() {
    let e = err("*** Begin Patch\n*** Update File: a\n\n*** Delete File: b\n*** End Patch");
    assert_eq!(e.line, 4);
    assert!(
        e.expected
            .starts_with("at least one chunk for '*** Update File: a'"),
        "{e}"
    );
    let e = err("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch");
    assert_eq!((e.line, e.found.as_str()), (4, "'*** End Patch'"));
    let e = parse_operation("update_file", "a", "").unwrap_err();
    assert_eq!((e.line, e.found.as_str()), (1, "the end of the diff"));
}

#[test]
fn apply_2_at_at_without_diff_lines() {
    let e = err("*** Begin Patch\n*** Update File: a\n@@ x\n*** End Patch");
    assert_eq!(e.line, 4);
    assert_eq!(
        e.expected,
        "a line starting with ' ' (context), '-' (removed) or '+' (added) after the '@@' line"
    );
}

#[test]
fn apply_2_end_of_file_marker_needs_lines_before_it() {
    let e = err("*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch");
    assert_eq!(e.line, 3);
    assert!(e.expected.contains("before '*** End of File'"), "{e}");
    let e = err("*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch");
    assert_eq!((e.line, e.found.as_str()), (4, "'*** End of File'"));
}

#[test]
fn apply_2_second_chunk_needs_an_at_at_line() {
    let e = err("*** Begin Patch\n*** Update File: a\n-x\n*** End of File\n-y\n*** End Patch");
    assert_eq!(e.line, 5);
    assert!(
        e.expected
            .starts_with("'@@' (or '@@ ' and a line of the file) to start the next chunk"),
        "{e}"
    );
}

#[test]
fn apply_2_unprefixed_line_inside_a_chunk() {
    let e = err("*** Begin Patch\n*** Update File: a\n@@\n-x\nfoo\n*** End Patch");
    assert_eq!((e.line, e.found.as_str()), (5, "'foo'"));
    assert!(
        e.expected.starts_with("a line starting with ' ' (context)"),
        "{e}"
    );
    // First line of a first chunk without `@@`.
    let e = err("*** Begin Patch\n*** Update File: a\nfoo\n*** End Patch");
    assert_eq!(e.line, 3);
    assert!(e.expected.starts_with("'@@'"), "{e}");
    // A tab is not a context prefix.
    let e = err("*** Begin Patch\n*** Update File: a\n@@\n\tx\n*** End Patch");
    assert_eq!(e.line, 4);
}

#[test]
fn apply_2_empty_paths() {
    for (header, marker) in [
        ("*** Add File:", "*** Add File:"),
        ("*** Delete File:  ", "*** Delete File:"),
        ("*** Update File:", "*** Update File:"),
    ] {
        let e = err(&format!("*** Begin Patch\n{header}\n*** End Patch"));
        assert_eq!(e.line, 2);
        assert_eq!(e.expected, format!("a path after '{marker}'"));
    }
    let e = err("*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n-x\n*** End Patch");
    assert_eq!(
        (e.line, e.expected.as_str()),
        (3, "a path after '*** Move to:'")
    );
}

#[test]
fn apply_2_unified_diff_ranges_are_refused() {
    for header in [
        "@@ -12,7 +12,8 @@",
        "@@ -1 +1 @@ fn main() {",
        "@@ -3,2 +3,3",
    ] {
        let e = err(&format!(
            "*** Begin Patch\n*** Update File: a\n{header}\n-x\n*** End Patch"
        ));
        assert_eq!(e.line, 3, "{header}");
        assert!(e.expected.contains("no line numbers"), "{e}");
    }
    // Text that only resembles a range is an anchor.
    let chunks =
        chunks_of("*** Begin Patch\n*** Update File: a\n@@ -1 is less than +1\n-x\n*** End Patch");
    assert_eq!(chunks[0].anchors, vec!["-1 is less than +1"]);
}

#[test]
fn apply_2_text_glued_to_at_at_is_refused() {
    let e = err("*** Begin Patch\n*** Update File: a\n@@foo\n-x\n*** End Patch");
    assert_eq!((e.line, e.found.as_str()), (3, "'@@foo'"));
}

#[test]
fn apply_2_added_file_lines_need_their_plus() {
    // An empty line in the middle of an added file, written without its `+`.
    let e = err("*** Begin Patch\n*** Add File: a.py\n+import os\n\n+def f():\n*** End Patch");
    assert_eq!((e.line, e.found.as_str()), (4, "an empty line"));
    assert!(
        e.expected.starts_with("'+' at the start of every line"),
        "{e}"
    );
    let e = err("*** Begin Patch\n*** Add File: a.py\n+import os\nimport sys\n*** End Patch");
    assert_eq!(e.line, 4);
    assert!(e.expected.contains("starting with '+'"), "{e}");
}

#[test]
fn apply_2_long_lines_are_shortened_on_a_character_boundary() {
    let long = "é".repeat(500);
    let e = err(&format!("*** Begin Patch\n{long}\n*** End Patch"));
    assert!(e.found.ends_with("…'"), "{}", e.found);
    assert_eq!(e.found.chars().count(), 160 + 3);
    let e = err("*** Begin Patch\n*** Delete File: a\n   \n\t\n*** End Patch\nx");
    assert_eq!(e.line, 6);
}

// ---------------------------------------------------------------------------------------------
// APPLY-3: the Responses API operation form

#[test]
fn apply_3_create_file() {
    let op = parse_operation("create_file", " notes.md ", "+# Title\r\n+\n+text\n\n").unwrap();
    assert_eq!(
        op,
        FileOp::Add {
            path: "notes.md".into(),
            lines: vec!["# Title".into(), "".into(), "text".into()],
            line: 0
        }
    );
    assert_eq!(
        parse_operation("create_file", "e", "").unwrap(),
        FileOp::Add {
            path: "e".into(),
            lines: vec![],
            line: 0
        }
    );
}

#[test]
fn apply_3_create_file_lines_need_their_plus() {
    let e = parse_operation("create_file", "a", "+one\ntwo\n").unwrap_err();
    assert_eq!((e.line, e.found.as_str()), (2, "'two'"));
    assert!(e
        .to_string()
        .starts_with("line 2: expected '+' at the start of every line"));
}

#[test]
fn apply_3_update_file_is_the_body_of_one_update() {
    let op = parse_operation(
        "update_file",
        "lib/fib.py",
        "@@\n-def fib(n):\n+def fibonacci(n):\n if n <= 1:\n@@ return\n-x\n",
    )
    .unwrap();
    assert_eq!(
        op,
        FileOp::Update {
            path: "lib/fib.py".into(),
            move_to: None,
            chunks: vec![
                chunk(
                    &[],
                    &["def fib(n):", "if n <= 1:"],
                    &["def fibonacci(n):", "if n <= 1:"],
                    false,
                    1
                ),
                chunk(&["return"], &["x"], &[], false, 5),
            ],
            line: 0
        }
    );
    // Without a leading `@@`.
    let op = parse_operation("update_file", "a", "-x\n+y").unwrap();
    assert!(matches!(op, FileOp::Update { ref chunks, .. } if chunks[0].old == ["x"]));
}

#[test]
fn apply_3_update_file_refuses_headers_and_empty_diffs() {
    let e = parse_operation(
        "update_file",
        "a",
        "*** Begin Patch\n*** Update File: a\n@@\n-x\n",
    )
    .unwrap_err();
    assert_eq!((e.line, e.found.as_str()), (1, "'*** Begin Patch'"));
    let e = parse_operation("update_file", "a", "@@\n-x\n*** Update File: b\n").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.expected.contains("without '***' headers"), "{e}");
    let e = parse_operation("update_file", "a", "\n").unwrap_err();
    assert!(
        e.expected
            .starts_with("at least one chunk for the update of 'a'"),
        "{e}"
    );
}

#[test]
fn apply_3_delete_kind_and_path() {
    assert_eq!(
        parse_operation("delete_file", "a", "whatever").unwrap(),
        FileOp::Delete {
            path: "a".into(),
            line: 0
        }
    );
    let e = parse_operation("rename_file", "a", "").unwrap_err();
    assert_eq!(e.line, 0);
    assert_eq!(
        e.to_string(),
        "expected an operation type 'create_file', 'update_file' or 'delete_file', found 'rename_file'"
    );
    let e = parse_operation("delete_file", "  ", "").unwrap_err();
    assert_eq!((e.line, e.expected.as_str()), (0, "a non-empty path"));
}

// ---------------------------------------------------------------------------------------------
// APPLY-4: one operation per path

#[test]
fn apply_4_two_operations_on_one_path_are_refused_whole() {
    let e = err("*** Begin Patch\n*** Update File: a\n@@\n-x\n*** Delete File: b\n*** Update File: a\n@@\n-y\n*** End Patch");
    assert_eq!(e.line, 6);
    assert_eq!(e.earlier, Some(2));
    assert_eq!(
        e.to_string(),
        "line 6: expected each path in at most one operation (put all the changes to one file \
         into a single '*** Update File' section), found 'a' again, already named on line 2"
    );
    let e = err("*** Begin Patch\n*** Delete File: a\n*** Add File: a\n+x\n*** End Patch");
    assert_eq!((e.line, e.earlier), (3, Some(2)));
}

#[test]
fn apply_4_move_onto_a_path_another_operation_touches() {
    // Onto a file added earlier…
    let e = err("*** Begin Patch\n*** Add File: b\n+x\n*** Update File: a\n*** Move to: b\n@@\n-y\n*** End Patch");
    assert_eq!((e.line, e.earlier), (5, Some(2)));
    // …and an operation on the destination of an earlier move.
    let e = err("*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-y\n*** Delete File: b\n*** End Patch");
    assert_eq!((e.line, e.earlier), (6, Some(3)));
    // …and on the source of an earlier move.
    let e = err("*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-y\n*** Add File: a\n*** End Patch");
    assert_eq!((e.line, e.earlier), (6, Some(2)));
}

#[test]
fn apply_4_move_onto_itself_is_refused() {
    let e = err("*** Begin Patch\n*** Update File: a\n*** Move to: a\n@@\n-y\n*** End Patch");
    assert_eq!(e.line, 3);
    assert!(
        e.expected
            .starts_with("a destination other than the file itself"),
        "{e}"
    );
}
