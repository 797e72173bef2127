//! The input of `edit_vs_model`: a file made of hard parts and the edits to make in it, with
//! the byte framing that lets seeds be written from the corpus and regression files keep their
//! meaning.

use crate::framing::{self, Writer};
use crate::hard_parts::{expand, span, span_avoiding, FileForm, Perturb};
use crate::model::ModelEdit;
use crate::model_codec::{self, ModelEncoding};
use arbitrary::{Arbitrary, Result, Unstructured};

/// Where an edit's `old_string` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OldString {
    /// A span of the file's stored text ([`span`]), then perturbed. `new_string` is expanded
    /// ([`expand`]) and made to differ from it.
    Drawn {
        /// Start of the span (byte offset modulo the text length).
        start: u16,
        /// Length of the span (`1 + len % 48` characters, before growing).
        len: u8,
        /// How it is changed.
        how: Perturb,
    },
    /// Given as text; `expanded` says whether stand-ins in it and in `new_string` are expanded.
    Given {
        /// The text.
        text: String,
        /// Expand stand-ins (else both strings are sent verbatim).
        expanded: bool,
    },
}

/// One Edit (or one edit of a MultiEdit).
///
/// Framing: a flags byte (bit 0 `replace_all`; bits 1–4 the kind; bits 5–7 all set make the edit
/// *unguided*), then for a span its start (u16) and length (byte), for given text the text; then
/// `new_string`'s text. Kinds 14 and 15 are given text (expanded, verbatim) in an unguided edit;
/// every other kind, and every kind of a guided edit, draws a span perturbed as [`Perturb`]'s
/// variants in order (the kind modulo 6).
///
/// A *guided* edit (seven in eight of random flags) is steered towards the byte comparison: in a
/// MultiEdit it draws from the text as the edits before it left it, and characters of its
/// `new_string` that the file's encoding cannot hold become `?`. An unguided edit draws from the
/// file as it was, keeps such characters (so `encoding` refusals stay reachable), and may send
/// given text, which rarely occurs in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditSpec {
    /// `replace_all`.
    pub replace_all: bool,
    /// Steered towards a successful edit (see the framing).
    pub guided: bool,
    /// Where `old_string` comes from.
    pub old: OldString,
    /// `new_string` before expansion.
    pub new: String,
}

const DRAWN: [Perturb; 6] = [
    Perturb::Unique,
    Perturb::AsCut,
    Perturb::Curled,
    Perturb::Straightened,
    Perturb::EndingsFlipped,
    Perturb::Planted,
];

impl<'a> Arbitrary<'a> for EditSpec {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<EditSpec> {
        let flags = framing::byte(u)?;
        let kind = usize::from(flags >> 1) & 15;
        let guided = flags >> 5 != 7;
        let old = if kind < 14 || guided {
            OldString::Drawn {
                start: framing::u16_le(u)?,
                len: framing::byte(u)?,
                how: DRAWN[kind % DRAWN.len()],
            }
        } else {
            OldString::Given {
                text: framing::text(u)?,
                expanded: kind == 14,
            }
        };
        Ok(EditSpec {
            replace_all: flags & 1 == 1,
            guided,
            old,
            new: framing::text(u)?,
        })
    }
}

impl EditSpec {
    pub(crate) fn write(&self, w: &mut Writer) -> Option<()> {
        let kind = match &self.old {
            OldString::Drawn { how, .. } => DRAWN.iter().position(|h| h == how)? as u8,
            // Given text is framed only in an unguided edit.
            OldString::Given { .. } if self.guided => return None,
            OldString::Given { expanded: true, .. } => 14,
            OldString::Given {
                expanded: false, ..
            } => 15,
        };
        let unguided = if self.guided { 0 } else { 7 << 5 };
        w.byte(u8::from(self.replace_all) | kind << 1 | unguided);
        match &self.old {
            OldString::Drawn { start, len, .. } => {
                w.u16_le(*start).byte(*len);
            }
            OldString::Given { text, .. } => {
                w.text(text)?;
            }
        }
        w.text(&self.new)?;
        Some(())
    }

    /// The strings as the model sends them, drawn from `stored` (the file's decoded text, or
    /// for a later guided edit of a MultiEdit the text as the edits before left it); a guided
    /// edit's `new_string` is made to fit `encoding`.
    pub fn strings(&self, stored: &str, encoding: ModelEncoding) -> ModelEdit {
        self.strings_avoiding(stored, encoding, &[])
    }

