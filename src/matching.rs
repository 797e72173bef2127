//! Finding `old_string` (MATCH-1..3, MATCH-6).
//!
//! Exact search first (SIMD `memmem`, non-overlapping, left to right); only when it finds
//! nothing, the curly-quote fallback searches the folded text and maps each hit back to the
//! file's own span. Nothing here is fuzzy: the similarity search of `hint` (and the
//! whitespace-insensitive line votes of `votes` it falls back on) only builds the hint of a
//! `not_found` error and never changes a file.

mod hint;
mod lcs;
mod votes;

pub use hint::{closest_region, closest_regions, Hint};

use crate::text::quotes::{self, Folded};
use std::cell::{OnceCell, RefCell};

/// A text to search in, with its quote-folded form built on first need.
///
/// What is known about the last needle is kept: repair asks whether a string occurs (which
/// stops at its first hit) and the engine then asks for all its hits, which continue from that
/// first hit instead of scanning the text again from the start. Only needles up to
/// [`REMEMBER_MAX`] bytes are kept: keeping one means holding a copy of it, and for a needle of
/// many megabytes that copy would cost more memory than the scan it saves costs time.
pub struct Haystack<'a> {
    text: &'a str,
    folded: OnceCell<Folded<'a>>,
    last: RefCell<Option<(String, Known)>>,
}

/// The longest needle whose search results a [`Haystack`] keeps. Longer ones are searched
/// again when asked again — the same answers, from a second scan instead of a copy.
pub const REMEMBER_MAX: usize = 64 * 1024;

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
        let mut last = self.last.borrow_mut();
        *last = (needle.len() <= REMEMBER_MAX).then(|| (needle.to_string(), known));
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
        // Asked in any order and any number of times, `occurs` and `find` agree, whatever the
        // haystack remembers between them: an exact hit, none, or only the quote fallback's.
        for (text, needle, expected) in [
            ("aaaa", "aa", true),
            ("xabxab", "ab", true),
            ("no hit here", "zz", false),
            ("say \u{201C}hi\u{201D}", "\"hi\"", true),
        ] {
            let h = Haystack::new(text);
            let occurs = h.occurs(needle);
            assert_eq!(occurs, expected, "{text:?} {needle:?}");
            let hits = h.find(needle);
            assert_eq!(
                hits,
                Haystack::new(text).find(needle),
                "{text:?} {needle:?}"
            );
            assert_eq!(occurs, !hits.spans.is_empty());
            assert_eq!(h.find(needle), hits, "found again");
            assert_eq!(h.occurs(needle), expected, "asked again after the search");
        }
    }

    #[test]
    fn match_1_a_needle_too_long_to_remember_is_found_the_same() {
        // Above REMEMBER_MAX nothing is kept between the repair's question and the engine's:
        // the second search scans again and must give the same hits.
        let unit = "0123456789abcdef";
        let needle = unit.repeat(REMEMBER_MAX / unit.len() + 1);
        let text = format!("x{needle}y{needle}z");
        let h = Haystack::new(&text);
        assert!(h.occurs(&needle));
        let hits = h.find(&needle);
        assert_eq!(hits, Haystack::new(&text).find(&needle));
        assert_eq!(hits.spans.len(), 2);
        let missing = format!("{needle}!");
        assert!(!h.occurs(&missing));
        assert!(h.find(&missing).spans.is_empty());
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
}
