//! Finding an update's chunks in a file's LF view (APPLY-5..9).
//!
//! The file is read as lines: the view split on LF, where a final line break does not start one
//! more (empty) line. Chunks are located one after the other, each from the line where the
//! previous one ended (the cursor). For each chunk:
//!
//! 1. Its anchors (`@@ TEXT`) are sought first. Each occurrence of an anchor opens a *scope*:
//!    the lines after it, up to the next occurrence of the same anchor (or the end of the
//!    enclosing scope). A second anchor is sought inside the first one's scopes, and so on.
//!    Without anchors there is one scope: from the cursor to the end of the file.
//! 2. Its old lines are sought starting inside the scopes, pass by pass: exact, then trailing
//!    whitespace ignored, then surrounding whitespace ignored, then typographic punctuation
//!    folded as well. The first pass that finds any place decides; if it finds more than one,
//!    the chunk is refused as ambiguous — Codex would take the first.
//! 3. Not found, and the old lines end with an empty line: the search is repeated without it
//!    (and without a trailing empty new line), Codex's end-of-file retry.
//!
//! Because scopes of one anchor never overlap, every place belongs to exactly one chain of
//! anchor occurrences: a repeated anchor is harmless as long as the old lines fit after only one
//! of its occurrences.
//!
//! The result keeps every line the chunk leaves as it is (a line equal in `old` and `new`,
//! paired by a line diff) as the file has it: a whitespace-insensitive match rewrites only the
//! removed and added lines, never the context.

use super::align::align;
pub use super::locate_error::LocateError;
use super::Chunk;
use crate::text::Replacement;
use std::borrow::Cow;
use std::collections::HashMap;

/// The search passes, in order (APPLY-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Exact,
    TrimEnd,
    Trim,
    Fold,
}

const PASSES: [Pass; 4] = [Pass::Exact, Pass::TrimEnd, Pass::Trim, Pass::Fold];

/// Typographic punctuation and spaces folded by the last pass (Codex's table).
fn fold_char(c: char) -> char {
    match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}'..='\u{201B}' => '\'',
        '\u{201C}'..='\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        c => c,
    }
}

fn normalize(pass: Pass, s: &str) -> Cow<'_, str> {
    match pass {
        Pass::Exact => Cow::Borrowed(s),
        Pass::TrimEnd => Cow::Borrowed(s.trim_end()),
        Pass::Trim => Cow::Borrowed(s.trim()),
        Pass::Fold => {
            let t = s.trim();
            if t.chars().any(|c| fold_char(c) != c) {
                Cow::Owned(t.chars().map(fold_char).collect())
            } else {
                Cow::Borrowed(t)
            }
        }
    }
}

/// The file as lines, with the byte offset where each starts.
struct File<'a> {
    lines: Vec<&'a str>,
    /// `starts[i]` is where line `i` begins; `starts[n]` is the length of the view.
    starts: Vec<usize>,
    /// The view ends with a line break (an empty view counts as ending with one).
    final_newline: bool,
    /// The lines as seen by each pass, computed when a pass is first needed.
    passes: [Option<PassLines<'a>>; 4],
}

/// The file's lines normalised by one pass, each replaced by a number: equal numbers, equal
/// normalised lines. Searching numbers with KMP keeps every search linear in the file's length,
/// however repetitive the file and long the chunk.
struct PassLines<'a> {
    ids: Vec<u32>,
    by_text: HashMap<Cow<'a, str>, u32>,
}

