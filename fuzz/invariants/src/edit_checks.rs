//! What `edit_vs_model` checks after the engine and the model agree on the bytes: the replaced
//! spans are well formed, untouched bytes are the original ones (TEXT-6), the structuredPatch
//! spells the change (EDIT-6), and the inverse edit restores the file.

use crate::model::ModelReport;
use crate::model_codec::ModelEncoding;
use crate::{ensure, Check};
use editref::engine::{self, EditRequest};
use editref::text::{concat, Chunk, Document, Replacement, TextEncoding};

/// The spans are sorted, disjoint, inside the view and on char boundaries.
pub(crate) fn check_replacements(view: &str, reps: &[Replacement]) -> Check {
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
pub(crate) fn check_untouched(
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
pub(crate) fn check_patch(view: &str, reps: &[Replacement]) -> Check {
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
pub(crate) fn check_inverse(
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
    // The same at the edges of the replaced span: a view "\r\n" across an edge is a lone CR
    // beside a CRLF's LF (stored "\r\r\n"); the inverse edit puts the two back side by side
    // as text, which TEXT-5 then reads as one CRLF.
    let view = doc.view();
    let cr_lf_at = |i: usize| view[..i].ends_with('\r') && view[i..].starts_with('\n');
    if reps.iter().any(|r| cr_lf_at(r.start) || cr_lf_at(r.end)) {
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
