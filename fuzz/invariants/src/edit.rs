//! `edit_vs_model`: the engine against the naive model (EDIT-2, MATCH-1..5, MULTI-1..4,
//! TEXT-1..6), untouched bytes, and the inverse edit.

use crate::depth::Ending;
use crate::framing::{self, Writer};
use crate::hard_parts::{expand, span, FileForm, Perturb};
use crate::model::{self, ModelEdit, ModelReport, Outcome};
use crate::model_codec::{self, ModelEncoding, ModelRefusal};
use crate::{ensure, Check};
use arbitrary::{Arbitrary, Result, Unstructured};
use editref::engine::{self, EditRequest};
use editref::error::Code;
use editref::text::{concat, Chunk, DecodeError, Document, Replacement, TextEncoding};

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

/// The library's encoding in the model's terms.
fn model_encoding(e: TextEncoding) -> ModelEncoding {
    match e {
        TextEncoding::Utf8 { bom } => ModelEncoding::Utf8 { bom },
        TextEncoding::Utf16Le => ModelEncoding::Utf16 { big_endian: false },
        TextEncoding::Utf16Be => ModelEncoding::Utf16 { big_endian: true },
        TextEncoding::Legacy(enc) => ModelEncoding::Legacy(enc),
    }
}

/// Decodes the file twice — by the library and by the model's own codec — and checks they
/// agree (TEXT-1/7): the same encoding, or both refusing. A refusal is compared by code only
/// where the spec decides it (a BOM, or valid UTF-8); without either, whether a legacy guess is
/// found is the library's heuristic.
pub(crate) fn decode_both<'b>(
    bytes: &'b [u8],
) -> Result<Option<(Document<'b>, String, ModelEncoding)>, String> {
    let lib = Document::decode(bytes);
    let guess = match &lib {
        Ok(d) => match d.encoding() {
            TextEncoding::Legacy(e) => Some(e),
            _ => None,
        },
        Err(_) => None,
    };
    let model = model_codec::decode(bytes, guess);
    match (lib, model) {
        (Ok(doc), Ok(t)) => {
            ensure!(
                model_encoding(doc.encoding()) == t.encoding,
                "library reads {:?}, model reads {:?}",
                doc.encoding(),
                t.encoding
            );
            Ok(Some((doc, t.stored, t.encoding)))
        }
        (Err(e), Err(r)) => {
            let decided = [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"]
                .iter()
                .any(|bom| bytes.starts_with(bom))
                || std::str::from_utf8(bytes).is_ok();
            let same = matches!(
                (&e, r),
                (DecodeError::Binary, ModelRefusal::Binary)
                    | (DecodeError::Encoding(_), ModelRefusal::Encoding)
            );
            ensure!(
                !decided || same,
                "library refuses with {e:?}, model with {r:?}"
            );
            Ok(None)
        }
        (Err(e), Ok(t)) => Err(format!(
            "library refuses ({e:?}), model reads {:?}",
            t.encoding
        )),
        (Ok(doc), Err(r)) => Err(format!(
            "library reads {:?}, model refuses ({r:?})",
            doc.encoding()
        )),
    }
}

/// Where an `edit_vs_model` input ended. Only [`EditEnd::SameBytes`] is the real check: the
/// engine's bytes equal to the model's, byte for byte; the others compare less.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditEnd {
    /// The file is not text (refused by TEXT-1/7); nothing was edited.
    RefusedFile,
    /// A repair might apply, which the model does not decide.
    OutOfScope,
    /// Engine and model refused the same edit with the same code.
    SameError(Code),
    /// Both found a character the file's encoding cannot hold.
    SameUnrepresentable,
    /// The engine wrote exactly the model's bytes.
    SameBytes,
}

impl EditEnd {
    /// The ending as the depth table counts it.
    pub fn ending(self) -> Ending {
        match self {
            EditEnd::RefusedFile => Ending::shallow("refused_file"),
            EditEnd::OutOfScope => Ending::shallow("out_of_scope"),
            EditEnd::SameError(c) => Ending::shallow(format!("error:{}", c.as_str())),
            EditEnd::SameUnrepresentable => Ending::shallow("unrepresentable"),
            EditEnd::SameBytes => Ending::deep("bytes_compared"),
        }
    }
}

