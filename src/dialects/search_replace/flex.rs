//! The whitespace-flexible fallback (BLOCK-6..8): finding a SEARCH text that a model indented
//! differently from the file, and indenting its REPLACE text the way the file is.
//!
//! Models quoting code often get the indentation uniformly wrong — all of it left out, or a
//! level too much — while every other character is right. This pass accepts exactly that and
//! nothing looser: after both texts are outdented by their common indentation, each non-blank
//! SEARCH line must equal its file line minus one and the same whitespace prefix, and that
//! prefix is then put in front of each non-blank REPLACE line. Blank lines match blank lines.
//! A second pass (BLOCK-7) also ignores whitespace at the ends of lines. Anything more lenient
//! — similarity scores, fuzzy diffs — would be a guess at which text the model meant, and MATCH-6
//! rules that out.
//!
//! The file is read once per pass and never split into a list: candidate windows are found by
//! a Knuth–Morris–Pratt scan over line keys (a line without its indentation), keeping only the
//! last window's line positions. No window is compared twice, so a file of repetitive lines
//! costs no more than one pass plus the check of each window whose keys all match, and memory
//! grows with the SEARCH text and the number of candidates, not with the file.

use crate::text::Replacement;
use std::collections::VecDeque;

/// What the flexible fallback found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flex {
    /// Exactly one place matches: replace this span of the view (whole lines) by this text,
    /// which is the REPLACE text re-indented like the file (BLOCK-6).
    Unique(Replacement),
    /// More than one place matches in the first pass that matched anything; editref refuses
    /// rather than pick one (BLOCK-8, MATCH-3). `lines` holds the 1-based first line of every
    /// candidate, ascending (candidates may overlap).
    Ambiguous {
        /// The first line of each candidate window, ascending.
        lines: Vec<usize>,
    },
    /// No place matches, even with flexible whitespace; also the answer for a SEARCH text
    /// without a non-blank line, which would match any run of blank lines.
    NotFound,
}

/// How lines are compared in a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Indentation may differ by one common prefix; the rest of each line must be equal.
    Leading,
    /// As `Leading`, and whitespace at the end of lines is ignored as well.
    Trailing,
}

/// Finds the SEARCH text in the file's LF view with flexible leading whitespace (BLOCK-6), then,
/// if nothing matched, also ignoring trailing whitespace (BLOCK-7).
///
/// Meant for a SEARCH text that does not occur in the view exactly: the exact search goes
/// through the core's own matching first (MATCH-1..3), and only when that finds nothing does a
/// dialect fall back to this. Both texts are read as lines — a final `\n` ends the last line
/// rather than starting an empty one.
///
/// The replacement covers the matched lines with their line breaks; where the last matched
/// line is the file's last and has no line break, the replacement text has none at its end
/// either, and an empty REPLACE takes the line break before the window along, so a file that
/// did not end in a line break still does not.
pub fn find_flexible(view: &str, search: &str, replace: &str) -> Flex {
    let search = lines_of(search);
    let replace = lines_of(replace);
    if search.iter().all(|l| is_blank(l)) {
        return Flex::NotFound;
    }
    let cut = search
        .iter()
        .chain(&replace)
        .filter(|l| !is_blank(l))
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let search: Vec<&str> = search.iter().map(|l| outdent(l, cut)).collect();
    let replace: Vec<&str> = replace.iter().map(|l| outdent(l, cut)).collect();
    for pass in [Pass::Leading, Pass::Trailing] {
        let found = scan(view, &search, pass);
        match found.lines.len() {
            0 => continue,
            1 => {
                if let Some(window) = found.first {
                    return Flex::Unique(replacement(&window, &replace));
                }
            }
            _ => return Flex::Ambiguous { lines: found.lines },
        }
    }
    Flex::NotFound
}

/// The lines of a text: split at `\n`, where a final `\n` ends the last line.
fn lines_of(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').collect()
}

/// Indentation characters: space and tab. Other whitespace is text.
const INDENT: [char; 2] = [' ', '\t'];

fn is_blank(line: &str) -> bool {
    line.chars().all(|c| INDENT.contains(&c))
}

/// Width of a line's indentation in bytes (which are ASCII characters).
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(INDENT).len()
}

/// A line without its first `cut` indentation characters; blank lines stay as they are.
fn outdent(line: &str, cut: usize) -> &str {
    if is_blank(line) {
        line
    } else {
        // Every non-blank line has at least `cut` ASCII indentation bytes (`cut` is the
        // minimum), so this slice is on a character boundary; `get` keeps it panic-free anyway.
        line.get(cut..).unwrap_or(line)
    }
}

/// What two lines must agree on before their indentation is looked at.
fn key(line: &str, pass: Pass) -> &str {
    let key = line.trim_start_matches(INDENT);
    match pass {
        Pass::Leading => key,
        Pass::Trailing => key.trim_end_matches(INDENT),
    }
}

