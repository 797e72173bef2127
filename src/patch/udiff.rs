//! The unified diff text: changes grouped into hunks with [`CONTEXT`] lines around them, the
//! `@@` headers, and the marker after a line without a final newline.
//!
//! This is where a patch is made: [`Patch::new`] takes the replaced spans to changes
//! (`region`), then [`build`] writes the diff of the edit straight from the original text and
//! the changes, with the hunk counts worked out before the lines so that each header precedes
//! its lines in one pass; [`unified_diff`] renders owned [`Hunk`]s (as read back from
//! `structuredPatch`) in the same form.

use super::hunk::{Hunk, HunkAt, Patch};
use super::region::{changes, line_end, line_start, Change};
use crate::text::Replacement;

/// Lines of context around each change.
pub const CONTEXT: usize = 3;
/// The marker line after a line that has no final newline.
pub const NO_NEWLINE: &str = "\\ No newline at end of file";

impl Patch {
    /// The patch of `replacements` (sorted, disjoint spans of `old`, an LF view), with diff
    /// headers naming `path`.
    pub fn new(path: &str, old: &str, replacements: &[Replacement]) -> Patch {
        Patch::new_at(path, old, replacements, 0)
    }

    /// [`Patch::new`] for `old` that is a window of a longer text starting at its 0-based line
    /// `first_line`: the hunks number their lines in the whole text. The window must hold
    /// every line a hunk shows — the changed lines, the line after a change that joins it,
    /// and [`CONTEXT`] lines on each side — for the patch to be the whole text's.
    pub fn new_at(path: &str, old: &str, replacements: &[Replacement], first_line: usize) -> Patch {
        let (changes, added) = changes(old, replacements, first_line);
        build(path, old, &changes, &added)
    }

    /// The patch of Write, where no spans are known: one replacement of the whole text.
    pub fn whole_text(path: &str, old: &str, new: &str) -> Patch {
        if old == new {
            return Patch::default();
        }
        Patch::new(
            path,
            old,
            &[Replacement {
                start: 0,
                end: old.len(),
                text: new.to_string(),
            }],
        )
    }
}

/// Computes the hunks for `replacements` (sorted, disjoint spans of `old`, an LF view).
pub fn structured_patch(old: &str, replacements: &[Replacement]) -> Vec<Hunk> {
    Patch::new("", old, replacements).hunks()
}

/// `path` as the `a/` and `b/` headers name it: an absolute path without its leading slashes, as
/// git writes one (`a/tmp/x`), so that the header is not `a//tmp/x`, which patch tools read as
/// another path than the one given.
fn header_name(path: &str) -> &str {
    path.trim_start_matches('/')
}

/// Appends the lines of `text` to the diff, each with `prefix` and ended by `\n`; a last line
/// without a final newline is followed by the marker line.
fn push_lines(diff: &mut String, prefix: char, text: &str) {
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', text.as_bytes()) {
        diff.push(prefix);
        diff.push_str(&text[start..=nl]);
        start = nl + 1;
    }
    if start < text.len() {
        diff.push(prefix);
        diff.push_str(&text[start..]);
        diff.push('\n');
        diff.push_str(NO_NEWLINE);
        diff.push('\n');
    }
}

/// Up to `n` whole lines of `old` ending at byte `at` (which is a line start).
fn lines_before(old: &str, at: usize, n: usize) -> &str {
    let mut start = at;
    for _ in 0..n {
        if start == 0 {
            break;
        }
        start = line_start(old, start - 1);
    }
    &old[start..at]
}

/// The text of up to `n` whole lines of `old` starting at byte `at`.
fn lines_after(old: &str, at: usize, n: usize) -> &str {
    let mut end = at;
    for _ in 0..n {
        if end >= old.len() {
            break;
        }
        end = line_end(old, end);
    }
    &old[at..end]
}

