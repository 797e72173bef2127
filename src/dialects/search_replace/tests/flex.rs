//! BLOCK-6..8: the whitespace-flexible fallback.

use super::super::{find_flexible, Flex};

/// The view after the one flexible match is replaced.
fn apply(view: &str, search: &str, replace: &str) -> String {
    match find_flexible(view, search, replace) {
        Flex::Unique(r) => {
            assert!(r.start <= r.end && r.end <= view.len(), "{r:?}");
            format!("{}{}{}", &view[..r.start], r.text, &view[r.end..])
        }
        other => panic!("expected one match of {search:?} in {view:?}, got {other:?}"),
    }
}

fn ambiguous(lines: &[usize]) -> Flex {
    Flex::Ambiguous {
        lines: lines.to_vec(),
    }
}

// ---- BLOCK-6 flexible indentation ------------------------------------------------------

#[test]
fn block_6_search_indented_less_than_the_file() {
    let view = "def f():\n    x = 1\n    y = 2\nz = 3\n";
    let out = apply(view, "x = 1\ny = 2\n", "x = 1\nif y:\n    y = 3\n");
    assert_eq!(
        out,
        "def f():\n    x = 1\n    if y:\n        y = 3\nz = 3\n"
    );
}

#[test]
fn block_6_search_indented_more_than_the_file() {
    let view = "a = 1\nb = 2\n";
    let out = apply(view, "        b = 2\n", "        b = 3\n        c = 4\n");
    assert_eq!(out, "a = 1\nb = 3\nc = 4\n");
}

#[test]
fn block_6_the_replacement_span_is_the_window_with_its_line_breaks() {
    let view = "x\n    old\ny\n";
    let Flex::Unique(r) = find_flexible(view, "old\n", "new\n") else {
        panic!("one match expected");
    };
    assert_eq!((r.start, r.end, r.text.as_str()), (2, 10, "    new\n"));
}

#[test]
fn block_6_tabs_in_the_file_are_put_before_the_replace_lines() {
    let view = "fn main() {\n\t\tcall();\n}\n";
    let out = apply(view, "call();\n", "if ok {\n    call();\n}\n");
    assert_eq!(out, "fn main() {\n\t\tif ok {\n\t\t    call();\n\t\t}\n}\n");
}

#[test]
fn block_6_relative_indentation_between_search_and_replace_is_kept() {
    // REPLACE is outdented against SEARCH (a dedent); the common cut keeps that.
    let view = "class A:\n    def f(self):\n        if x:\n            go()\n";
    let out = apply(view, "    if x:\n        go()\n", "go()\n");
    assert_eq!(out, "class A:\n    def f(self):\n    go()\n");
}

#[test]
fn block_6_the_extra_prefix_must_be_the_same_on_every_line() {
    let view = "  a\n    b\n";
    assert_eq!(find_flexible(view, "a\nb\n", "c\n"), Flex::NotFound);
    // With the relative indentation right, it matches.
    assert_eq!(apply(view, "a\n  b\n", "a\n  c\n"), "  a\n    c\n");
}

#[test]
fn block_6_relative_indentation_must_match_exactly() {
    let view = "  if a:\n  \tb\n";
    assert_eq!(find_flexible(view, "if a:\n    b\n", "x\n"), Flex::NotFound);
}

#[test]
fn block_6_the_prefix_is_whitespace_and_windows_are_whole_lines() {
    assert_eq!(find_flexible("xa\n", "a\n", "b\n"), Flex::NotFound);
    assert_eq!(find_flexible("a b\n", "b\n", "c\n"), Flex::NotFound);
    // Only spaces and tabs indent: an ideographic space is text.
    assert_eq!(find_flexible("\u{3000}x\n", "x\n", "y\n"), Flex::NotFound);
}

#[test]
fn block_6_blank_lines_inside_match_blank_lines_and_stay_blank() {
    let view = "if a:\n    one()\n   \n    two()\n";
    let out = apply(view, "one()\n\ntwo()\n", "one()\n\n\ntwo()\n");
    assert_eq!(out, "if a:\n    one()\n\n\n    two()\n");
    // A blank SEARCH line does not match a line with text.
    assert_eq!(
        find_flexible("  one()\n  x\n  two()\n", "one()\n\ntwo()\n", "z\n"),
        Flex::NotFound
    );
}

