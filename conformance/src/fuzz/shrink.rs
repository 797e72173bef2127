//! Shrinking a case that shows a disagreement: fewer steps, fewer lines, shorter strings,
//! simpler bytes — as long as the disagreement stays the same kind.
//!
//! The shrinker knows nothing of adapters: it proposes smaller cases, largest cuts first, and
//! keeps the first one the caller's test says still disagrees in the same way; it starts over
//! from that one until no proposal is kept or the budget of tests is spent. Every proposal is
//! strictly smaller by [`size`], so shrinking always ends.

use super::gen::{GenCase, GenEdit, GenStep};
use super::parts::Encoding;

/// A measure that every proposal makes smaller: bytes of text plus weights for structure.
pub fn size(case: &GenCase) -> usize {
    let edit = |e: &GenEdit| e.old.len() + e.new.len() + usize::from(e.replace_all) + 4;
    let files: usize = case
        .files
        .iter()
        .map(|f| f.text.len() + 16 + usize::from(f.encoding != Encoding::Utf8) * 8)
        .sum();
    let steps: usize = case
        .steps
        .iter()
        .map(|s| {
            32 + match s {
                GenStep::Read { window, .. } => usize::from(window.is_some()) * 4,
                GenStep::Edit { edit: e, .. } => edit(e),
                GenStep::MultiEdit { edits, .. } => edits.iter().map(edit).sum::<usize>() + 8,
                GenStep::Write { content, .. } => content.len(),
                GenStep::Modify { text, encoding, .. } => {
                    text.len() + usize::from(*encoding != Encoding::Utf8) * 8
                }
                GenStep::Touch { .. } => 0,
            }
        })
        .sum();
    files + steps + case.links.len() * 24
}

/// Shrinks `case` while `still(candidate)` holds, testing at most `budget` candidates.
/// Returns the smallest case found and the number of tests spent.
pub fn shrink(
    case: GenCase,
    budget: usize,
    still: &mut dyn FnMut(&GenCase) -> bool,
) -> (GenCase, usize) {
    let mut best = case;
    let mut spent = 0;
    'outer: while spent < budget {
        let current = size(&best);
        for candidate in proposals(&best) {
            if size(&candidate) >= current {
                continue;
            }
            if spent >= budget {
                break 'outer;
            }
            spent += 1;
            if still(&candidate) {
                best = candidate;
                continue 'outer;
            }
        }
        break;
    }
    (best, spent)
}

