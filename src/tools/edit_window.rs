//! A single Edit of a CRLF or UTF-16 file found in the file's stored text and applied to a
//! window of its lines: the whole-view pipeline's answer without the view (or the decoding) of
//! the whole file (`text::stored` says when the stored text can answer for the view).
//!
//! The engine runs on the window exactly as it would on the whole view: the window holds every
//! hit there is, so the same rules see the same hits, and every line a hunk shows, so the patch
//! is the same with its lines numbered from the window's first. Anything the window could
//! answer differently — no hit (repair, the curly-quote fallback and the hint search the whole
//! text), a refusal (its message names lines of the whole file) — goes to the whole view.

use crate::engine::{self, EditReport, EditRequest};
use crate::patch::{Patch, CONTEXT};
use crate::text::{Document, Replacement};

/// A windowed Edit's result.
pub(crate) struct Windowed {
    /// The edit's report.
    pub reports: Vec<EditReport>,
    /// The patch, its lines numbered in the whole file.
    pub patch: Patch,
    /// The replacements, in offsets of the stored text (`Document::render_stored`).
    pub stored: Vec<Replacement>,
}

/// Runs `edit` on the window of `doc` around `hits`, its stored hits from
/// `Document::find_stored`; `path` names the file in the patch. `None` when the whole view
/// must answer.
pub(crate) fn apply(
    path: &str,
    doc: &Document<'_>,
    edit: &EditRequest,
    hits: &[(usize, usize)],
) -> Option<Windowed> {
    let (&(from, _), &(_, to)) = (hits.first()?, hits.last()?);
    // A hunk shows CONTEXT lines before its first change; after its last, the line that a
    // change ending without a break joins, then CONTEXT lines.
    let window = doc.window(from, to, CONTEXT, CONTEXT + 1);
    let applied = engine::apply(&window.text, std::slice::from_ref(edit)).ok()?;
    // The window holds every hit, so the engine counts them all; anything else would mean the
    // stored search and the view disagree, and the whole view decides.
    if applied.edits.first()?.replacements != hits.len() {
        return None;
    }
    let patch = Patch::new_at(path, &window.text, &applied.replacements, window.first_line);
    let offsets = window.to_stored(applied.replacements.iter().flat_map(|r| [r.start, r.end]));
    let stored = applied
        .replacements
        .into_iter()
        .zip(offsets.chunks_exact(2))
        .map(|(r, span)| Replacement {
            start: span[0],
            end: span[1],
            text: r.text,
        })
        .collect();
    Some(Windowed {
        reports: applied.edits,
        patch,
        stored,
    })
}
