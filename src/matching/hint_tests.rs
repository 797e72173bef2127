//! MATCH-6's hint: which region is named and how similar it is said to be.

use super::*;

/// The closest region's first and last line and its similarity.
fn placed(haystack: &str, needle: &str) -> (usize, usize, u8) {
    let h = closest_region(haystack, needle).expect("a hint");
    (h.start_line, h.end_line, h.similarity)
}

#[test]
fn match_6_the_pre_pass_keeps_the_closest_window_among_many_close_ones() {
    // More windows than the pre-pass keeps, most of them close: it must rank by how much of
    // each window's pairs the old string shares and how much it does not (the Dice score),
    // over a running window, for the closest line to reach the real comparison. Fifty
    // short lines made only of the old string's pairs come first; a ranking that ignored
    // their shortness, kept the first windows seen, or let the running sums drift would
    // offer them or an earlier `value_` line instead.
    let mut lines: Vec<String> = (0..50).map(|_| "alpha".to_string()).collect();
    lines.extend((50..1000).map(|i| format!("let value_{i} = compute_{i}(alpha, beta);")));
    let hay = lines.join("\n") + "\n";
    let h = closest_region(&hay, "let value_600 = compute_600(alpha, gamma);").unwrap();
    // Found by the similarity search, not by the line votes' fallback (which would name
    // the same line for its prefix, at 0 %).
    assert_eq!((h.start_line, h.end_line), (601, 601), "{h:?}");
    assert_eq!(h.text, "let value_600 = compute_600(alpha, beta);");
    assert!(h.similarity >= 90, "{h:?}");
    // The same with a window of three lines.
    let h = closest_region(
        &hay,
        "let value_600 = compute_600(alpha, beta);\nlet value_601 = compute_601(alpha, gamma);\nlet value_602 = compute_602(alpha, beta);",
    )
    .unwrap();
    assert_eq!((h.start_line, h.end_line), (601, 603), "{h:?}");
    assert!(h.similarity >= 90, "{h:?}");
}

#[test]
fn match_6_only_the_pre_pass_best_windows_are_compared_whole() {
    // The real comparison, the costly one, sees only the 32 windows the pre-pass ranks
    // best by shared character pairs. Below, 32 lines are the old string with its two
    // words swapped (all pairs but two shared; 13 of 21 characters in order: 2 * 13 / 42
    // = 62 %) and the first line is the old string with a dash after each character (no
    // pair shared; all 21 characters in order: 2 * 21 / 62 = 68 %). The first line would
    // win the real comparison, but the pre-pass ranks it 33rd: the hint is the first
    // swapped line.
    let needle = "abcdefghijklm nopqrst";
    let dashed: String = needle.chars().flat_map(|c| [c, '-']).collect();
    let dashed = dashed.trim_end_matches('-');
    let swapped = "nopqrst abcdefghijklm";
    let hay = format!("{dashed}\n{}", format!("{swapped}\n").repeat(32));
    assert_eq!(placed(&hay, needle), (2, 2, 62));
    // With one swapped line fewer, the dashed line is among the 32 and wins.
    let hay = format!("{dashed}\n{}", format!("{swapped}\n").repeat(31));
    assert_eq!(placed(&hay, needle), (1, 1, 68));
}

