//! Unit tests of the V4A parser and seeker, named after the SPEC §15.5 rules they pin.

use super::*;
use crate::text::Replacement;

// ---------------------------------------------------------------------------------------------
// helpers

fn chunk(anchors: &[&str], old: &[&str], new: &[&str], end_of_file: bool, line: usize) -> Chunk {
    let v = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    Chunk {
        anchors: v(anchors),
        old: v(old),
        new: v(new),
        end_of_file,
        line,
    }
}

fn apply(view: &str, reps: &[Replacement]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for r in reps {
        assert!(
            r.start >= at && r.start <= r.end && r.end <= view.len(),
            "{reps:?}"
        );
        out.push_str(&view[at..r.start]);
        out.push_str(&r.text);
        at = r.end;
    }
    out.push_str(&view[at..]);
    out
}

/// The chunks of the single Update in `patch`.
fn chunks_of(patch: &str) -> Vec<Chunk> {
    match parse(patch).unwrap().ops.into_iter().next() {
        Some(FileOp::Update { chunks, .. }) => chunks,
        other => panic!("not an update: {other:?}"),
    }
}

/// Applies an update body (the lines after `*** Update File: f`) to `view`.
fn update(view: &str, body: &str) -> Result<String, LocateError> {
    let patch = format!("*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch\n");
    let chunks = chunks_of(&patch);
    let reps = locate(view, &chunks)?;
    for w in reps.windows(2) {
        assert!(
            w[0].end < w[1].start,
            "sorted, disjoint, not touching: {reps:?}"
        );
    }
    Ok(apply(view, &reps))
}

fn err(text: &str) -> ParseError {
    parse(text).unwrap_err()
}

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

// ---------------------------------------------------------------------------------------------
// APPLY-5: the passes, in order

#[test]
fn apply_5_exact_match() {
    assert_eq!(
        update("a\nb\nc\n", "@@\n a\n-b\n+B\n c").unwrap(),
        "a\nB\nc\n"
    );
}

#[test]
fn apply_5_trailing_whitespace_ignored() {
    // The context keeps the file's trailing spaces; the removed line goes.
    assert_eq!(
        update("a  \nb\t\nc\n", "@@\n a\n-b\n+B").unwrap(),
        "a  \nB\nc\n"
    );
}

#[test]
fn apply_5_surrounding_whitespace_ignored() {
    assert_eq!(
        update(
            "fn f() {\n    let x = 1;\n}\n",
            "@@\n fn f() {\n-let x = 1;\n+    let x = 2;"
        )
        .unwrap(),
        "fn f() {\n    let x = 2;\n}\n"
    );
}

#[test]
fn apply_5_typographic_punctuation_folded() {
    let view = "say \u{201C}hi\u{201D} \u{2014} it\u{2019}s\u{00A0}fine\nnext\n";
    assert_eq!(
        update(view, "@@\n-say \"hi\" - it's fine\n+say hello").unwrap(),
        "say hello\nnext\n"
    );
}

