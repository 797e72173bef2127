//! The hint of a `not_found` error (MATCH-6): the regions of the file most like the old string,
//! best first, each with its line range, its text and how similar it is.
//!
//! A region is a window of as many lines as the old string has. Windows are compared with the
//! old string after the same normalisation on both sides — quotes folded, each line's
//! whitespace runs collapsed to one space and its ends trimmed — by twice the characters they
//! have in common, in order, over the characters of both (the ratio of a minimal character
//! diff). A one-character typo or a renamed word thus scores high, an unrelated line low.
//!
//! Comparing every window character by character would be quadratic, so the search is in two
//! passes, both bounded by the sizes of the inputs, never by a clock: the hint is a function of
//! the file's text and the old string alone (D33). A linear pre-pass scores every window by how
//! many of its character pairs (whitespace skipped) occur in the old string — a table lookup
//! per byte — and keeps the best few windows; only those are compared for real, each with a
//! fixed amount of work ([`super::lcs`]): exactly when it suffices, else by a lower bound from
//! whole lines. Old strings too long for this, or that find nothing similar enough, fall back
//! to the line votes of [`super::votes`], which find whitespace- and quote-insensitive equal
//! lines in one pass.

use super::lcs::{common_chars, Common};
use super::votes::{closest_by_votes, is_ascii_space, split_lines};
use crate::text::quotes;
use std::collections::BinaryHeap;

/// One region of the file close to a string that was not found: a line range and its text, so
/// that the model can copy the exact text on its next try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// First line of the region (1-based).
    pub start_line: usize,
    /// Last line of the region (1-based, inclusive).
    pub end_line: usize,
    /// The region's text as it is in the file's LF view.
    pub text: String,
    /// How similar the region is to the old string, in percent (100: equal but for whitespace
    /// and quotes).
    pub similarity: u8,
}

/// Longest hint text returned, in bytes; longer regions are cut at a line boundary.
const HINT_MAX: usize = 4000;
/// Old strings longer than this (in bytes) are placed by line votes only.
const SIMILARITY_MAX_NEEDLE: usize = 16 * 1024;
/// Windows the pre-pass keeps for the real comparison.
const CANDIDATES: usize = 32;
/// The least similarity (percent) a region needs to be offered.
const MIN_SIMILARITY: u8 = 50;

/// The closest region to `needle` in `haystack`, if any is close enough.
pub fn closest_region(haystack: &str, needle: &str) -> Option<Hint> {
    closest_regions(haystack, needle, 1).into_iter().next()
}

/// Up to `max` regions of `haystack` close to `needle`, best first, none overlapping another.
pub fn closest_regions(haystack: &str, needle: &str, max: usize) -> Vec<Hint> {
    if max == 0 {
        return Vec::new();
    }
    let mut found = if needle.len() <= SIMILARITY_MAX_NEEDLE {
        by_similarity(haystack, needle, max)
    } else {
        Vec::new()
    };
    if found.is_empty() {
        if let Some((start, votes)) = closest_by_votes(haystack, needle) {
            let height = height(needle);
            let similarity = (votes * 100 / height).min(100) as u8;
            found.push(region(haystack, start, height, similarity));
        }
    }
    found
}

/// The number of lines of `needle`, a final line break not starting another.
fn height(needle: &str) -> usize {
    let trimmed = needle.strip_suffix('\n').unwrap_or(needle);
    trimmed.split('\n').count().max(1)
}

/// The window `start .. start + height` (0-based) of `haystack` as a hint, its text cut at
/// [`HINT_MAX`] on a line boundary.
fn region(haystack: &str, start: usize, height: usize, similarity: u8) -> Hint {
    let mut text = String::new();
    let mut last = start;
    for (i, line) in split_lines(haystack).skip(start).take(height).enumerate() {
        if !text.is_empty() && text.len() + line.len() + 1 > HINT_MAX {
            break;
        }
        if i > 0 {
            text.push('\n');
        }
        text.push_str(line);
        last = start + i;
    }
    Hint {
        start_line: start + 1,
        end_line: last + 1,
        text,
        similarity,
    }
}

