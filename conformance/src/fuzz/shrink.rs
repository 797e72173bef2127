//! Shrinking a case that shows a disagreement: fewer steps, fewer lines, shorter strings,
//! simpler bytes — as long as the disagreement stays the same kind.
//!
//! The shrinker knows nothing of adapters: it proposes smaller cases, largest cuts first, and
//! keeps the first one the caller's test says still disagrees in the same way; it starts over
//! from that one until no proposal is kept or the budget of tests is spent. Every proposal is
//! strictly smaller by [`size`], so shrinking always ends.

use super::dialects::{EditorCommand, PatchOp};
use super::gen::{GenCase, GenEdit, GenStep};
use super::parts::Encoding;
use super::shrink_steps::{
    shorter, smaller_blocks, smaller_commands, smaller_edits, smaller_patches,
};
use super::yaml::call_of;

/// A measure that every proposal makes smaller: bytes of text plus weights for structure.
pub fn size(case: &GenCase) -> usize {
    let edit = |e: &GenEdit| e.old.len() + e.new.len() + usize::from(e.replace_all) + 4;
    let files: usize = case
        .files
        .iter()
        .map(|f| {
            f.text.len()
                + 16
                + usize::from(f.encoding != Encoding::Utf8) * 8
                + usize::from(f.mode != 0o644) * 4
        })
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
                GenStep::Link { .. } => 8,
                GenStep::Editor { command, .. } => match command {
                    EditorCommand::View { range } => usize::from(range.is_some()) * 4,
                    EditorCommand::StrReplace { old, new } => {
                        old.len() + new.as_ref().map_or(0, |n| n.len() + 1) + 4
                    }
                    EditorCommand::Insert { line, text } => *line as usize + text.len() + 4,
                },
                GenStep::LineEdit {
                    start,
                    end,
                    content,
                    expected,
                    ..
                } => {
                    (*start as usize)
                        + (*end as usize)
                        + content.len()
                        + expected.as_ref().map_or(0, |e| e.len() + 1)
                }
                GenStep::Patch { ops } => ops.iter().map(op_size).sum::<usize>(),
                GenStep::Blocks { blocks } => blocks
                    .iter()
                    .map(|b| 8 + b.search.len() + b.replace.len())
                    .sum::<usize>(),
                GenStep::NotebookEdit { call, .. } => {
                    call.source.len()
                        + 4 * usize::from(call.cell_type.is_some())
                        + 4 * usize::from(call.mode.is_some())
                }
            }
        })
        .sum();
    files + steps + (case.links.len() + case.hardlinks.len()) * 24
}

/// The size of one patch operation.
fn op_size(op: &PatchOp) -> usize {
    8 + match op {
        PatchOp::Add { lines, .. } => lines.iter().map(|l| l.len() + 1).sum(),
        PatchOp::Delete { .. } => 0,
        PatchOp::Update { chunks, .. } => chunks
            .iter()
            .map(|c| {
                4 + c.anchor.as_ref().map_or(0, |a| a.len() + 1)
                    + c.lines.iter().map(|(_, l)| l.len() + 2).sum::<usize>()
            })
            .sum(),
    }
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
    // Whole steps, from the last (a case keeps a call: without one it tests nothing, and a
    // case of no steps does not load).
    for i in (0..case.steps.len()).rev() {
        let mut c = case.clone();
        c.steps.remove(i);
        if c.steps.iter().any(|s| call_of(s).is_some()) {
            out.push(c);
        }
    }
    // Links and extra files.
    for i in 0..case.links.len() {
        let mut c = case.clone();
        let (link, target) = c.links.remove(i);
        rename_all(&mut c.steps, &link, &target);
        out.push(c);
    }
    for i in 0..case.hardlinks.len() {
        let mut c = case.clone();
        let (name, file) = c.hardlinks.remove(i);
        rename_all(&mut c.steps, &name, &file);
        out.push(c);
    }
    // A link made between calls: gone, its later uses naming its target instead.
    for (i, s) in case.steps.iter().enumerate() {
        if let GenStep::Link { path, target } = s {
            let mut c = case.clone();
            c.steps.remove(i);
            rename_all(&mut c.steps[i..], path, target);
            out.push(c);
        }
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
        if f.mode != 0o644 {
            let mut c = case.clone();
            c.files[fi].mode = 0o644;
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
            GenStep::Editor { path, command } => {
                for command in smaller_commands(command) {
                    put(GenStep::Editor {
                        path: path.clone(),
                        command,
                    });
                }
            }
            GenStep::LineEdit {
                path,
                start,
                end,
                content,
                expected,
            } => {
                let with = |start: u64, end: u64, content: String, expected: Option<String>| {
                    GenStep::LineEdit {
                        path: path.clone(),
                        start,
                        end,
                        content,
                        expected,
                    }
                };
                if expected.is_some() {
                    put(with(*start, *end, content.clone(), None));
                }
                if *end >= *start && *start > 0 {
                    put(with(*start, *end - 1, content.clone(), expected.clone()));
                }
                if *start > 1 {
                    put(with(
                        *start - 1,
                        end.saturating_sub(1),
                        content.clone(),
                        expected.clone(),
                    ));
                }
                for t in shorter(content) {
                    put(with(*start, *end, t, expected.clone()));
                }
            }
            GenStep::Patch { ops } => {
                for ops in smaller_patches(ops) {
                    put(GenStep::Patch { ops });
                }
            }
            GenStep::Blocks { blocks } => {
                for blocks in smaller_blocks(blocks) {
                    put(GenStep::Blocks { blocks });
                }
            }
            GenStep::NotebookEdit { path, call } => {
                let mut with = |call: super::notebook::NotebookCall| {
                    put(GenStep::NotebookEdit {
                        path: path.clone(),
                        call,
                    })
                };
                for t in shorter(&call.source) {
                    with(super::notebook::NotebookCall {
                        source: t,
                        ..call.clone()
                    });
                }
                if call.mode.as_deref() == Some("replace") {
                    with(super::notebook::NotebookCall {
                        mode: None,
                        ..call.clone()
                    });
                }
            }
            GenStep::Read { window: None, .. } | GenStep::Touch { .. } | GenStep::Link { .. } => {}
        }
    }
    out
}

