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
    /// The added lines, one after the other (each keeps its `\n`; only the last may lack it).
    added: String,
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

/// Computes the hunks for `replacements` (sorted, disjoint spans of `old`, an LF view).
pub fn structured_patch(old: &str, replacements: &[Replacement]) -> Vec<Hunk> {
    let changes = changes(old, replacements);
    hunks(old, &changes)
}

fn changes<'a>(old: &'a str, replacements: &[Replacement]) -> Vec<Change<'a>> {
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
    let mut out = Vec::new();
    let mut line = 0; // 0-based old line at `at`
    let mut at = 0;
    let mut delta: isize = 0;
    let deadline = Instant::now() + Duration::from_millis(500);
    for (ls, le, reps) in regions {
        line += memchr::memchr_iter(b'\n', &old.as_bytes()[at..ls]).count();
        at = ls;
        let mut new_text = String::new();
        let mut cursor = ls;
        for rep in &replacements[reps] {
            new_text.push_str(&old[cursor..rep.start]);
            new_text.push_str(&rep.text);
            cursor = rep.end;
        }
        new_text.push_str(&old[cursor..le]);
        let new_base = (line as isize + delta) as usize;
        // One line for one line (a token edit, each hit of a replace_all): that pair is the
        // whole diff, as Myers would find; skip its set-up, which dominates on small regions.
        let old_region = &old[ls..le];
        if is_one_line(old_region) && is_one_line(&new_text) {
            if old_region != new_text {
                out.push(Change {
                    old_line: line,
                    new_line: new_base,
                    old_start_byte: ls,
                    old_end_byte: le,
                    removed: old_region,
                    removed_count: 1,
                    added: new_text,
                    added_count: 1,
                });
            }
            continue;
        }
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
                added: String::new(),
                added_count: 0,
            });
            c.old_end_byte = offsets[old_range.end];
            c.removed = &old[c.old_start_byte..c.old_end_byte];
            c.removed_count += old_range.len();
            c.added_count += new_range.len();
            for l in &new_lines[new_range] {
                c.added.push_str(l);
            }
        }
        out.extend(pending.take());
        delta += new_lines.len() as isize - old_lines.len() as isize;
    }
    out
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

fn strip_nl(line: &str) -> (&str, bool) {
    match line.strip_suffix('\n') {
        Some(s) => (s, true),
        None => (line, false),
    }
}

fn push_line(lines: &mut Vec<String>, prefix: char, line: &str) {
    let (body, has_nl) = strip_nl(line);
    let mut s = String::with_capacity(body.len() + 1);
    s.push(prefix);
    s.push_str(body);
    lines.push(s);
    if !has_nl {
        lines.push(NO_NEWLINE.to_string());
    }
}

/// Up to `n` whole lines of `old` ending at byte `at` (which is a line start).
fn lines_before(old: &str, at: usize, n: usize) -> Vec<&str> {
    let mut start = at;
    for _ in 0..n {
        if start == 0 {
            break;
        }
        start = line_start(old, start - 1);
    }
    lines_of(&old[start..at])
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

fn hunks(old: &str, changes: &[Change<'_>]) -> Vec<Hunk> {
    let mut out = Vec::new();
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
        let before = lines_before(old, first.old_start_byte, CONTEXT);
        // Old lines from the first change to the end of the last (removed and context), the
        // added lines, the context around, and room for "No newline" markers.
        let spanned =
            (changes[j].old_line + changes[j].removed_count).saturating_sub(first.old_line);
        let added: usize = changes[i..=j].iter().map(|c| c.added_count).sum();
        let mut lines = Vec::with_capacity(spanned + added + 2 * CONTEXT + 2);
        let mut old_count = 0;
        let mut new_count = 0;
        for l in &before {
            push_line(&mut lines, ' ', l);
        }
        old_count += before.len();
        new_count += before.len();
        for k in i..=j {
            let c = &changes[k];
            for l in c.removed.split_inclusive('\n') {
                push_line(&mut lines, '-', l);
            }
            for l in c.added.split_inclusive('\n') {
                push_line(&mut lines, '+', l);
            }
            old_count += c.removed_count;
            new_count += c.added_count;
            let gap = if k < j {
                &old[c.old_end_byte..changes[k + 1].old_start_byte]
            } else {
                lines_after(old, c.old_end_byte, CONTEXT)
            };
            for l in gap.split_inclusive('\n') {
                push_line(&mut lines, ' ', l);
                old_count += 1;
                new_count += 1;
            }
        }
        out.push(Hunk {
            old_start: first.old_line - before.len() + 1,
            old_lines: old_count,
            new_start: first.new_line - before.len() + 1,
            new_lines: new_count,
            lines,
        });
        i = j + 1;
    }
    out
}

/// Whole-text patch (Write, where no spans are known): one replacement of everything.
pub fn whole_text_patch(old: &str, new: &str) -> Vec<Hunk> {
    if old == new {
        return Vec::new();
    }
    structured_patch(
        old,
        &[Replacement {
            start: 0,
            end: old.len(),
            text: new.to_string(),
        }],
    )
}

/// The hunks as the `structuredPatch` JSON value, the same as `serde_json::to_value(hunks)`
/// but moving each line into the value instead of copying it (a replace_all over a large file
/// can have hundreds of thousands of lines).
pub fn to_json(hunks: Vec<Hunk>) -> serde_json::Value {
    use serde_json::{Map, Value};
    Value::Array(
        hunks
            .into_iter()
            .map(|h| {
                let mut m = Map::new();
                m.insert("oldStart".into(), h.old_start.into());
                m.insert("oldLines".into(), h.old_lines.into());
                m.insert("newStart".into(), h.new_start.into());
                m.insert("newLines".into(), h.new_lines.into());
                m.insert(
                    "lines".into(),
                    Value::Array(h.lines.into_iter().map(Value::String).collect()),
                );
                Value::Object(m)
            })
            .collect(),
    )
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
        let reps: Vec<Replacement> = old
            .match_indices("ab")
            .map(|(i, _)| Replacement {
                start: i,
                end: i + 2,
                text: "C".into(),
            })
            .collect();
        let h = structured_patch(old, &reps);
        assert_eq!(h.len(), 1);
        assert_eq!(
            h[0].lines,
            [" x", "-ab ab ab ab", "+C C C C", " y", "-ab", "+C"]
        );
        assert_eq!((h[0].old_start, h[0].old_lines, h[0].new_lines), (1, 4, 4));
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
    fn to_json_is_the_serde_form() {
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
        let hunks = structured_patch(&old, &reps);
        assert_eq!(hunks.len(), 2);
        assert_eq!(
            to_json(hunks.clone()),
            serde_json::to_value(&hunks).unwrap()
        );
    }

    #[test]
    fn one_line_regions_diff_like_myers() {
        // Token replaced on many lines, some adjacent, one of them into an identical line.
        let old = "a x\nb\nc x\nd x\ne\nf\ng\nh\ni\nj\nj2\nk x\n";
        let reps: Vec<Replacement> = old
            .match_indices('x')
            .map(|(i, _)| Replacement {
                start: i,
                end: i + 1,
                text: "y".into(),
            })
            .collect();
        let h = structured_patch(old, &reps);
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
        let h = whole_text_patch("", "a\n");
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
