//! Finding and changing text of a CRLF file in its stored form, without the LF view of the
//! whole file (TEXT-5, TEXT-6).
//!
//! Building a CRLF file's view copies the file and maps every CR it drops: for a large file the
//! largest cost of an Edit after the write itself, and a second copy of the file in memory. Most
//! edits need none of it. A needle without CR occurs in the view exactly where its CRLF form
//! occurs in the stored text, as long as every line break the needle could meet is a CRLF
//! ([`Document::find_stored`] says why); the engine and the patch then need only the few lines
//! around the hits (a [`Window`]), the writer the hits' stored offsets, and the read state a
//! hash of the view, which can be taken from the stored bytes.

use super::{utf16, Document, LfView, Replacement};
use std::borrow::Cow;

/// Whole lines of a document's LF view around some of its text, and where they sit.
#[derive(Debug, Clone)]
pub struct Window {
    /// The LF view of the lines.
    pub text: String,
    /// The 0-based line of the document the window starts at.
    pub first_line: usize,
    /// Where the window starts, in stored offsets.
    stored_start: usize,
    /// The window's own map from its view back to its stored text.
    map: LfView,
    /// Whether stored offsets are bytes of UTF-16 (two per unit) rather than of the text.
    utf16: bool,
}

impl Window {
    /// Maps offsets of the window's text, ascending, to stored offsets of the document. A span
    /// maps to a span holding the CR of every CRLF whose LF it holds, and no other CR.
    pub fn to_stored(&self, offsets: impl IntoIterator<Item = usize>) -> Vec<usize> {
        // UTF-16 offsets count the units of the text before them, read once from the start.
        let (mut text_at, mut units) = (0, 0);
        offsets
            .into_iter()
            .map(|offset| {
                if !self.utf16 {
                    return self.stored_start + self.map.to_stored(offset);
                }
                if offset >= text_at {
                    units += self.text[text_at..offset].encode_utf16().count();
                } else {
                    units = self.text[..offset].encode_utf16().count();
                }
                text_at = offset;
                self.stored_start + 2 * units
            })
            .collect()
    }
}

