//! `edit_vs_model`: the engine against the naive model (EDIT-2, MATCH-1..5, MULTI-1..4,
//! TEXT-5/6), untouched bytes, and the inverse edit.

use crate::depth::Ending;
use crate::framing::{self, Writer};
use crate::model::{self, ModelEdit, ModelReport, Outcome};
use crate::{ensure, Check};
use arbitrary::{Arbitrary, Result, Unstructured};
use editref::engine::{self, EditRequest};
use editref::error::Code;
use editref::text::{self, concat, Chunk, Document, Replacement, TextEncoding};

/// How the file bytes of an [`EditCase`] are made from its `file` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileForm {
    /// The bytes as they are (UTF-8, a legacy encoding, or refused).
    AsIs,
    /// `EF BB BF` then the bytes.
    Utf8Bom,
    /// The bytes read as (lossy) UTF-8, written as UTF-16LE with its BOM.
    Utf16Le,
    /// The same as UTF-16BE.
    Utf16Be,
}

impl FileForm {
    const ALL: [FileForm; 4] = [
        FileForm::AsIs,
        FileForm::Utf8Bom,
        FileForm::Utf16Le,
        FileForm::Utf16Be,
    ];

    fn read(u: &mut Unstructured<'_>) -> Result<FileForm> {
        Ok(FileForm::ALL[usize::from(framing::byte(u)?) % 4])
    }

    fn tag(self) -> u8 {
        match self {
            FileForm::AsIs => 0,
            FileForm::Utf8Bom => 1,
            FileForm::Utf16Le => 2,
            FileForm::Utf16Be => 3,
        }
    }

    /// The file bytes for a body.
    pub fn bytes(self, body: &[u8]) -> Vec<u8> {
        match self {
            FileForm::AsIs => body.to_vec(),
            FileForm::Utf8Bom => [&b"\xEF\xBB\xBF"[..], body].concat(),
            FileForm::Utf16Le | FileForm::Utf16Be => {
                let big = self == FileForm::Utf16Be;
                let mut out = if big {
                    vec![0xFE, 0xFF]
                } else {
                    vec![0xFF, 0xFE]
                };
                for unit in String::from_utf8_lossy(body).encode_utf16() {
                    out.extend_from_slice(&if big {
                        unit.to_be_bytes()
                    } else {
                        unit.to_le_bytes()
                    });
                }
                out
            }
        }
    }
}

/// One Edit (or one edit of a MultiEdit).
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct EditSpec {
    /// `replace_all`.
    #[arbitrary(with = read_bool)]
    pub replace_all: bool,
    /// `old_string`.
    #[arbitrary(with = framing::text)]
    pub old: String,
    /// `new_string`.
    #[arbitrary(with = framing::text)]
    pub new: String,
}

/// Input of `edit_vs_model`: a file and one Edit (one edit) or a MultiEdit (several).
///
/// Framing: form byte, stand-in byte, file blob, edit-count byte (1 + b % 16 edits), then per
/// edit a flags byte (bit 0: replace_all), old text, new text.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct EditCase {
    /// How the file bytes are made.
    #[arbitrary(with = FileForm::read)]
    pub form: FileForm,
    /// When set, the ASCII stand-ins `` ` `` `~` `^` `|` in the file and the strings become
    /// ‘ ’ “ ” — a dense way for the fuzzer to reach the curly-quote paths (MATCH-2/4).
    #[arbitrary(with = read_bool)]
    pub stand_ins: bool,
    /// The file body (see [`FileForm`]).
    #[arbitrary(with = framing::blob)]
    pub file: Vec<u8>,
    /// The edits, applied in order.
    #[arbitrary(with = read_edits)]
    pub edits: Vec<EditSpec>,
}

fn read_bool(u: &mut Unstructured<'_>) -> Result<bool> {
    Ok(framing::byte(u)? & 1 == 1)
}

fn read_edits(u: &mut Unstructured<'_>) -> Result<Vec<EditSpec>> {
    let n = 1 + usize::from(framing::byte(u)?) % 16;
    (0..n).map(|_| EditSpec::arbitrary(u)).collect()
}

