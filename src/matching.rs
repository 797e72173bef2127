//! Finding `old_string` (MATCH-1..3, MATCH-6).
//!
//! Exact search first (SIMD `memmem`, non-overlapping, left to right); only when it finds
//! nothing, the curly-quote fallback searches the folded text and maps each hit back to the
//! file's own span. Nothing here is fuzzy: the whitespace-insensitive comparison at the end
//! only builds the hint of a `not_found` error and never changes a file.

use crate::text::quotes::{self, Folded};
use std::cell::{OnceCell, RefCell};

/// A text to search in, with its quote-folded form built on first need.
///
/// What is known about the last needle is kept: repair asks whether a string occurs (which
/// stops at its first hit) and the engine then asks for all its hits, which continue from that
/// first hit instead of scanning the text again from the start.
pub struct Haystack<'a> {
    text: &'a str,
    folded: OnceCell<Folded<'a>>,
    last: RefCell<Option<(String, Known)>>,
}

/// What a search has established about a needle.
#[derive(Debug, Clone)]
enum Known {
    /// The first exact hit starts here; nothing before it matches.
    FirstExact(usize),
    /// No exact hit anywhere (the fallback has not run yet).
    NoExact,
    /// No hit at all, exact or folded.
    Nothing,
    /// No exact hit; these are the curly-quote fallback's hits (kept: repair asks whether the
    /// needle occurs, then the engine asks for its hits, and the fallback is a whole pass).
    Folded(Vec<(usize, usize)>),
}

/// The hits of one search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hits {
    /// Byte spans in the haystack, ascending and non-overlapping.
    pub spans: Vec<(usize, usize)>,
    /// True when the spans came from the curly-quote fallback (MATCH-2).
    pub via_quotes: bool,
}

impl<'a> Haystack<'a> {
    /// Wraps a text (normally a document's LF view).
    pub fn new(text: &'a str) -> Haystack<'a> {
        Haystack {
            text,
            folded: OnceCell::new(),
            last: RefCell::new(None),
        }
    }

    /// The text searched.
    pub fn text(&self) -> &'a str {
        self.text
    }

    fn folded(&self) -> &Folded<'a> {
        self.folded.get_or_init(|| Folded::new(self.text))
    }

    fn known(&self, needle: &str) -> Option<Known> {
        match &*self.last.borrow() {
            Some((last, known)) if last == needle => Some(known.clone()),
            _ => None,
        }
    }

    fn remember(&self, needle: &str, known: Known) {
        *self.last.borrow_mut() = Some((needle.to_string(), known));
    }

    /// MATCH-1 then MATCH-2: every hit of `needle`. An empty needle has no hits.
    pub fn find(&self, needle: &str) -> Hits {
        if needle.is_empty() {
            return Hits {
                spans: Vec::new(),
                via_quotes: false,
            };
        }
        match self.known(needle) {
            Some(Known::FirstExact(first)) => Hits {
                spans: self.exact_from(needle, first),
                via_quotes: false,
            },
            Some(Known::NoExact) => {
                let hits = self.fallback(needle);
                if hits.spans.is_empty() {
                    self.remember(needle, Known::Nothing);
                } else {
                    self.remember(needle, Known::Folded(hits.spans.clone()));
                }
                hits
            }
            Some(Known::Folded(spans)) => Hits {
                spans,
                via_quotes: true,
            },
            Some(Known::Nothing) => Hits {
                spans: Vec::new(),
                via_quotes: false,
            },
            None => {
                let spans: Vec<(usize, usize)> =
                    memchr::memmem::find_iter(self.text.as_bytes(), needle.as_bytes())
                        .map(|s| (s, s + needle.len()))
                        .collect();
                if spans.is_empty() {
                    self.fallback(needle)
                } else {
                    Hits {
                        spans,
                        via_quotes: false,
                    }
                }
            }
        }
    }

    /// MATCH-1's non-overlapping hits, given that the first one starts at `first`.
    fn exact_from(&self, needle: &str, first: usize) -> Vec<(usize, usize)> {
        let n = needle.len();
        let rest = first + n;
        let mut spans = vec![(first, rest)];
        spans.extend(
            memchr::memmem::find_iter(&self.text.as_bytes()[rest..], needle.as_bytes())
                .map(|s| (rest + s, rest + s + n)),
        );
        spans
    }

    /// MATCH-2, for a needle with no exact hit.
    fn fallback(&self, needle: &str) -> Hits {
        let folded_needle = quotes::fold(needle);
        let needle_had_curly = folded_needle.len() != needle.len();
        if !needle_had_curly && !quotes::has_curly(self.text) {
            return Hits {
                spans: Vec::new(),
                via_quotes: false,
            };
        }
        let folded = self.folded();
        let spans = memchr::memmem::find_iter(folded.text.as_bytes(), folded_needle.as_bytes())
            .map(|s| {
                (
                    folded.to_original(s),
                    folded.to_original(s + folded_needle.len()),
                )
            })
            .collect();
        Hits {
            spans,
            via_quotes: true,
        }
    }

    /// Whether `needle` occurs by MATCH-1 or MATCH-2 (what the repairs mean by "occurs").
    pub fn occurs(&self, needle: &str) -> bool {
        if needle.is_empty() {
            return false;
        }
        match self.known(needle) {
            Some(Known::FirstExact(_)) => return true,
            Some(Known::Nothing) => return false,
            Some(Known::Folded(spans)) => return !spans.is_empty(),
            Some(Known::NoExact) => {}
            None => match memchr::memmem::find(self.text.as_bytes(), needle.as_bytes()) {
                Some(first) => {
                    self.remember(needle, Known::FirstExact(first));
                    return true;
                }
                None => self.remember(needle, Known::NoExact),
            },
        }
        !self.find(needle).spans.is_empty()
    }
}

