//! structuredPatch and unified diff (EDIT-6), computed from the replaced spans.
//!
//! An edit already knows where it changed the file, so the patch never diffs the whole file:
//! each replaced span is widened to whole lines, nearby spans are merged into a region, and a
//! line diff runs over that region only. Context lines come straight from the original text.
//! Cost scales with the size of the edit, not the file.

use crate::text::Replacement;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Lines of context around each change.
pub const CONTEXT: usize = 3;
/// The marker line after a line that has no final newline.
pub const NO_NEWLINE: &str = "\\ No newline at end of file";

/// One hunk, in the shape agents already know (field names as Claude Code's results).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// 1-based first old line.
    pub old_start: usize,
    /// Old lines in the hunk (context and removed).
    pub old_lines: usize,
    /// 1-based first new line.
    pub new_start: usize,
    /// New lines in the hunk (context and added).
    pub new_lines: usize,
    /// Lines prefixed with ' ', '-' or '+', without their line break; a marker line follows a
    /// line that lacks a final newline.
    pub lines: Vec<String>,
}

/// A run of removed and added lines, with where it sits in both texts.
struct Change<'a> {
    old_line: usize,
    new_line: usize,
    old_start_byte: usize,
    old_end_byte: usize,
    /// The removed lines: `old[old_start_byte..old_end_byte]`.
    removed: &'a str,
    removed_count: usize,
    /// Where the added lines are in the shared buffer of added text, one after the other
    /// (each keeps its `\n`; only the last may lack it). One buffer for all changes: a
    /// replace_all with 100,000 hits would otherwise allocate 100,000 strings.
    added: std::ops::Range<usize>,
    added_count: usize,
}

/// Splits a text into lines that keep their `\n`.
fn lines_of(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

/// Whether `s` is exactly one line for [`lines_of`]: not empty, no `\n` before its last byte.
fn is_one_line(s: &str) -> bool {
    !s.is_empty() && memchr::memchr(b'\n', s.as_bytes()).is_none_or(|i| i + 1 == s.len())
}

fn line_start(text: &str, at: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |i| i + 1)
}

fn line_end(text: &str, at: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i + 1)
}

/// The patch of an edit (EDIT-6): the unified diff text, and where each hunk's lines are in
/// it.
///
/// The diff is the only copy of the lines: `structuredPatch` is a view of it. An edit with
/// many hits (a replace_all of a common token) has a patch as large as the file, and building
/// each line as its own string first costs more than the edit itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Patch {
    diff: String,
    hunks: Vec<HunkAt>,
}

/// A hunk's numbers and the byte range of its lines in [`Patch::diff`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct HunkAt {
    old_start: usize,
    old_lines: usize,
    new_start: usize,
    new_lines: usize,
    /// Lines of the hunk in the diff, each ended by `\n` (header excluded).
    lines: std::ops::Range<usize>,
}

impl Patch {
    /// The patch of `replacements` (sorted, disjoint spans of `old`, an LF view), with diff
    /// headers naming `path`.
    pub fn new(path: &str, old: &str, replacements: &[Replacement]) -> Patch {
        let (changes, added) = changes(old, replacements);
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

    /// The unified diff (`--- a/path`, `+++ b/path`, hunks); empty when nothing changed.
    pub fn diff(&self) -> &str {
        &self.diff
    }

    /// The unified diff, without a copy.
    pub fn into_diff(self) -> String {
        self.diff
    }

    /// Whether the patch has no hunk (the text did not change).
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    /// The hunks as owned values (tests, fuzzing, library callers).
    pub fn hunks(&self) -> Vec<Hunk> {
        self.hunks
            .iter()
            .map(|h| Hunk {
                old_start: h.old_start,
                old_lines: h.old_lines,
                new_start: h.new_start,
                new_lines: h.new_lines,
                lines: self.lines_of(h).map(str::to_string).collect(),
            })
            .collect()
    }

    /// The hunks as the `structuredPatch` JSON value: the same as
    /// `serde_json::to_value(self.hunks())` without the intermediate strings.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{Map, Value};
        Value::Array(
            self.hunks
                .iter()
                .map(|h| {
                    let mut m = Map::new();
                    m.insert("oldStart".into(), h.old_start.into());
                    m.insert("oldLines".into(), h.old_lines.into());
                    m.insert("newStart".into(), h.new_start.into());
                    m.insert("newLines".into(), h.new_lines.into());
                    m.insert(
                        "lines".into(),
                        Value::Array(
                            self.lines_of(h)
                                .map(|l| Value::String(l.to_string()))
                                .collect(),
                        ),
                    );
                    Value::Object(m)
                })
                .collect(),
        )
    }