/// Runs the case through `engine::apply` + `Document::render` and through the naive model and
/// compares: the same bytes, or the same error code (and for `ambiguous` the same count and
/// lines); the same per-edit reports. Then checks that every byte outside the replaced spans is
/// an untouched original byte (TEXT-6), and that a single successful unique edit followed by
/// its inverse restores the original.
pub fn edit_vs_model(case: &EditCase) -> Result<EditEnd, String> {
    let bytes = case.file_bytes();
    let Some((doc, stored, encoding)) = decode_both(&bytes)? else {
        return Ok(EditEnd::RefusedFile);
    };
    let model_edits = case.model_edits(&stored);
    let requests: Vec<EditRequest> = model_edits
        .iter()
        .map(|e| EditRequest::new(&e.old, &e.new, e.replace_all))
        .collect();
    let expected = model::run(&stored, encoding, &model_edits);
    if expected == Outcome::OutOfScope {
        return Ok(EditEnd::OutOfScope);
    }
    let view = doc.view();
    let engine_result = engine::apply(view, &requests);
    let applied = match (engine_result, &expected) {
        (
            Err(f),
            Outcome::Error {
                index,
                code,
                ambiguous,
            },
        ) => {
            ensure!(
                (f.index, f.error.code) == (*index, *code),
                "engine failed edit {} with {}, model says edit {index} fails with {}",
                f.index,
                f.error.code.as_str(),
                code.as_str()
            );
            if let Some((count, lines)) = ambiguous {
                ensure!(
                    f.error.fields.get("count") == Some(&serde_json::json!(count))
                        && f.error.fields.get("lines") == Some(&serde_json::json!(lines)),
                    "ambiguous fields {:?}, model count {count} lines {lines:?}",
                    f.error.fields
                );
            }
            return Ok(EditEnd::SameError(*code));
        }
        (Err(f), other) => {
            return Err(format!(
                "engine failed edit {} with {} ({}), model says {other:?}",
                f.index,
                f.error.code.as_str(),
                f.error.message
            ))
        }
        (Ok(_), Outcome::Error { index, code, .. }) => {
            return Err(format!(
                "engine succeeded, model says edit {index} fails with {}",
                code.as_str()
            ))
        }
        (Ok(a), _) => a,
    };
    check_replacements(view, &applied.replacements)?;
    let rendered = doc.render(&applied.replacements);
    let (out, reports) = match (rendered, expected) {
        (Err(c), Outcome::Unrepresentable(m)) => {
            ensure!(c.0 == m, "render refused {:?}, model refused {m:?}", c.0);
            return Ok(EditEnd::SameUnrepresentable);
        }
        (Err(c), other) => return Err(format!("render refused {:?}, model says {other:?}", c.0)),
        (Ok(_), Outcome::Unrepresentable(m)) => {
            return Err(format!("render succeeded, model refuses {m:?}"))
        }
        (Ok(chunks), Outcome::Bytes(out, reports)) => {
            check_untouched(
                &bytes,
                &doc,
                (&stored, encoding),
                &applied.replacements,
                &chunks,
            )?;
            let got = concat(&chunks);
            ensure!(
                got == out,
                "engine bytes {:?}\nmodel bytes  {:?}",
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&out)
            );
            (out, reports)
        }
        (Ok(_), other) => return Err(format!("unexpected model outcome {other:?}")),
    };
    let got_reports: Vec<ModelReport> = applied
        .edits
        .iter()
        .map(|r| ModelReport {
            old_string: r.old_string.clone(),
            new_string: r.new_string.clone(),
            replacements: r.replacements,
        })
        .collect();
    ensure!(
        got_reports == reports,
        "reports {got_reports:?}, model {reports:?}"
    );
    ensure!(
        applied.edits.iter().all(|r| r.repairs.is_empty()),
        "a repair fired where none can"
    );
    check_patch(view, &applied.replacements)?;
    if requests.len() == 1 {
        check_inverse(&bytes, &doc, &applied.replacements, &reports[0], &out)?;
    }
    Ok(EditEnd::SameBytes)
}

/// The spans are sorted, disjoint, inside the view and on char boundaries.
fn check_replacements(view: &str, reps: &[Replacement]) -> Check {
    let mut last = 0;
    for r in reps {
        ensure!(
            r.start >= last && r.start <= r.end && r.end <= view.len(),
            "bad span {}..{} (previous end {last})",
            r.start,
            r.end
        );
        ensure!(
            view.is_char_boundary(r.start) && view.is_char_boundary(r.end),
            "span {}..{} splits a character",
            r.start,
            r.end
        );
        last = r.end;
    }
    Ok(())
}

