//! The fingerprint of the text a file will have after replacements, taken without writing or
//! re-reading it (EDIT-4: what a write leaves is what the session remembers as read).
//!
//! The file's LF view after an edit is the old view with the replacements put in — with one
//! exception: a CR and an LF that a replacement brings side by side (a new text ending in a
//! lone CR before a break, a deletion between the two, an inserted break after a lone CR) may
//! become one CRLF in the new bytes, which the next Read sees as a single LF. Where a seam can
//! do that, the fingerprint is taken from the rendered bytes, decoded as Read will decode them.

use super::{concat, utf16, Chunk, Document, Fingerprint, Replacement, Unrepresentable};
use xxhash_rust::xxh3::Xxh3;

impl Document<'_> {
    /// The fingerprint the LF view will have after `replacements` (offsets of the view),
    /// without building the new text.
    pub fn fingerprint_after(&self, replacements: &[Replacement]) -> Fingerprint {
        let view = self.view().as_bytes();
        if cr_may_meet_lf(view, replacements) {
            if let Some(f) = rendered(self.render(replacements)) {
                return f;
            }
        }
        hash_after(view, replacements, |hasher, piece| {
            hasher.update(piece);
            piece.len() as u64
        })
    }

    /// [`Document::fingerprint_after`] of replacements whose offsets are offsets of the stored
    /// text (`Window::to_stored`), without the view: the view's bytes are hashed straight from
    /// the stored text, the CR of each CRLF left out (no replacement begins or ends inside a
    /// CRLF).
    pub fn fingerprint_after_stored(&self, replacements: &[Replacement]) -> Fingerprint {
        let stored = self.raw();
        // A UTF-16 file answered from its bytes has no CR: only a new text can bring one.
        let may_meet = match self.utf16 {
            Some(_) => replacements.iter().any(|r| r.text.contains('\r')),
            None => cr_may_meet_lf(stored, replacements),
        };
        if may_meet {
            if let Some(f) = rendered(self.render_stored(replacements)) {
                return f;
            }
        }
        hash_after(stored, replacements, |hasher, piece| match self.utf16 {
            Some(big_endian) => utf16::hash_text(hasher, piece, big_endian),
            None => hash_as_view(hasher, piece),
        })
    }
}

/// The fingerprint of `text` with `replacements` put in: each untouched piece fed to the
/// hasher by `hash_piece` (which returns the view bytes it fed), each new text as it is.
fn hash_after(
    text: &[u8],
    replacements: &[Replacement],
    hash_piece: impl Fn(&mut Xxh3, &[u8]) -> u64,
) -> Fingerprint {
    let mut hasher = Xxh3::new();
    let mut len = 0u64;
    let mut last = 0;
    for rep in replacements {
        len += hash_piece(&mut hasher, &text[last..rep.start]);
        hasher.update(rep.text.as_bytes());
        len += rep.text.len() as u64;
        last = rep.end;
    }
    len += hash_piece(&mut hasher, &text[last..]);
    Fingerprint {
        hash: hasher.digest128(),
        len,
    }
}

/// Whether, in `text` with `replacements` put in, some piece that ends with a CR is followed by
/// a piece that starts with an LF, where at least one of the two is new text or a deletion lies
/// between them — the only places the new bytes can hold a CRLF the pieces did not. Inserted
/// text never holds a CRLF of its own (TEXT-5), and an untouched piece keeps its pairs.
fn cr_may_meet_lf(text: &[u8], replacements: &[Replacement]) -> bool {
    // The last byte of the pieces so far (none before the first piece).
    let mut before: Option<u8> = None;
    let mut meets = |piece: &[u8]| {
        let met = before == Some(b'\r') && piece.first() == Some(&b'\n');
        if let Some(&b) = piece.last() {
            before = Some(b);
        }
        met
    };
    let mut last = 0;
    for rep in replacements {
        if meets(&text[last..rep.start]) || meets(rep.text.as_bytes()) {
            return true;
        }
        last = rep.end;
    }
    meets(&text[last..])
}

/// The fingerprint of rendered bytes as Read will see them, or `None` when there are none
/// (the text cannot be encoded, or the new bytes no longer decode as text).
fn rendered(chunks: Result<Vec<Chunk<'_>>, Unrepresentable>) -> Option<Fingerprint> {
    let bytes = concat(&chunks.ok()?);
    Some(Document::decode(&bytes).ok()?.fingerprint())
}

/// Feeds the LF view of `stored` (a piece of a stored text that splits no CRLF) to `hasher`;
/// returns the view's length.
fn hash_as_view(hasher: &mut Xxh3, stored: &[u8]) -> u64 {
    let mut from = 0;
    let mut len = 0;
    for cr in memchr::memchr_iter(b'\r', stored) {
        if stored.get(cr + 1) == Some(&b'\n') {
            hasher.update(&stored[from..cr]);
            len += cr - from;
            from = cr + 1;
        }
    }
    hasher.update(&stored[from..]);
    len += stored.len() - from;
    len as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(start: usize, end: usize, text: &str) -> Replacement {
        Replacement {
            start,
            end,
            text: text.to_string(),
        }
    }

    /// EDIT-4: where a replacement brings a lone CR and an LF together, the fingerprint is of
    /// the text Read will see — one break there — in view and in stored offsets alike.
    #[test]
    fn edit_4_a_cr_brought_before_an_lf_is_one_break() {
        // "a\rb\nc": deleting "b" leaves "a\r\nc", which Read sees as "a\nc".
        let doc = Document::decode(b"a\rb\nc").unwrap();
        assert_eq!(
            doc.fingerprint_after(&[rep(2, 3, "")]),
            Fingerprint::of("a\nc")
        );
        // A new text ending in CR before a break, and a break inserted after a lone CR.
        assert_eq!(
            doc.fingerprint_after(&[rep(2, 3, "x\r")]),
            Fingerprint::of("a\rx\nc")
        );
        assert_eq!(
            doc.fingerprint_after(&[rep(2, 2, "\n")]),
            Fingerprint::of("a\nb\nc")
        );
        // Pieces that do not meet keep the strings' text.
        assert_eq!(
            doc.fingerprint_after(&[rep(4, 5, "\r")]),
            Fingerprint::of("a\rb\n\r")
        );
        // The same through stored offsets, in a file of CRLF breaks and one LF-only break.
        let crlf = Document::decode(b"a\rb\nc\r\nd\r\n").unwrap();
        assert_eq!(
            crlf.fingerprint_after_stored(&[rep(2, 3, "")]),
            Fingerprint::of("a\nc\nd\n")
        );
        // A CR brought before the CR of a CRLF stays a CR.
        let b = Document::decode(b"a\rb\r\nc\r\n").unwrap();
        assert_eq!(
            b.fingerprint_after_stored(&[rep(2, 3, "")]),
            Fingerprint::of("a\r\nc\n")
        );
        assert_eq!(
            b.fingerprint_after_stored(&[rep(5, 6, "x")]),
            Fingerprint::of("a\rb\nx\n")
        );
    }
}
