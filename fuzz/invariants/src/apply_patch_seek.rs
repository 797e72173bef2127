//! `apply_patch_seek`: placing an update's chunks in a file (APPLY-5..9).
//!
//! Two modes, chosen by bit 4 of [`SeekCase::mode`]:
//! - model: one chunk without anchors, whose old lines may be planted into the file once or
//!   twice. `locate` must agree with a naive model of the passes written from the spec: the
//!   same refusal (not found; ambiguous with the same count and lines), or the same text —
//!   exactly when the exact pass decided, and otherwise up to the lines the chunk keeps, which
//!   must then be the file's own lines equal to the chunk's in that pass (APPLY-9).
//! - free: `old` is the body of an `*** Update File` (any chunks, anchors included), parsed with
//!   the real parser. `locate` must not panic; its replacements must be sorted, apart, inside the
//!   view and on line boundaries; a file that ended with a line break still does; and its
//!   errors must describe places that exist.

use crate::framing;
use crate::{ensure, Check};
use editref::dialects::apply_patch::{locate, parse, Chunk, FileOp, LocateError};
use editref::text::Replacement;

/// Input of `apply_patch_seek`. In every text, the ASCII stand-ins `` ` `` `~` `^` `|` `#`
/// stand for ’ — NBSP “ and U+3000, so that the punctuation pass is reached often.
///
/// Framing: mode byte, plant position u16, then the file, old and new texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekCase {
    /// Bits 0–1: how many times `old` is planted into the file (modulo 3); bit 2: the chunk is
    /// marked `*** End of File`; bit 3: the file ends without a line break; bit 4: free mode.
    pub mode: u8,
    /// Where the old lines are planted (a line index, modulo the number of lines plus one).
    pub at: u16,
    /// The file's lines, separated by LF.
    pub file: String,
    /// Model mode: the chunk's old lines (LF-separated; empty: none). Free mode: an update body.
    pub old: String,
    /// Model mode: the chunk's new lines (LF-separated; empty: none).
    pub new: String,
}

crate::framed!(SeekCase {
    mode: framing::byte,
    at: framing::u16_le,
    file: framing::text,
    old: framing::text,
    new: framing::text
});

impl SeekCase {
    /// The input bytes that decode to this case (seed writing).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut w = framing::Writer::new();
        w.byte(self.mode).u16_le(self.at);
        w.text(&self.file)?;
        w.text(&self.old)?;
        w.text(&self.new)?;
        Some(w.finish())
    }
}

/// Bit 4 of the mode: free mode.
pub const SEEK_FREE: u8 = 0x10;

fn stand_ins(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '`' => '\u{2019}',
            '~' => '\u{2014}',
            '^' => '\u{00A0}',
            '|' => '\u{201C}',
            '#' => '\u{3000}',
            c => c,
        })
        .collect()
}

fn split(s: &str) -> Vec<String> {
    if s.is_empty() {
        Vec::new()
    } else {
        s.split('\n').map(str::to_string).collect()
    }
}

/// Checks the case; see the module documentation.
pub fn apply_patch_seek(case: &SeekCase) -> Check {
    if case.mode & SEEK_FREE != 0 {
        free(case)
    } else {
        against_model(case)
    }
}

// ---------------------------------------------------------------------------------------------
// The model: SPEC §15.1 read naively

/// The file's lines: split at LF, a final line break starting no further line.
fn lines_of(view: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = view.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

fn punctuation(c: char) -> char {
    match c {
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2004}' | '\u{2005}' | '\u{2006}'
        | '\u{2007}' | '\u{2008}' | '\u{2009}' | '\u{200A}' | '\u{202F}' | '\u{205F}'
        | '\u{3000}' => ' ',
        c => c,
    }
}

/// A line as pass `pass` (0 exact, 1 trailing whitespace, 2 surrounding whitespace, 3 and
/// punctuation) sees it.
fn seen(pass: usize, s: &str) -> String {
    match pass {
        0 => s.to_string(),
        1 => s.trim_end().to_string(),
        2 => s.trim().to_string(),
        _ => s.trim().chars().map(punctuation).collect(),
    }
}

/// The first pass with any place for `pat`, and the places.
fn places(lines: &[&str], pat: &[String], at_end: bool) -> Option<(usize, Vec<usize>)> {
    let (n, k) = (lines.len(), pat.len());
    if k == 0 || k > n {
        return None;
    }
    for pass in 0..4 {
        let fits = |p: usize| (0..k).all(|j| seen(pass, lines[p + j]) == seen(pass, &pat[j]));
        let found: Vec<usize> = if at_end {
            (n - k..=n - k).filter(|&p| fits(p)).collect()
        } else {
            (0..=n - k).filter(|&p| fits(p)).collect()
        };
        if !found.is_empty() {
            return Some((pass, found));
        }
    }
    None
}