#[test]
fn block_6_a_search_without_text_never_matches() {
    assert_eq!(find_flexible("a\n\n  \nb\n", "", "x\n"), Flex::NotFound);
    assert_eq!(find_flexible("a\n\n  \nb\n", "\n", "x\n"), Flex::NotFound);
    assert_eq!(
        find_flexible("a\n\n  \nb\n", "  \n\t\n", "x\n"),
        Flex::NotFound
    );
}

#[test]
fn block_6_unicode_text_is_cut_only_between_characters() {
    let view = "é\n  «ünï» = 1 // 世界\nfin\n";
    let out = apply(view, "«ünï» = 1 // 世界\n", "«ünï» = 2 // 世界\n");
    assert_eq!(out, "é\n  «ünï» = 2 // 世界\nfin\n");
}

#[test]
fn block_6_a_missing_final_line_break_stays_missing() {
    let view = "a\n  b";
    assert_eq!(apply(view, "b\n", "c\nd\n"), "a\n  c\n  d");
    // Deleting the last line takes the break before it, so the file still ends without one.
    assert_eq!(apply(view, "b\n", ""), "a");
    // The whole file.
    assert_eq!(apply("  b", "b\n", ""), "");
    // A SEARCH text without its own final line break reads the same.
    assert_eq!(apply("a\n  b\n", "b", "c"), "a\n  c\n");
}

#[test]
fn block_6_a_deletion_in_the_middle_removes_whole_lines() {
    assert_eq!(apply("a\n  b\n  c\nd\n", "b\nc\n", ""), "a\nd\n");
}

#[test]
fn block_6_a_window_may_start_on_the_first_line_and_end_on_the_last() {
    assert_eq!(apply("\tx\n\ty\n", "x\ny\n", "z\n"), "\tz\n");
}

// ---- BLOCK-7 trailing whitespace ---------------------------------------------------------

#[test]
fn block_7_trailing_whitespace_is_ignored_in_the_second_pass() {
    let view = "fn f() {\n    let x = 1;   \n}\n";
    // REPLACE keeps its own trailing whitespace (REPAIR-5).
    let out = apply(view, "let x = 1;\n", "let x = 2; \n");
    assert_eq!(out, "fn f() {\n    let x = 2; \n}\n");
    let out = apply("  a\t\n  b\n", "a  \nb \n", "c\n");
    assert_eq!(out, "  c\n");
}

#[test]
fn block_7_the_first_pass_decides_when_it_finds_anything() {
    // The first pass finds line 1 only; the second would find lines 1 and 2.
    let view = "  x\n  x  \n";
    assert_eq!(apply(view, "x\n", "y\n"), "  y\n  x  \n");
}

#[test]
fn block_7_ambiguity_in_the_second_pass_is_refused_too() {
    let view = "  x \n    x\t\n";
    assert_eq!(find_flexible(view, "x\n", "y\n"), ambiguous(&[1, 2]));
}

// ---- BLOCK-8 no guessing -----------------------------------------------------------------

#[test]
fn block_8_several_windows_are_ambiguous_with_every_first_line() {
    let view = "a\n  x\nb\n    x\nc\n\tx\n";
    assert_eq!(find_flexible(view, "x\n", "y\n"), ambiguous(&[2, 4, 6]));
}

#[test]
fn block_8_overlapping_windows_each_count() {
    let view = "  a\n  a\n  a\n";
    assert_eq!(find_flexible(view, "a\na\n", "b\n"), ambiguous(&[1, 2]));
}

#[test]
fn block_8_nothing_close_enough_is_not_found() {
    // One character differs: no similarity matching.
    let view = "    let total = a + b;\n";
    assert_eq!(
        find_flexible(view, "let totl = a + b;\n", "x\n"),
        Flex::NotFound
    );
    assert_eq!(find_flexible("", "x\n", "y\n"), Flex::NotFound);
}

#[test]
fn block_8_a_candidate_rejected_by_its_prefix_does_not_count() {
    // Line 1 has the right text but mixed prefixes; line 3's window is the only candidate.
    let view = "  a\n    b\n\ta\n\tb\n";
    assert_eq!(apply(view, "a\nb\n", "c\n"), "  a\n    b\n\tc\n");
}

#[test]
fn block_8_repeated_lines_in_the_search_are_found_after_a_partial_match() {
    // A partial match (a a) followed by the full one (a a b): the scan must not skip it.
    let view = " a\n a\n a\n b\n";
    assert_eq!(apply(view, "a\na\nb\n", "c\n"), " a\n c\n");
}