impl<'a> File<'a> {
    fn new(view: &'a str) -> File<'a> {
        let mut lines = Vec::new();
        let mut starts = Vec::new();
        let mut at = 0;
        for line in view.split('\n') {
            lines.push(line);
            starts.push(at);
            at += line.len() + 1;
        }
        if lines.last() == Some(&"") {
            lines.pop();
            starts.pop();
        }
        starts.push(view.len());
        File {
            lines,
            starts,
            final_newline: view.is_empty() || view.ends_with('\n'),
            passes: [None, None, None, None],
        }
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    fn pass(&mut self, pass: Pass) -> &PassLines<'a> {
        let lines = &self.lines;
        self.passes[pass as usize].get_or_insert_with(|| {
            let mut by_text: HashMap<Cow<'a, str>, u32> = HashMap::new();
            let ids = lines
                .iter()
                .map(|l| {
                    let next = by_text.len() as u32;
                    *by_text.entry(normalize(pass, l)).or_insert(next)
                })
                .collect();
            PassLines { ids, by_text }
        })
    }
}

/// Every start of `pat` in `hay`, overlapping ones included (Knuth–Morris–Pratt).
fn find_all(hay: &[u32], pat: &[u32]) -> Vec<usize> {
    find_all_counted(hay, pat, &mut 0)
}

/// [`find_all`], adding one to `compared` for every two lines it compares: the work of the
/// search, which tests bound (at most three times the lines of `hay` and `pat` together,
/// whatever they hold) instead of timing it, so PATH-4's "no input makes it hang" is checked the same
/// way on any machine.
pub(super) fn find_all_counted(hay: &[u32], pat: &[u32], compared: &mut u64) -> Vec<usize> {
    let k = pat.len();
    let mut out = Vec::new();
    if k == 0 || k > hay.len() {
        return out;
    }
    let mut same = |a: u32, b: u32| {
        *compared += 1;
        a == b
    };
    // fail[i]: length of the longest proper border of pat[..=i].
    let mut fail = vec![0usize; k];
    let mut b = 0;
    for i in 1..k {
        while b > 0 && !same(pat[i], pat[b]) {
            b = fail[b - 1];
        }
        if same(pat[i], pat[b]) {
            b += 1;
        }
        fail[i] = b;
    }
    let mut m = 0;
    for (i, &x) in hay.iter().enumerate() {
        while m > 0 && !same(x, pat[m]) {
            m = fail[m - 1];
        }
        if same(x, pat[m]) {
            m += 1;
        }
        if m == k {
            out.push(i + 1 - k);
            m = fail[m - 1];
        }
    }
    out
}

/// A region where a chunk's lines may start: `start..end`, after the anchor line `anchor`.
/// Scopes are kept sorted and disjoint.
#[derive(Debug, Clone, Copy)]
struct Scope {
    start: usize,
    end: usize,
    anchor: Option<usize>,
}

/// Places where `pattern` starts inside `scopes`, in the first pass that finds any: each as
/// (scope index, line). With `at_end`, only a place that ends at the last line counts.
fn search(
    file: &mut File<'_>,
    pattern: &[String],
    scopes: &[Scope],
    at_end: bool,
) -> Vec<(usize, usize)> {
    let n = file.len();
    let k = pattern.len();
    let Some(lo) = scopes.first().map(|s| s.start) else {
        return Vec::new();
    };
    if k == 0 || k > n || lo > n - k {
        return Vec::new();
    }
    for pass in PASSES {
        let lines = file.pass(pass);
        let Some(pat) = pattern
            .iter()
            .map(|l| lines.by_text.get(&normalize(pass, l)).copied())
            .collect::<Option<Vec<u32>>>()
        else {
            continue; // a line the file does not have, in this pass
        };
        let starts = if at_end {
            let last = n - k;
            if lines.ids[last..] == pat[..] {
                vec![last]
            } else {
                Vec::new()
            }
        } else {
            find_all(&lines.ids[lo..], &pat)
                .into_iter()
                .map(|p| p + lo)
                .collect()
        };
        let found: Vec<(usize, usize)> = starts
            .into_iter()
            .filter_map(|p| {
                let s = scopes.partition_point(|sc| sc.start <= p).checked_sub(1)?;
                (p < scopes[s].end).then_some((s, p))
            })
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// The scopes a chunk's anchors leave, searching from `cursor` (APPLY-7).
fn anchor_scopes(
    file: &mut File<'_>,
    chunk: &Chunk,
    index: usize,
    cursor: usize,
) -> Result<Vec<Scope>, LocateError> {
    let mut scopes = vec![Scope {
        start: cursor,
        end: file.len(),
        anchor: None,
    }];
    for anchor in &chunk.anchors {
        let pattern = std::slice::from_ref(anchor);
        let found = search(file, pattern, &scopes, false);
        if found.is_empty() {
            let elsewhere = search(file, pattern, &[whole(file)], false)
                .first()
                .map(|&(_, p)| {
                    let why = if p < cursor {
                        BEFORE_CURSOR
                    } else {
                        "not after the chunk's previous '@@' anchor"
                    };
                    (p + 1, why)
                });
            return Err(LocateError::NotFound {
                chunk: index,
                patch_line: chunk.line,
                what: "anchor",
                text: anchor.clone(),
                from: cursor + 1,
                elsewhere,
            });
        }
        let mut next = Vec::with_capacity(found.len());
        for (j, &(s, at)) in found.iter().enumerate() {
            let end = match found.get(j + 1) {
                Some(&(s2, at2)) if s2 == s => at2,
                _ => scopes[s].end,
            };
            next.push(Scope {
                start: at + 1,
                end,
                anchor: Some(at),
            });
        }
        scopes = next;
    }
    Ok(scopes)
}

const BEFORE_CURSOR: &str =
    "that is before the end of the previous chunk: chunks must follow the order of the file";

fn whole(file: &File<'_>) -> Scope {
    Scope {
        start: 0,
        end: file.len(),
        anchor: None,
    }
}

/// A change to whole lines: `len` lines from line `at` become `lines`.
struct LineEdit<'c> {
    at: usize,
    len: usize,
    lines: Vec<&'c str>,
}

/// Locates `chunks` (one update's, in patch order) in `view`, the file's LF view, and returns
/// the replacements that apply them: sorted, non-overlapping and never touching, each starting
/// and ending on a line boundary, with LF line breaks in their text (APPLY-5..9).
///
/// The file keeps its final-newline state: a view that ends without a line break still does
/// afterwards (unless every line is gone), and one that ends with a line break keeps it.
///
/// ```
/// use editref::dialects::apply_patch::{locate, parse, FileOp};
///
/// let patch = parse("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch").unwrap();
/// let FileOp::Update { chunks, .. } = &patch.ops[0] else { unreachable!() };
/// let reps = locate("zero\none\ntwo\n", chunks).unwrap();
/// assert_eq!((reps[0].start, reps[0].end, reps[0].text.as_str()), (5, 9, "ONE\n"));
/// ```
pub fn locate(view: &str, chunks: &[Chunk]) -> Result<Vec<Replacement>, LocateError> {
    let mut file = File::new(view);
    let n = file.len();
    let mut cursor = 0;
    let mut edits: Vec<LineEdit<'_>> = Vec::new();
    for (index, chunk) in chunks.iter().enumerate() {
        let scopes = anchor_scopes(&mut file, chunk, index, cursor)?;
        let mut old: &[String] = &chunk.old;
        let mut new: &[String] = &chunk.new;
        let mut found = Vec::new();
        if !old.is_empty() {
            found = search(&mut file, old, &scopes, chunk.end_of_file);
            if found.is_empty() && old.last().is_some_and(String::is_empty) {
                // Codex's end-of-file retry: a trailing empty line stands for the final newline.
                old = &old[..old.len() - 1];
                if new.last().is_some_and(String::is_empty) {
                    new = &new[..new.len() - 1];
                }
                found = search(&mut file, old, &scopes, chunk.end_of_file);
            }
            if !old.is_empty() && found.is_empty() {
                return Err(not_found_lines(&mut file, chunk, index, cursor, &scopes));
            }
        }
        if old.is_empty() {
            // A pure addition (APPLY-8): after the anchor, or at the end of the file. Appending
            // at the end leaves the cursor where it was, as in Codex.
            let at = if chunk.end_of_file || chunk.anchors.is_empty() {
                edits.push(LineEdit {
                    at: n,
                    len: 0,
                    lines: new.iter().map(String::as_str).collect(),
                });
                continue;
            } else if scopes.len() > 1 {
                return Err(ambiguous(
                    chunk,
                    index,
                    "anchor",
                    scopes.iter().map(|s| s.anchor.unwrap_or(0)),
                ));
            } else {
                scopes[0].start
            };
            edits.push(LineEdit {
                at,
                len: 0,
                lines: new.iter().map(String::as_str).collect(),
            });
            cursor = at;
            continue;
        }
        if found.len() > 1 {
            return Err(ambiguous(
                chunk,
                index,
                "lines",
                found.iter().map(|&(_, p)| p),
            ));
        }
        let p = found[0].1;
        for run in align(old, new) {
            edits.push(LineEdit {
                at: p + run.old.start,
                len: run.old.len(),
                lines: new[run.new].iter().map(String::as_str).collect(),
            });
        }
        cursor = p + old.len();
    }
    // Appends at the end come after every other change; among themselves, in patch order.
    edits.sort_by_key(|e| e.at);
    Ok(replacements(&file, edits))
}

fn ambiguous(
    chunk: &Chunk,
    index: usize,
    what: &'static str,
    places: impl ExactSizeIterator<Item = usize>,
) -> LocateError {
    let count = places.len();
    LocateError::Ambiguous {
        chunk: index,
        patch_line: chunk.line,
        what,
        count,
        lines: places.take(10).map(|p| p + 1).collect(),
    }
}

fn not_found_lines(
    file: &mut File<'_>,
    chunk: &Chunk,
    index: usize,
    cursor: usize,
    scopes: &[Scope],
) -> LocateError {
    // Where the lines do occur, with or without the trailing empty line (APPLY-8).
    let first_in = |file: &mut File<'_>, scopes: &[Scope]| {
        let mut found = search(file, &chunk.old, scopes, false);
        if found.is_empty() && chunk.old.last().is_some_and(String::is_empty) {
            found = search(file, &chunk.old[..chunk.old.len() - 1], scopes, false);
        }
        found.first().map(|&(_, p)| p)
    };
    const NOT_LAST: &str =
        "the chunk is marked '*** End of File' and they are not the last lines of the file";
    let in_scope = if chunk.end_of_file {
        first_in(file, scopes)
    } else {
        None
    };
    let elsewhere = match in_scope {
        Some(p) => Some((p + 1, NOT_LAST)),
        None => first_in(file, &[whole(file)]).map(|p| {
            let why = if p < cursor {
                BEFORE_CURSOR
            } else if !chunk.anchors.is_empty() {
                "not after the chunk's '@@' anchor"
            } else {
                NOT_LAST
            };
            (p + 1, why)
        }),
    };
    LocateError::NotFound {
        chunk: index,
        patch_line: chunk.line,
        what: "lines",
        text: chunk.old.join("\n"),
        from: cursor + 1,
        elsewhere,
    }
}

/// Line edits → byte replacements of the view, keeping the final-newline state (APPLY-9).
fn replacements(file: &File<'_>, edits: Vec<LineEdit<'_>>) -> Vec<Replacement> {
    let n = file.len();
    let len = file.starts[n];
    // Edits that meet (one ends where the next begins) become one.
    let mut groups: Vec<LineEdit<'_>> = Vec::new();
    for e in edits {
        match groups.last_mut() {
            Some(g) if g.at + g.len == e.at => {
                g.len += e.len;
                g.lines.extend(e.lines);
            }
            _ => groups.push(e),
        }
    }
    let mut out: Vec<Replacement> = Vec::with_capacity(groups.len());
    for g in groups {
        let (p, k) = (g.at, g.len);
        if k == 0 && g.lines.is_empty() {
            continue;
        }
        let rep = if p + k == n && !file.final_newline {
            // The change reaches the last line, which has no line break: neither may the result.
            if !g.lines.is_empty() {
                let joined = g.lines.join("\n");
                if k > 0 {
                    Replacement {
                        start: file.starts[p],
                        end: len,
                        text: joined,
                    }
                } else {
                    Replacement {
                        start: len,
                        end: len,
                        text: format!("\n{joined}"),
                    }
                }
            } else {
                Replacement {
                    // Removing the last lines also removes the line break before them.
                    start: if p == 0 { 0 } else { file.starts[p] - 1 },
                    end: len,
                    text: String::new(),
                }
            }
        } else {
            let mut text = String::with_capacity(g.lines.iter().map(|l| l.len() + 1).sum());
            for l in &g.lines {
                text.push_str(l);
                text.push('\n');
            }
            Replacement {
                start: file.starts[p],
                end: file.starts[p + k],
                text,
            }
        };
        match out.last_mut() {
            Some(last) if last.end == rep.start => {
                last.end = rep.end;
                last.text.push_str(&rep.text);
            }
            _ => out.push(rep),
        }
    }
    out
}