#[derive(Debug)]
enum Outcome {
    NotFound,
    Ambiguous {
        count: usize,
        lines: Vec<usize>,
    },
    /// `k` lines from line `p` become `new`; `pass` decided.
    Placed {
        pass: usize,
        p: usize,
        k: usize,
        new: Vec<String>,
    },
}

fn model(lines: &[&str], old: &[String], new: &[String], at_end: bool) -> Outcome {
    let n = lines.len();
    if old.is_empty() {
        return Outcome::Placed {
            pass: 0,
            p: n,
            k: 0,
            new: new.to_vec(),
        };
    }
    let (mut old, mut new) = (old.to_vec(), new.to_vec());
    let mut found = places(lines, &old, at_end);
    if found.is_none() && old.last().is_some_and(String::is_empty) {
        old.pop();
        if new.last().is_some_and(String::is_empty) {
            new.pop();
        }
        if old.is_empty() {
            return Outcome::Placed {
                pass: 0,
                p: n,
                k: 0,
                new,
            };
        }
        found = places(lines, &old, at_end);
    }
    match found {
        None => Outcome::NotFound,
        Some((_, ps)) if ps.len() > 1 => Outcome::Ambiguous {
            count: ps.len(),
            lines: ps.iter().take(10).map(|p| p + 1).collect(),
        },
        Some((pass, ps)) => Outcome::Placed {
            pass,
            p: ps[0],
            k: old.len(),
            new,
        },
    }
}

/// The file after replacing lines `p..p + k` with `new`, keeping its final-newline state.
fn rendered(lines: &[&str], final_newline: bool, p: usize, k: usize, new: &[String]) -> String {
    let out: Vec<&str> = lines[..p]
        .iter()
        .copied()
        .chain(new.iter().map(String::as_str))
        .chain(lines[p + k..].iter().copied())
        .collect();
    let mut text = out.join("\n");
    if final_newline && !out.is_empty() {
        text.push('\n');
    }
    text
}

fn applied(view: &str, reps: &[Replacement]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for r in reps {
        out.push_str(&view[at..r.start]);
        out.push_str(&r.text);
        at = r.end;
    }
    out.push_str(&view[at..]);
    out
}

/// Replacements sorted, apart, inside the view, on character and line boundaries.
fn well_formed(view: &str, reps: &[Replacement]) -> Check {
    let b = view.as_bytes();
    let mut last_end = None;
    for r in reps {
        ensure!(
            r.start <= r.end && r.end <= view.len(),
            "{r:?} outside the view"
        );
        ensure!(
            view.is_char_boundary(r.start) && view.is_char_boundary(r.end),
            "{r:?} splits a character"
        );
        if let Some(e) = last_end {
            ensure!(r.start > e, "replacements not sorted and apart: {reps:?}");
        }
        last_end = Some(r.end);
        // A span starts a line — or, removing the last lines of a file without a final line
        // break, at the line break before them, and then reaches the end.
        let starts_line = r.start == 0 || r.start == view.len() || b[r.start - 1] == b'\n';
        let before_tail = b.get(r.start) == Some(&b'\n') && r.end == view.len();
        ensure!(
            starts_line || before_tail,
            "{r:?} does not start on a line boundary"
        );
        ensure!(
            r.end == r.start || r.end == view.len() || b[r.end - 1] == b'\n',
            "{r:?} does not end on a line boundary"
        );
        ensure!(
            !(r.start == r.end && r.text.is_empty()),
            "empty replacement {r:?}"
        );
    }
    Ok(())
}

/// Largest file × chunk the naive model is run on.
const MODEL_WORK: usize = 1_000_000;

