//! The whitespace-insensitive line votes behind a `not_found` hint (MATCH-6) when the
//! similarity search has nothing to offer, or the old string is too long for it.
//!
//! Linear in the file, whatever the size of either string: each file line is looked up once in
//! a table of the old string's lines (whitespace removed, quotes folded) and votes for the
//! window it would start; when no line matches whole, the first line containing the start of
//! the old string's first line is taken. This is what finds a 50 MB old string's place in a
//! large file in one pass, where comparing windows character by character could not.

use crate::text::quotes;

pub(super) fn squash(line: &str) -> String {
    let mut out = String::new();
    squash_into(line, &mut out);
    out
}

/// `line` with curly quotes folded and every whitespace character removed, written into `out`
/// (cleared first) so that scanning a large file allocates nothing per line. ASCII bytes are
/// handled without decoding; `char::is_whitespace` decides for the rest.
pub(super) fn squash_into(line: &str, out: &mut String) {
    out.clear();
    let mut rest = line;
    while !rest.is_empty() {
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        for &b in &rest.as_bytes()[..ascii] {
            if !is_ascii_space(b) {
                out.push(char::from(b));
            }
        }
        rest = &rest[ascii..];
        if let Some(c) = rest.chars().next() {
            if !c.is_whitespace() {
                out.push(quotes::fold_char(c));
            }
            rest = &rest[c.len_utf8()..];
        }
    }
}

/// `s.split('\n')`, finding the breaks with the SIMD `memchr` (the standard library's
/// character search goes byte by byte on short lines).
pub(super) fn split_lines(s: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', s.as_bytes())
        .map(Some)
        .chain(std::iter::once(None))
        .map(move |end| {
            let end = end.unwrap_or(s.len());
            let line = &s[start..end];
            start = end + 1;
            line
        })
}

pub(super) fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// The first byte of `squash(line)`, without building it (`None` when it is empty).
fn squashed_first_byte(line: &str) -> Option<u8> {
    let lead = line.bytes().position(|b| !is_ascii_space(b))?;
    let rest = &line[lead..];
    if rest.as_bytes()[0].is_ascii() {
        return Some(rest.as_bytes()[0]);
    }
    let c = quotes::fold_char(rest.chars().find(|c| !c.is_whitespace())?);
    let mut buf = [0u8; 4];
    Some(c.encode_utf8(&mut buf).as_bytes()[0])
}

/// The 0-based first line of the window of `haystack` most like `needle`, comparing lines with
/// all whitespace removed and quotes folded. Linear in the haystack: each haystack line is
/// looked up once in a table of the needle's lines, and votes for the window it would start.
/// Lines whose first character cannot start any of the needle's lines are skipped unsquashed.
/// Returns the start and how many of the needle's lines voted for it (0 when only the prefix
/// fallback found it).
///
/// A vote is a pair (haystack line `n`, needle line `i`) of equal squashed lines with `n >= i`,
/// for the window `n - i`. When the needle has more lines than the haystack (a 50 MB old
/// string against a small file), the table is built of the haystack's lines instead and each
/// needle line is looked up in it: the same pairs, the same votes, and memory bounded by the
/// smaller of the two instead of by the old string.
pub(super) fn closest_by_votes(haystack: &str, needle: &str) -> Option<(usize, usize)> {
    let long_line = 4 * needle.len() + 64;
    let count = |s: &str| memchr::memchr_iter(b'\n', s.as_bytes()).count();
    let votes = if count(needle) <= count(haystack) {
        // Table of the needle's lines; every haystack line is looked up.
        let table = Table::of(needle.split('\n').enumerate());
        let lines = split_lines(haystack)
            .enumerate()
            .filter(|(_, line)| line.len() <= long_line);
        table.vote(lines, |n, i| (n >= i).then(|| n - i))
    } else {
        // Table of the haystack's lines; every needle line is looked up.
        let lines = split_lines(haystack)
            .enumerate()
            .filter(|(_, line)| line.len() <= long_line);
        let table = Table::of(lines);
        table.vote(needle.split('\n').enumerate(), |i, n| {
            (n >= i).then(|| n - i)
        })
    };
    votes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .or_else(|| prefix_fallback(haystack, needle).map(|start| (start, 0)))
}

/// The squashed non-empty lines of one side, each with the line numbers it has there.
struct Table {
    lines: std::collections::HashMap<String, Vec<usize>>,
    first_bytes: [bool; 256],
}

