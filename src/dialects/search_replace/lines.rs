//! Finding a SEARCH text as whole lines (BLOCK-10): the core's exact search (MATCH-1), then its
//! curly-quote fallback (MATCH-2), each counting only the hits that start a line.
//!
//! A SEARCH text is whole lines, so a hit that starts in the middle of a line is not one: the
//! SEARCH text `return 1\n` is not at line 2 of `def f():\n    return 1\n` exactly — it is
//! there with other indentation, which is the flexible fallback's to find and re-indent for.
//! Such mid-line hits must not hide anything either: they are skipped *before* deciding whether
//! the exact search found something (so the quote fallback still runs), and they cannot
//! overlap and swallow a hit that does start a line.
//!
//! The search is for `\n` + SEARCH (plus a check at offset 0), which only ever hits at line
//! starts, so it stays one linear memmem pass however many mid-line occurrences there are.

use crate::text::quotes::{self, Folded};
use memchr::memmem::Finder;

/// The hits of a SEARCH text that start a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineHits {
    /// Byte spans in the text, ascending and non-overlapping.
    pub spans: Vec<(usize, usize)>,
    /// True when they came from the curly-quote fallback (MATCH-2), so that the REPLACE text
    /// is to be restyled after the file's quotes (MATCH-4).
    pub via_quotes: bool,
}

/// BLOCK-10: the hits of `search` in `text` that start a line — exact ones if there are any,
/// else those of the quote-folded search. Left to right, without overlap (MATCH-1). An empty
/// `search` has none.
pub(super) fn find_lines(text: &str, search: &str) -> LineHits {
    let spans = starts_of_lines(text.as_bytes(), search.as_bytes());
    if !spans.is_empty() || search.is_empty() {
        return LineHits {
            spans,
            via_quotes: false,
        };
    }
    let needle = quotes::fold(search);
    if needle.len() == search.len() && !quotes::has_curly(text) {
        // Nothing to fold on either side: the folded search is the exact one.
        return LineHits {
            spans,
            via_quotes: false,
        };
    }
    let folded = Folded::new(text);
    // Folding never touches a line break, so a folded hit starts a line exactly when the
    // original text there does.
    let spans = starts_of_lines(folded.text.as_bytes(), needle.as_bytes())
        .into_iter()
        .map(|(s, e)| (folded.to_original(s), folded.to_original(e)))
        .collect();
    LineHits {
        spans,
        via_quotes: true,
    }
}

/// Occurrences of `needle` in `hay` that start at offset 0 or right after a `\n`, left to
/// right, none overlapping the one before.
fn starts_of_lines(hay: &[u8], needle: &[u8]) -> Vec<(usize, usize)> {
    let m = needle.len();
    let mut out = Vec::new();
    if m == 0 {
        return out;
    }
    // Where the search for "\n" + needle goes on: its `\n` may be the last byte of the hit
    // before (a SEARCH text ends with its line break), never earlier.
    let mut from = 0;
    if hay.starts_with(needle) {
        out.push((0, m));
        from = m - 1;
    }
    let mut after_break = Vec::with_capacity(m + 1);
    after_break.push(b'\n');
    after_break.extend_from_slice(needle);
    let finder = Finder::new(&after_break);
    while let Some(at) = hay.get(from..).and_then(|rest| finder.find(rest)) {
        let start = from + at + 1;
        out.push((start, start + m));
        from = start + m - 1;
    }
    out
}