/// `lines` as compared, joined by line breaks: quotes folded; in each line, whitespace runs made
/// one space and the ends trimmed. `None` once it grows past `cap` characters: a window that
/// much longer than the old string cannot be similar enough, and is not built whole.
fn normalise<'s>(lines: impl Iterator<Item = &'s str>, cap: usize) -> Option<Vec<char>> {
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut words = line.split_whitespace().peekable();
        while let Some(w) = words.next() {
            out.extend(w.chars().map(quotes::fold_char));
            if words.peek().is_some() {
                out.push(' ');
            }
            if out.len() > cap {
                return None;
            }
        }
        if out.len() > cap {
            return None;
        }
    }
    Some(out)
}

/// The similarity in percent of two normalised texts with `common` characters in common,
/// twice it over the characters of both, rounded half up in integers (so that no platform's
/// floating point can move a region across a boundary).
fn percent(common: usize, total: usize) -> u8 {
    if total == 0 {
        return 100;
    }
    let (c, t) = (common as u64, total as u64);
    ((400 * c + t) / (2 * t)).min(100) as u8
}

/// The fewest common characters that make two texts of `total` characters together
/// [`MIN_SIMILARITY`] similar: [`percent`] is at least `p` exactly when `400·c ≥ (2p - 1)·t`.
fn least_common(total: usize) -> usize {
    let need = (2 * u64::from(MIN_SIMILARITY) - 1) * total as u64;
    need.div_ceil(400) as usize
}

/// The most characters a normalised window can have and still be [`MIN_SIMILARITY`] similar to
/// an old string of `wanted` characters: past it, even all of the old string in common would
/// not be enough.
fn window_cap(wanted: usize) -> usize {
    let p = u64::from(MIN_SIMILARITY);
    ((401 - 2 * p) * wanted as u64 / (2 * p - 1)) as usize
}

/// The character pairs of a text (bytes, whitespace skipped, within a line) as a 64 Ki-bit set.
struct Pairs {
    bits: Vec<u64>,
    count: usize,
}

impl Pairs {
    fn of(s: &str) -> Pairs {
        let mut p = Pairs {
            bits: vec![0; 1024],
            count: 0,
        };
        for line in s.split('\n') {
            let mut prev: Option<u8> = None;
            for b in line.bytes().filter(|b| !is_ascii_space(*b)) {
                if let Some(a) = prev {
                    let i = usize::from(a) << 8 | usize::from(b);
                    p.bits[i >> 6] |= 1 << (i & 63);
                    p.count += 1;
                }
                prev = Some(b);
            }
        }
        p
    }

    /// For each line of `haystack` (split at LF, as [`split_lines`] does): (pairs of the line
    /// found in the set, pairs of the line). One tight pass over the bytes, long lines
    /// included: skipping them would save no pass, and scoring a line unread (as all misses,
    /// say) would sink a window whose long line is blank.
    fn per_line<'h>(&'h self, haystack: &'h str) -> impl Iterator<Item = (u32, u32)> + 'h {
        let bytes = haystack.as_bytes();
        let mut pos = 0;
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
            let line = &bytes[pos..end];
            done = end == bytes.len();
            pos = end + 1;
            let (mut hit, mut all) = (0u32, 0u32);
            let mut prev: Option<u8> = None;
            for &b in line {
                if is_ascii_space(b) {
                    continue;
                }
                if let Some(a) = prev {
                    let i = usize::from(a) << 8 | usize::from(b);
                    all = all.saturating_add(1);
                    hit = hit.saturating_add((self.bits[i >> 6] >> (i & 63) & 1) as u32);
                }
                prev = Some(b);
            }
            Some((hit, all))
        })
    }
}