/// Pieces of text as the lines they hold (`split_inclusive`): a final piece without `\n`
/// counts as a line.
fn count_lines(text: &str) -> usize {
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Groups changes less than 2 × [`CONTEXT`] lines apart into hunks and writes the diff.
pub(super) fn build(path: &str, old: &str, changes: &[Change<'_>], added: &str) -> Patch {
    if changes.is_empty() {
        return Patch::default();
    }
    // Sized up front, generously: the diff of a replace_all over a large file runs to
    // megabytes, and growing it by doubling would copy it several times. Bounded by what the
    // diff can hold at most: every old and added byte with a prefix per line, and context.
    let per_change: usize = changes
        .iter()
        .map(|c| 64 + c.removed.len() + c.added.len() + 2 * CONTEXT * 80)
        .sum();
    let most = 2 * old.len() + 2 * added.len() + 64 * changes.len() + 4096;
    let mut diff = String::with_capacity(2 * path.len() + 16 + per_change.min(most));
    let name = header_name(path);
    diff.push_str("--- a/");
    diff.push_str(name);
    diff.push_str("\n+++ b/");
    diff.push_str(name);
    diff.push('\n');
    let mut hunks = Vec::new();
    let mut i = 0;
    while i < changes.len() {
        let mut j = i;
        while j + 1 < changes.len()
            && changes[j + 1].old_line - (changes[j].old_line + changes[j].removed_count)
                <= 2 * CONTEXT
        {
            j += 1;
        }
        let first = &changes[i];
        let last = &changes[j];
        let before = lines_before(old, first.old_start_byte, CONTEXT);
        let after = lines_after(old, last.old_end_byte, CONTEXT);
        // Counts first, so that the header can precede the lines: the old lines from the
        // first change to the end of the last are removed lines and gaps of context.
        let removed: usize = changes[i..=j].iter().map(|c| c.removed_count).sum();
        let added_lines: usize = changes[i..=j].iter().map(|c| c.added_count).sum();
        let spanned = count_lines(&old[first.old_start_byte..last.old_end_byte]);
        let before_lines = count_lines(before);
        let context = before_lines + (spanned - removed) + count_lines(after);
        let old_lines = context + removed;
        let new_lines = context + added_lines;
        let old_start = first.old_line - before_lines + 1;
        let new_start = first.new_line - before_lines + 1;
        // A side without lines names the line before it (unified diff convention).
        let shown = |start: usize, n: usize| if n == 0 { start - 1 } else { start };
        diff.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            shown(old_start, old_lines),
            old_lines,
            shown(new_start, new_lines),
            new_lines
        ));
        let body = diff.len();
        push_lines(&mut diff, ' ', before);
        for k in i..=j {
            let c = &changes[k];
            push_lines(&mut diff, '-', c.removed);
            push_lines(&mut diff, '+', &added[c.added.clone()]);
            let gap = if k < j {
                &old[c.old_end_byte..changes[k + 1].old_start_byte]
            } else {
                after
            };
            push_lines(&mut diff, ' ', gap);
        }
        hunks.push(HunkAt {
            old_start,
            old_lines,
            new_start,
            new_lines,
            lines: body..diff.len(),
        });
        i = j + 1;
    }
    Patch { diff, hunks }
}

/// Unified diff text from hunks, with `a/` and `b/` headers naming `path`.
pub fn unified_diff(path: &str, hunks: &[Hunk]) -> String {
    if hunks.is_empty() {
        return String::new();
    }
    // Sized up front: the diff of a replace_all over a large file runs to megabytes, and
    // growing it by doubling would copy it several times.
    let body: usize = hunks
        .iter()
        .map(|h| 40 + h.lines.iter().map(|l| l.len() + 1).sum::<usize>())
        .sum();
    let mut out = String::with_capacity(2 * path.len() + 16 + body);
    let name = header_name(path);
    out.push_str(&format!("--- a/{name}\n+++ b/{name}\n"));
    for h in hunks {
        let os = if h.old_lines == 0 {
            h.old_start - 1
        } else {
            h.old_start
        };
        let ns = if h.new_lines == 0 {
            h.new_start - 1
        } else {
            h.new_start
        };
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            os, h.old_lines, ns, h.new_lines
        ));
        for l in &h.lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}
