//! From replaced spans to changes: each span is widened to whole lines, spans that share a line
//! are merged into a region, and a line diff runs over that region only; changes that end up
//! side by side are then joined into one.
//!
//! This is why a patch costs what the edit costs, not what the file costs: the file is never
//! diffed as a whole, and the common case — one line replaced by one line — skips the diff
//! altogether. Regions are never widened to lines that merely *touch*: a replace_all that renames
//! an identifier on every line is 10,000 one-line regions, each known from its span, never one
//! 10,000-line diff (quadratic, which a time-out used to cap — and no result may depend on a
//! time-out). The line diff also guards against out-of-order operations from the diff library,
//! falling back to a coarser but valid diff, and beyond [`DIFF_CAP`] lines a side the changed
//! middle of a region is one replacement: the result depends on the sizes, never on the clock.

use crate::text::Replacement;

/// The most lines a side of a region's changed middle (common first and last lines removed)
/// that is diffed line by line. Myers is O((N+M)·D); at this size its worst case is a few tens
/// of milliseconds. A larger middle — only a single edit of thousands of changed lines makes
/// one — is shown as one replacement, which is a valid diff of it.
const DIFF_CAP: usize = 2_000;

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

/// The changes of each region, and the buffer their added lines are in; `old` starts at the
/// 0-based line `first_line` of the text the line numbers count in.
pub(super) fn changes<'a>(
    old: &'a str,
    replacements: &[Replacement],
    first_line: usize,
) -> (Vec<Change<'a>>, String) {
    // 1. Widen every span to whole lines; merge spans that share a line.
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
            Some((_, end, reps)) if ls < *end => {
                *end = (*end).max(le);
                reps.end = i + 1;
            }
            _ => regions.push((ls, le, i..i + 1)),
        }
    }
    // A region whose new text ends inside a line (a replacement took a line break and put
    // none back) joins the line after it: that line belongs to the region too, and so does a
    // region starting there (EDIT-6: the hunk removes both lines and adds the joined one).
    let mut joined: Vec<(usize, usize, std::ops::Range<usize>)> = Vec::with_capacity(regions.len());
    let mut next = regions.into_iter().peekable();
    while let Some((ls, mut le, mut reps)) = next.next() {
        while le < old.len() && !ends_with_break(old, ls, le, &replacements[reps.clone()]) {
            le = line_end(old, le);
            while let Some((_, nle, nreps)) = next.next_if(|r| r.0 < le) {
                le = le.max(nle);
                reps.end = nreps.end;
            }
        }
        joined.push((ls, le, reps));
    }
    let regions = joined;
    // 2. Diff each region's lines; collect the changes with absolute positions.
    let mut out = Vec::with_capacity(regions.len());
    let mut added = String::new();
    let mut line = first_line; // 0-based old line at `at`
    let mut at = 0;
    let mut delta: isize = 0;
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
        let ops = line_diff(&old_lines, &new_lines);
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
    (join_adjacent(old, out), added)
}

/// Whether the new text of the region `ls..le` of `old`, with `reps` applied (sorted, inside the
/// region), is empty or ends with a line break — read off from the end, without building it.
fn ends_with_break(old: &str, ls: usize, le: usize, reps: &[Replacement]) -> bool {
    let mut end = le;
    for rep in reps.iter().rev() {
        if rep.end < end {
            return old.as_bytes()[end - 1] == b'\n';
        }
        if let Some(&last) = rep.text.as_bytes().last() {
            return last == b'\n';
        }
        end = rep.start;
    }
    end == ls || old.as_bytes()[end - 1] == b'\n'
}

/// Joins changes that sit side by side in both texts (a region ends where the next begins) into
/// one: lines removed together, then lines added together, as a diff of the whole stretch would
/// show them. The added lines of consecutive changes are consecutive in the buffer, because each
/// change appends its own lines in order.
fn join_adjacent<'a>(old: &'a str, changes: Vec<Change<'a>>) -> Vec<Change<'a>> {
    let mut out: Vec<Change<'a>> = Vec::with_capacity(changes.len());
    for c in changes {
        if let Some(last) = out.last_mut() {
            let touching = last.old_end_byte == c.old_start_byte
                && last.new_line + last.added_count == c.new_line
                && last.added.end == c.added.start;
            if touching {
                last.old_end_byte = c.old_end_byte;
                last.removed_count += c.removed_count;
                last.added_count += c.added_count;
                last.added.end = c.added.end;
                last.removed = &old[last.old_start_byte..last.old_end_byte];
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Myers line diff of a region, as operations that cover both sides in order.
///
/// The lines both sides share at the start and at the end are equal by definition; of the
/// middle, up to [`DIFF_CAP`] lines a side are diffed, a larger middle is one replacement.
///
/// similar 2.7's compaction pass can return operations with stale positions, out of order
/// (fixed upstream in similar 3.1: "Compact emitting inconsistent DiffOp cursor positions");
/// building hunks from those overflowed or produced wrong hunks. Such a list is recomputed
/// without compaction, and if even that were not contiguous, the region becomes one
/// replacement — a valid, if coarse, diff.
fn line_diff(old: &[&str], new: &[&str]) -> Vec<similar::DiffOp> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    if old.len() - head - tail > DIFF_CAP || new.len() - head - tail > DIFF_CAP {
        return capped(old.len(), new.len(), head, tail);
    }
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, old, new);
    if contiguous(&ops, old.len(), new.len()) {
        return ops;
    }
    let mut raw = similar::algorithms::Replace::new(similar::algorithms::Capture::new());
    let done = similar::algorithms::diff(
        similar::Algorithm::Myers,
        &mut raw,
        old,
        0..old.len(),
        new,
        0..new.len(),
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

/// A region whose middle is too large to diff: the shared first and last lines are equal, the
/// middle one replacement.
fn capped(old_len: usize, new_len: usize, head: usize, tail: usize) -> Vec<similar::DiffOp> {
    let mut ops = Vec::with_capacity(3);
    if head > 0 {
        ops.push(similar::DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: head,
        });
    }
    let (old_mid, new_mid) = (old_len - head - tail, new_len - head - tail);
    ops.push(match (old_mid, new_mid) {
        (0, _) => similar::DiffOp::Insert {
            old_index: head,
            new_index: head,
            new_len: new_mid,
        },
        (_, 0) => similar::DiffOp::Delete {
            old_index: head,
            old_len: old_mid,
            new_index: head,
        },
        _ => similar::DiffOp::Replace {
            old_index: head,
            old_len: old_mid,
            new_index: head,
            new_len: new_mid,
        },
    });
    if tail > 0 {
        ops.push(similar::DiffOp::Equal {
            old_index: old_len - tail,
            new_index: new_len - tail,
            len: tail,
        });
    }
    ops
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