impl Document<'_> {
    /// The text after the BOM, as stored: UTF-8, or the bytes of a UTF-16 file answered from
    /// them.
    pub(super) fn raw(&self) -> &[u8] {
        match self.utf16 {
            Some(_) => &self.bytes[self.encoding.bom().len()..],
            None => self.stored().as_bytes(),
        }
    }

    /// The stored spans of every place `needle` (LF form, as matching takes it) occurs in the
    /// LF view, leftmost first and not overlapping — when the stored text can tell without the
    /// view; `None` when it cannot, or need not: a text without CR is its own view (unless it
    /// is UTF-16, whose view is a decoding), a view already built is searched as it is.
    ///
    /// Why the answer is the view's. The view is the stored text without the CR of each CRLF.
    /// Let the needle have no CR, and let its stored form be the needle with each LF written
    /// CRLF. If the needle has no LF, a hit is a run of characters none of them a line break,
    /// the same bytes in both texts (a dropped CR always sits just before an LF). If it has
    /// LFs, every break of the text must be a CRLF: then each LF of a view hit is a CRLF of
    /// the stored text and no other CR was dropped inside it; conversely a stored hit holds
    /// no lone CR and neither starts nor ends between a CR and its LF (it starts with a
    /// character other than LF or with a whole CRLF, and ends with one other than CR or with
    /// a whole CRLF), so it is a view hit. The map between the texts keeps order, so the
    /// leftmost non-overlapping hits are the same ones. A UTF-16 file answered from its bytes
    /// has no CR at all (its view is its text), and a needle matches its units exactly where
    /// it matches its characters.
    pub fn find_stored(&self, needle: &str) -> Option<Vec<(usize, usize)>> {
        if needle.is_empty() || needle.contains('\r') {
            return None;
        }
        if self.utf16.is_some() {
            // UTF-16 can encode every character: nothing to refuse.
            let mut units = Vec::with_capacity(2 * needle.len());
            self.encoding.encode_into(needle, &mut units).ok()?;
            return Some(utf16::find(self.raw(), &units));
        }
        if !self.has_cr || self.lf.get().is_some() {
            return None;
        }
        let form: Cow<'_, str> = if needle.contains('\n') {
            if self.eol_counts().lf > 0 {
                return None;
            }
            Cow::Owned(needle.replace('\n', "\r\n"))
        } else {
            Cow::Borrowed(needle)
        };
        let len = form.len();
        Some(
            memchr::memmem::find_iter(self.stored().as_bytes(), form.as_bytes())
                .map(|s| (s, s + len))
                .collect(),
        )
    }

    /// The window of the lines that hold the stored offsets `from..to`, with up to `before`
    /// whole lines before them and `after` after. `from` and `to` must be stored offsets of
    /// character boundaries, as the spans of [`Document::find_stored`] are.
    pub fn window(&self, from: usize, to: usize, before: usize, after: usize) -> Window {
        let raw = self.raw();
        let big_endian = self.utf16.unwrap_or(false);
        let (line_start, line_end, unit) = match self.utf16 {
            Some(_) => (
                utf16::line_start as fn(&[u8], usize, bool) -> usize,
                utf16::line_end as fn(&[u8], usize, bool) -> usize,
                2,
            ),
            None => (
                utf8_line_start as fn(&[u8], usize, bool) -> usize,
                utf8_line_end as fn(&[u8], usize, bool) -> usize,
                1,
            ),
        };
        let mut start = line_start(raw, from, big_endian);
        for _ in 0..before {
            if start == 0 {
                break;
            }
            start = line_start(raw, start - unit, big_endian);
        }
        let mut end = line_end(raw, to, big_endian);
        for _ in 0..after {
            if end >= raw.len() {
                break;
            }
            end = line_end(raw, end, big_endian);
        }
        let (text, first_line) = match self.utf16 {
            Some(_) => (
                utf16::decode(&raw[start..end], big_endian),
                utf16::lines_before(raw, start, big_endian),
            ),
            None => (
                self.stored()[start..end].to_string(),
                memchr::memchr_iter(b'\n', &raw[..start]).count(),
            ),
        };
        let map = LfView::new(&text);
        Window {
            text: map.view(&text).to_string(),
            first_line,
            stored_start: start,
            map,
            utf16: self.utf16.is_some(),
        }
    }

    /// [`Document::render`] of replacements whose offsets are stored offsets (as
    /// [`Window::to_stored`] gives them) rather than offsets of the view.
    pub fn render_stored(
        &self,
        replacements: &[Replacement],
    ) -> Result<Vec<super::Chunk<'_>>, super::Unrepresentable> {
        if self.utf16.is_none() {
            return self.render_mapped(replacements, |offset| offset);
        }
        // UTF-16 from its bytes: untouched units are the file's own, each new text encoded
        // (every character has a UTF-16 form, and the file has no CR: its breaks are LF).
        let bom = self.encoding.bom().len();
        let mut chunks = Vec::new();
        super::push_untouched(&mut chunks, &self.bytes[..bom]);
        let mut at = 0;
        for rep in replacements {
            super::push_untouched(&mut chunks, &self.bytes[bom + at..bom + rep.start]);
            super::append_new(&mut chunks, |out| self.encoding.encode_into(&rep.text, out))
                .map_err(super::Unrepresentable)?;
            at = rep.end;
        }
        super::push_untouched(&mut chunks, &self.bytes[bom + at..]);
        Ok(chunks)
    }
}

/// Where the line of the UTF-8 text `raw` that holds byte `at` starts.
fn utf8_line_start(raw: &[u8], at: usize, _: bool) -> usize {
    memchr::memrchr(b'\n', &raw[..at]).map_or(0, |i| i + 1)
}