/// TEXT-6: every `Original` chunk is original bytes, and together they are the bytes outside
/// the replaced spans (for encodings whose untouched spans are borrowed) — all of them but the
/// short runs the render copies into the inserted text before them.
fn check_untouched(
    bytes: &[u8],
    doc: &Document<'_>,
    (stored, encoding): (&str, ModelEncoding),
    reps: &[Replacement],
    chunks: &[Chunk<'_>],
) -> Check {
    let view = doc.view();
    if matches!(doc.encoding(), TextEncoding::Legacy(_)) {
        return Ok(());
    }
    let base = bytes.as_ptr() as usize;
    let mut got: Vec<(usize, usize)> = Vec::new();
    for c in chunks {
        if let Chunk::Original(b) = c {
            let at = (b.as_ptr() as usize).wrapping_sub(base);
            ensure!(
                at <= bytes.len() && at + b.len() <= bytes.len(),
                "an Original chunk is not a slice of the file"
            );
            push_range(&mut got, at, at + b.len());
        }
    }
    let byte_of = view_to_bytes(stored, encoding, view)?;
    let mut want = Vec::new();
    push_range(&mut want, 0, byte_of[0]);
    let mut at = 0;
    for r in reps {
        push_range(&mut want, byte_of[at], byte_of[r.start]);
        at = r.end;
    }
    push_range(&mut want, byte_of[at], bytes.len());
    // Every borrowed range is a whole untouched range; an untouched range that is not borrowed
    // must be a short run the render copied into the inserted text before it.
    let borrowed_whole = got.iter().all(|g| want.contains(g));
    let copied_short = want
        .iter()
        .filter(|w| !got.contains(w))
        .all(|&(s, e)| e - s <= SHORT_RUN && got.iter().all(|&(gs, ge)| ge <= s || gs >= e));
    ensure!(
        borrowed_whole && copied_short,
        "untouched byte ranges {got:?}, expected {want:?} (runs of up to {SHORT_RUN} bytes may be copied)"
    );
    Ok(())
}

/// The longest untouched run `Document::render` may copy into the inserted text before it
/// instead of borrowing it from the file (a copy of the library's constant: the rule is about
/// chunking, not bytes, and the bytes themselves are compared with the model's).
const SHORT_RUN: usize = 256;

fn push_range(v: &mut Vec<(usize, usize)>, s: usize, e: usize) {
    if s >= e {
        return;
    }
    match v.last_mut() {
        Some(last) if last.1 == s => last.1 = e,
        _ => v.push((s, e)),
    }
}

/// Raw byte offset of every view byte offset (and of its end), by a naive walk over the model's
/// own decoding of the file.
fn view_to_bytes(stored: &str, encoding: ModelEncoding, view: &str) -> Result<Vec<usize>, String> {
    let unit = |c: char| encoding.width(c);
    let mut out = Vec::with_capacity(view.len() + 1);
    let mut byte = encoding.bom().len();
    let mut chars = stored.chars().peekable();
    while let Some(c) = chars.next() {
        let mut width = unit(c);
        let view_char = if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
            width += unit('\n');
            '\n'
        } else {
            c
        };
        for _ in 0..view_char.len_utf8() {
            out.push(byte);
        }
        byte += width;
    }
    out.push(byte);
    ensure!(
        out.len() == view.len() + 1,
        "naive view length {} != view length {}",
        out.len() - 1,
        view.len()
    );
    Ok(out)
}