/// Steps naming `from` name `to` instead (a removed link's target), up to a step that makes a
/// link of that name again: the steps after it mean the new link.
fn rename_all(steps: &mut [GenStep], from: &str, to: &str) {
    for step in steps {
        rename(step, from, to);
        if matches!(step, GenStep::Link { path, .. } if path == from) {
            break;
        }
    }
}

/// A step naming `from` names `to` instead.
fn rename(step: &mut GenStep, from: &str, to: &str) {
    let one = |path: &mut String| {
        if path == from {
            *path = to.to_string();
        }
    };
    match step {
        GenStep::Read { path, .. }
        | GenStep::Edit { path, .. }
        | GenStep::MultiEdit { path, .. }
        | GenStep::Write { path, .. }
        | GenStep::Modify { path, .. }
        | GenStep::Touch { path }
        | GenStep::Editor { path, .. }
        | GenStep::NotebookEdit { path, .. }
        | GenStep::LineEdit { path, .. } => one(path),
        GenStep::Link { target, .. } => one(target),
        GenStep::Patch { ops } => ops.iter_mut().for_each(|o| one(o.path_mut())),
        GenStep::Blocks { blocks } => blocks.iter_mut().for_each(|b| one(&mut b.path)),
    }
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
                mode: 0o644,
            }],
            links: vec![("link.txt".into(), "a.txt".into())],
            hardlinks: Vec::new(),
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
    fn a_link_made_between_calls_goes_with_its_uses_renamed() {
        let step = |path: &str| GenStep::Read {
            path: path.into(),
            window: None,
        };
        let link = |target: &str| GenStep::Link {
            path: "link.txt".into(),
            target: target.into(),
        };
        let mut c = case("a\n", "a");
        c.links.clear();
        c.steps = vec![
            link("a.txt"),
            step("link.txt"),
            link("b.txt"),
            step("link.txt"),
        ];
        let all = proposals(&c);
        // The first link removed: its uses up to the next link name its target.
        assert!(all
            .iter()
            .any(|p| p.steps == vec![step("a.txt"), link("b.txt"), step("link.txt")]));
        // The swap removed: the later use names the file it swapped to.
        assert!(all
            .iter()
            .any(|p| p.steps == vec![link("a.txt"), step("link.txt"), step("b.txt")]));
        // Shrinking keeps the swap when the property needs it.
        let (small, _) = shrink(c, 200, &mut |p: &GenCase| {
            p.steps
                .iter()
                .any(|s| matches!(s, GenStep::Link { target, .. } if target == "b.txt"))
                && p.steps.last() == Some(&step("link.txt"))
        });
        assert_eq!(small.steps, vec![link("b.txt"), step("link.txt")]);
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