impl Table {
    fn of<'l>(lines: impl Iterator<Item = (usize, &'l str)>) -> Table {
        let mut table = Table {
            lines: Default::default(),
            first_bytes: [false; 256],
        };
        for (i, line) in lines {
            let l = squash(line);
            if let Some(&b) = l.as_bytes().first() {
                table.first_bytes[usize::from(b)] = true;
                table.lines.entry(l).or_default().push(i);
            }
        }
        table
    }

    /// The votes of the other side's `lines`: `window(line, tabled)` is the window a pair of
    /// equal lines votes for, if any. Lines whose first character starts no tabled line are
    /// skipped unsquashed.
    fn vote<'l>(
        &self,
        lines: impl Iterator<Item = (usize, &'l str)>,
        window: impl Fn(usize, usize) -> Option<usize>,
    ) -> std::collections::HashMap<usize, usize> {
        let mut votes: std::collections::HashMap<usize, usize> = Default::default();
        let mut key = String::new();
        for (n, line) in lines {
            match squashed_first_byte(line) {
                Some(b) if self.first_bytes[usize::from(b)] => {}
                _ => continue,
            }
            squash_into(line, &mut key);
            if let Some(positions) = self.lines.get(key.as_str()) {
                for &i in positions {
                    if let Some(start) = window(n, i) {
                        *votes.entry(start).or_default() += 1;
                    }
                }
            }
        }
        votes
    }
}

/// When no whole line matches: the first haystack line containing the start of the needle's
/// first non-blank line (whitespace removed), searched with `memmem` per line.
fn prefix_fallback(haystack: &str, needle: &str) -> Option<usize> {
    let mut first = String::new();
    let index = needle.split('\n').position(|line| {
        squash_into(line, &mut first);
        !first.is_empty()
    })?;
    let probe: String = first.chars().take(24).collect();
    if probe.chars().count() < 4 {
        return None;
    }
    let finder = memchr::memmem::Finder::new(probe.as_bytes());
    let mut key = String::new();
    split_lines(haystack)
        .position(|line| {
            squash_into(line, &mut key);
            finder.find(key.as_bytes()).is_some()
        })
        .map(|n| n.saturating_sub(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The votes as MATCH-6 defines them, pair by pair: the best window by count, the earliest
    /// on a tie, else the prefix fallback.
    fn naive(haystack: &str, needle: &str) -> Option<(usize, usize)> {
        let mut votes: std::collections::BTreeMap<usize, usize> = Default::default();
        for (n, h) in haystack.split('\n').enumerate() {
            if h.len() > 4 * needle.len() + 64 || squash(h).is_empty() {
                continue;
            }
            for (i, l) in needle.split('\n').enumerate() {
                if n >= i && squash(h) == squash(l) {
                    *votes.entry(n - i).or_default() += 1;
                }
            }
        }
        let best = votes.iter().map(|(s, v)| (*v, std::cmp::Reverse(*s))).max();
        best.map(|(v, s)| (s.0, v))
            .or_else(|| prefix_fallback(haystack, needle).map(|s| (s, 0)))
    }

    #[test]
    fn match_6_votes_are_the_same_whichever_side_is_tabled() {
        let hay = "fn a() {\n    x = 1;\n    y = 2;\n}\n\nfn b() {\n    x = 1;\n}\n";
        for needle in [
            // Fewer lines than the file: the needle's lines are tabled.
            "x = 1;\ny = 2;",
            "    x  =  1;\n",
            // More lines than the file: the file's lines are tabled.
            "fn a() {\n    x = 1;\n    y = 2;\n    z = 3;\n}\n\n\nfn b() {\n    x = 1;\n}\n\n\n",
            "q\nq\nq\nq\nq\nq\nq\nq\nq\nq\nq\nq\n    x = 1;",
            "nothing\nlike\nit\nat\nall\nhere\nin\nthis\nold\nstring\nfn b() {x",
            "\n\n\n\n\n\n\n\n\n\n",
        ] {
            assert_eq!(
                closest_by_votes(hay, needle),
                naive(hay, needle),
                "{needle:?}"
            );
        }
    }

    #[test]
    fn match_6_lines_over_the_length_limit_do_not_vote() {
        // Lines longer than four times the old string and 64 bytes do not vote, equal or not
        // once squashed. At 76 bytes, the limit for "a\nb", the two indented lines give the
        // first window two votes; a byte longer they are left out, and the short line further
        // down wins with one.
        let deep = " ".repeat(4 * 3 + 64 - 1);
        let hay = format!("{deep}a\n{deep}b\nzz\na\nq\n");
        assert_eq!(closest_by_votes(&hay, "a\nb"), Some((0, 2)));
        let hay = format!("{deep} a\n{deep} b\nzz\na\nq\n");
        assert_eq!(closest_by_votes(&hay, "a\nb"), Some((3, 1)));
        assert_eq!(closest_by_votes(&hay, "a\nb"), naive(&hay, "a\nb"));
    }

    #[test]
    fn squash_removes_every_whitespace_and_folds_quotes() {
        for line in [
            "",
            "  let x = 1;\t",
            "\u{b}\u{c}\r a\u{a0}b\u{3000}c\u{2028}",
            "say \u{201C}hi\u{201D} it\u{2019}s caf\u{e9} \u{2192}",
            "\u{85}x\u{1680}",
        ] {
            let expected: String = quotes::fold(line)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            assert_eq!(squash(line), expected, "{line:?}");
            assert_eq!(
                split_lines(line).collect::<Vec<_>>(),
                line.split('\n').collect::<Vec<_>>()
            );
            assert_eq!(
                squashed_first_byte(line),
                expected.as_bytes().first().copied(),
                "{line:?}"
            );
        }
    }
}
