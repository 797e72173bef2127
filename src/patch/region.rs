//! From replaced spans to changes: each span is widened to whole lines, spans whose lines touch
//! are merged into a region, and a line diff runs over that region only.
//!
//! This is why a patch costs what the edit costs, not what the file costs: the file is never
//! diffed as a whole, and the common case — one line replaced by one line — skips the diff
//! altogether. The line diff also guards against out-of-order operations from the diff library,
//! falling back to a coarser but valid diff.

use crate::text::Replacement;
use std::time::{Duration, Instant};

/// A run of removed and added lines, with where it sits in both texts.
pub(super) struct Change<'a> {
    pub(super) old_line: usize,
    pub(super) new_line: usize,
    pub(super) old_start_byte: usize,
    pub(super) old_end_byte: usize,
    /// The removed lines: `old[old_start_byte..old_end_byte]`.
    pub(super) removed: &'a str,
    pub(super) removed_count: usize,
    /// Where the added lines are in the shared buffer of added text, one after the other
    /// (each keeps its `\n`; only the last may lack it). One buffer for all changes: a
    /// replace_all with 100,000 hits would otherwise allocate 100,000 strings.
    pub(super) added: std::ops::Range<usize>,
    pub(super) added_count: usize,
}

/// Splits a text into lines that keep their `\n`.
fn lines_of(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

/// Whether `s` is exactly one line for [`lines_of`]: not empty, no `\n` before its last byte.
fn is_one_line(s: &str) -> bool {
    !s.is_empty() && memchr::memchr(b'\n', s.as_bytes()).is_none_or(|i| i + 1 == s.len())
}

pub(super) fn line_start(text: &str, at: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |i| i + 1)
}

pub(super) fn line_end(text: &str, at: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i + 1)
}

/// The changes of each region, and the buffer their added lines are in.
pub(super) fn changes<'a>(old: &'a str, replacements: &[Replacement]) -> (Vec<Change<'a>>, String) {
    // 1. Widen every span to whole lines; merge spans whose line ranges touch.
    // (first byte, end byte, the replacements in it as a range of `replacements`)
    let mut regions: Vec<(usize, usize, std::ops::Range<usize>)> = Vec::new();
    for (i, rep) in replacements.iter().enumerate() {
        // A span inside the lines the current region already covers needs no scan. Without
        // this, every hit of a replace_all on one long line rescanned that line to find its
        // ends: quadratic, minutes for a 10 MB line (PATH-4).
        if let Some((_, end, reps)) = regions.last_mut() {
            if rep.start < *end && rep.end <= *end {
                reps.end = i + 1;
                continue;
            }
        }
        let ls = line_start(old, rep.start);
        let le = if rep.end > rep.start {
            line_end(old, rep.end - 1)
        } else {
            line_end(old, rep.start)
        };
        match regions.last_mut() {
            Some((_, end, reps)) if ls <= *end => {
                *end = (*end).max(le);
                reps.end = i + 1;
            }
            _ => regions.push((ls, le, i..i + 1)),
        }
    }
    // 2. Diff each region's lines; collect the changes with absolute positions.
    let mut out = Vec::with_capacity(regions.len());
    let mut added = String::new();
    let mut line = 0; // 0-based old line at `at`
    let mut at = 0;
    let mut delta: isize = 0;
    let deadline = Instant::now() + Duration::from_millis(500);
    for (ls, le, reps) in regions {
        line += memchr::memchr_iter(b'\n', &old.as_bytes()[at..ls]).count();
        at = ls;
        // The region's new text goes straight into the shared buffer.
        let new_at = added.len();
        let mut cursor = ls;
        for rep in &replacements[reps] {
            added.push_str(&old[cursor..rep.start]);
            added.push_str(&rep.text);
            cursor = rep.end;
        }
        added.push_str(&old[cursor..le]);
        let new_base = (line as isize + delta) as usize;
        // One line for one line (a token edit, each hit of a replace_all): that pair is the
        // whole diff, as Myers would find; skip its set-up, which dominates on small regions.
        let old_region = &old[ls..le];
        if is_one_line(old_region) && is_one_line(&added[new_at..]) {
            if old_region != &added[new_at..] {
                out.push(Change {
                    old_line: line,
                    new_line: new_base,
                    old_start_byte: ls,
                    old_end_byte: le,
                    removed: old_region,
                    removed_count: 1,
                    added: new_at..added.len(),
                    added_count: 1,
                });
            } else {
                added.truncate(new_at);
            }
            continue;
        }
        let new_text = added.split_off(new_at);
        let old_lines = lines_of(old_region);
        let new_lines = lines_of(&new_text);
        let mut offsets = Vec::with_capacity(old_lines.len() + 1);
        let mut b = ls;
        for l in &old_lines {
            offsets.push(b);
            b += l.len();
        }
        offsets.push(b);
        let ops = line_diff(&old_lines, &new_lines, deadline);
        let mut pending: Option<Change<'a>> = None;
        for op in ops {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                out.extend(pending.take());
                continue;
            }
            let c = pending.get_or_insert_with(|| Change {
                old_line: line + old_range.start,
                new_line: new_base + new_range.start,
                old_start_byte: offsets[old_range.start],
                old_end_byte: offsets[old_range.start],
                removed: "",
                removed_count: 0,
                added: added.len()..added.len(),
                added_count: 0,
            });
            c.old_end_byte = offsets[old_range.end];
            c.removed = &old[c.old_start_byte..c.old_end_byte];
            c.removed_count += old_range.len();
            c.added_count += new_range.len();
            // Only the pending change appends, so its lines stay contiguous in the buffer.
            for l in &new_lines[new_range] {
                added.push_str(l);
            }
            c.added.end = added.len();
        }
        out.extend(pending.take());
        delta += new_lines.len() as isize - old_lines.len() as isize;
    }
    (out, added)
}

/// Myers line diff of a region, as operations that cover both sides in order.
///
/// similar 2.7's compaction pass can return operations with stale positions, out of order
/// (fixed upstream in similar 3.1: "Compact emitting inconsistent DiffOp cursor positions");
/// building hunks from those overflowed or produced wrong hunks. Such a list is recomputed
/// without compaction, and if even that were not contiguous, the region becomes one
/// replacement — a valid, if coarse, diff.
fn line_diff(old: &[&str], new: &[&str], deadline: Instant) -> Vec<similar::DiffOp> {
    let ops =
        similar::capture_diff_slices_deadline(similar::Algorithm::Myers, old, new, Some(deadline));
    if contiguous(&ops, old.len(), new.len()) {
        return ops;
    }
    let mut raw = similar::algorithms::Replace::new(similar::algorithms::Capture::new());
    let done = similar::algorithms::diff_deadline(
        similar::Algorithm::Myers,
        &mut raw,
        old,
        0..old.len(),
        new,
        0..new.len(),
        Some(deadline),
    );
    let ops = raw.into_inner().into_ops();
    if done.is_ok() && contiguous(&ops, old.len(), new.len()) {
        return ops;
    }
    vec![similar::DiffOp::Replace {
        old_index: 0,
        old_len: old.len(),
        new_index: 0,
        new_len: new.len(),
    }]
}

/// Whether `ops` cover `0..old_len` and `0..new_len` in order, without gaps or overlaps.
fn contiguous(ops: &[similar::DiffOp], old_len: usize, new_len: usize) -> bool {
    let (mut o, mut n) = (0, 0);
    for op in ops {
        let (_, old_range, new_range) = op.as_tag_tuple();
        if old_range.start != o || new_range.start != n {
            return false;
        }
        o = old_range.end;
        n = new_range.end;
    }
    o == old_len && n == new_len
}
