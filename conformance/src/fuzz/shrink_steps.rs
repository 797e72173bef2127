//! Smaller variants of one step's contents, for the shrinker: an edit, a text editor command,
//! a patch, a reply's blocks, a string. The shrinker keeps only variants that are smaller by
//! [`super::shrink::size`]; each stays a step the harness can send (an `old_str` never becomes
//! empty, a patch keeps an operation).

use super::dialects::{Block, Chunk, EditorCommand, PatchOp};
use super::gen::GenEdit;

/// Smaller variants of a text editor command.
pub(super) fn smaller_commands(command: &EditorCommand) -> Vec<EditorCommand> {
    match command {
        EditorCommand::View { range: Some(_) } => vec![EditorCommand::View { range: None }],
        EditorCommand::View { range: None } => Vec::new(),
        EditorCommand::StrReplace { old, new } => {
            let mut out = Vec::new();
            if let Some(n) = new {
                out.push(EditorCommand::StrReplace {
                    old: old.clone(),
                    new: None,
                });
                for n in shorter(n) {
                    out.push(EditorCommand::StrReplace {
                        old: old.clone(),
                        new: Some(n),
                    });
                }
            }
            for o in shorter(old).into_iter().filter(|o| !o.is_empty()) {
                out.push(EditorCommand::StrReplace {
                    old: o,
                    new: new.clone(),
                });
            }
            out
        }
        EditorCommand::Insert { line, text } => {
            let mut out = Vec::new();
            if *line > 0 {
                out.push(EditorCommand::Insert {
                    line: 0,
                    text: text.clone(),
                });
                out.push(EditorCommand::Insert {
                    line: line - 1,
                    text: text.clone(),
                });
            }
            for t in shorter(text) {
                out.push(EditorCommand::Insert {
                    line: *line,
                    text: t,
                });
            }
            out
        }
    }
}

/// Smaller variants of a patch: an operation fewer, a chunk fewer, a line fewer, an anchor
/// dropped, a line shorter.
pub(super) fn smaller_patches(ops: &[PatchOp]) -> Vec<Vec<PatchOp>> {
    let mut out = Vec::new();
    if ops.len() > 1 {
        for i in 0..ops.len() {
            let mut o = ops.to_vec();
            o.remove(i);
            out.push(o);
        }
    }
    for (i, op) in ops.iter().enumerate() {
        let mut put = |op: PatchOp| {
            let mut o = ops.to_vec();
            o[i] = op;
            out.push(o);
        };
        match op {
            PatchOp::Add { path, lines } => {
                for j in 0..lines.len() {
                    let mut l = lines.clone();
                    l.remove(j);
                    put(PatchOp::Add {
                        path: path.clone(),
                        lines: l,
                    });
                }
            }
            PatchOp::Delete { .. } => {}
            PatchOp::Update { path, chunks } => {
                let update = |chunks: Vec<Chunk>| PatchOp::Update {
                    path: path.clone(),
                    chunks,
                };
                if chunks.len() > 1 {
                    for j in 0..chunks.len() {
                        let mut c = chunks.clone();
                        c.remove(j);
                        put(update(c));
                    }
                }
                for (j, chunk) in chunks.iter().enumerate() {
                    let mut with = |chunk: Chunk| {
                        let mut c = chunks.clone();
                        c[j] = chunk;
                        put(update(c));
                    };
                    if chunk.anchor.is_some() {
                        with(Chunk {
                            anchor: None,
                            ..chunk.clone()
                        });
                    }
                    for k in 0..chunk.lines.len() {
                        if chunk.lines.len() > 1 {
                            let mut lines = chunk.lines.clone();
                            lines.remove(k);
                            with(Chunk {
                                lines,
                                ..chunk.clone()
                            });
                        }
                        let (mark, text) = &chunk.lines[k];
                        for t in shorter(text) {
                            let mut lines = chunk.lines.clone();
                            lines[k] = (*mark, t);
                            with(Chunk {
                                lines,
                                ..chunk.clone()
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// Smaller variants of a reply's blocks: a block fewer, a line of SEARCH or REPLACE fewer.
pub(super) fn smaller_blocks(blocks: &[Block]) -> Vec<Vec<Block>> {
    let mut out = Vec::new();
    if blocks.len() > 1 {
        for i in 0..blocks.len() {
            let mut b = blocks.to_vec();
            b.remove(i);
            out.push(b);
        }
    }
    let fewer_lines = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        (0..lines.len())
            .map(|k| {
                let mut l = lines.clone();
                l.remove(k);
                l.concat()
            })
            .collect()
    };
    for (i, b) in blocks.iter().enumerate() {
        for search in fewer_lines(&b.search) {
            let mut v = blocks.to_vec();
            v[i].search = search;
            out.push(v);
        }
        for replace in fewer_lines(&b.replace) {
            let mut v = blocks.to_vec();
            v[i].replace = replace;
            out.push(v);
        }
    }
    out
}

/// Smaller variants of one edit: no replace_all, a shorter new_string, a shorter old_string.
pub(super) fn smaller_edits(e: &GenEdit) -> Vec<GenEdit> {
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
pub(super) fn shorter(s: &str) -> Vec<String> {
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