    fn lines_of<'a>(&'a self, h: &HunkAt) -> impl Iterator<Item = &'a str> + 'a {
        // Every line of a hunk's body ends with `\n`.
        let body = &self.diff[h.lines.clone()];
        let mut start = 0;
        memchr::memchr_iter(b'\n', body.as_bytes()).map(move |nl| {
            let line = &body[start..nl];
            start = nl + 1;
            line
        })
    }
}

/// Computes the hunks for `replacements` (sorted, disjoint spans of `old`, an LF view).
pub fn structured_patch(old: &str, replacements: &[Replacement]) -> Vec<Hunk> {
    Patch::new("", old, replacements).hunks()
}

/// The changes of each region, and the buffer their added lines are in.
fn changes<'a>(old: &'a str, replacements: &[Replacement]) -> (Vec<Change<'a>>, String) {
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
fn build(path: &str, old: &str, changes: &[Change<'_>], added: &str) -> Patch {
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
    diff.push_str("--- a/");
    diff.push_str(path);
    diff.push_str("\n+++ b/");
    diff.push_str(path);
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
    out.push_str(&format!("--- a/{path}\n+++ b/{path}\n"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_6_many_hits_on_one_line_make_one_change_of_that_line() {
        let old = "x\nab ab ab ab\ny\nab\n";
        let h = structured_patch(old, &rep_all(old, "ab", "C"));
        assert_eq!(h.len(), 1);
        assert_eq!(
            h[0].lines,
            [" x", "-ab ab ab ab", "+C C C C", " y", "-ab", "+C"]
        );
        assert_eq!((h[0].old_start, h[0].old_lines, h[0].new_lines), (1, 4, 4));
    }

    /// Every hit of `find` replaced by `to`, as replace_all would give them.
    fn rep_all(old: &str, find: &str, to: &str) -> Vec<Replacement> {
        old.match_indices(find)
            .map(|(start, _)| Replacement {
                start,
                end: start + find.len(),
                text: to.into(),
            })
            .collect()
    }

    fn rep(old: &str, find: &str, to: &str) -> Vec<Replacement> {
        let start = old.find(find).unwrap();
        vec![Replacement {
            start,
            end: start + find.len(),
            text: to.into(),
        }]
    }

    #[test]
    fn edit_6_hunks_stay_in_order_where_similar_2_7_compaction_does_not() {
        // similar 2.7's compacted Myers ops for these lines come back out of order; the hunk
        // builder used to overflow on them (debug) or emit wrong hunks (release).
        let old = "<n>\nx\nxx\nx\n";
        let h = structured_patch(old, &rep(old, "<n>\nx\nxx\nx", "x\nx\n\nx\n\n"));
        assert_eq!(h.len(), 1);
        assert_eq!(
            (
                h[0].old_start,
                h[0].old_lines,
                h[0].new_start,
                h[0].new_lines
            ),
            (1, 4, 1, 6)
        );
        let minus: Vec<&str> = h[0]
            .lines
            .iter()
            .filter(|l| !l.starts_with('+'))
            .map(|l| &l[1..])
            .collect();
        let plus: Vec<&str> = h[0]
            .lines
            .iter()
            .filter(|l| !l.starts_with('-'))
            .map(|l| &l[1..])
            .collect();
        assert_eq!(
            minus,
            ["<n>", "x", "xx", "x"],
            "old side of the hunk, in order"
        );
        assert_eq!(
            plus,
            ["x", "x", "", "x", "", ""],
            "new side of the hunk, in order"
        );
    }

    #[test]
    fn edit_6_single_line_change_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let h = structured_patch(old, &rep(old, "5", "five"));
        assert_eq!(h.len(), 1);
        assert_eq!(
            (
                h[0].old_start,
                h[0].old_lines,
                h[0].new_start,
                h[0].new_lines
            ),
            (2, 7, 2, 7)
        );
        assert_eq!(
            h[0].lines,
            vec![" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"]
        );
    }

    #[test]
    fn edit_6_no_newline_marker_and_tabs_kept() {
        let old = "a\n\tb";
        let h = structured_patch(old, &rep(old, "b", "c"));
        assert_eq!(
            h[0].lines,
            vec![" a", "-\tb", NO_NEWLINE, "+\tc", NO_NEWLINE]
        );
    }

    #[test]
    fn edit_6_hunks_merge_within_six_lines() {
        let old: String = (1..=30).map(|i| format!("{i}\n")).collect();
        let mut reps = rep(&old, "\n3\n", "\nthree\n");
        reps[0].start += 1;
        reps[0].end -= 1;
        reps[0].text = "three".into();
        let mut second = rep(&old, "\n10\n", "");
        second[0].start += 1;
        second[0].end -= 1;
        second[0].text = "ten".into();
        reps.extend(second);
        assert_eq!(structured_patch(&old, &reps).len(), 1, "gap of 6 merges");
        let mut far = reps.clone();
        let s = old.find("\n11\n").unwrap() + 1;
        far[1] = Replacement {
            start: s,
            end: s + 2,
            text: "eleven".into(),
        };
        assert_eq!(structured_patch(&old, &far).len(), 2, "gap of 7 splits");
    }

    #[test]
    fn edit_6_multiline_replacement_is_diffed_inside_the_region() {
        let old = "x\na\nb\nc\ny\n";
        let h = structured_patch(old, &rep(old, "a\nb\nc", "A\nb\nC"));
        assert_eq!(h[0].lines, vec![" x", "-a", "+A", " b", "-c", "+C", " y"]);
    }

    #[test]
    fn to_json_is_the_serde_form_and_the_diff_matches_the_hunks() {
        let old: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let reps: Vec<Replacement> = ["line 3\n", "line 20\n"]
            .iter()
            .map(|f| {
                let start = old.find(f).unwrap();
                Replacement {
                    start,
                    end: start + 4,
                    text: "LINE\nnew".into(),
                }
            })
            .collect();
        let patch = Patch::new("f.txt", &old, &reps);
        let hunks = patch.hunks();
        assert_eq!(hunks.len(), 2);
        assert_eq!(patch.to_json(), serde_json::to_value(&hunks).unwrap());
        assert_eq!(patch.diff(), unified_diff("f.txt", &hunks));
    }

    #[test]
    fn one_line_regions_diff_like_myers() {
        // Token replaced on many lines, some adjacent, one of them into an identical line.
        let old = "a x\nb\nc x\nd x\ne\nf\ng\nh\ni\nj\nj2\nk x\n";
        let h = structured_patch(old, &rep_all(old, "x", "y"));
        assert_eq!(h.len(), 2);
        assert_eq!(
            h[0].lines,
            vec!["-a x", "+a y", " b", "-c x", "-d x", "+c y", "+d y", " e", " f", " g"]
        );
        assert_eq!((h[1].old_start, h[1].old_lines), (9, 4));
        assert_eq!(h[1].lines, vec![" i", " j", " j2", "-k x", "+k y"]);
    }

    #[test]
    fn write_patch_of_empty_old_text() {
        let h = Patch::whole_text("f", "", "a\n").hunks();
        assert_eq!(
            (
                h[0].old_start,
                h[0].old_lines,
                h[0].new_start,
                h[0].new_lines
            ),
            (1, 0, 1, 1)
        );
        assert_eq!(
            unified_diff("f", &h),
            "--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+a\n"
        );
    }
}