impl EditCase {
    /// The input bytes that decode to this case (seed writing); `None` when a field is too
    /// long for the framing or there are more than 16 edits.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        if self.edits.is_empty() || self.edits.len() > 16 {
            return None;
        }
        let mut w = Writer::new();
        w.byte(self.form.tag()).byte(u8::from(self.stand_ins));
        w.blob(&self.file)?;
        w.byte((self.edits.len() - 1) as u8);
        for e in &self.edits {
            w.byte(u8::from(e.replace_all));
            w.text(&e.old)?;
            w.text(&e.new)?;
        }
        Some(w.finish())
    }

    /// The file bytes the case edits.
    pub fn file_bytes(&self) -> Vec<u8> {
        let body = if self.stand_ins {
            stand_ins(&self.file)
        } else {
            self.file.clone()
        };
        self.form.bytes(&body)
    }

    /// The edits with stand-ins applied, as the model would send them (CRLF not normalised:
    /// that is the code's job, and the model's own).
    pub fn model_edits(&self) -> Vec<ModelEdit> {
        self.edits
            .iter()
            .map(|e| ModelEdit {
                old: self.styled(&e.old),
                new: self.styled(&e.new),
                replace_all: e.replace_all,
            })
            .collect()
    }

    /// The same edits as the engine's requests.
    pub fn requests(&self) -> Vec<EditRequest> {
        self.model_edits()
            .iter()
            .map(|e| EditRequest::new(&e.old, &e.new, e.replace_all))
            .collect()
    }

    fn styled(&self, s: &str) -> String {
        if self.stand_ins {
            String::from_utf8_lossy(&stand_ins(s.as_bytes())).into_owned()
        } else {
            s.to_string()
        }
    }
}

/// Replaces the ASCII stand-ins by curly quotes.
fn stand_ins(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'`' => out.extend_from_slice("\u{2018}".as_bytes()),
            b'~' => out.extend_from_slice("\u{2019}".as_bytes()),
            b'^' => out.extend_from_slice("\u{201C}".as_bytes()),
            b'|' => out.extend_from_slice("\u{201D}".as_bytes()),
            other => out.push(other),
        }
    }
    out
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
    let Ok(doc) = Document::decode(&bytes) else {
        return Ok(EditEnd::RefusedFile); // refused files are document_roundtrip's business
    };
    let decoded =
        text::decode(&bytes).map_err(|e| format!("decode disagrees with Document: {e:?}"))?;
    let requests = case.requests();
    let model_edits = case.model_edits();
    let expected = model::run(&decoded.text, doc.encoding(), &model_edits);
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
            check_untouched(&bytes, &doc, view, &applied.replacements, &chunks)?;
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

/// TEXT-6: every `Original` chunk is original bytes, and together they are exactly the bytes
/// outside the replaced spans (for encodings whose untouched spans are borrowed).
fn check_untouched(
    bytes: &[u8],
    doc: &Document<'_>,
    view: &str,
    reps: &[Replacement],
    chunks: &[Chunk<'_>],
) -> Check {
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
    let byte_of = view_to_bytes(bytes, doc, view)?;
    let mut want = Vec::new();
    push_range(&mut want, 0, byte_of[0]);
    let mut at = 0;
    for r in reps {
        push_range(&mut want, byte_of[at], byte_of[r.start]);
        at = r.end;
    }
    push_range(&mut want, byte_of[at], bytes.len());
    ensure!(
        got == want,
        "untouched byte ranges {got:?}, expected {want:?}"
    );
    Ok(())
}

fn push_range(v: &mut Vec<(usize, usize)>, s: usize, e: usize) {
    if s >= e {
        return;
    }
    match v.last_mut() {
        Some(last) if last.1 == s => last.1 = e,
        _ => v.push((s, e)),
    }
}

/// Raw byte offset of every view byte offset (and of its end), by a naive walk.
fn view_to_bytes(bytes: &[u8], doc: &Document<'_>, view: &str) -> Result<Vec<usize>, String> {
    let stored = text::decode(bytes)
        .map_err(|e| format!("{e:?}"))?
        .text
        .into_owned();
    let unit = |c: char| match doc.encoding() {
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => 2 * c.len_utf16(),
        _ => c.len_utf8(),
    };
    let mut out = Vec::with_capacity(view.len() + 1);
    let mut byte = doc.encoding().bom().len();
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