/// EDIT-6: the hunks, applied to the old view's lines, give the new view.
fn check_patch(view: &str, reps: &[Replacement]) -> Check {
    let patch = editref::patch::Patch::new("f", view, reps);
    let hunks = patch.hunks();
    // The diff text is built directly; it must be what the hunks spell as a unified diff.
    ensure!(
        patch.diff() == editref::patch::unified_diff("f", &hunks),
        "diff text disagrees with the hunks"
    );
    let mut new_view = String::new();
    let mut at = 0;
    for r in reps {
        new_view.push_str(&view[at..r.start]);
        new_view.push_str(&r.text);
        at = r.end;
    }
    new_view.push_str(&view[at..]);
    let old_lines: Vec<&str> = view.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut next_old = 0; // 0-based index of the next old line to copy
    for h in &hunks {
        ensure!(
            h.old_start > next_old,
            "hunk at old line {} overlaps the previous one",
            h.old_start
        );
        ensure!(
            h.old_start - 1 <= old_lines.len(),
            "hunk starts at old line {} of {}",
            h.old_start,
            old_lines.len()
        );
        for l in &old_lines[next_old..h.old_start - 1] {
            out.push_str(l);
        }
        next_old = h.old_start - 1;
        let (mut olds, mut news) = (0, 0);
        let mut i = 0;
        while i < h.lines.len() {
            let line = &h.lines[i];
            let no_nl = h
                .lines
                .get(i + 1)
                .is_some_and(|l| l == editref::patch::NO_NEWLINE);
            let body = line.get(1..).unwrap_or("");
            let full = if no_nl {
                body.to_string()
            } else {
                format!("{body}\n")
            };
            match line.chars().next() {
                Some(' ') | Some('-') => {
                    ensure!(
                        old_lines.get(next_old) == Some(&full.as_str()),
                        "hunk line {line:?} does not match old line {}",
                        next_old + 1
                    );
                    next_old += 1;
                    olds += 1;
                    if line.starts_with(' ') {
                        out.push_str(&full);
                        news += 1;
                    }
                }
                Some('+') => {
                    out.push_str(&full);
                    news += 1;
                }
                _ => return Err(format!("bad hunk line {line:?}")),
            }
            i += if no_nl { 2 } else { 1 };
        }
        ensure!(
            (olds, news) == (h.old_lines, h.new_lines),
            "hunk counts {}/{} but lines give {olds}/{news}",
            h.old_lines,
            h.new_lines
        );
    }
    for l in old_lines.get(next_old..).unwrap_or(&[]) {
        out.push_str(l);
    }
    ensure!(
        out == new_view,
        "structuredPatch applied to the old text does not give the new text"
    );
    Ok(())
}

/// A single successful edit whose written text occurs exactly once (overlaps counted) is
/// undone by the inverse edit: the view comes back, and the bytes too when no line break was
/// involved.
fn check_inverse(
    original: &[u8],
    doc: &Document<'_>,
    reps: &[Replacement],
    report: &ModelReport,
    out: &[u8],
) -> Check {
    if report.replacements != 1
        || report.new_string.is_empty()
        || report.new_string == report.old_string
    {
        return Ok(());
    }
    // A lone CR before an LF in the view ("\r\n" there) cannot be sent back: TEXT-5 reads
    // any CRLF in a string as LF, so the inverse edit would address different text.
    if report.new_string.contains("\r\n") || report.old_string.contains("\r\n") {
        return Ok(());
    }
    let Ok(after) = Document::decode(out) else {
        return Ok(());
    };
    if after.encoding() != doc.encoding() {
        return Ok(()); // e.g. a legacy guess that moved, or a new leading U+FEFF
    }
    let mut expected_view = String::new();
    let mut at = 0;
    for r in reps {
        expected_view.push_str(&doc.view()[at..r.start]);
        expected_view.push_str(&r.text);
        at = r.end;
    }
    expected_view.push_str(&doc.view()[at..]);
    if after.view() != expected_view {
        return Ok(()); // a lone CR met an inserted LF and became a CRLF
    }
    let needle = report.new_string.as_str();
    let hay = after.view().as_bytes();
    let first = memchr::memmem::find(hay, needle.as_bytes());
    let second = first.and_then(|f| memchr::memmem::find(&hay[f + 1..], needle.as_bytes()));
    if first.is_none() || second.is_some() {
        return Ok(());
    }
    let inverse = EditRequest::new(&report.new_string, &report.old_string, false);
    let applied = engine::apply(after.view(), &[inverse]).map_err(|f| {
        format!(
            "inverse edit failed: {} {}",
            f.error.code.as_str(),
            f.error.message
        )
    })?;
    let chunks = after
        .render(&applied.replacements)
        .map_err(|c| format!("inverse render refused {:?}", c.0))?;
    let restored = concat(&chunks);
    let back =
        Document::decode(&restored).map_err(|e| format!("inverse output undecodable: {e:?}"))?;
    ensure!(
        back.view() == doc.view(),
        "edit + inverse edit does not restore the text"
    );
    if !report.old_string.contains('\n') && !report.new_string.contains('\n') {
        ensure!(
            restored == original,
            "edit + inverse edit does not restore the bytes"
        );
    }
    Ok(())
}
