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

use super::{Document, LfView, Replacement};
use std::borrow::Cow;

/// Whole lines of a document's LF view around some of its text, and where they sit.
#[derive(Debug, Clone)]
pub struct Window {
    /// The LF view of the lines.
    pub text: String,
    /// The 0-based line of the document the window starts at.
    pub first_line: usize,
    /// Where the window starts in the stored text.
    stored_start: usize,
    /// The window's own map from its view back to its stored bytes.
    map: LfView,
}

impl Window {
    /// Maps an offset of the window's text to an offset of the document's stored text. A span
    /// maps to a span holding the CR of every CRLF whose LF it holds, and no other CR.
    pub fn to_stored(&self, offset: usize) -> usize {
        self.stored_start + self.map.to_stored(offset)
    }
}

impl Document<'_> {
    /// The stored spans of every place `needle` (LF form, as matching takes it) occurs in the
    /// LF view, leftmost first and not overlapping — when the stored text can tell without the
    /// view; `None` when it cannot, or need not: a text without CR is its own view, a view
    /// already built is searched as it is.
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
    /// leftmost non-overlapping hits are the same ones.
    pub fn find_stored(&self, needle: &str) -> Option<Vec<(usize, usize)>> {
        if !self.has_cr || self.lf.get().is_some() || needle.is_empty() || needle.contains('\r') {
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
            memchr::memmem::find_iter(self.stored.as_bytes(), form.as_bytes())
                .map(|s| (s, s + len))
                .collect(),
        )
    }

    /// The window of the lines that hold the stored offsets `from..to`, with up to `before`
    /// whole lines before them and `after` after. `from` and `to` must be character
    /// boundaries of the stored text, as the spans of [`Document::find_stored`] are.
    pub fn window(&self, from: usize, to: usize, before: usize, after: usize) -> Window {
        let stored = self.stored.as_bytes();
        let mut start = memchr::memrchr(b'\n', &stored[..from]).map_or(0, |i| i + 1);
        for _ in 0..before {
            if start == 0 {
                break;
            }
            start = memchr::memrchr(b'\n', &stored[..start - 1]).map_or(0, |i| i + 1);
        }
        let line_end =
            |at: usize| memchr::memchr(b'\n', &stored[at..]).map_or(stored.len(), |i| at + i + 1);
        let mut end = line_end(to);
        for _ in 0..after {
            if end >= stored.len() {
                break;
            }
            end = line_end(end);
        }
        let slice = &self.stored[start..end];
        let map = LfView::new(slice);
        Window {
            text: map.view(slice).to_string(),
            first_line: memchr::memchr_iter(b'\n', &stored[..start]).count(),
            stored_start: start,
            map,
        }
    }

    /// [`Document::render`] of replacements whose offsets are offsets of the stored text (as
    /// [`Window::to_stored`] gives them) rather than of the view.
    pub fn render_stored(
        &self,
        replacements: &[Replacement],
    ) -> Result<Vec<super::Chunk<'_>>, super::Unrepresentable> {
        self.render_mapped(replacements, |offset| offset)
    }
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
        assert_eq!(w.to_stored(0), 4);
        assert_eq!(w.to_stored(w.text.find('x').unwrap()), x);
        assert_eq!(w.to_stored(w.text.len()), stored.find("l4").unwrap());
        // At the edges, fewer lines than asked.
        let all = doc.window(0, stored.len(), 9, 9);
        assert_eq!(all.text, stored.replace("\r\n", "\n"));
        assert_eq!(
            (all.first_line, all.to_stored(all.text.len())),
            (0, stored.len())
        );
        assert!(doc.lf.get().is_none());
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