/// Smaller variants of `case`, largest cuts first.
pub fn proposals(case: &GenCase) -> Vec<GenCase> {
    let mut out = Vec::new();
    // Whole steps, from the last.
    for i in (0..case.steps.len()).rev() {
        let mut c = case.clone();
        c.steps.remove(i);
        out.push(c);
    }
    // Links and extra files.
    for i in 0..case.links.len() {
        let mut c = case.clone();
        let (link, target) = c.links.remove(i);
        for s in &mut c.steps {
            rename(s, &link, &target);
        }
        out.push(c);
    }
    for i in 1..case.files.len() {
        let mut c = case.clone();
        c.files.remove(i);
        out.push(c);
    }
    // Lines of each file: halves, quarters, … single lines.
    for (fi, f) in case.files.iter().enumerate() {
        let lines: Vec<&str> = f.text.split_inclusive('\n').collect();
        let mut chunk = lines.len().div_ceil(2);
        while chunk >= 1 {
            let mut start = 0;
            while start < lines.len() {
                let end = (start + chunk).min(lines.len());
                let mut c = case.clone();
                c.files[fi].text = [&lines[..start], &lines[end..]].concat().concat();
                out.push(c);
                start = end;
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2).min(chunk - 1);
        }
        // Long lines: keep the first or the second half of one (its line break stays).
        for (li, l) in lines.iter().enumerate() {
            let body = l.trim_end_matches(['\n', '\r']);
            let chars: Vec<char> = body.chars().collect();
            if chars.len() < 8 {
                continue;
            }
            let half = chars.len() / 2;
            let tail = &l[body.len()..];
            for kept in [&chars[..half], &chars[half..]] {
                let mut new_lines: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                new_lines[li] = format!("{}{tail}", kept.iter().collect::<String>());
                let mut c = case.clone();
                c.files[fi].text = new_lines.concat();
                out.push(c);
            }
        }
        if f.encoding != Encoding::Utf8 {
            let mut c = case.clone();
            c.files[fi].encoding = Encoding::Utf8;
            out.push(c);
        }
        // Simpler bytes: every character outside ASCII (curly quotes kept) as one letter.
        let simple: String = f
            .text
            .chars()
            .map(|ch| {
                if ch.is_ascii() || super::parts::CURLY.iter().any(|(c, _)| *c == ch) {
                    ch
                } else {
                    'e'
                }
            })
            .collect();
        if simple != f.text && f.encoding.encode(&simple).is_some() {
            let mut c = case.clone();
            c.files[fi].text = simple;
            out.push(c);
        }
    }
    // Inside steps.
    for (si, s) in case.steps.iter().enumerate() {
        let mut put = |step: GenStep| {
            let mut c = case.clone();
            c.steps[si] = step;
            out.push(c);
        };
        match s {
            GenStep::Read {
                path,
                window: Some(_),
            } => put(GenStep::Read {
                path: path.clone(),
                window: None,
            }),
            GenStep::Edit { path, edit } => {
                for e in smaller_edits(edit) {
                    put(GenStep::Edit {
                        path: path.clone(),
                        edit: e,
                    });
                }
            }
            GenStep::MultiEdit { path, edits } => {
                if edits.len() == 1 {
                    put(GenStep::Edit {
                        path: path.clone(),
                        edit: edits[0].clone(),
                    });
                }
                for i in 0..edits.len() {
                    if edits.len() > 1 {
                        let mut e = edits.clone();
                        e.remove(i);
                        put(GenStep::MultiEdit {
                            path: path.clone(),
                            edits: e,
                        });
                    }
                    for smaller in smaller_edits(&edits[i]) {
                        let mut e = edits.clone();
                        e[i] = smaller;
                        put(GenStep::MultiEdit {
                            path: path.clone(),
                            edits: e,
                        });
                    }
                }
            }
            GenStep::Write { path, content } => {
                for t in shorter(content) {
                    put(GenStep::Write {
                        path: path.clone(),
                        content: t,
                    });
                }
            }
            GenStep::Modify {
                path,
                text,
                encoding,
            } => {
                for t in shorter(text) {
                    put(GenStep::Modify {
                        path: path.clone(),
                        text: t,
                        encoding: *encoding,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A call naming `from` names `to` instead (a removed link's target).
fn rename(step: &mut GenStep, from: &str, to: &str) {
    let path = match step {
        GenStep::Read { path, .. }
        | GenStep::Edit { path, .. }
        | GenStep::MultiEdit { path, .. }
        | GenStep::Write { path, .. }
        | GenStep::Modify { path, .. }
        | GenStep::Touch { path } => path,
    };
    if path == from {
        *path = to.to_string();
    }
}

/// Smaller variants of one edit: no replace_all, a shorter new_string, a shorter old_string.
fn smaller_edits(e: &GenEdit) -> Vec<GenEdit> {
    let mut out = Vec::new();
    if e.replace_all {
        out.push(GenEdit {
            replace_all: false,
            ..e.clone()
        });
    }
    for new in shorter(&e.new) {
        out.push(GenEdit { new, ..e.clone() });
    }
    for old in shorter(&e.old) {
        out.push(GenEdit { old, ..e.clone() });
    }
    out
}

/// Shorter variants of a string: empty, one letter, each half, without its first or last
/// character.
fn shorter(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let mut out = vec![String::new()];
    if chars.len() > 1 {
        out.push("x".into());
        let half = chars.len() / 2;
        out.push(chars[..half].iter().collect());
        out.push(chars[half..].iter().collect());
        out.push(chars[1..].iter().collect());
        out.push(chars[..chars.len() - 1].iter().collect());
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::GenFile;

    fn case(text: &str, old: &str) -> GenCase {
        GenCase {
            files: vec![GenFile {
                path: "a.txt".into(),
                text: text.into(),
                encoding: Encoding::Utf16Le,
            }],
            links: vec![("link.txt".into(), "a.txt".into())],
            steps: vec![
                GenStep::Read {
                    path: "a.txt".into(),
                    window: Some((1, 2)),
                },
                GenStep::Touch {
                    path: "a.txt".into(),
                },
                GenStep::Edit {
                    path: "link.txt".into(),
                    edit: GenEdit {
                        old: old.into(),
                        new: "something longer".into(),
                        replace_all: true,
                    },
                },
            ],
        }
    }

    #[test]
    fn a_case_shrinks_to_what_the_property_needs() {
        // The "disagreement": an edit whose old_string contains "\r" and a file with a CRLF.
        let big = case("x\r\ny\r\nz\r\nw\r\nv\r\n", "y\r\nz");
        let mut still = |c: &GenCase| {
            c.files.iter().any(|f| f.text.contains("\r\n"))
                && c.steps.iter().any(|s| match s {
                    GenStep::Edit { edit, .. } => edit.old.contains('\r'),
                    _ => false,
                })
        };
        let (small, spent) = shrink(big.clone(), 1000, &mut still);
        assert!(spent < 1000);
        assert!(still(&small));
        let text = &small.files[0].text;
        assert!(text.len() == 3 && text.ends_with("\r\n"), "{text:?}");
        assert_eq!(small.files[0].encoding, Encoding::Utf8);
        assert!(small.links.is_empty());
        assert_eq!(small.steps.len(), 1, "{small:?}");
        let GenStep::Edit { path, edit } = &small.steps[0] else {
            panic!("{small:?}")
        };
        assert_eq!(path, "a.txt", "the link's removal renames its uses");
        assert_eq!(edit.old, "\r");
        assert_eq!(edit.new, "");
        assert!(!edit.replace_all);
        assert!(size(&small) < size(&big));
    }

    #[test]
    fn the_budget_bounds_the_tests() {
        let mut calls = 0;
        let (_, spent) = shrink(case("a\nb\n", "a"), 3, &mut |_| {
            calls += 1;
            true
        });
        assert_eq!(spent, 3);
        assert_eq!(calls, 3);
    }
}