/// Where the line of the UTF-8 text `raw` that holds byte `at` ends (after its LF).
fn utf8_line_end(raw: &[u8], at: usize, _: bool) -> usize {
    memchr::memchr(b'\n', &raw[at..]).map_or(raw.len(), |i| at + i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{concat, Fingerprint};

    /// TEXT-5: the stored search answers only where its hits are the view's, and then with
    /// the view's hits; nothing builds the view of the whole file.
    #[test]
    fn text_5_stored_hits_are_the_views_or_none() {
        let doc = Document::decode(b"one\r\ntwo\r\r\nthree\r\ntwo\r\n").unwrap();
        assert_eq!(doc.find_stored("two"), Some(vec![(5, 8), (18, 21)]));
        // The view has "o\r\nth" (a lone CR before the break), not "o\nth".
        assert_eq!(doc.find_stored("o\nth"), Some(vec![]));
        assert_eq!(doc.find_stored("e\ntwo"), Some(vec![(2, 8), (15, 21)]));
        assert_eq!(
            doc.find_stored("\nt"),
            Some(vec![(3, 6), (9, 12), (16, 19)])
        );
        assert_eq!(doc.find_stored("two\r"), None, "a needle with a CR");
        assert_eq!(doc.find_stored(""), None);
        assert_eq!(doc.find_stored("four"), Some(vec![]));
        assert!(doc.lf.get().is_none());
        // An LF-only break: a needle with a break may meet it; one without may not.
        let mixed = Document::decode(b"a\r\nb\nc\r\n").unwrap();
        assert_eq!(mixed.find_stored("b\nc"), None);
        assert_eq!(mixed.find_stored("c"), Some(vec![(5, 6)]));
        // No CR at all: the text is its own view.
        assert_eq!(Document::decode(b"a\nb").unwrap().find_stored("a"), None);
        // Once the view is built, it is searched instead.
        let built = Document::decode(b"a\r\nb\r\n").unwrap();
        let _ = built.view();
        assert_eq!(built.find_stored("a"), None);
    }

    /// A window holds the lines asked for, numbered from the file's start, and maps its
    /// offsets back to the stored text's.
    #[test]
    fn windows_hold_whole_lines_and_map_back() {
        let stored = "l0\r\nl1\r\nl2 x\r\nl3\rx\r\nl4\r\nl5";
        let doc = Document::decode(stored.as_bytes()).unwrap();
        let x = stored.find('x').unwrap();
        let w = doc.window(x, x + 1, 1, 1);
        assert_eq!(w.text, "l1\nl2 x\nl3\rx\n");
        assert_eq!(w.first_line, 1);
        assert_eq!(
            w.to_stored([0, w.text.find('x').unwrap(), w.text.len()]),
            [4, x, stored.find("l4").unwrap()]
        );
        // At the edges, fewer lines than asked.
        let all = doc.window(0, stored.len(), 9, 9);
        assert_eq!(all.text, stored.replace("\r\n", "\n"));
        assert_eq!(
            (all.first_line, all.to_stored([all.text.len()])),
            (0, vec![stored.len()])
        );
        assert!(doc.lf.get().is_none());
    }

    /// The UTF-16 text of `s` with its BOM, big endian or not.
    fn utf16(s: &str, big_endian: bool) -> Vec<u8> {
        let encoding = if big_endian {
            crate::text::TextEncoding::Utf16Be
        } else {
            crate::text::TextEncoding::Utf16Le
        };
        let mut out = encoding.bom().to_vec();
        let _ = encoding.encode_into(s, &mut out);
        out
    }

    /// TEXT-1, TEXT-3: a UTF-16 file without CR, NUL or surrogates is searched, windowed,
    /// rendered and hashed from its bytes — byte offsets after the BOM, two per unit — and
    /// decoded only in its windows. A match that straddles two units is none, and does not
    /// hide one that overlaps it.
    #[test]
    fn utf16_files_answer_from_their_bytes() {
        for big_endian in [false, true] {
            // "\u{0A61}" is a unit whose one byte is that of LF; "ਊ" (U+0A0A) is two of them.
            let text = "l0\nl1 \u{0A61}x\nਊl2 x\n\nl4 x";
            let bytes = utf16(text, big_endian);
            let doc = Document::decode(&bytes).unwrap();
            let at = |s: &str| 2 * text[..text.find(s).unwrap()].encode_utf16().count();
            let x = [at("x\nਊ"), at("x\n\n")];
            assert_eq!(doc.find_stored("x\n"), Some(x.map(|b| (b, b + 4)).to_vec()));
            assert_eq!(
                doc.find_stored("l"),
                Some([0, 6, 20, 32].map(|b| (b, b + 2)).to_vec())
            );
            assert_eq!(doc.find_stored("nothing"), Some(vec![]));
            assert_eq!(doc.find_stored("a\rb"), None);
            let w = doc.window(at("l2"), at("l2") + 2, 1, 1);
            assert_eq!(w.text, "l1 \u{0A61}x\nਊl2 x\n\n");
            assert_eq!(w.first_line, 1);
            let l2 = w.text.find("l2").unwrap();
            assert_eq!(
                w.to_stored([0, l2, w.text.len()]),
                [at("l1"), at("l2"), at("l4")]
            );
            let edge = doc.window(at("l4 x"), 2 * text.encode_utf16().count(), 0, 3);
            assert_eq!((edge.text.as_str(), edge.first_line), ("l4 x", 4));
            assert!(doc.stored.get().is_none(), "nothing decoded whole");
            let rep = |start, end, text: &str| Replacement {
                start,
                end,
                text: text.to_string(),
            };
            let reps = [
                rep(at("l1"), at("l1") + 4, "L1\nL1"),
                rep(at("l4"), at("l4") + 2, ""),
            ];
            let render = concat(&doc.render_stored(&reps).unwrap());
            let want = "l0\nL1\nL1 \u{0A61}x\nਊl2 x\n\n4 x";
            assert_eq!(render, utf16(want, big_endian));
            assert_eq!(doc.fingerprint_after_stored(&reps), Fingerprint::of(want));
            assert_eq!(doc.fingerprint(), Fingerprint::of(text));
            assert!(doc.stored.get().is_none(), "nothing decoded whole");
            assert_eq!(doc.view(), text);
        }
        // A CR, NUL or surrogate: decoded whole, as before.
        for text in ["a\r\nb", "a\u{10000}b"] {
            let bytes = utf16(text, false);
            let doc = Document::decode(&bytes).unwrap();
            assert!(
                doc.utf16.is_none() && doc.stored.get().is_some(),
                "{text:?}"
            );
        }
        assert!(Document::decode(&utf16("a\0b", false)).is_err());
    }

    /// TEXT-6, EDIT-4: rendering and the fingerprint after, given stored offsets, are those
    /// of the same replacements given in view offsets, and build no view.
    #[test]
    fn stored_offsets_render_and_hash_as_view_offsets_do() {
        let bytes = b"\xEF\xBB\xBFa\r\nb\rc\r\nd\n";
        let rep = |start, end, text: &str| Replacement {
            start,
            end,
            text: text.to_string(),
        };
        let doc = Document::decode(bytes).unwrap();
        let stored = [rep(0, 1, "A\nA"), rep(4, 8, "")];
        let render = concat(&doc.render_stored(&stored).unwrap());
        let fingerprint = doc.fingerprint_after_stored(&stored);
        assert!(doc.lf.get().is_none());
        assert_eq!(render, b"\xEF\xBB\xBFA\r\nA\r\nbd\n");
        let view_doc = Document::decode(bytes).unwrap();
        assert_eq!(view_doc.view(), "a\nb\rc\nd\n");
        let view = [rep(0, 1, "A\nA"), rep(3, 6, "")];
        assert_eq!(concat(&view_doc.render(&view).unwrap()), render);
        assert_eq!(view_doc.fingerprint_after(&view), fingerprint);
        assert_eq!(fingerprint, Fingerprint::of("A\nA\nbd\n"));
        assert_eq!(doc.fingerprint(), Fingerprint::of("a\nb\rc\nd\n"));
    }
}
