//! The piece table behind the engine: the current text as pieces of the original and of
//! inserted text, so that any number of successive replacements ends as a list of replaced
//! spans of the original (TEXT-6). [`Splicer`] offers it to the dialects that apply changes
//! one after another.

use crate::text::Replacement;
use std::borrow::Cow;

/// Successive replacements of a text, each addressed in the text as the ones before left it,
/// turned at the end into replaced spans of the original (what `Document::render` takes).
///
/// The dialects that apply their changes one after another to the current text (a reply's
/// SEARCH/REPLACE blocks) use it, so that bytes outside every replaced span stay the
/// original's, exactly as for an Edit (TEXT-6).
pub struct Splicer<'a> {
    pieces: Pieces<'a>,
}

impl<'a> Splicer<'a> {
    /// Starts from `original` (a document's LF view).
    pub fn new(original: &'a str) -> Splicer<'a> {
        Splicer {
            pieces: Pieces::new(original),
        }
    }

    /// The current text.
    pub fn text(&self) -> Cow<'a, str> {
        self.pieces.text()
    }

    /// Replaces `[start, end)` of the current text with `text`. `None` (and nothing changed)
    /// when the span is not inside the text or not on character boundaries.
    pub fn replace(&mut self, start: usize, end: usize, text: String) -> Option<()> {
        let current = self.pieces.text();
        if start > end || !current.is_char_boundary(start) || !current.is_char_boundary(end) {
            return None;
        }
        self.pieces.splice(vec![(start, end, text)]);
        Some(())
    }

    /// The replaced spans of the original that give the current text.
    pub fn into_replacements(self) -> Vec<Replacement> {
        self.pieces.into_replacements()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Original(usize, usize),
    New(String),
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Original(s, e) => e - s,
            Piece::New(t) => t.len(),
        }
    }
}

/// The current text: pieces of the original and of inserted text.
pub(super) struct Pieces<'a> {
    original: &'a str,
    pieces: Vec<Piece>,
    starts: Vec<usize>,
}

impl<'a> Pieces<'a> {
    pub(super) fn new(original: &'a str) -> Pieces<'a> {
        let mut p = Pieces {
            original,
            pieces: vec![Piece::Original(0, original.len())],
            starts: Vec::new(),
        };
        p.reindex();
        p
    }

    fn reindex(&mut self) {
        self.starts.clear();
        let mut at = 0;
        for piece in &self.pieces {
            self.starts.push(at);
            at += piece.len();
        }
    }

    /// The current text; borrowed while nothing has been replaced.
    pub(super) fn text(&self) -> Cow<'a, str> {
        match self.pieces.as_slice() {
            [Piece::Original(0, e)] if *e == self.original.len() => Cow::Borrowed(self.original),
            pieces => {
                let mut out = String::new();
                for piece in pieces {
                    match piece {
                        Piece::Original(s, e) => out.push_str(&self.original[*s..*e]),
                        Piece::New(t) => out.push_str(t),
                    }
                }
                Cow::Owned(out)
            }
        }
    }

    /// Appends the pieces covering `[from, to)` of the current text to `out`.
    fn copy_range(&self, from: usize, to: usize, out: &mut Vec<Piece>) {
        if from >= to {
            return;
        }
        let mut i = self
            .starts
            .partition_point(|&s| s <= from)
            .saturating_sub(1);
        while i < self.pieces.len() && self.starts[i] < to {
            let ps = self.starts[i];
            let a = from.max(ps) - ps;
            let b = to.min(ps + self.pieces[i].len()) - ps;
            if a < b {
                push_piece(
                    out,
                    match &self.pieces[i] {
                        Piece::Original(s, _) => Piece::Original(s + a, s + b),
                        Piece::New(t) => Piece::New(t[a..b].to_string()),
                    },
                );
            }
            i += 1;
        }
    }

    /// Replaces sorted, disjoint spans of the current text (their texts are moved in).
    pub(super) fn splice(&mut self, spans: Vec<(usize, usize, String)>) {
        let total: usize = self.pieces.iter().map(Piece::len).sum();
        let mut out = Vec::with_capacity(self.pieces.len() + 2 * spans.len());
        let mut at = 0;
        for (s, e, text) in spans {
            self.copy_range(at, s, &mut out);
            if !text.is_empty() {
                push_piece(&mut out, Piece::New(text));
            }
            at = e;
        }
        self.copy_range(at, total, &mut out);
        self.pieces = out;
        self.reindex();
    }

    /// The replaced spans of the original that turn it into the current text (the inserted
    /// texts are moved out, not copied: a replace_all can have 100,000 of them).
    pub(super) fn into_replacements(self) -> Vec<Replacement> {
        let mut out = Vec::new();
        let mut cursor = 0;
        let mut pending = String::new();
        for piece in self.pieces {
            match piece {
                Piece::New(t) if pending.is_empty() => pending = t,
                Piece::New(t) => pending.push_str(&t),
                Piece::Original(s, e) => {
                    if s != cursor || !pending.is_empty() {
                        out.push(Replacement {
                            start: cursor,
                            end: s,
                            text: std::mem::take(&mut pending),
                        });
                    }
                    cursor = e;
                }
            }
        }
        if cursor != self.original.len() || !pending.is_empty() {
            out.push(Replacement {
                start: cursor,
                end: self.original.len(),
                text: pending,
            });
        }
        out
    }
}