#[test]
fn apply_5_an_earlier_pass_decides_alone() {
    // `x` occurs exactly once; ` x ` (found only by the trimming pass) does not make it ambiguous.
    assert_eq!(update(" x \nx\n", "@@\n-x\n+y").unwrap(), " x \ny\n");
    // Two places in the trimming pass: ambiguous there.
    let e = update(" x\n\tx \n", "@@\n-x\n+y").unwrap_err();
    assert!(
        matches!(e, LocateError::Ambiguous { ref lines, count: 2, .. } if lines == &[1, 2]),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// APPLY-6: order and ambiguity

#[test]
fn apply_6_two_equal_places_are_ambiguous() {
    let view = "fn a() {\n    return 1;\n}\nfn b() {\n    return 1;\n}\n";
    let e = update(view, "@@\n-    return 1;\n+    return 2;").unwrap_err();
    assert_eq!(
        e,
        LocateError::Ambiguous {
            chunk: 0,
            patch_line: 3,
            what: "lines",
            count: 2,
            lines: vec![2, 5],
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("fits at 2 places (starting at lines 2, 5)"),
        "{msg}"
    );
}

#[test]
fn apply_6_at_most_ten_candidate_lines_are_listed() {
    let view = "x\n".repeat(12);
    match update(&view, "@@\n-x\n+y").unwrap_err() {
        LocateError::Ambiguous { count, lines, .. } => {
            assert_eq!(count, 12);
            assert_eq!(lines, (1..=10).collect::<Vec<_>>());
        }
        e => panic!("{e:?}"),
    }
    // Overlapping places count too.
    assert!(matches!(
        update("a\na\na\n", "@@\n a\n-a\n+b").unwrap_err(),
        LocateError::Ambiguous { count: 2, .. }
    ));
}

#[test]
fn apply_6_chunks_are_located_in_order_after_each_other() {
    let view = "x\nsep\nx\n";
    // The second chunk's `x` is sought after the first chunk, so it is the second `x`, uniquely.
    assert_eq!(
        update(view, "@@\n x\n-sep\n+SEP\n@@\n-x\n+y").unwrap(),
        "x\nSEP\ny\n"
    );
}

#[test]
fn apply_6_a_chunk_before_the_previous_one_is_not_found() {
    let e = update("a\nb\nc\n", "@@\n-c\n+C\n@@\n-a\n+A").unwrap_err();
    assert_eq!(
        e,
        LocateError::NotFound {
            chunk: 1,
            patch_line: 6,
            what: "lines",
            text: "a".into(),
            from: 4,
            elsewhere: Some((1, "that is before the end of the previous chunk: chunks must follow the order of the file")),
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("not found after line 3, where the previous chunk ended"),
        "{msg}"
    );
    assert!(msg.contains("They occur at line 1, but"), "{msg}");
}

#[test]
fn apply_6_missing_lines_are_shown() {
    let e = update("a\nb\n", "@@\n-nope\n-nada\n+x").unwrap_err();
    assert_eq!(e.chunk(), 0);
    let msg = e.to_string();
    assert!(msg.starts_with("the chunk at line 3 of the patch: the lines to change were not found. Expected lines:\nnope\nnada"), "{msg}");
}

// ---------------------------------------------------------------------------------------------
// APPLY-7: anchors

const TWO_CLASSES: &str =
    "class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n        return 1\n";

#[test]
fn apply_7_an_anchor_disambiguates() {
    assert_eq!(
        update(TWO_CLASSES, "@@ class B:\n-        return 1\n+        return 2").unwrap(),
        "class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n        return 2\n"
    );
}

#[test]
fn apply_7_lines_fitting_twice_after_an_anchor_are_ambiguous() {
    // After `class A:` the lines fit in A and in B: the anchor does not say which.
    let e = update(
        TWO_CLASSES,
        "@@ class A:\n-        return 1\n+        return 2",
    )
    .unwrap_err();
    assert!(
        matches!(e, LocateError::Ambiguous { what: "lines", ref lines, .. } if lines == &[3, 6]),
        "{e:?}"
    );
}

#[test]
fn apply_7_a_repeated_anchor_is_fine_when_only_one_scope_fits() {
    let view = "def f(self):\n    a = 1\ndef f(self):\n    b = 1\n";
    assert_eq!(
        update(view, "@@ def f(self):\n-    b = 1\n+    b = 2").unwrap(),
        "def f(self):\n    a = 1\ndef f(self):\n    b = 2\n"
    );
}

#[test]
fn apply_7_an_ambiguous_anchor_that_leaves_two_places_is_refused() {
    let view = "def f(self):\n    x = 1\ndef f(self):\n    x = 1\n";
    let e = update(view, "@@ def f(self):\n-    x = 1\n+    x = 2").unwrap_err();
    assert!(
        matches!(e, LocateError::Ambiguous { what: "lines", ref lines, count: 2, .. } if lines == &[2, 4]),
        "{e:?}"
    );
}

#[test]
fn apply_7_several_anchors_narrow() {
    let view =
        "class A:\n  def g():\n    x = 1\nclass B:\n  def f():\n    x = 1\n  def g():\n    x = 1\n";
    let want =
        "class A:\n  def g():\n    x = 1\nclass B:\n  def f():\n    x = 1\n  def g():\n    x = 2\n";
    assert_eq!(
        update(view, "@@ class B:\n@@   def g():\n-    x = 1\n+    x = 2").unwrap(),
        want
    );
    // Either anchor alone leaves two places.
    for anchors in ["@@ class B:", "@@   def g():"] {
        let e = update(view, &format!("{anchors}\n-    x = 1\n+    x = 2")).unwrap_err();
        assert!(
            matches!(e, LocateError::Ambiguous { .. }),
            "{anchors}: {e:?}"
        );
    }
}

#[test]
fn apply_7_an_anchor_scope_ends_only_at_the_anchors_next_occurrence() {
    // The documented limit: `class A:` occurs once, so its scope runs to the end of the file and
    // `def g():` in class B is inside it too. The chunk is refused, not guessed.
    let view =
        "class A:\n  def f():\n    pass\n  def g():\n    pass\nclass B:\n  def g():\n    pass\n";
    let e = update(view, "@@ class A:\n@@   def g():\n-    pass\n+    return").unwrap_err();
    assert!(
        matches!(e, LocateError::Ambiguous { ref lines, .. } if lines == &[5, 8]),
        "{e:?}"
    );
}

#[test]
fn apply_7_anchor_found_through_a_later_pass() {
    let view = "  def   f():  \nx\n";
    assert_eq!(
        update(view, "@@ def   f():\n-x\n+y").unwrap(),
        "  def   f():  \ny\n"
    );
}

#[test]
fn apply_7_anchor_not_found() {
    let e = update("a\nb\n", "@@ class Z:\n-b\n+c").unwrap_err();
    assert_eq!(
        e,
        LocateError::NotFound {
            chunk: 0,
            patch_line: 3,
            what: "anchor",
            text: "class Z:".into(),
            from: 1,
            elsewhere: None,
        }
    );
    assert!(e
        .to_string()
        .contains("the anchor line '@@ class Z:' was not found."));
}

#[test]
fn apply_7_lines_before_their_anchor_are_not_found() {
    let e = update("x\nanchor\ny\n", "@@ anchor\n-x\n+z").unwrap_err();
    assert!(
        matches!(
            e,
            LocateError::NotFound { what: "lines", elsewhere: Some((1, why)), .. } if why.contains("anchor")
        ),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// APPLY-8: pure additions and the end of the file

#[test]
fn apply_8_pure_addition_goes_right_after_the_anchor() {
    let view = "def f():\n    a = 1\ndef g():\n    b = 1\n";
    assert_eq!(
        update(view, "@@ def f():\n+    print(\"in f\")").unwrap(),
        "def f():\n    print(\"in f\")\n    a = 1\ndef g():\n    b = 1\n"
    );
}

#[test]
fn apply_8_pure_addition_without_anchor_goes_to_the_end() {
    assert_eq!(update("a\nb\n", "@@\n+c\n+d").unwrap(), "a\nb\nc\nd\n");
    assert_eq!(update("a\nb", "@@\n+c").unwrap(), "a\nb\nc");
    assert_eq!(update("", "@@\n+c").unwrap(), "c\n");
}

#[test]
fn apply_8_appending_does_not_move_the_search_on() {
    // As in Codex: the addition goes to the end, and the next chunk is still sought from where
    // the previous one ended.
    assert_eq!(
        update("a\nb\nc\n", "@@\n+z\n@@\n-b\n+B").unwrap(),
        "a\nB\nc\nz\n"
    );
    // A change of the last line and appends merge in order.
    assert_eq!(
        update("a\nb", "@@\n+y\n@@\n-b\n+B\n@@\n+z").unwrap(),
        "a\nB\ny\nz"
    );
}

#[test]
fn apply_8_pure_addition_after_an_ambiguous_anchor_is_refused() {
    let e = update("}\nx\n}\n", "@@ }\n+y").unwrap_err();
    assert_eq!(
        e,
        LocateError::Ambiguous {
            chunk: 0,
            patch_line: 3,
            what: "anchor",
            count: 2,
            lines: vec![1, 3],
        }
    );
    // With `*** End of File` the place is the end, whatever the anchor.
    assert_eq!(
        update("}\nx\n}\n", "@@ }\n+y\n*** End of File").unwrap(),
        "}\nx\n}\ny\n"
    );
}

#[test]
fn apply_8_end_of_file_marker_matches_only_the_last_lines() {
    let view = "x\nmiddle\nx\n";
    assert_eq!(
        update(view, "@@\n-x\n+y\n*** End of File").unwrap(),
        "x\nmiddle\ny\n"
    );
    let e = update("x\nlast\n", "@@\n-x\n+y\n*** End of File").unwrap_err();
    assert!(
        matches!(
            e,
            LocateError::NotFound { elsewhere: Some((1, why)), .. } if why.contains("End of File")
        ),
        "{e:?}"
    );
}

#[test]
fn apply_8_trailing_empty_line_is_retried_without_it() {
    // The empty context line at the end of the chunk stands for the final newline.
    assert_eq!(update("a\nb\n", "@@\n a\n-b\n+c\n").unwrap(), "a\nc\n");
    // Where the file does have that empty line, it is matched as a line.
    assert_eq!(
        update("a\nb\n\nz\n", "@@\n-b\n+c\n").unwrap(),
        "a\nc\n\nz\n"
    );
    // Only one trailing empty line is dropped.
    assert!(update("a\nb\n", "@@\n-b\n+c\n\n").is_err());
}

#[test]
fn apply_8_a_lone_empty_line_retried_becomes_a_pure_addition() {
    // old = [""] does not occur; without it the chunk only adds, after its anchor.
    assert_eq!(
        update("def f():\n    a\n", "@@ def f():\n+    b\n").unwrap(),
        "def f():\n    b\n    a\n"
    );
}

// ---------------------------------------------------------------------------------------------
// APPLY-9: what is written

#[test]
fn apply_9_missing_final_newline_stays_missing() {
    assert_eq!(update("a\nb", "@@\n-b\n+c").unwrap(), "a\nc");
    assert_eq!(update("a\nb", "@@\n b\n+c").unwrap(), "a\nb\nc");
    assert_eq!(update("a\nb", "@@\n-a\n+x").unwrap(), "x\nb");
}

#[test]
fn apply_9_present_final_newline_stays() {
    assert_eq!(update("a\nb\n", "@@\n-b\n+c").unwrap(), "a\nc\n");
}

#[test]
fn apply_9_deleting_the_last_lines() {
    assert_eq!(update("a\nb\nc", "@@\n-b\n-c").unwrap(), "a");
    assert_eq!(update("a\nb\nc\n", "@@\n-b\n-c").unwrap(), "a\n");
    assert_eq!(update("a\n\nc", "@@\n-c").unwrap(), "a\n");
    assert_eq!(update("a", "@@\n-a").unwrap(), "");
    assert_eq!(update("a\n", "@@\n-a").unwrap(), "");
    // A change next to the deleted tail merges with it.
    assert_eq!(update("a\nb\nc", "@@\n-b\n+B\n@@\n-c").unwrap(), "a\nB");
}

#[test]
fn apply_9_context_keeps_the_files_text_when_matched_loosely() {
    // Trailing spaces on the context lines survive; only the changed line is rewritten.
    let view = "fn f() {  \n    a();\t\n    b();  \n    c();\n}  \n";
    assert_eq!(
        update(
            view,
            "@@\n fn f() {\n     a();\n-    b();\n+    B();\n     c();\n }"
        )
        .unwrap(),
        "fn f() {  \n    a();\t\n    B();\n    c();\n}  \n"
    );
    // Context between two changes too.
    let view = "x \nkeep  \ny \n";
    assert_eq!(
        update(view, "@@\n-x\n+X\n keep\n-y\n+Y").unwrap(),
        "X\nkeep  \nY\n"
    );
}

#[test]
fn apply_9_replacements_are_minimal_sorted_and_apart() {
    let view = "1\n2\n3\n4\n5\n6\n7\n";
    let chunks = chunks_of("*** Begin Patch\n*** Update File: f\n@@\n 1\n-2\n+two\n 3\n@@\n 5\n-6\n+six\n 7\n*** End Patch");
    let reps = locate(view, &chunks).unwrap();
    assert_eq!(
        reps,
        vec![
            Replacement {
                start: 2,
                end: 4,
                text: "two\n".into()
            },
            Replacement {
                start: 10,
                end: 12,
                text: "six\n".into()
            },
        ]
    );
}

#[test]
fn apply_9_context_only_chunk_changes_nothing() {
    let chunks = chunks_of("*** Begin Patch\n*** Update File: f\n@@\n a\n b\n*** End Patch");
    assert_eq!(locate("a\nb\n", &chunks).unwrap(), vec![]);
    assert_eq!(locate("x\n", &[]).unwrap(), vec![]);
}

#[test]
fn apply_9_multibyte_text_at_span_edges() {
    let view = "ünïcödé\n日本語\n🦀 crab\n";
    assert_eq!(
        update(view, "@@\n ünïcödé\n-日本語\n+にほんご\n 🦀 crab").unwrap(),
        "ünïcödé\nにほんご\n🦀 crab\n"
    );
    // Loosely matched multi-byte punctuation and spaces at both ends of lines.
    let view = "\u{3000}«x»\u{2014}\u{00A0}\n🦀";
    assert_eq!(update(view, "@@\n-«x»-\n+y\n 🦀").unwrap(), "y\n🦀");
    let chunks = chunks_of("*** Begin Patch\n*** Update File: f\n@@\n-日本語\n*** End Patch");
    for r in locate("日本語", &chunks).unwrap() {
        assert!("日本語".is_char_boundary(r.start) && "日本語".is_char_boundary(r.end));
    }
}

#[test]
fn apply_9_locate_never_panics_on_hand_built_chunks() {
    let odd = [
        chunk(&[""], &["a\nb"], &["x"], false, 0),
        chunk(&["  "], &[], &[], true, 0),
        chunk(&[], &["", ""], &["", ""], true, 0),
        chunk(&["\u{2014}"], &["\u{2014}"], &["-"], false, 0),
    ];
    for view in ["", "\n", "\n\n", "a\nb", "\u{2014}\n-\n", "\r\n\r"] {
        for c in &odd {
            if let Ok(reps) = locate(view, std::slice::from_ref(c)) {
                apply(view, &reps);
            }
        }
        let _ = locate(view, &odd);
    }
}

#[test]
fn apply_5_search_stays_linear_on_repetitive_files() {
    // 200 000 empty lines and a chunk of 100 000 empty lines and one other: a naive scan would
    // compare ~10^10 lines; the search is linear (PATH-4: no input makes it hang).
    let view = "\n".repeat(200_000);
    let mut old = vec![String::new(); 100_000];
    old.push("x".into());
    let c = Chunk {
        anchors: vec![],
        old,
        new: vec![],
        end_of_file: false,
        line: 1,
    };
    let started = std::time::Instant::now();
    assert!(matches!(
        locate(&view, &[c]),
        Err(LocateError::NotFound { .. })
    ));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    // All places of a repetitive pattern are counted.
    let c = chunk(&[], &["", ""], &["y"], false, 1);
    match locate("\n\n\n\n", &[c]).unwrap_err() {
        LocateError::Ambiguous { count, lines, .. } => {
            assert_eq!((count, lines), (3, vec![1, 2, 3]));
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn apply_8_end_of_file_with_an_anchor_explains_the_miss() {
    // The lines are after the anchor, but not at the end.
    let e = update(
        "def f():\n    x\n    y\n",
        "@@ def f():\n-    x\n+    z\n*** End of File",
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            LocateError::NotFound { elsewhere: Some((2, why)), .. } if why.contains("End of File")
        ),
        "{e:?}"
    );
}
