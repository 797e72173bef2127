//! The input of `edit_vs_model`: a file made of hard parts and the edits to make in it, with
//! the byte framing that lets seeds be written from the corpus and regression files keep their
//! meaning.

use crate::framing::{self, Writer};
use crate::hard_parts::{expand, span, FileForm, Perturb};
use crate::model::ModelEdit;
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
/// Framing: a flags byte (bit 0 `replace_all`; bits 1–4 the kind: 14 given text expanded, 15
/// given text verbatim, else a drawn span perturbed as [`Perturb`]'s variants in order, the kind
/// modulo 6 — so seven in eight edits draw from the file); for a span its start (u16) and length
/// (byte), for given text the text; then `new_string`'s text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditSpec {
    /// `replace_all`.
    pub replace_all: bool,
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
        let old = if kind < 14 {
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
            old,
            new: framing::text(u)?,
        })
    }
}

impl EditSpec {
    pub(crate) fn write(&self, w: &mut Writer) -> Option<()> {
        let kind = match &self.old {
            OldString::Drawn { how, .. } => DRAWN.iter().position(|h| h == how)? as u8,
            OldString::Given { expanded: true, .. } => 14,
            OldString::Given {
                expanded: false, ..
            } => 15,
        };
        w.byte(u8::from(self.replace_all) | kind << 1);
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

    /// The strings as the model sends them, drawn from `stored` (the file's decoded text).
    pub fn strings(&self, stored: &str) -> ModelEdit {
        let (old, new) = match &self.old {
            OldString::Given {
                text,
                expanded: false,
            } => (text.clone(), self.new.clone()),
            OldString::Given { text, .. } => (expand(text.as_bytes()), expand(self.new.as_bytes())),
            OldString::Drawn { start, len, how } => {
                let (s, e) = span(stored, *start, *len, how.grows());
                let old = how.apply(&stored[s..e]);
                let mut new = expand(self.new.as_bytes());
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
    /// normalised: that is the code's job, and the model's own).
    pub fn model_edits(&self, stored: &str) -> Vec<ModelEdit> {
        self.edits.iter().map(|e| e.strings(stored)).collect()
    }
}