    /// [`EditSpec::strings`], a drawn span kept out of the byte ranges `avoid` of `stored`.
    fn strings_avoiding(
        &self,
        stored: &str,
        encoding: ModelEncoding,
        avoid: &[(usize, usize)],
    ) -> ModelEdit {
        let (old, new) = match &self.old {
            OldString::Given {
                text,
                expanded: false,
            } => (text.clone(), self.new.clone()),
            OldString::Given { text, .. } => (expand(text.as_bytes()), expand(self.new.as_bytes())),
            OldString::Drawn { start, len, how } => {
                let (s, e) = span_avoiding(stored, *start, *len, how.grows(), avoid);
                let old = how.apply(&stored[s..e]);
                let mut new = expand(self.new.as_bytes());
                if self.guided {
                    new = fit(&new, encoding);
                }
                if new.replace("\r\n", "\n") == old.replace("\r\n", "\n") {
                    new.push('+');
                }
                (old, new)
            }
        };
        ModelEdit {
            old,
            new,
            replace_all: self.replace_all,
        }
    }
}

/// Input of `edit_vs_model`: a file made of hard parts and one Edit (one edit) or a MultiEdit
/// (several), whose `old_string`s are mostly drawn from the file itself.
///
/// Framing: form byte ([`FileForm`]), body blob, edit-count byte (1 edit below 0xC0, else
/// `2 + b % 15`), then each [`EditSpec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditCase {
    /// How the file bytes are made from the body.
    pub form: FileForm,
    /// The body: stand-in bytes ([`expand`]) unless the form is raw.
    pub body: Vec<u8>,
    /// The edits, applied in order.
    pub edits: Vec<EditSpec>,
}

impl<'a> Arbitrary<'a> for EditCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<EditCase> {
        let form = FileForm::read(u)?;
        let body = framing::blob(u)?;
        let b = framing::byte(u)?;
        let n = if b < 0xC0 { 1 } else { 2 + usize::from(b) % 15 };
        let edits = (0..n)
            .map(|_| EditSpec::arbitrary(u))
            .collect::<Result<_>>()?;
        Ok(EditCase { form, body, edits })
    }

    fn arbitrary_take_rest(mut u: Unstructured<'a>) -> Result<EditCase> {
        EditCase::arbitrary(&mut u)
    }
}

impl EditCase {
    /// The input bytes that decode to this case (seed writing); `None` when a field is too
    /// long for the framing or the number of edits is not 1 to 16.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut w = Writer::new();
        w.byte(self.form.tag());
        w.blob(&self.body)?;
        match self.edits.len() {
            1 => w.byte(0),
            n @ 2..=16 => w.byte(0xC0 + ((n - 2 + 15 - 0xC0 % 15) % 15) as u8),
            _ => return None,
        };
        for e in &self.edits {
            e.write(&mut w)?;
        }
        Some(w.finish())
    }

    /// The file bytes the case edits. With a planted first edit, a copy of its span follows
    /// the span in the text (raw bodies are not text and get no plant).
    pub fn file_bytes(&self) -> Vec<u8> {
        let Some(mut text) = self.form.text(&self.body) else {
            return self.body.clone();
        };
        if let Some(EditSpec {
            old:
                OldString::Drawn {
                    start,
                    len,
                    how: Perturb::Planted,
                },
            ..
        }) = self.edits.first()
        {
            let (s, e) = span(&text, *start, *len, false);
            let copy = text[s..e].to_string();
            text.insert_str(e, &copy);
        }
        self.form.encode(&text)
    }

    /// The edits as the model sends them, drawn from the file's decoded text (CRLF not
    /// normalised: that is the code's job, and the model's own). A guided edit after the first
    /// draws from the text as the edits before it left it, by plain replacement where their
    /// `old_string` occurs as sent: a guess that keeps it findable, not a model of the tool.
    pub fn model_edits(&self, stored: &str, encoding: ModelEncoding) -> Vec<ModelEdit> {
        let mut current = stored.to_string();
        // Byte ranges of `current` that earlier edits inserted, ascending and disjoint.
        let mut inserted: Vec<(usize, usize)> = Vec::new();
        let mut out: Vec<ModelEdit> = Vec::with_capacity(self.edits.len());
        for e in &self.edits {
            let m = if e.guided {
                e.strings_avoiding(&current, encoding, &inserted)
            } else {
                e.strings(stored, encoding)
            };
            // The guess follows the edits only while the text stays under a bound: replace_all
            // of a short span by a long string, edit after edit, would grow it exponentially
            // (the tool itself refuses such a MultiEdit early, by MULTI-2).
            if !m.old.is_empty() {
                let hits: Vec<usize> = current
                    .match_indices(m.old.as_str())
                    .map(|(i, _)| i)
                    .take(if m.replace_all { usize::MAX } else { 1 })
                    .collect();
                let grown = current.len() - hits.len() * m.old.len() + hits.len() * m.new.len();
                if grown <= GUESS_LIMIT {
                    (current, inserted) = replaced(&current, &inserted, &hits, m.old.len(), &m.new);
                }
            }
            out.push(m);
        }
        out
    }
}

/// The longest text [`EditCase::model_edits`] lets an edit make of its guess.
const GUESS_LIMIT: usize = 1 << 16;