/// The replacements a single splice of the original gives, made straight from its spans:
/// what `Pieces::new(original)`, `splice(spans)` and `into_replacements()` return, without the
/// piece table — two pieces and an index entry per span, which for a replace_all of a million
/// hits is more memory than the file. As there, spans with no original text between them
/// become one replacement, and one that replaces nothing with nothing disappears.
pub(super) fn replacements_of(spans: Vec<(usize, usize, String)>) -> Vec<Replacement> {
    let mut out: Vec<Replacement> = Vec::with_capacity(spans.len());
    for (start, end, text) in spans {
        match out.last_mut() {
            Some(last) if last.end == start => {
                last.end = end;
                if last.text.is_empty() {
                    last.text = text;
                } else {
                    last.text.push_str(&text);
                }
            }
            _ => out.push(Replacement { start, end, text }),
        }
    }
    out.retain(|r| r.start != r.end || !r.text.is_empty());
    out
}

fn push_piece(out: &mut Vec<Piece>, piece: Piece) {
    match (out.last_mut(), piece) {
        (Some(Piece::Original(_, e)), Piece::Original(s2, e2)) if *e == s2 => *e = e2,
        (Some(Piece::New(t)), Piece::New(t2)) => t.push_str(&t2),
        (_, piece) => out.push(piece),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the piece table makes of one splice of the original.
    fn through_pieces(original: &str, spans: &[(usize, usize, String)]) -> Vec<Replacement> {
        let mut p = Pieces::new(original);
        p.splice(spans.to_vec());
        p.into_replacements()
    }

    #[test]
    fn text_6_one_splice_gives_the_same_replacements_without_pieces() {
        let original = "0123456789";
        let s = |a: usize, b: usize, t: &str| (a, b, t.to_string());
        for spans in [
            vec![],
            vec![s(2, 4, "x")],
            vec![s(0, 1, ""), s(1, 3, "y")],
            vec![s(0, 0, "")],
            vec![s(3, 3, ""), s(5, 6, "z")],
            vec![s(3, 3, "ins")],
            vec![s(2, 4, "x"), s(4, 4, ""), s(4, 6, "y")],
            vec![s(2, 4, ""), s(4, 7, "")],
            vec![s(0, 10, "all")],
            vec![s(0, 2, "a"), s(5, 7, "b"), s(7, 10, "")],
            vec![s(9, 10, "")],
            vec![s(10, 10, "end")],
        ] {
            assert_eq!(
                replacements_of(spans.clone()),
                through_pieces(original, &spans),
                "{spans:?}"
            );
        }
    }

    /// The text is the original itself, not a copy, until something is replaced: a dialect
    /// that asks for the text of a large file before its first change does not copy it.
    #[test]
    fn the_text_is_borrowed_until_something_is_replaced() {
        let mut splicer = Splicer::new("alpha\n");
        assert!(matches!(splicer.text(), Cow::Borrowed("alpha\n")));
        splicer.replace(0, 5, "beta".to_string()).unwrap();
        assert!(matches!(splicer.text(), Cow::Owned(t) if t == "beta\n"));
    }

    /// TEXT-6: after each replacement the splicer's text is the text a plain `String` gets
    /// from the same replacements, and its replacements turn the original into that text —
    /// a cut of the end (one piece of the original, shorter than it) and of the start included.
    #[test]
    fn text_6_the_splicer_text_is_the_text_after_each_replacement() {
        let original = "alpha\nbeta\ngamma\n";
        for steps in [
            vec![(11, 17, "")],
            vec![(0, 6, "")],
            vec![(6, 10, "BETA"), (0, 0, ">"), (16, 18, "")],
            vec![(0, 17, ""), (0, 0, "new")],
            vec![(5, 5, "")],
        ] {
            let mut splicer = Splicer::new(original);
            let mut model = original.to_string();
            assert_eq!(splicer.text(), model);
            for &(start, end, text) in &steps {
                splicer.replace(start, end, text.to_string()).unwrap();
                model.replace_range(start..end, text);
                assert_eq!(splicer.text(), model, "{steps:?}");
            }
            let mut rendered = original.to_string();
            for r in splicer.into_replacements().iter().rev() {
                rendered.replace_range(r.start..r.end, &r.text);
            }
            assert_eq!(rendered, model, "{steps:?}");
        }
        // A span outside the text, or not on a character boundary, changes nothing.
        let mut splicer = Splicer::new("é");
        assert_eq!(splicer.replace(0, 1, String::new()), None);
        assert_eq!(splicer.replace(0, 3, String::new()), None);
        assert_eq!(splicer.text(), "é");
        // Nor does a span that ends before it starts, its ends on boundaries.
        let mut splicer = Splicer::new("alpha");
        assert_eq!(splicer.replace(3, 1, "x".to_string()), None);
        assert_eq!(splicer.text(), "alpha");
        assert!(splicer.into_replacements().is_empty());
    }
}
