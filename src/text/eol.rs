//! Line endings (TEXT-4, TEXT-5): the LF view of a text and the map back to the stored text.
//!
//! Matching works on the *LF view*, where every CRLF is seen as LF and a lone CR is an ordinary
//! character. Writing must leave every untouched byte alone, so the view keeps a sorted list of
//! the places where a CR was dropped; any view offset maps back with one binary search.

use std::borrow::Cow;

/// The line ending written for line breaks inside inserted text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    /// `\n`
    Lf,
    /// `\r\n`
    Crlf,
}

impl Eol {
    /// The bytes of this ending.
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::Crlf => "\r\n",
        }
    }
}

/// Counts of the two kinds of line break in a text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EolCounts {
    /// CRLF breaks.
    pub crlf: usize,
    /// LF breaks not preceded by CR.
    pub lf: usize,
}

impl EolCounts {
    /// TEXT-4: CRLF when CRLF breaks strictly outnumber LF-only breaks, else LF.
    pub fn dominant(self) -> Eol {
        if self.crlf > self.lf {
            Eol::Crlf
        } else {
            Eol::Lf
        }
    }

    /// Whether the text has any line break at all.
    pub fn any(self) -> bool {
        self.crlf + self.lf > 0
    }
}

/// The LF view of a stored text: the view itself (only when it differs) and the map back.
#[derive(Debug, Clone, Default)]
pub struct LfView {
    /// The text with every CRLF turned into LF; `None` when the stored text has no CRLF, in
    /// which case the stored text *is* the view and nothing was copied.
    pub view: Option<String>,
    /// View offsets of the `\n`s whose CR was dropped, ascending.
    pub dropped_cr: Vec<usize>,
    /// How many breaks of each kind the stored text has.
    pub counts: EolCounts,
}

impl LfView {
    /// Builds the view of `stored`. Costs one scan for `\n` (and one for CRLF when a CR is
    /// present); texts without CRLF are not copied.
    pub fn new(stored: &str) -> LfView {
        LfView::build(stored, None, true).0
    }

    /// [`LfView::new`] for callers that may know already whether `stored` has a CR
    /// (`has_cr`), and that may not need the `\n` count of a text without CR (when
    /// `count_without_cr` is false it is skipped and `counts.lf` left at 0). Returns the view
    /// and whether its counts are exact.
    pub(crate) fn build(
        stored: &str,
        has_cr: Option<bool>,
        count_without_cr: bool,
    ) -> (LfView, bool) {
        let bytes = stored.as_bytes();
        let has_cr = has_cr.unwrap_or_else(|| memchr::memchr(b'\r', bytes).is_some());
        if !has_cr {
            let lf = if count_without_cr {
                memchr::memchr_iter(b'\n', bytes).count()
            } else {
                0
            };
            let view = LfView {
                view: None,
                dropped_cr: Vec::new(),
                counts: EolCounts { crlf: 0, lf },
            };
            return (view, count_without_cr);
        }
        let newlines = memchr::memchr_iter(b'\n', bytes).count();
        let (view, dropped_cr) = drop_crlf_crs(bytes, newlines);
        // SAFETY: `view` is `stored` (a `str`, so valid UTF-8) with some CR bytes removed; a
        // CR is a one-byte character, never part of another, so what remains is valid UTF-8
        // (checked against the naive view in the tests and by the fuzz targets).
        let view = unsafe { String::from_utf8_unchecked(view) };
        let crlf = dropped_cr.len();
        let view = LfView {
            view: (crlf > 0).then_some(view),
            dropped_cr,
            counts: EolCounts {
                crlf,
                lf: newlines - crlf,
            },
        };
        (view, true)
    }

    /// The view, given the stored text it was built from.
    pub fn view<'s>(&'s self, stored: &'s str) -> &'s str {
        self.view.as_deref().unwrap_or(stored)
    }

    /// Maps a view offset to the offset in the stored text.
    ///
    /// A span `[s, e)` of the view maps to `[to_stored(s), to_stored(e))`, which includes the CR
    /// of every CRLF whose LF is inside the span and nothing else.
    pub fn to_stored(&self, offset: usize) -> usize {
        offset + self.dropped_cr.partition_point(|&p| p < offset)
    }
}

/// TEXT-5: turns every CRLF of a model-supplied string into LF.
pub fn normalize_crlf(s: &str) -> Cow<'_, str> {
    if s.contains("\r\n") {
        Cow::Owned(s.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(s)
    }
}

/// TEXT-5 on a string the caller owns, in place: the result of [`normalize_crlf`] without a
/// second buffer, so that a model's string of many megabytes is not held twice.
pub fn normalize_crlf_in_place(s: &mut String) {
    if !s.contains("\r\n") {
        return;
    }
    let mut bytes = std::mem::take(s).into_bytes();
    let mut kept = 0;
    for at in 0..bytes.len() {
        let b = bytes[at];
        if b == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
            continue;
        }
        bytes[kept] = b;
        kept += 1;
    }
    bytes.truncate(kept);
    // Only ASCII CRs were removed, so the bytes are still UTF-8; the lossy path never runs.
    *s = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// Writes the LFs of LF-view text with the given ending.
pub fn with_eol(s: &str, eol: Eol) -> Cow<'_, str> {
    match eol {
        Eol::Crlf if s.contains('\n') => Cow::Owned(s.replace('\n', "\r\n")),
        _ => Cow::Borrowed(s),
    }
}