/// `text` with the `removed` bytes at each of `hits` (ascending, disjoint) replaced by `new`,
/// and the inserted ranges after it: those of `ranges` that no hit touched, moved, and the new
/// text of each hit. One pass over both lists: a replace_all may have tens of thousands of hits.
fn replaced(
    text: &str,
    ranges: &[(usize, usize)],
    hits: &[usize],
    removed: usize,
    new: &str,
) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len() + hits.len() * new.len());
    let mut at = 0;
    for &h in hits {
        out.push_str(&text[at..h]);
        out.push_str(new);
        at = h + removed;
    }
    out.push_str(&text[at..]);
    // Where a byte of `text` at or after the end of the k-th hit moved to.
    let moved = |x: usize, k: usize| x - k * removed + k * new.len();
    let mut kept = Vec::with_capacity(ranges.len() + hits.len());
    let mut k = 0; // hits ending at or before the current range
    for &(a, b) in ranges {
        while k < hits.len() && hits[k] + removed <= a {
            k += 1;
        }
        if hits.get(k).is_none_or(|&h| h >= b) {
            kept.push((moved(a, k), moved(b, k)));
        }
    }
    if !new.is_empty() {
        kept.extend(hits.iter().enumerate().map(|(k, &h)| {
            let start = moved(h, k);
            (start, start + new.len())
        }));
    }
    kept.sort_unstable();
    (out, kept)
}

/// `text` with every character `encoding` cannot hold written as `?`.
fn fit(text: &str, encoding: ModelEncoding) -> String {
    if !matches!(encoding, ModelEncoding::Legacy(_)) {
        return text.to_string();
    }
    let mut buf = [0; 4];
    text.chars()
        .map(
            |c| match model_codec::encode(c.encode_utf8(&mut buf), encoding) {
                Ok(_) => c,
                Err(_) => '?',
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(start: u16, len: u8, guided: bool, new: &str) -> EditSpec {
        EditSpec {
            replace_all: false,
            guided,
            old: OldString::Drawn {
                start,
                len,
                how: Perturb::Unique,
            },
            new: new.into(),
        }
    }

    #[test]
    fn guided_edits_draw_from_the_text_the_edits_before_left_and_out_of_what_they_inserted() {
        let utf8 = ModelEncoding::Utf8 { bom: false };
        let case = EditCase {
            form: FileForm::Utf8,
            body: b"abcdefgh".to_vec(),
            edits: vec![drawn(0, 1, true, "XYZ"), drawn(0, 1, true, "Q")],
        };
        let m = case.model_edits("abcdefgh", utf8);
        assert_eq!((m[0].old.as_str(), m[0].new.as_str()), ("ab", "XYZ"));
        // "XYZcdefgh": the second draw starts past the inserted "XYZ".
        assert_eq!((m[1].old.as_str(), m[1].new.as_str()), ("cd", "Q"));
        // Unguided, the second draws from the file as it was, at the same place as the first.
        let mut unguided = case.clone();
        unguided.edits[1].guided = false;
        let m = unguided.model_edits("abcdefgh", utf8);
        assert_eq!(m[1].old, "ab");
    }

    #[test]
    fn replacing_moves_the_inserted_ranges_no_hit_touched_and_adds_each_hits_text() {
        // "ab|XY|ab|cd" with XY (2..4) and cd (6..8) inserted before; every "ab" becomes "Q".
        let (text, ranges) = replaced("abXYabcd", &[(2, 4), (6, 8)], &[0, 4], 2, "Q");
        assert_eq!(text, "QXYQcd");
        assert_eq!(ranges, vec![(0, 1), (1, 3), (3, 4), (4, 6)]);
        // A hit over an inserted range drops it; a deletion inserts nothing.
        let (text, ranges) = replaced("abXYab", &[(2, 4)], &[1], 2, "");
        assert_eq!(text, "aYab");
        assert_eq!(ranges, vec![]);
    }

    #[test]
    fn a_guided_new_string_fits_the_files_encoding_and_an_unguided_one_keeps_its_characters() {
        let cp1252 = ModelEncoding::Legacy(encoding_rs::WINDOWS_1252);
        // 0x04 stands for the euro sign (windows-1252 has it), 0x05 for an emoji (it has not).
        let guided = drawn(0, 0, true, "\u{4}\u{5}");
        assert_eq!(guided.strings("abc", cp1252).new, "\u{20AC}?");
        let unguided = drawn(0, 0, false, "\u{4}\u{5}");
        assert_eq!(unguided.strings("abc", cp1252).new, "\u{20AC}\u{1F600}");
        // UTF-8 holds everything.
        let utf8 = ModelEncoding::Utf8 { bom: false };
        assert_eq!(guided.strings("abc", utf8).new, "\u{20AC}\u{1F600}");
    }
}