/// A window kept by the pre-pass: its score (ordered so the heap's top is the worst kept).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Kept {
    /// Negated Dice score in millionths, then the start line: the max-heap's top is the
    /// weakest window (and, among equals, the latest one).
    key: (i64, usize),
}

/// The similarity search: pre-pass over every window, then the real comparison of the best.
fn by_similarity(haystack: &str, needle: &str, max: usize) -> Vec<Hint> {
    let trimmed = needle.strip_suffix('\n').unwrap_or(needle);
    let Some(wanted) = normalise(trimmed.split('\n'), usize::MAX) else {
        return Vec::new();
    };
    if wanted.iter().all(|c| *c == '\n') {
        return Vec::new();
    }
    let height = height(needle);
    let pairs = Pairs::of(&wanted.iter().collect::<String>());
    let mut ring: Vec<(u32, u32)> = vec![(0, 0); height];
    let (mut hit, mut all) = (0u64, 0u64);
    let mut heap: BinaryHeap<Kept> = BinaryHeap::new();
    let mut lines = 0;
    for (n, s) in pairs.per_line(haystack).enumerate() {
        lines = n + 1;
        let old = std::mem::replace(&mut ring[n % height], s);
        hit = hit + u64::from(s.0) - u64::from(old.0);
        all = all + u64::from(s.1) - u64::from(old.1);
        if n + 1 >= height {
            keep(&mut heap, n + 1 - height, hit, all, pairs.count);
        }
    }
    if lines < height {
        keep(&mut heap, 0, hit, all, pairs.count);
    }
    let mut windows: Vec<(usize, Vec<&str>)> =
        heap.into_iter().map(|k| (k.key.1, Vec::new())).collect();
    windows.sort_unstable_by_key(|w| w.0);
    let end = windows.last().map_or(0, |w| w.0 + height);
    for (n, line) in split_lines(haystack).enumerate().take(end) {
        for (start, w) in windows.iter_mut() {
            if *start <= n && n < *start + height {
                w.push(line);
            }
        }
    }
    let cap = window_cap(wanted.len());
    let mut scored: Vec<(u8, usize)> = Vec::new();
    for (start, lines) in &windows {
        let Some(got) = normalise(lines.iter().copied(), cap) else {
            continue;
        };
        let total = got.len() + wanted.len();
        // Exact within the work of `lcs::WORK`, else a lower bound (D33); never a clock.
        let common = match common_chars(&got, &wanted, least_common(total)) {
            Common::Exact(n) | Common::AtLeast(n) => n,
            Common::Fewer => continue,
        };
        let pct = percent(common, total);
        if pct >= MIN_SIMILARITY {
            scored.push((pct, *start));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<Hint> = Vec::new();
    for (pct, start) in scored {
        let overlaps = chosen
            .iter()
            .any(|h| start < h.end_line && h.start_line - 1 < start + height);
        if !overlaps {
            chosen.push(region(haystack, start, height, pct));
            if chosen.len() == max {
                break;
            }
        }
    }
    chosen
}

/// Offers the window starting at `start` to the heap of the [`CANDIDATES`] best, by the Dice
/// coefficient of its character pairs and the old string's — without its factor 2, which
/// changes no order, and the score serves only to order windows.
fn keep(heap: &mut BinaryHeap<Kept>, start: usize, hit: u64, all: u64, wanted: usize) {
    let dice = (hit.min(wanted as u64) * 1_000_000)
        .checked_div(all + wanted as u64)
        .unwrap_or(0) as i64;
    let k = Kept {
        key: (-dice, start),
    };
    if heap.len() < CANDIDATES {
        heap.push(k);
    } else if heap.peek().is_some_and(|worst| k < *worst) {
        heap.pop();
        heap.push(k);
    }
}

#[cfg(test)]
mod tests {
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
        let ranges: Vec<(usize, usize)> =
            hints.iter().map(|h| (h.start_line, h.end_line)).collect();
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
        let ranges: Vec<(usize, usize)> =
            hints.iter().map(|h| (h.start_line, h.end_line)).collect();
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
}
