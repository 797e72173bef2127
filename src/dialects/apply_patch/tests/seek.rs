//! APPLY-5..9: where the seeker places chunks, and what is written.

use super::*;

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
    // 200 000 equal lines and a pattern of 100 000 of them and one other: a naive scan would
    // compare ~10^10 lines; the search compares at most three times as many as it is given (PATH-4:
    // no input makes it hang). The work is counted, not timed, so the bound holds on any
    // machine however busy.
    let hay = vec![0u32; 200_000];
    let mut pat = vec![0u32; 100_000];
    pat.push(1);
    let mut compared = 0;
    assert!(super::super::seek::find_all_counted(&hay, &pat, &mut compared).is_empty());
    assert!(
        compared <= 3 * (hay.len() + pat.len()) as u64,
        "{compared} comparisons"
    );
    // Every overlapping place is found, still in linear work.
    let mut compared = 0;
    let found = super::super::seek::find_all_counted(&hay, &[0, 0], &mut compared);
    assert_eq!(found.len(), hay.len() - 1);
    assert!(
        compared <= 3 * (hay.len() + 2) as u64,
        "{compared} comparisons"
    );
    // The same shape through the seeker: refused, not searched for ever.
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
    assert!(matches!(
        locate(&view, &[c]),
        Err(LocateError::NotFound { .. })
    ));
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
