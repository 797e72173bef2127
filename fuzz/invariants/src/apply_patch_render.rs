//! The `apply_patch_parse` target's renderer: a [`PatchModel`] written as patch text in one of
//! many accepted styles, from SPEC §15.5 alone (it shares no code with the parser).

use crate::apply_patch_model::*;
use editref::dialects::apply_patch::{Chunk, FileOp};

// ---------------------------------------------------------------------------------------------
// The renderer

pub(crate) const CRLF: u8 = 0x01;
pub(crate) const HEREDOC: u8 = 0x02;
pub(crate) const PAD_MARKERS: u8 = 0x04;
pub(crate) const PAD_HEADERS: u8 = 0x08;
pub(crate) const BLANKS: u8 = 0x10;
pub(crate) const BARE_EMPTY_CONTEXT: u8 = 0x80;

/// Lines being written, numbered from 1.
#[derive(Default)]
pub(crate) struct Out {
    lines: Vec<String>,
}

impl Out {
    fn push(&mut self, s: impl Into<String>) -> usize {
        self.lines.push(s.into());
        self.lines.len()
    }
}

/// Writes an update's chunks (the body of `*** Update File`, or an `update_file` diff) and
/// returns them as the parser should give them back.
pub(crate) fn render_chunks(chunks: &[ModelChunk], style: u8, out: &mut Out) -> Vec<Chunk> {
    let mut parsed = Vec::new();
    for (ci, c) in chunks.iter().enumerate() {
        // A first chunk may go without `@@` — unless its first line is blank, which the parser
        // skips before the first chunk.
        let first_blank =
            matches!(c.lines.first(), Some(ModelLine::Context(t)) if t.trim().is_empty());
        let marker = ci > 0 || !c.anchors.is_empty() || !c.bare || first_blank;
        let mut start = None;
        if c.anchors.is_empty() {
            if marker {
                start = Some(out.push("@@"));
            }
        } else {
            for a in &c.anchors {
                let no = out.push(format!("@@ {a}"));
                start.get_or_insert(no);
            }
        }
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for l in &c.lines {
            let no = match l {
                ModelLine::Context(t) => {
                    old.push(t.clone());
                    new.push(t.clone());
                    if t.is_empty() && style & BARE_EMPTY_CONTEXT != 0 {
                        out.push("")
                    } else {
                        out.push(format!(" {t}"))
                    }
                }
                ModelLine::Removed(t) => {
                    old.push(t.clone());
                    out.push(format!("-{t}"))
                }
                ModelLine::Added(t) => {
                    new.push(t.clone());
                    out.push(format!("+{t}"))
                }
            };
            start.get_or_insert(no);
        }
        if c.end_of_file {
            out.push(if style & PAD_HEADERS != 0 {
                "*** End of File \t"
            } else {
                "*** End of File"
            });
        }
        parsed.push(Chunk {
            anchors: c.anchors.clone(),
            old,
            new,
            end_of_file: c.end_of_file,
            line: start.unwrap_or(0),
        });
    }
    parsed
}

/// Renders a (sanitized) model as patch text in its style, with the operations the parser must
/// give back.
pub(crate) fn render(model: &PatchModel) -> (String, Vec<FileOp>) {
    let style = model.style;
    let mut out = Out::default();
    let pad = |s: &str, on: bool, lead: bool| -> String {
        match (on, lead) {
            (false, _) => s.to_string(),
            (true, true) => format!(" \t{s}  "),
            (true, false) => format!("{s} \t"),
        }
    };
    let blanks = style & BLANKS != 0;
    let heredoc =
        ["<<EOF", "<<'EOF'", "<<\"EOF\"", "apply_patch <<'EOF'"][usize::from(style >> 5) & 3];
    if blanks {
        out.push("");
        out.push("  ");
    }
    if style & HEREDOC != 0 {
        out.push(heredoc);
        if blanks {
            out.push("");
        }
    }
    out.push(pad("*** Begin Patch", style & PAD_MARKERS != 0, true));
    let mut expected = Vec::new();
    let mut after_update = false;
    for op in &model.ops {
        // After an update's chunks, a blank line or a leading space would be a context line.
        if blanks && !after_update {
            out.push("");
        }
        let header = |out: &mut Out, text: String| {
            out.push(pad(&text, style & PAD_HEADERS != 0, !after_update))
        };
        match op {
            ModelOp::Add { path, lines } => {
                let line = header(&mut out, format!("*** Add File: {path}"));
                for l in lines {
                    out.push(format!("+{l}"));
                }
                expected.push(FileOp::Add {
                    path: path.clone(),
                    lines: lines.clone(),
                    line,
                });
                after_update = false;
            }
            ModelOp::Delete { path } => {
                let line = header(&mut out, format!("*** Delete File: {path}"));
                expected.push(FileOp::Delete {
                    path: path.clone(),
                    line,
                });
                after_update = false;
            }
            ModelOp::Update {
                path,
                move_to,
                chunks,
            } => {
                let line = header(&mut out, format!("*** Update File: {path}"));
                if let Some(m) = move_to {
                    // Only trailing padding: with a leading space it would be a context line.
                    out.push(pad(
                        &format!("*** Move to: {m}"),
                        style & PAD_HEADERS != 0,
                        false,
                    ));
                }
                if blanks {
                    out.push("");
                }
                let chunks = render_chunks(chunks, style, &mut out);
                expected.push(FileOp::Update {
                    path: path.clone(),
                    move_to: move_to.clone(),
                    chunks,
                    line,
                });
                after_update = true;
            }
        }
    }
    if blanks && !after_update {
        out.push("");
    }
    // The end marker is recognised before any chunk is read, so it may be padded on both sides.
    let end = pad("*** End Patch", style & PAD_MARKERS != 0, true);
    out.push(end);
    if style & HEREDOC != 0 {
        if blanks {
            out.push("");
        }
        out.push("EOF");
    }
    if blanks {
        out.push("\t");
    }
    let eol = if style & CRLF != 0 { "\r\n" } else { "\n" };
    let mut text = out.lines.join(eol);
    if style & PAD_MARKERS == 0 {
        text.push_str(eol);
    }
    (text, expected)
}

