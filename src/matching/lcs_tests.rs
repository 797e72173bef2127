//! The bounded count of common characters against a plain O(N·M) dynamic program, written here
//! from the definition and sharing no code with it (MATCH-6, D33).

use super::*;
use proptest::prelude::*;

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// The longest common subsequence by the textbook table: row by row, each cell the best of
/// dropping a character from either side, or one more than the diagonal when they are equal.
fn model(a: &[char], b: &[char]) -> usize {
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            table[i][j] = if a[i - 1] == b[j - 1] {
                table[i - 1][j - 1] + 1
            } else {
                table[i - 1][j].max(table[i][j - 1])
            };
        }
    }
    table[a.len()][b.len()]
}

/// What `similar` keeps of two texts diffed by character, with no deadline: its exact ratio is
/// twice this over the characters of both.
fn similar_keeps(a: &str, b: &str) -> usize {
    similar::TextDiff::from_chars(a, b)
        .ops()
        .iter()
        .map(|op| match op {
            similar::DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum()
}

/// Short texts of the characters the hint meets most: letters, quotes straight and curly,
/// spaces, tabs and line breaks; the empty text included.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec![
            'a', 'b', 'c', ' ', '\t', '\n', '\'', '"', '‘', '”', '(',
        ]),
        0..40,
    )
    .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// MATCH-6, D33: with nothing asked of it, the count is exact and equals both the plain
    /// dynamic program and what `similar` keeps, so every similarity `similar` gave is
    /// unchanged.
    #[test]
    fn match_6_the_count_is_the_longest_common_subsequence(a in text(), b in text()) {
        let (ca, cb) = (chars(&a), chars(&b));
        let want = model(&ca, &cb);
        prop_assert_eq!(common_chars(&ca, &cb, 0), Common::Exact(want));
        prop_assert_eq!(similar_keeps(&a, &b), want);
    }

    /// MATCH-6, D33: asked for at least `least`, the count is exact when it reaches it and
    /// `Fewer` exactly when it does not.
    #[test]
    fn match_6_fewer_than_asked_is_said_exactly_when_true(
        a in text(), b in text(), least in 0usize..45,
    ) {
        let (ca, cb) = (chars(&a), chars(&b));
        let want = model(&ca, &cb);
        let got = common_chars(&ca, &cb, least);
        if want >= least {
            prop_assert_eq!(got, Common::Exact(want));
        } else {
            prop_assert_eq!(got, Common::Fewer);
        }
    }

    /// D33: the estimate from lines is never more than the truth, and is the truth when the
    /// texts are equal.
    #[test]
    fn d33_the_estimate_by_lines_never_overstates(a in text(), b in text()) {
        let (ca, cb) = (chars(&a), chars(&b));
        prop_assert!(lower_bound_by_lines(&ca, &cb) <= model(&ca, &cb));
        prop_assert_eq!(lower_bound_by_lines(&ca, &ca), ca.len());
    }

    /// D33: the search given too little work says so, rather than giving a wrong distance; and
    /// given enough, it is the dynamic program's distance.
    #[test]
    fn d33_the_search_never_answers_wrong_when_short_of_work(
        a in text(), b in text(), units in 0u64..60,
    ) {
        let (ca, cb) = (chars(&a), chars(&b));
        let exact = ca.len() + cb.len() - 2 * model(&ca, &cb);
        let mut work = units;
        match distance(&ca, &cb, ca.len() + cb.len(), &mut work) {
            Distance::Exact(d) => prop_assert_eq!(d, exact),
            Distance::OutOfWork => prop_assert_eq!(work, 0),
            Distance::Beyond => prop_assert!(false, "beyond the largest possible distance"),
        }
    }
}

#[test]
fn match_6_small_cases_by_hand() {
    let c = |a: &str, b: &str, least: usize| common_chars(&chars(a), &chars(b), least);
    assert_eq!(c("", "", 0), Common::Exact(0));
    assert_eq!(c("abc", "", 0), Common::Exact(0));
    assert_eq!(c("abc", "", 1), Common::Fewer);
    assert_eq!(c("abcdef", "abxdef", 0), Common::Exact(5));
    // "foo(a,\nb)" and "foo(a\n,b)": the comma and the break trade places, 8 of 9 kept.
    assert_eq!(c("foo(a,\nb)", "foo(a\n,b)", 8), Common::Exact(8));
    assert_eq!(c("foo(a,\nb)", "foo(a\n,b)", 9), Common::Fewer);
    // Lengths alone can rule a pair out.
    assert_eq!(c("a", "aaaaaaaa", 2), Common::Fewer);
}

#[test]
fn d33_a_pair_past_the_work_falls_back_to_lines() {
    // Two texts of 3,000 lines, each line of one the other's with its last two letters
    // swapped: the edit distance is 6,000, and the character search, which would need some 18
    // million diagonal steps, stops at its WORK. Line by line, each pair keeps 5 of its 6
    // characters, and the 2,999 breaks between them are common too; no line is equal to
    // another, so whole equal lines give nothing.
    let a: Vec<String> = (0..3000).map(|i| format!("{i:04}ab")).collect();
    let b: Vec<String> = (0..3000).map(|i| format!("{i:04}ba")).collect();
    let (ca, cb) = (chars(&a.join("\n")), chars(&b.join("\n")));
    let mut work = WORK;
    assert_eq!(
        distance(&ca, &cb, ca.len() + cb.len(), &mut work),
        Distance::OutOfWork
    );
    assert_eq!(common_chars(&ca, &cb, 0), Common::AtLeast(5 * 3000 + 2999));
    // Asked for more than the lines can show, the answer is still the bound: the caller
    // judges it.
    assert_eq!(common_chars(&ca, &cb, 18_000), Common::AtLeast(17_999));
}

#[test]
fn d33_equal_lines_are_found_where_they_moved() {
    // The second text is the first with its first line moved to the end: line by line nothing
    // is equal, but as whole equal lines all but the moved one are kept.
    let lines: Vec<String> = (0..50).map(|i| format!("line {i} of the text")).collect();
    let a = lines.join("\n");
    let mut moved = lines[1..].to_vec();
    moved.push(lines[0].clone());
    let b = moved.join("\n");
    let (ca, cb) = (chars(&a), chars(&b));
    let kept: usize = lines[1..].iter().map(|l| l.chars().count()).sum::<usize>() + 48;
    assert_eq!(lower_bound_by_lines(&ca, &cb), kept);
    assert!(kept <= model(&ca, &cb));
}
