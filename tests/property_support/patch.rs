//! EDIT-6 checked without the library's patch code: the hunks are applied to the old text's
//! lines by a plain applier, which must give the new text; every hunk has the context the rule
//! asks for (3 lines on each side where the text has them, at most 6 unchanged lines between
//! two changes, more than 6 between two hunks); the counts in each header are the counts of
//! its lines; and the diff text is the hunks written out as a unified diff.

use editref::patch::Hunk;

/// Lines of context around each change (EDIT-6).
const CONTEXT: usize = 3;
/// The marker after a line that has no final newline (EDIT-6).
const NO_NEWLINE: &str = "\\ No newline at end of file";

/// One line of a hunk, its marker folded in: the kind (' ', '-', '+') and the text with its
/// line break, or without one when the marker follows it.
fn hunk_lines(h: &Hunk) -> Result<Vec<(char, String)>, String> {
    let mut out: Vec<(char, String)> = Vec::new();
    for line in &h.lines {
        if line == NO_NEWLINE {
            match out.last_mut() {
                Some((_, text)) if text.ends_with('\n') => {
                    text.pop();
                }
                _ => return Err(format!("a marker with no line before it in {h:?}")),
            }
            continue;
        }
        let mut chars = line.chars();
        let kind = chars.next().ok_or("an empty hunk line")?;
        if !matches!(kind, ' ' | '-' | '+') {
            return Err(format!("hunk line {line:?} has no ' ', '-' or '+' prefix"));
        }
        out.push((kind, format!("{}\n", chars.as_str())));
    }
    Ok(out)
}

/// Checks `hunks` and `diff` (headers naming `path`) as the patch from `old` to `new`.
pub fn check(path: &str, old: &str, new: &str, hunks: &[Hunk], diff: &str) -> Result<(), String> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut next_old = 0; // 0-based: the next old line not yet copied
    let mut shift: isize = 0; // new line number minus old line number after the hunks so far
    for (k, h) in hunks.iter().enumerate() {
        let lines = hunk_lines(h)?;
        let first = h.old_start.checked_sub(1).ok_or("old_start 0")?;
        if first < next_old || first > old_lines.len() {
            return Err(format!(
                "hunk at old line {} (the previous one ended before line {})",
                h.old_start,
                next_old + 1
            ));
        }
        if h.new_start as isize - h.old_start as isize != shift {
            return Err(format!(
                "hunk -{} +{} is shifted by {}, the hunks before it by {shift}",
                h.old_start,
                h.new_start,
                h.new_start as isize - h.old_start as isize
            ));
        }
        for l in &old_lines[next_old..first] {
            out.push_str(l);
        }
        let mut at = first;
        let (mut olds, mut news, mut added, mut removed) = (0, 0, 0, 0);
        // Unchanged lines before the first change, between changes, after the last one.
        let mut runs: Vec<usize> = vec![0];
        let mut first_change = None;
        let mut last_change_end = None; // 0-based: the old line after the last change
        for (kind, text) in &lines {
            if *kind == ' ' {
                *runs.last_mut().unwrap() += 1;
            } else if *runs.last().unwrap() > 0 || runs.len() == 1 {
                runs.push(0);
            }
            if *kind != '+' {
                if old_lines.get(at) != Some(&text.as_str()) {
                    return Err(format!(
                        "hunk line {kind}{text:?} is not old line {} ({:?})",
                        at + 1,
                        old_lines.get(at)
                    ));
                }
                if *kind == '-' {
                    first_change.get_or_insert(at);
                    last_change_end = Some(at + 1);
                    removed += 1;
                }
                at += 1;
                olds += 1;
            } else {
                first_change.get_or_insert(at);
                last_change_end = Some(at);
                added += 1;
            }
            if *kind != '-' {
                out.push_str(text);
                news += 1;
            }
        }
        if (olds, news) != (h.old_lines, h.new_lines) {
            return Err(format!(
                "header counts {}/{} but the lines give {olds}/{news}",
                h.old_lines, h.new_lines
            ));
        }
        let Some(first_change) = first_change else {
            return Err(format!("a hunk without a change: {h:?}"));
        };
        // runs: [before the first change, (between changes)*, after the last change].
        let before = runs[0];
        let after = if runs.len() > 1 {
            *runs.last().unwrap()
        } else {
            0
        };
        if before != first_change.min(CONTEXT) {
            return Err(format!(
                "{before} lines of context before a change at old line {}",
                first_change + 1
            ));
        }
        let end = last_change_end.unwrap_or(first_change);
        if after != (old_lines.len() - end).min(CONTEXT) {
            return Err(format!(
                "{after} lines of context after a change ending at old line {end}"
            ));
        }
        if let Some(gap) = runs[1..runs.len() - 1].iter().find(|&&g| g > 2 * CONTEXT) {
            return Err(format!("{gap} unchanged lines inside one hunk"));
        }
        // Two hunks are apart only when more than 2 × CONTEXT unchanged lines separate their
        // changes: the previous hunk's trailing context and this one's leading context are
        // full, and at least one line lies between them.
        if k > 0 && first == next_old {
            return Err(format!(
                "hunk at old line {} touches the one before",
                h.old_start
            ));
        }
        next_old = at;
        shift += added as isize - removed as isize;
    }
    for l in old_lines.get(next_old..).unwrap_or(&[]) {
        out.push_str(l);
    }
    if out != new {
        return Err(format!(
            "the hunks applied to the old text give {out:?}, not the new text {new:?}"
        ));
    }
    let want = unified(path, hunks);
    if diff != want {
        return Err(format!(
            "diff text {diff:?} is not the hunks written out: {want:?}"
        ));
    }
    Ok(())
}

/// The hunks written as a unified diff: `--- a/PATH`, `+++ b/PATH`, and per hunk its header
/// (a side without lines names the line before it) and its lines; nothing when no hunk.
fn unified(path: &str, hunks: &[Hunk]) -> String {
    if hunks.is_empty() {
        return String::new();
    }
    let mut s = format!("--- a/{path}\n+++ b/{path}\n");
    for h in hunks {
        let side =
            |start: usize, n: usize| format!("{},{n}", if n == 0 { start - 1 } else { start });
        s += &format!(
            "@@ -{} +{} @@\n",
            side(h.old_start, h.old_lines),
            side(h.new_start, h.new_lines)
        );
        for l in &h.lines {
            s += l;
            s.push('\n');
        }
    }
    s
}