/// One model operation in the Responses API form: `(type, path, diff)` and what
/// `parse_operation` must give back.
pub(crate) fn render_operation(op: &ModelOp, style: u8) -> (&'static str, String, String, FileOp) {
    let eol = if style & CRLF != 0 { "\r\n" } else { "\n" };
    let finish = |out: Out| {
        let mut diff = out.lines.join(eol);
        // A final line break starts no further line, so a last line that is empty needs one.
        let last_empty = out.lines.last().is_some_and(String::is_empty);
        if !out.lines.is_empty() && (style & PAD_MARKERS == 0 || last_empty) {
            diff.push_str(eol);
        }
        diff
    };
    match op {
        ModelOp::Add { path, lines } => {
            let mut out = Out::default();
            for l in lines {
                out.push(format!("+{l}"));
            }
            let op = FileOp::Add {
                path: path.clone(),
                lines: lines.clone(),
                line: 0,
            };
            ("create_file", path.clone(), finish(out), op)
        }
        ModelOp::Delete { path } => (
            "delete_file",
            path.clone(),
            String::new(),
            FileOp::Delete {
                path: path.clone(),
                line: 0,
            },
        ),
        ModelOp::Update { path, chunks, .. } => {
            let mut out = Out::default();
            let chunks = render_chunks(chunks, style, &mut out);
            let op = FileOp::Update {
                path: path.clone(),
                move_to: None,
                chunks,
                line: 0,
            };
            ("update_file", path.clone(), finish(out), op)
        }
    }
}

/// The operations with every line number set to 0 (for comparisons where they differ).
pub(crate) fn without_lines(ops: &[FileOp]) -> Vec<FileOp> {
    ops.iter()
        .map(|op| match op {
            FileOp::Add { path, lines, .. } => FileOp::Add {
                path: path.clone(),
                lines: lines.clone(),
                line: 0,
            },
            FileOp::Delete { path, .. } => FileOp::Delete {
                path: path.clone(),
                line: 0,
            },
            FileOp::Update {
                path,
                move_to,
                chunks,
                ..
            } => FileOp::Update {
                path: path.clone(),
                move_to: move_to.clone(),
                chunks: chunks
                    .iter()
                    .map(|c| Chunk {
                        line: 0,
                        ..c.clone()
                    })
                    .collect(),
                line: 0,
            },
        })
        .collect()
}

/// A parsed operation as a model one: old lines removed, new lines added, `@@` always written.
pub(crate) fn as_model(op: &FileOp) -> ModelOp {
    match op {
        FileOp::Add { path, lines, .. } => ModelOp::Add {
            path: path.clone(),
            lines: lines.clone(),
        },
        FileOp::Delete { path, .. } => ModelOp::Delete { path: path.clone() },
        FileOp::Update {
            path,
            move_to,
            chunks,
            ..
        } => ModelOp::Update {
            path: path.clone(),
            move_to: move_to.clone(),
            chunks: chunks
                .iter()
                .map(|c| ModelChunk {
                    anchors: c.anchors.clone(),
                    lines: c
                        .old
                        .iter()
                        .map(|t| ModelLine::Removed(t.clone()))
                        .chain(c.new.iter().map(|t| ModelLine::Added(t.clone())))
                        .collect(),
                    end_of_file: c.end_of_file,
                    bare: false,
                })
                .collect(),
        },
    }
}