fn against_model(case: &SeekCase) -> Check {
    let old = split(&stand_ins(&case.old));
    let new = split(&stand_ins(&case.new));
    let mut lines = split(&stand_ins(&case.file));
    let plants = usize::from(case.mode & 3) % 3;
    for i in 0..plants {
        let at = (usize::from(case.at) + i * (old.len() + 1)) % (lines.len() + 1);
        lines.splice(at..at, old.iter().cloned());
    }
    let mut view = lines.join("\n");
    if case.mode & 8 == 0 && !view.is_empty() {
        view.push('\n');
    }
    let at_end = case.mode & 4 != 0;
    let chunk = Chunk {
        anchors: vec![],
        old: old.clone(),
        new: new.clone(),
        end_of_file: at_end,
        line: 1,
    };
    let real = locate(&view, std::slice::from_ref(&chunk));
    if let Ok(reps) = &real {
        well_formed(&view, reps)?;
    }
    let file_lines = lines_of(&view);
    if file_lines.len().saturating_mul(old.len().max(1)) > MODEL_WORK {
        return Ok(());
    }
    let final_newline = view.is_empty() || view.ends_with('\n');
    match (model(&file_lines, &old, &new, at_end), real) {
        (Outcome::NotFound, Err(LocateError::NotFound { what: "lines", .. })) => Ok(()),
        (
            Outcome::Ambiguous { count, lines },
            Err(LocateError::Ambiguous {
                count: c,
                lines: l,
                what: "lines",
                ..
            }),
        ) => {
            ensure!(
                (count, &lines) == (c, &l),
                "ambiguous: model {count} at {lines:?}, locate {c} at {l:?}"
            );
            Ok(())
        }
        (Outcome::Placed { pass, p, k, new }, Ok(reps)) => {
            let got = applied(&view, &reps);
            let want = rendered(&file_lines, final_newline, p, k, &new);
            if pass == 0 {
                ensure!(got == want, "exact match: got {got:?}, model {want:?}");
                return Ok(());
            }
            // Loosely matched: lines the chunk keeps are the file's own (APPLY-9), which the
            // pass sees as equal to the chunk's.
            let g: Vec<&str> = got.split('\n').collect();
            let w: Vec<&str> = want.split('\n').collect();
            ensure!(
                g.len() == w.len(),
                "pass {pass}: got {got:?}, model {want:?} (line counts differ)"
            );
            for (i, (a, b)) in g.iter().zip(&w).enumerate() {
                let in_chunk = i >= p && i < p + new.len();
                ensure!(
                    a == b || (in_chunk && seen(pass, a) == seen(pass, b)),
                    "pass {pass}: line {} is {a:?}, model {b:?}\ngot {got:?}\nmodel {want:?}",
                    i + 1
                );
                if in_chunk && a != b {
                    ensure!(
                        file_lines[p..p + k].contains(a),
                        "pass {pass}: line {} = {a:?} is neither the chunk's nor the file's",
                        i + 1
                    );
                }
            }
            Ok(())
        }
        (m, r) => Err(format!(
            "model says {m:?}, locate says {r:?}\nview {view:?}\nchunk {chunk:?}"
        )),
    }
}

fn free(case: &SeekCase) -> Check {
    let view = stand_ins(&case.file);
    let body = stand_ins(&case.old);
    let Ok(patch) = parse(&format!(
        "*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch"
    )) else {
        return Ok(());
    };
    let Some(FileOp::Update { chunks, .. }) = patch.ops.first() else {
        return Ok(());
    };
    let n = lines_of(&view).len();
    match locate(&view, chunks) {
        Ok(reps) => {
            well_formed(&view, &reps)?;
            let after = applied(&view, &reps);
            if view.is_empty() || view.ends_with('\n') {
                ensure!(
                    after.is_empty() || after.ends_with('\n'),
                    "the final line break was lost: {after:?}"
                );
            }
        }
        Err(LocateError::Ambiguous {
            chunk,
            count,
            lines,
            ..
        }) => {
            ensure!(chunk < chunks.len(), "chunk {chunk} of {}", chunks.len());
            ensure!(count >= 2, "ambiguous with {count} places");
            ensure!(lines.len() == count.min(10), "{count} places, {lines:?}");
            ensure!(
                lines.windows(2).all(|w| w[0] < w[1]) && lines.iter().all(|&l| l >= 1 && l <= n),
                "candidate lines {lines:?} (file of {n} lines)"
            );
        }
        Err(LocateError::NotFound {
            chunk,
            from,
            elsewhere,
            ..
        }) => {
            ensure!(chunk < chunks.len(), "chunk {chunk} of {}", chunks.len());
            ensure!(from >= 1 && from <= n + 1, "search from line {from} of {n}");
            if let Some((l, _)) = elsewhere {
                ensure!(l >= 1 && l <= n, "elsewhere at line {l} of {n}");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(mode: u8, at: u16, file: &str, old: &str, new: &str) -> SeekCase {
        SeekCase {
            mode,
            at,
            file: file.into(),
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn model_mode_agrees_on_hand_picked_cases() {
        for c in [
            case(1, 1, "a\nb\nc", "x\ny", "z"),
            case(2, 0, "a\nb", "x", "y"),
            case(0, 0, "a\n b \nc", "b", "B"),
            case(0, 0, "a\n|q|\n", "\"q\"", "Q"),
            case(4, 0, "x\nm\nx", "x", "y"),
            case(8, 0, "a\nb", "b\n", "c\n"),
            case(0, 0, "", "", "new"),
            case(1, 5, "a  \nb\t\nc", "a\nb\nc", "a\nB\nc"),
        ] {
            assert_eq!(apply_patch_seek(&c), Ok(()), "{c:?}");
            let bytes = c.to_bytes().unwrap();
            assert_eq!(crate::run("apply_patch_seek", &bytes), Some(Ok(())));
        }
    }

    #[test]
    fn free_mode_accepts_a_patch_body() {
        let c = case(
            SEEK_FREE,
            0,
            "def f():\n    a\ndef g():\n    a\n",
            "@@ def g():\n-    a\n+    b",
            "",
        );
        assert_eq!(apply_patch_seek(&c), Ok(()));
    }
}