/// The closest region to a string that was not found (MATCH-6): a line range of the file and
/// its text, so that the model can copy the exact text on its next try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// First line of the region (1-based).
    pub start_line: usize,
    /// Last line of the region (1-based, inclusive).
    pub end_line: usize,
    /// The region's text as it is in the file's LF view.
    pub text: String,
}

/// Longest hint text returned, in bytes; longer regions are cut at a line boundary.
const HINT_MAX: usize = 4000;

fn squash(line: &str) -> String {
    let mut out = String::new();
    squash_into(line, &mut out);
    out
}

/// `line` with curly quotes folded and every whitespace character removed, written into `out`
/// (cleared first) so that scanning a large file allocates nothing per line. ASCII bytes are
/// handled without decoding; `char::is_whitespace` decides for the rest.
fn squash_into(line: &str, out: &mut String) {
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
fn split_lines(s: &str) -> impl Iterator<Item = &str> {
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

fn is_ascii_space(b: u8) -> bool {
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

/// MATCH-6: finds the region of `haystack` most like `needle`, comparing lines with all
/// whitespace removed and quotes folded. Linear in the haystack: each haystack line is looked
/// up once in a table of the needle's lines, and votes for the window it would start. Lines
/// whose first character cannot start any of the needle's lines are skipped unsquashed.
pub fn closest_region(haystack: &str, needle: &str) -> Option<Hint> {
    let needle_lines: Vec<String> = needle.split('\n').map(squash).collect();
    let mut wanted: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    let mut first_bytes = [false; 256];
    for (i, l) in needle_lines.iter().enumerate() {
        if !l.is_empty() {
            wanted.entry(l.as_str()).or_default().push(i);
            first_bytes[usize::from(l.as_bytes()[0])] = true;
        }
    }
    let mut votes: std::collections::HashMap<usize, usize> = Default::default();
    let mut key = String::new();
    let mut line_count = 0;
    for (n, line) in split_lines(haystack).enumerate() {
        line_count = n + 1;
        if line.len() > 4 * needle.len() + 64 {
            continue;
        }
        match squashed_first_byte(line) {
            Some(b) if first_bytes[usize::from(b)] => {}
            _ => continue,
        }
        squash_into(line, &mut key);
        if let Some(positions) = wanted.get(key.as_str()) {
            for &i in positions {
                if n >= i {
                    *votes.entry(n - i).or_default() += 1;
                }
            }
        }
    }
    let best = votes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(start, _)| start)
        .or_else(|| prefix_fallback(haystack, &needle_lines))?;
    let count = needle_lines.len().max(1);
    let end = (best + count).min(line_count);
    let mut text = String::new();
    for line in split_lines(haystack)
        .skip(best)
        .take(end.saturating_sub(best))
    {
        if text.len() + line.len() > HINT_MAX {
            break;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    }
    Some(Hint {
        start_line: best + 1,
        end_line: end.max(best + 1),
        text,
    })
}

/// When no whole line matches: the first haystack line containing the start of the needle's
/// first non-blank line (whitespace removed), searched with `memmem` per line.
fn prefix_fallback(haystack: &str, needle_lines: &[String]) -> Option<usize> {
    let (index, first) = needle_lines
        .iter()
        .enumerate()
        .find(|(_, l)| !l.is_empty())?;
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

    #[test]
    fn match_1_non_overlapping_left_to_right() {
        let h = Haystack::new("aaaa");
        assert_eq!(h.find("aa").spans, vec![(0, 2), (2, 4)]);
        assert!(!h.find("aa").via_quotes);
    }

    #[test]
    fn occurs_then_find_gives_the_same_hits_as_find() {
        for (text, needle) in [
            ("aaaa", "aa"),
            ("xabxab", "ab"),
            ("no hit here", "zz"),
            ("say \u{201C}hi\u{201D}", "\"hi\""),
        ] {
            let h = Haystack::new(text);
            let occurs = h.occurs(needle);
            let hits = h.find(needle);
            assert_eq!(
                hits,
                Haystack::new(text).find(needle),
                "{text:?} {needle:?}"
            );
            assert_eq!(occurs, !hits.spans.is_empty());
            assert_eq!(h.find(needle), hits, "found again");
        }
    }

    #[test]
    fn match_2_fallback_maps_to_the_files_own_text() {
        let text = "say “hi” and ‘bye’";
        let h = Haystack::new(text);
        let hits = h.find("\"hi\"");
        assert!(hits.via_quotes);
        let (s, e) = hits.spans[0];
        assert_eq!(&text[s..e], "“hi”");
        let h = Haystack::new("it's \"x\"");
        let hits = h.find("it’s “x”");
        assert_eq!(hits.spans, vec![(0, 8)]);
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

    #[test]
    fn match_6_hint_points_at_the_closest_lines() {
        let hay = "fn a() {}\nfn main() {\n    let  x = 1;\n}\n";
        let hint = closest_region(hay, "fn main() {\n  let x = 1;\n}").unwrap();
        assert_eq!((hint.start_line, hint.end_line), (2, 4));
        assert_eq!(hint.text, "fn main() {\n    let  x = 1;\n}");
        assert_eq!(closest_region("abc\n", "zzzzzz"), None);
    }
}
