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

/// Lines of context around each change, and the marker after a line without a final newline
/// (EDIT-6), spelled out here rather than taken from the library.
const CONTEXT: usize = 3;
const NO_NEWLINE: &str = "\\ No newline at end of file";

/// EDIT-6, checked without the library's own diff code: the hunks, applied to the old view's
/// lines, give the new view; each hunk's header counts are its lines'; each change has
/// [`CONTEXT`] lines of context on either side where the text has them, changes in one hunk
/// are at most 2 × [`CONTEXT`] unchanged lines apart and hunks more; every hunk's new start is
/// its old start moved by the lines the hunks before it added and removed; and the diff text
/// is those hunks written out as a unified diff.
pub(crate) fn check_patch(view: &str, reps: &[Replacement]) -> Check {
    let patch = editref::patch::Patch::new("f", view, reps);
    let hunks = patch.hunks();
    ensure!(
        patch.diff() == unified("f", &hunks),
        "diff text is not the hunks written out as a unified diff"
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
    let mut shift = 0isize; // new line number minus old line number after the hunks so far
    for (k, h) in hunks.iter().enumerate() {
        ensure!(
            h.old_start > next_old && (k == 0 || h.old_start - 1 > next_old),
            "hunk at old line {} overlaps or touches the previous one",
            h.old_start
        );
        ensure!(
            h.old_start - 1 <= old_lines.len(),
            "hunk starts at old line {} of {}",
            h.old_start,
            old_lines.len()
        );
        ensure!(
            h.new_start as isize - h.old_start as isize == shift,
            "hunk -{} +{} does not follow the lines the hunks before it added and removed",
            h.old_start,
            h.new_start
        );
        for l in &old_lines[next_old..h.old_start - 1] {
            out.push_str(l);
        }
        next_old = h.old_start - 1;
        let (mut olds, mut news) = (0, 0);
        // Unchanged lines: before the first change, between changes, after the last one.
        let mut runs = vec![0usize];
        let mut first_change: Option<usize> = None;
        let mut change_end = 0; // 0-based old line after the last change
        let mut i = 0;
        while i < h.lines.len() {
            let line = &h.lines[i];
            let no_nl = h.lines.get(i + 1).is_some_and(|l| l == NO_NEWLINE);
            let body = line.get(1..).unwrap_or("");
            let full = if no_nl {
                body.to_string()
            } else {
                format!("{body}\n")
            };
            let kind = line.chars().next();
            match kind {
                Some(' ') => {
                    if let Some(run) = runs.last_mut() {
                        *run += 1;
                    }
                }
                Some('-') | Some('+') if runs.len() == 1 || runs.last() != Some(&0) => runs.push(0),
                _ => {}
            }
            match kind {
                Some(' ') | Some('-') => {
                    ensure!(
                        old_lines.get(next_old) == Some(&full.as_str()),
                        "hunk line {line:?} does not match old line {}",
                        next_old + 1
                    );
                    if kind == Some('-') {
                        first_change.get_or_insert(next_old);
                        change_end = next_old + 1;
                    }
                    next_old += 1;
                    olds += 1;
                    if kind == Some(' ') {
                        out.push_str(&full);
                        news += 1;
                    }
                }
                Some('+') => {
                    first_change.get_or_insert(next_old);
                    change_end = next_old;
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
        let Some(first_change) = first_change else {
            return Err(format!("hunk at old line {} changes nothing", h.old_start));
        };
        let trailing = runs.last().copied().unwrap_or(0);
        ensure!(
            runs[0] == first_change.min(CONTEXT)
                && trailing == (old_lines.len() - change_end).min(CONTEXT),
            "hunk at old line {} has {} and {trailing} lines of context around its changes",
            h.old_start,
            runs[0]
        );
        ensure!(
            runs[1..runs.len() - 1].iter().all(|&r| r <= 2 * CONTEXT),
            "hunk at old line {} holds more than {} unchanged lines between two changes",
            h.old_start,
            2 * CONTEXT
        );
        shift += news as isize - olds as isize;
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

/// Hunks written out as a unified diff with `a/` and `b/` headers naming `path`: each header
/// names a side without lines by the line before it; nothing at all without hunks.
fn unified(path: &str, hunks: &[editref::patch::Hunk]) -> String {
    if hunks.is_empty() {
        return String::new();
    }
    let mut s = format!("--- a/{path}\n+++ b/{path}\n");
    for h in hunks {
        let side = |start: usize, n: usize| {
            let shown = if n == 0 { start - 1 } else { start };
            format!("{shown},{n}")
        };
        s.push_str(&format!(
            "@@ -{} +{} @@\n",
            side(h.old_start, h.old_lines),
            side(h.new_start, h.new_lines)
        ));
        for l in &h.lines {
            s.push_str(l);
            s.push('\n');
        }
    }
    s
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