#[test]
fn match_6_a_long_line_is_scored_when_the_old_string_is_as_long() {
    // A line is passed over by the pre-pass only when it is far longer than the old
    // string; a 700-byte old string must still find its 700-byte line among many short
    // lines that share a few of its pairs.
    let items = |skip: usize| {
        (0..100)
            .filter(|k| *k != skip)
            .map(|k| format!("item{k}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let long = format!("let config = [{}];", items(usize::MAX));
    assert!(long.len() > 600);
    let mut lines: Vec<String> = (0..100)
        .map(|k| format!("let config = [item{k}];"))
        .collect();
    lines.insert(70, long.clone());
    let hay = lines.join("\n") + "\n";
    let needle = format!("let config = [{}];", items(42));
    let h = closest_region(&hay, &needle).unwrap();
    assert_eq!((h.start_line, h.end_line), (71, 71), "{h:?}");
    assert_eq!(h.text, long);
    assert!(h.similarity >= 90, "{h:?}");
}

#[test]
fn match_6_the_hint_text_is_cut_at_four_thousand_bytes_on_a_line_boundary() {
    let line = |head: &str, len: usize| {
        let mut l = head.to_string();
        let mut k = 0;
        while l.len() < len {
            l.push(char::from(b'a' + (k % 26) as u8));
            k += 1;
        }
        l
    };
    for (first, fits) in [(2000, false), (1999, true)] {
        let (l1, l2) = (line("first ", first), line("second ", 2000));
        let hay = format!("head\n{l1}\n{l2}\ntail\n");
        let needle = format!("{l1}\n{}", l2.replacen("second", "secund", 1));
        let h = closest_region(&hay, &needle).unwrap();
        assert_eq!(h.start_line, 2);
        if fits {
            // 1,999 + 1 + 2,000 = 4,000 bytes: the whole region.
            assert_eq!((h.end_line, h.text.len()), (3, 4000));
        } else {
            // 2,000 + 1 + 2,000 = 4,001 bytes: cut after the first line.
            assert_eq!((h.end_line, h.text.as_str()), (2, l1.as_str()));
        }
    }
}

#[test]
fn match_6_hint_points_at_the_closest_lines() {
    let hay = "fn a() {}\nfn main() {\n    let  x = 1;\n}\n";
    let hint = closest_region(hay, "fn main() {\n  let x = 1;\n}").unwrap();
    assert_eq!((hint.start_line, hint.end_line), (2, 4));
    assert_eq!(hint.text, "fn main() {\n    let  x = 1;\n}");
    assert_eq!(hint.similarity, 100);
    assert_eq!(closest_region("abc\n", "zzzzzz"), None);
}

#[test]
fn near_identical_lines_are_found() {
    let hay = "import os\n\ndef total(items):\n    subtotal = sum(item.price for item in items)\n    return subtotal\n";
    let h = closest_region(hay, "subtotal = sum(item.cost for item in items)").unwrap();
    assert_eq!((h.start_line, h.end_line), (4, 4));
    assert!(h.similarity >= 80, "{h:?}");

    let hay = "x = compute()\ny = 2\nprint(x, y)\n";
    let h = closest_region(hay, "y = 3").unwrap();
    assert_eq!((h.start_line, h.end_line), (2, 2), "{h:?}");
}

#[test]
fn several_candidates_best_first_never_overlapping() {
    let hay = "a = 1\nb = 2\nfoo(a, b)\nfoo(a, c)\nbar\nfoo(b, a)\n";
    let hs = closest_regions(hay, "foo(a, d)", 3);
    let lines: Vec<usize> = hs.iter().map(|h| h.start_line).collect();
    assert_eq!(lines[..2], [3, 4], "{hs:?}");
    assert!(hs.windows(2).all(|w| w[0].similarity >= w[1].similarity));

    let hay = "one\ntwo\nthree\nfour\nfive\nsix\n";
    let hs = closest_regions(hay, "two\nthree\nfour!", 3);
    assert_eq!((hs[0].start_line, hs[0].end_line), (2, 4), "{hs:?}");
    for w in hs.windows(2) {
        assert!(w[1].start_line > w[0].end_line || w[1].end_line < w[0].start_line);
    }
}

#[test]
fn a_window_taller_than_the_file_and_odd_inputs() {
    let h = closest_region(
        "let x = 1;\nlet y = 3;",
        "let x = 2;\nlet y = 3;\nlet z = 4;",
    )
    .unwrap();
    assert_eq!((h.start_line, h.end_line), (1, 2));
    assert_eq!(closest_region("", "x"), None);
    assert_eq!(closest_region("abc", "   \n  "), None);
    assert!(closest_regions("abc", "abd", 0).is_empty());
}

#[test]
fn match_6_a_long_blank_line_is_scored_as_no_pairs() {
    // A blank line has no pairs, however long. Inside the right window, a blank line of
    // any length — here the length at which an earlier pre-pass began to skip lines, one
    // byte more, and ten times that (still inside the hint's 4,000 bytes) — must not count
    // as misses: that would sink the window below the 38 windows of `foo()` lines, and
    // the hint would name one of them instead.
    let needle = "foo()\n\nbar()";
    for blank in [4 * needle.len() + 256, 4 * needle.len() + 257, 3_000] {
        let hay = format!("{}{}\nbar()\n", "foo()\n".repeat(40), " ".repeat(blank));
        assert_eq!(placed(&hay, needle), (40, 42, 100), "{blank}");
    }
}

#[test]
fn match_6_regions_sharing_one_line_overlap() {
    // Lines 1-2 ("x / alpha one") are similar enough to be offered, but share line 2 with
    // the best region (2-3): regions never overlap, not even by their edge lines.
    let hay = "x\nalpha one\nbeta twp\ny\n";
    let hints = closest_regions(hay, "alpha one\nbeta two", 3);
    let ranges: Vec<(usize, usize)> = hints.iter().map(|h| (h.start_line, h.end_line)).collect();
    assert_eq!(ranges, [(2, 3)], "{hints:?}");
}

#[test]
fn a_four_character_start_is_enough_for_the_prefix_fallback() {
    // Nothing similar (21 %), no equal line: the first line holding the start of the old
    // string (four characters are enough to look for) is named, at 0 %.
    let hay = "head\n00000000000000wxyz0000000000000000\ntail\n";
    assert_eq!(placed(hay, "wxyz"), (2, 2, 0));
    // Three are not.
    assert_eq!(
        closest_region("head\n00000000000000xyz0000000000000000\n", "xyz"),
        None
    );
}

#[test]
fn match_6_a_file_shorter_than_the_old_string_is_one_window() {
    // One line against three: the whole file is the only window, and it is similar enough
    // to offer (no line is equal, and the prefix is not in the file, so only the
    // similarity search can name it).
    let h = closest_region("alpha one\n", "alpha onx\nbeta\ngamma").unwrap();
    assert_eq!(h.start_line, 1, "{h:?}");
    assert!(h.similarity >= 50, "{h:?}");
}

#[test]
fn match_6_adjacent_regions_do_not_overlap() {
    // Lines 3-4 are closest and 1-2 close; they touch but share no line, so both are
    // offered (the better one first, so the earlier region is judged against it).
    let hay = "alpha onx\nbeta twp\nalpha one\nbeta twp\n";
    let hints = closest_regions(hay, "alpha one\nbeta two", 3);
    let ranges: Vec<(usize, usize)> = hints.iter().map(|h| (h.start_line, h.end_line)).collect();
    assert_eq!(ranges, [(3, 4), (1, 2)], "{hints:?}");
}

#[test]
fn a_deeply_indented_equal_line_still_votes() {
    // Nothing is similar enough (the window "a / zzzzzz" against "a / b" is 36 %), so the
    // line votes decide, and the line equal to the old string's first line but for 74
    // spaces of indentation votes: a line is left out only when it is longer than four
    // times the whole old string and 64 bytes.
    let hay = format!("{}a\nzzzzzz\n", " ".repeat(74));
    assert_eq!(placed(&hay, "a\nb"), (1, 2, 50));
}

#[test]
fn long_old_strings_are_placed_by_line_votes() {
    let body: String = (0..2000).map(|i| format!("line number {i}\n")).collect();
    let hay = format!("head\n{body}tail\n");
    let needle = body.replace("line number 1000\n", "line number 1000 changed\n");
    assert!(needle.len() > SIMILARITY_MAX_NEEDLE);
    let h = closest_region(&hay, &needle).unwrap();
    assert_eq!(h.start_line, 2);
    // 1,999 of the 2,000 lines vote for the window: its similarity is their share (the
    // text is cut at 4,000 bytes).
    assert_eq!(h.similarity, 99, "{h:?}");

    // Lines longer than 64 bytes vote too: a line is left out only when it is far longer
    // than the whole old string.
    let long = |i: usize| format!("{i:04} {}", "long line of text ".repeat(5));
    let body: String = (0..300).map(|i| long(i) + "\n").collect();
    assert!(long(0).len() > 64);
    let hay = format!("head\n{body}tail\n");
    let needle = body.replace(&long(150), "changed");
    assert!(needle.len() > SIMILARITY_MAX_NEEDLE);
    let h = closest_region(&hay, &needle).unwrap();
    assert_eq!((h.start_line, h.similarity), (2, 99), "{h:?}");
}

#[test]
fn match_6_old_strings_of_a_few_kilobytes_are_still_compared_whole() {
    // Up to 16 KiB an old string is placed by similarity. Here every one of its 120 lines
    // differs from the file's by one character, so no line is equal and the line votes
    // alone would find nothing; similarity finds the region: 3,480 of the 3,600
    // characters on each side shared, 2 * 3480 / 7200 = 96.7 %, rounded.
    let file: String = (0..120)
        .map(|i| format!("let value_{i:03} = compute({i:03});\n"))
        .collect();
    let needle = file.replace(';', ",");
    assert!((2 * 1024..4 * 1024).contains(&needle.len()));
    let hay = format!("fn main() {{\n{file}}}\n");
    assert_eq!(placed(&hay, &needle), (2, 121, 97));
}

#[test]
fn the_search_stays_within_its_budget_on_a_large_file() {
    // 200 000 lines, no close line anywhere but one: the answer must still be that line.
    let mut hay: String = (0..200_000)
        .map(|i| format!("value_{i} = compute({i})\n"))
        .collect();
    hay.push_str("total_price = sum(p.amount for p in payments)\n");
    let h = closest_region(&hay, "total_price = sum(p.amount for p in payment)").unwrap();
    assert_eq!(h.start_line, 200_001);
}

#[test]
fn d33_percent_least_common_and_window_cap_agree_at_the_boundary() {
    // A tie is rounded up, in integers: 21 of 80 is 52.5 %, shown as 53.
    assert_eq!(
        (percent(21, 80), percent(0, 0), percent(5, 10)),
        (53, 100, 100)
    );
    // `least_common` is the first count at MIN_SIMILARITY, and `window_cap` the longest
    // window that all of the old string in common still makes similar enough: the cut-offs
    // of the bounded comparison drop nothing that would have been offered.
    for total in 1..3000 {
        let least = least_common(total);
        assert!(percent(least, total) >= MIN_SIMILARITY, "{total}");
        assert!(
            least == 0 || percent(least - 1, total) < MIN_SIMILARITY,
            "{total}"
        );
    }
    for wanted in 1..3000 {
        let cap = window_cap(wanted);
        assert!(percent(wanted, wanted + cap) >= MIN_SIMILARITY, "{wanted}");
        assert!(
            percent(wanted, wanted + cap + 1) < MIN_SIMILARITY,
            "{wanted}"
        );
    }
}

#[test]
fn match_6_line_breaks_count_in_the_similarity() {
    // MATCH-6 collapses whitespace within each line, not across lines: a region that breaks
    // its lines elsewhere is not the same text. "foo(a,\nb)" against "foo(a\n,b)": 8 of
    // the 9 characters on each side match (the comma and the break trade places), so the
    // ratio is 2 * 8 / 18 = 89 %. Lines run together, both would read "foo(a,b)": 100 %.
    assert_eq!(placed("foo(a\n,b)\n", "foo(a,\nb)"), (1, 2, 89));
}
