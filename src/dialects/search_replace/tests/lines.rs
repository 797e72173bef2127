//! BLOCK-10: a SEARCH text is found as whole lines — exact hits, then quote-folded ones, each
//! counted only where it starts a line.

use super::super::lines::find_lines;

fn spans(text: &str, search: &str) -> (Vec<(usize, usize)>, bool) {
    let hits = find_lines(text, search);
    (hits.spans, hits.via_quotes)
}

#[test]
fn block_10_a_hit_in_the_middle_of_a_line_does_not_count() {
    assert_eq!(
        spans("def f():\n    return 1\n", "return 1\n"),
        (vec![], false)
    );
}

#[test]
fn block_10_hits_at_offset_zero_and_after_a_line_break_count() {
    assert_eq!(spans("x\nyx\nx\n", "x\n"), (vec![(0, 2), (5, 7)], false));
}

#[test]
fn block_10_back_to_back_hits_are_both_found() {
    // The second hit's line break before it is the last byte of the first hit.
    assert_eq!(spans("x\nx\n", "x\n"), (vec![(0, 2), (2, 4)], false));
}

#[test]
fn block_10_a_mid_line_hit_cannot_hide_one_that_starts_a_line() {
    // "b\nb\n" occurs at offset 1 (inside "ab") and, overlapping it, at line 2; only the
    // latter is a whole-line hit, and it is found.
    assert_eq!(spans("ab\nb\nb\n", "b\nb\n"), (vec![(3, 7)], false));
}

#[test]
fn block_10_line_hits_do_not_overlap_one_another() {
    // MATCH-1 counts without overlap: left to right, the next hit starts after the last.
    assert_eq!(spans("a\na\na\n", "a\na\n"), (vec![(0, 4)], false));
}

#[test]
fn block_10_the_quote_fallback_runs_when_exact_hits_are_only_mid_line() {
    let text = "  say('hi')\nsay(\u{2018}hi\u{2019})\n";
    let (found, via_quotes) = spans(text, "say('hi')\n");
    assert!(via_quotes);
    assert_eq!(found, vec![(12, text.len())]);
}

#[test]
fn block_10_quote_folded_hits_must_start_a_line_too() {
    assert_eq!(
        spans("  say(\u{2018}hi\u{2019})\n", "say('hi')\n"),
        (vec![], true)
    );
}

#[test]
fn block_10_an_exact_hit_wins_over_a_folded_one() {
    let text = "say(\u{2018}hi\u{2019})\nsay('hi')\n";
    let at = text.find("say('hi')").unwrap();
    assert_eq!(spans(text, "say('hi')\n"), (vec![(at, text.len())], false));
}

#[test]
fn block_10_an_empty_search_has_no_hits() {
    assert_eq!(spans("a\n", ""), (vec![], false));
}