/// One line of the view: its start, the end of its text, and whether a `\n` follows.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    broken: bool,
}

/// A candidate window: its lines' positions and the prefix the file adds to the SEARCH lines.
struct Window<'v> {
    first: Line,
    last: Line,
    prefix: &'v str,
}

/// The windows one pass found.
struct Found<'v> {
    lines: Vec<usize>,
    first: Option<Window<'v>>,
}

/// Every window of the view whose lines match the SEARCH lines in this pass.
fn scan<'v>(view: &'v str, search: &[&str], pass: Pass) -> Found<'v> {
    let keys: Vec<&str> = search.iter().map(|l| key(l, pass)).collect();
    let fail = failure_table(&keys);
    let m = keys.len();
    let mut found = Found {
        lines: Vec::new(),
        first: None,
    };
    if m == 0 {
        return found;
    }
    let mut recent: VecDeque<Line> = VecDeque::with_capacity(m);
    let mut matched = 0; // SEARCH lines matched by the lines just read
    for (index, line) in view_lines(view).enumerate() {
        let text = view.get(line.start..line.end).unwrap_or("");
        let k = key(text, pass);
        while matched > 0 && keys.get(matched) != Some(&k) {
            matched = fail.get(matched - 1).copied().unwrap_or(0);
        }
        if keys.get(matched) == Some(&k) {
            matched += 1;
        }
        if recent.len() == m {
            recent.pop_front();
        }
        recent.push_back(line);
        if matched == m {
            if let Some(prefix) = fits(view, &recent, search, pass) {
                found.lines.push(index + 2 - m);
                if found.first.is_none() {
                    if let (Some(&first), Some(&last)) = (recent.front(), recent.back()) {
                        found.first = Some(Window {
                            first,
                            last,
                            prefix,
                        });
                    }
                }
            }
            matched = fail.get(m - 1).copied().unwrap_or(0);
        }
    }
    found
}

/// The lines of the view. A final `\n` ends the last line; an empty view has none.
fn view_lines(view: &str) -> impl Iterator<Item = Line> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= view.len() {
            return None;
        }
        let line = match view.get(start..).and_then(|rest| rest.find('\n')) {
            Some(at) => Line {
                start,
                end: start + at,
                broken: true,
            },
            None => Line {
                start,
                end: view.len(),
                broken: false,
            },
        };
        start = line.end + 1;
        Some(line)
    })
}

/// The Knuth–Morris–Pratt failure table of the keys: for each prefix, the length of its
/// longest proper prefix that is also its suffix.
fn failure_table(keys: &[&str]) -> Vec<usize> {
    let mut fail = vec![0; keys.len()];
    let mut k = 0;
    for i in 1..keys.len() {
        while k > 0 && keys.get(i) != keys.get(k) {
            k = fail.get(k - 1).copied().unwrap_or(0);
        }
        if keys.get(i) == keys.get(k) {
            k += 1;
        }
        if let Some(slot) = fail.get_mut(i) {
            *slot = k;
        }
    }
    fail
}

/// Whether a window whose keys match really fits (BLOCK-6): every non-blank SEARCH line is its
/// file line with one and the same whitespace prefix removed. Returns that prefix.
fn fits<'v>(
    view: &'v str,
    window: &VecDeque<Line>,
    search: &[&str],
    pass: Pass,
) -> Option<&'v str> {
    let mut prefix = None;
    for (line, &s) in window.iter().zip(search) {
        if is_blank(s) {
            continue; // equal keys: the file line is blank too
        }
        let f = view.get(line.start..line.end)?;
        let (f, s) = match pass {
            Pass::Leading => (f, s),
            Pass::Trailing => (f.trim_end_matches(INDENT), s.trim_end_matches(INDENT)),
        };
        let extra = f.strip_suffix(s)?;
        if !is_blank(extra) || prefix.is_some_and(|p| p != extra) {
            return None;
        }
        prefix = Some(extra);
    }
    prefix
}

/// The replacement for a window: the REPLACE lines with the window's prefix in front of each
/// non-blank one, each with a line break — but keeping a missing final line break missing.
fn replacement(window: &Window<'_>, replace: &[&str]) -> Replacement {
    let mut text = String::new();
    for line in replace {
        if !is_blank(line) {
            text.push_str(window.prefix);
        }
        text.push_str(line);
        text.push('\n');
    }
    let mut start = window.first.start;
    let mut end = window.last.end;
    if window.last.broken {
        end += 1;
    } else if text.is_empty() {
        // Deleting the last lines of a file without a final line break: take the break before
        // them, so that the file still ends without one.
        start = start.saturating_sub(1);
    } else {
        text.pop();
    }
    Replacement { start, end, text }
}
