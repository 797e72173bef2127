//! Tests of the patch through its public entry points ([`super::structured_patch`],
//! [`super::Patch`], [`super::unified_diff`]): each one exercises spans, regions and diff text
//! together, so they live beside the module rather than in one of its parts.

use super::*;
use crate::text::Replacement;

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

/// An absolute path is named in the headers without its leading slash, as git names one:
/// `a/tmp/f`, never `a//tmp/f`; both builders of the text agree.
#[test]
fn an_absolute_path_is_named_without_a_double_slash() {
    let p = Patch::whole_text("/tmp/f", "a\n", "b\n");
    assert!(
        p.diff().starts_with("--- a/tmp/f\n+++ b/tmp/f\n@@"),
        "{}",
        p.diff()
    );
    assert_eq!(unified_diff("/tmp/f", &p.hunks()), p.diff());
    let relative = Patch::whole_text("tmp/f", "a\n", "b\n");
    assert_eq!(relative.diff(), p.diff());
}

#[test]
fn edit_6_a_rename_on_every_line_is_one_change_known_from_its_spans() {
    // replace_all whose hits sit on consecutive lines: every line is its own one-line region,
    // joined into one change — removed lines, then added lines — with no diff of the stretch.
    let n = 10_000;
    let old: String = (0..n).map(|i| format!("let v{i} = old_name;\n")).collect();
    let h = structured_patch(&old, &rep_all(&old, "old_name", "new_name"));
    assert_eq!(h.len(), 1);
    assert_eq!(
        (
            h[0].old_start,
            h[0].old_lines,
            h[0].new_start,
            h[0].new_lines
        ),
        (1, n, 1, n)
    );
    let minus = (0..n).map(|i| format!("-let v{i} = old_name;"));
    let plus = (0..n).map(|i| format!("+let v{i} = new_name;"));
    let want: Vec<String> = minus.chain(plus).collect();
    assert_eq!(h[0].lines, want);
}

#[test]
fn edit_6_a_changed_middle_beyond_the_cap_is_one_replacement() {
    // One edit rewriting 2,500 lines of which only the first and last change: the middle
    // exceeds DIFF_CAP, so it is shown as one replacement — decided by size, not by a clock.
    let block: Vec<String> = (0..2_500).map(|i| format!("l{i}\n")).collect();
    let old = format!("top\n{}bottom\n", block.concat());
    let mut new_block = block.clone();
    new_block[0] = "L0\n".into();
    new_block[2_499] = "L2499\n".into();
    let start = 4;
    let reps = vec![Replacement {
        start,
        end: start + block.concat().len(),
        text: new_block.concat(),
    }];
    let h = structured_patch(&old, &reps);
    assert_eq!(h.len(), 1);
    assert_eq!(
        (h[0].old_start, h[0].old_lines, h[0].new_lines),
        (1, 2_502, 2_502)
    );
    let removed = h[0].lines.iter().filter(|l| l.starts_with('-')).count();
    let added = h[0].lines.iter().filter(|l| l.starts_with('+')).count();
    assert_eq!((removed, added), (2_500, 2_500));
    assert_eq!(h[0].lines.first().map(String::as_str), Some(" top"));
    assert_eq!(h[0].lines.last().map(String::as_str), Some(" bottom"));
}

#[test]
fn edit_6_a_small_change_inside_a_large_edit_is_diffed_finely() {
    // Below the cap after the shared first and last lines are set aside: a precise diff.
    let block: Vec<String> = (0..5_000).map(|i| format!("l{i}\n")).collect();
    let old = block.concat();
    let mut new_block = block.clone();
    new_block[2_500] = "changed\n".into();
    let reps = vec![Replacement {
        start: 0,
        end: old.len(),
        text: new_block.concat(),
    }];
    let h = structured_patch(&old, &reps);
    assert_eq!(h.len(), 1);
    let changed: Vec<&String> = h[0].lines.iter().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(changed, ["-l2500", "+changed"]);
}

#[test]
fn edit_6_a_replacement_that_takes_a_line_break_joins_the_next_line_in_the_hunk() {
    // "a\n" → "x": the two lines become one, so the hunk removes both and adds the joined line.
    let old = "a\nb\n";
    let h = structured_patch(old, &rep(old, "a\n", "x"));
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].lines, ["-a", "-b", "+xb"]);
    assert_eq!(
        (
            h[0].old_start,
            h[0].old_lines,
            h[0].new_start,
            h[0].new_lines
        ),
        (1, 2, 1, 1)
    );
    // A deletion of a line's tail with its break (EDIT-2's shape) joins likewise, and a hit
    // on the line it joins is part of the same hunk.
    let old = "keep\nvalue\nnext value\nend\n";
    let mut reps = rep(old, "ue\n", "");
    reps.push(Replacement {
        start: old.find("next value").unwrap() + 5,
        end: old.find("next value").unwrap() + 10,
        text: "VALUE".into(),
    });
    let h = structured_patch(old, &reps);
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(
        h[0].lines,
        [" keep", "-value", "-next value", "+valnext VALUE", " end"]
    );
    // At the end of a file without a final break there is nothing to join.
    let old = "a\nb";
    let h = structured_patch(old, &rep(old, "\nb", ""));
    assert_eq!(
        h[0].lines,
        [
            "-a",
            "-b",
            "\\ No newline at end of file",
            "+a",
            "\\ No newline at end of file"
        ]
    );
}