/// The bytes with the CR of every CRLF removed, and the view offsets where one was removed
/// (`breaks` is a capacity hint: the count of `\n`). One `memchr` per CR and a look at the
/// next byte: cheaper per line than `memmem` for CRLF, and faster here than a word-at-a-time
/// loop, which measured a third slower on 30-byte lines.
fn drop_crlf_crs(bytes: &[u8], breaks: usize) -> (Vec<u8>, Vec<usize>) {
    let mut view: Vec<u8> = super::buffer::large_vec(bytes.len());
    let mut dropped: Vec<usize> = super::buffer::large_vec(breaks);
    let mut last = 0;
    for cr in memchr::memchr_iter(b'\r', bytes) {
        if bytes.get(cr + 1) == Some(&b'\n') {
            view.extend_from_slice(&bytes[last..cr]);
            dropped.push(view.len());
            last = cr + 1;
        }
    }
    view.extend_from_slice(&bytes[last..]);
    (view, dropped)
}

/// Counts the breaks of a string without building its view.
pub fn count_eols(s: &str) -> EolCounts {
    let bytes = s.as_bytes();
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
    EolCounts {
        crlf,
        lf: newlines - crlf,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_4_dominant_needs_a_strict_majority() {
        assert_eq!(count_eols("a\r\nb\nc\n").dominant(), Eol::Lf);
        assert_eq!(count_eols("a\r\nb\r\nc\n").dominant(), Eol::Crlf);
        assert_eq!(count_eols("a\r\nb\n").dominant(), Eol::Lf);
        assert_eq!(count_eols("abc").dominant(), Eol::Lf);
        assert_eq!(count_eols("a\rb\rc\r\n").dominant(), Eol::Crlf);
    }

    #[test]
    fn text_5_in_place_normalisation_is_the_copying_one() {
        for s in [
            "",
            "a",
            "\r",
            "\n",
            "\r\n",
            "\r\r\n",
            "a\r\nb\rc\n\r",
            "é\r\nü\r\n\r",
            "\r\n\r\n",
        ] {
            let mut owned = s.to_string();
            normalize_crlf_in_place(&mut owned);
            assert_eq!(owned, normalize_crlf(s), "{s:?}");
        }
        // Nothing to do: the string keeps its buffer.
        let mut owned = String::from("no breaks to change\n");
        let before = owned.as_ptr();
        normalize_crlf_in_place(&mut owned);
        assert_eq!(owned.as_ptr(), before);
    }

    /// TEXT-5: CR removal against a byte-by-byte model, with CRs anywhere, in runs, at the
    /// end and before non-LF bytes.
    #[test]
    fn text_5_word_at_a_time_view_matches_the_naive_one() {
        let alphabet = [b'a', b'\r', b'\n', 0xC3, 0xA9];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for len in 0..80 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        alphabet[(seed % 5) as usize]
                    })
                    .collect();
                let mut view = Vec::new();
                let mut dropped = Vec::new();
                for (i, &b) in bytes.iter().enumerate() {
                    if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                        dropped.push(view.len());
                    } else {
                        view.push(b);
                    }
                }
                assert_eq!(drop_crlf_crs(&bytes, 0), (view, dropped), "{bytes:?}");
            }
        }
    }

    #[test]
    fn text_5_view_drops_only_the_cr_of_crlf() {
        let v = LfView::new("a\r\nb\rc\r\n");
        assert_eq!(v.view.as_deref(), Some("a\nb\rc\n"));
        assert_eq!(v.dropped_cr, vec![1, 5]);
        assert_eq!(v.to_stored(0), 0);
        assert_eq!(v.to_stored(1), 1);
        assert_eq!(v.to_stored(2), 3);
        assert_eq!(v.to_stored(6), 8);
    }

    #[test]
    fn texts_without_cr_are_borrowed() {
        let v = LfView::new("a\nb\n");
        assert!(v.view.is_none());
        // A CR that no LF follows is kept, so there is still nothing to copy.
        let v = LfView::new("a\rb\n\r");
        assert!(v.view.is_none());
        assert_eq!(v.counts, EolCounts { crlf: 0, lf: 1 });
        // Writing LF-view text as CRLF copies only when there is an LF to widen.
        assert!(matches!(with_eol("a\rb", Eol::Crlf), Cow::Borrowed("a\rb")));
        assert_eq!(with_eol("a\nb", Eol::Crlf), "a\r\nb");
        assert!(matches!(with_eol("a\nb", Eol::Lf), Cow::Borrowed("a\nb")));
    }

    /// TEXT-4: the two endings are exactly their bytes, and a text has line breaks when it has
    /// a break of either kind (a lone CR is none).
    #[test]
    fn text_4_endings_and_whether_a_text_has_breaks() {
        assert_eq!(Eol::Lf.as_str(), "\n");
        assert_eq!(Eol::Crlf.as_str(), "\r\n");
        assert!(!EolCounts::default().any());
        assert!(!count_eols("a\rb").any());
        assert!(count_eols("a\nb").any());
        assert!(count_eols("a\r\nb").any());
        assert!(EolCounts { crlf: 2, lf: 0 }.any());
        assert!(EolCounts { crlf: 0, lf: 3 }.any());
    }
}
