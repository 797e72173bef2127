//! `apply_patch_parse`: the V4A parser (APPLY-1..4).
//!
//! Framing: the first byte picks a mode (modulo 3); the rest is its input.
//! - raw: the rest is patch text (lossy UTF-8). `parse` must not panic; what it accepts must be
//!   well formed (no empty path, no path twice, no update without chunks, line numbers inside the
//!   text and in order) and must read back the same after a canonical re-rendering.
//! - operation: a kind byte (create, update, delete, anything else), the path and the diff as
//!   texts. `parse_operation` must not panic, and what it accepts must be well formed.
//! - model: a [`PatchModel`] (see its framing). Its operations, cleaned by the spec's rules, are
//!   rendered into patch text by the renderer below — written from SPEC §15.1, sharing no code
//!   with the parser — in one of many accepted styles (CRLF, heredocs, padding, blank lines, an
//!   omitted first `@@`, bare empty context lines), and `parse` must give back exactly those
//!   operations with the line numbers the renderer wrote them at. Each operation rendered in the
//!   Responses API form must come back through `parse_operation` too.

use crate::framing::{self, Writer};
use crate::{ensure, Check};
use arbitrary::{Result, Unstructured};
use editref::dialects::apply_patch::{parse, parse_operation, Chunk, FileOp, Patch};
use std::collections::HashSet;

/// The first byte of each mode (seed writing).
pub const PARSE_RAW: u8 = 0;
/// See [`PARSE_RAW`].
pub const PARSE_OPERATION: u8 = 1;
/// See [`PARSE_RAW`].
pub const PARSE_MODEL: u8 = 2;

/// Runs the mode the first byte selects.
pub fn apply_patch_parse(data: &[u8]) -> Check {
    let Some((&first, rest)) = data.split_first() else {
        return Ok(());
    };
    match first % 3 {
        0 => raw(&String::from_utf8_lossy(rest)),
        1 => operation(rest),
        _ => {
            let mut u = Unstructured::new(rest);
            match PatchModel::read(&mut u) {
                Ok(model) => check_model(&model),
                Err(_) => Ok(()),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The model

/// One line of a model chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelLine {
    /// ` text`: in the old and the new lines.
    Context(String),
    /// `-text`: in the old lines only.
    Removed(String),
    /// `+text`: in the new lines only.
    Added(String),
}

/// One chunk of a model update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChunk {
    /// `@@ TEXT` lines.
    pub anchors: Vec<String>,
    /// Diff lines, at least one.
    pub lines: Vec<ModelLine>,
    /// Followed by `*** End of File`.
    pub end_of_file: bool,
    /// Leave out the `@@` line where the format allows it (first chunk, no anchors).
    pub bare: bool,
}

/// One model operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelOp {
    /// `*** Add File:`.
    Add {
        /// Path.
        path: String,
        /// Lines of the new file.
        lines: Vec<String>,
    },
    /// `*** Delete File:`.
    Delete {
        /// Path.
        path: String,
    },
    /// `*** Update File:`.
    Update {
        /// Path.
        path: String,
        /// `*** Move to:`.
        move_to: Option<String>,
        /// Chunks, at least one.
        chunks: Vec<ModelChunk>,
    },
}

/// A model patch and the style to render it in.
///
/// Framing: a style byte (bit 0 CRLF, bit 1 heredoc — bits 5–6 choose its form —, bit 2 padded
/// markers and no final line break, bit 3 padded headers, bit 4 blank lines wherever allowed,
/// bit 7 empty context lines written as empty lines), then operations until the input ends (at
/// most 8): a kind byte (modulo 3: add, delete, update) and the path; an add has a count byte
/// (modulo 8) and that many line texts; an update has a flags byte (bit 0: move, followed by the
/// destination text) and a chunk-count byte (modulo 4, plus 1), and each chunk an anchor-count
/// byte (modulo 3) with the anchor texts, a flags byte (bit 0 end of file, bit 1 leave out `@@`),
/// a line-count byte (modulo 8, plus 1) and per line a kind byte (modulo 3: context, removed,
/// added) and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchModel {
    /// Rendering style bits (see the framing).
    pub style: u8,
    /// The operations.
    pub ops: Vec<ModelOp>,
}

impl PatchModel {
    /// Decodes the framing above.
    pub fn read(u: &mut Unstructured<'_>) -> Result<PatchModel> {
        let style = framing::byte(u)?;
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < 8 {
            let kind = framing::byte(u)? % 3;
            let path = framing::text(u)?;
            ops.push(match kind {
                0 => {
                    let n = framing::byte(u)? % 8;
                    let lines = (0..n).map(|_| framing::text(u)).collect::<Result<_>>()?;
                    ModelOp::Add { path, lines }
                }
                1 => ModelOp::Delete { path },
                _ => {
                    let flags = framing::byte(u)?;
                    let move_to = if flags & 1 != 0 {
                        Some(framing::text(u)?)
                    } else {
                        None
                    };
                    let n = framing::byte(u)? % 4 + 1;
                    let mut chunks = Vec::new();
                    for _ in 0..n {
                        let na = framing::byte(u)? % 3;
                        let anchors = (0..na).map(|_| framing::text(u)).collect::<Result<_>>()?;
                        let cf = framing::byte(u)?;
                        let nl = framing::byte(u)? % 8 + 1;
                        let mut lines = Vec::new();
                        for _ in 0..nl {
                            let k = framing::byte(u)? % 3;
                            let t = framing::text(u)?;
                            lines.push(match k {
                                0 => ModelLine::Context(t),
                                1 => ModelLine::Removed(t),
                                _ => ModelLine::Added(t),
                            });
                        }
                        chunks.push(ModelChunk {
                            anchors,
                            lines,
                            end_of_file: cf & 1 != 0,
                            bare: cf & 2 != 0,
                        });
                    }
                    ModelOp::Update {
                        path,
                        move_to,
                        chunks,
                    }
                }
            });
        }
        Ok(PatchModel { style, ops })
    }

    /// The input bytes (mode byte included) that decode to this model; `None` if it does not
    /// fit the framing (too many operations, chunks or lines).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut w = Writer::new();
        w.byte(PARSE_MODEL).byte(self.style);
        if self.ops.len() > 8 {
            return None;
        }
        for op in &self.ops {
            match op {
                ModelOp::Add { path, lines } => {
                    w.byte(0).text(path)?;
                    if lines.len() >= 8 {
                        return None;
                    }
                    w.byte(lines.len() as u8);
                    for l in lines {
                        w.text(l)?;
                    }
                }
                ModelOp::Delete { path } => {
                    w.byte(1).text(path)?;
                }
                ModelOp::Update {
                    path,
                    move_to,
                    chunks,
                } => {
                    w.byte(2).text(path)?;
                    match move_to {
                        Some(m) => {
                            w.byte(1).text(m)?;
                        }
                        None => {
                            w.byte(0);
                        }
                    }
                    if chunks.is_empty() || chunks.len() > 4 {
                        return None;
                    }
                    w.byte(chunks.len() as u8 - 1);
                    for c in chunks {
                        if c.anchors.len() > 2 || c.lines.is_empty() || c.lines.len() > 8 {
                            return None;
                        }
                        w.byte(c.anchors.len() as u8);
                        for a in &c.anchors {
                            w.text(a)?;
                        }
                        w.byte(u8::from(c.end_of_file) | (u8::from(c.bare) << 1));
                        w.byte(c.lines.len() as u8 - 1);
                        for l in &c.lines {
                            let (k, t) = match l {
                                ModelLine::Context(t) => (0, t),
                                ModelLine::Removed(t) => (1, t),
                                ModelLine::Added(t) => (2, t),
                            };
                            w.byte(k).text(t)?;
                        }
                    }
                }
            }
        }
        Some(w.finish())
    }
}

/// Whether an anchor is a unified-diff range, which the spec refuses (APPLY-2): after trimming,
/// `-N` or `-N,M`, one space, `+N` or `+N,M`, then nothing but whitespace or `@@…`.
fn is_range(anchor: &str) -> bool {
    fn numbers(s: &str, sign: char) -> Option<&str> {
        let mut chars = s.strip_prefix(sign)?.char_indices().peekable();
        let mut seen_digit = false;
        let mut seen_comma = false;
        let mut digits_after_comma = false;
        let mut end = s.len() - sign.len_utf8();
        while let Some(&(i, c)) = chars.peek() {
            if c.is_ascii_digit() {
                if seen_comma {
                    digits_after_comma = true;
                } else {
                    seen_digit = true;
                }
            } else if c == ',' && seen_digit && !seen_comma {
                seen_comma = true;
            } else {
                end = i;
                break;
            }
            chars.next();
        }
        let body = &s[sign.len_utf8()..];
        if !seen_digit || (seen_comma && !digits_after_comma) {
            return None;
        }
        Some(&body[end..])
    }
    let Some(rest) = numbers(anchor.trim(), '-') else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(' ') else {
        return false;
    };
    numbers(rest, '+')
        .is_some_and(|tail| tail.trim().is_empty() || tail.trim_start().starts_with("@@"))
}

fn clean(s: &str) -> String {
    s.chars().filter(|&c| c != '\n' && c != '\r').collect()
}

/// The model with the spec's constraints applied: no line breaks in texts, trimmed non-empty
/// paths each named once, moves elsewhere, anchors that are not blank and not ranges.
fn sanitized(model: &PatchModel) -> PatchModel {
    let mut used: HashSet<String> = HashSet::new();
    let mut ops = Vec::new();
    for op in &model.ops {
        let path = |p: &str| clean(p).trim().to_string();
        let take = |p: &String, used: &HashSet<String>| !p.is_empty() && !used.contains(p);
        match op {
            ModelOp::Add { path: p, lines } => {
                let p = path(p);
                if take(&p, &used) {
                    used.insert(p.clone());
                    ops.push(ModelOp::Add {
                        path: p,
                        lines: lines.iter().map(|l| clean(l)).collect(),
                    });
                }
            }
            ModelOp::Delete { path: p } => {
                let p = path(p);
                if take(&p, &used) {
                    used.insert(p.clone());
                    ops.push(ModelOp::Delete { path: p });
                }
            }
            ModelOp::Update {
                path: p,
                move_to,
                chunks,
            } => {
                let p = path(p);
                if !take(&p, &used) {
                    continue;
                }
                used.insert(p.clone());
                let move_to = move_to
                    .as_deref()
                    .map(path)
                    .filter(|m| *m != p && take(m, &used));
                if let Some(m) = &move_to {
                    used.insert(m.clone());
                }
                let chunks = chunks
                    .iter()
                    .map(|c| ModelChunk {
                        anchors: c
                            .anchors
                            .iter()
                            .map(|a| clean(a))
                            .filter(|a| !a.trim().is_empty() && !is_range(a))
                            .collect(),
                        lines: c
                            .lines
                            .iter()
                            .map(|l| match l {
                                ModelLine::Context(t) => ModelLine::Context(clean(t)),
                                ModelLine::Removed(t) => ModelLine::Removed(clean(t)),
                                ModelLine::Added(t) => ModelLine::Added(clean(t)),
                            })
                            .collect(),
                        end_of_file: c.end_of_file,
                        bare: c.bare,
                    })
                    .collect();
                ops.push(ModelOp::Update {
                    path: p,
                    move_to,
                    chunks,
                });
            }
        }
    }
    PatchModel {
        style: model.style,
        ops,
    }
}

// ---------------------------------------------------------------------------------------------
// The renderer

const CRLF: u8 = 0x01;
const HEREDOC: u8 = 0x02;
const PAD_MARKERS: u8 = 0x04;
const PAD_HEADERS: u8 = 0x08;
const BLANKS: u8 = 0x10;
const BARE_EMPTY_CONTEXT: u8 = 0x80;

/// Lines being written, numbered from 1.
#[derive(Default)]
struct Out {
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
fn render_chunks(chunks: &[ModelChunk], style: u8, out: &mut Out) -> Vec<Chunk> {
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
fn render(model: &PatchModel) -> (String, Vec<FileOp>) {
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
fn render_operation(op: &ModelOp, style: u8) -> (&'static str, String, String, FileOp) {
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
fn without_lines(ops: &[FileOp]) -> Vec<FileOp> {
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
fn as_model(op: &FileOp) -> ModelOp {
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

// ---------------------------------------------------------------------------------------------
// The checks

/// What every accepted operation satisfies (APPLY-1..4). Paths come from a line of the text
/// (`in_text`), or as given to `parse_operation`, where any character may be in them.
fn well_formed_op(op: &FileOp, text_lines: usize, in_text: bool) -> Check {
    let path_ok = |p: &str| !p.is_empty() && p == p.trim() && !(in_text && p.contains('\n'));
    ensure!(path_ok(op.path()), "bad path {:?}", op.path());
    ensure!(
        op.line() <= text_lines,
        "operation line {} past the text",
        op.line()
    );
    let line_ok = |l: &str| !l.contains('\n');
    match op {
        FileOp::Add { lines, .. } => {
            ensure!(
                lines.iter().all(|l| line_ok(l)),
                "added line with a line break"
            );
        }
        FileOp::Delete { .. } => {}
        FileOp::Update {
            move_to,
            chunks,
            line,
            ..
        } => {
            if let Some(m) = move_to {
                ensure!(path_ok(m) && m != op.path(), "bad move destination {m:?}");
            }
            ensure!(!chunks.is_empty(), "update without chunks");
            let mut last = *line;
            for c in chunks {
                ensure!(
                    !c.old.is_empty() || !c.new.is_empty(),
                    "chunk at {} without lines",
                    c.line
                );
                ensure!(
                    c.anchors
                        .iter()
                        .all(|a| !a.trim().is_empty() && !a.contains('\n')),
                    "blank anchor {:?}",
                    c.anchors
                );
                ensure!(
                    c.old.iter().chain(&c.new).all(|l| line_ok(l)),
                    "chunk line with a line break"
                );
                ensure!(
                    c.line > last && c.line <= text_lines,
                    "chunk line {} out of order or past the text",
                    c.line
                );
                last = c.line;
            }
        }
    }
    Ok(())
}

/// How many lines the parser counts in a text (a final line break starts no new line).
fn count_lines(text: &str) -> usize {
    let n = text.split('\n').count();
    if text.ends_with('\n') || text.is_empty() {
        n - 1
    } else {
        n
    }
}

fn raw(text: &str) -> Check {
    let Ok(patch) = parse(text) else {
        return Ok(());
    };
    ensure!(!patch.ops.is_empty(), "accepted a patch without operations");
    let total = count_lines(text);
    let mut seen = HashSet::new();
    let mut last = 0;
    for op in &patch.ops {
        well_formed_op(op, total, true)?;
        ensure!(op.line() > last, "operations out of order");
        last = op.line();
        ensure!(
            seen.insert(op.path().to_string()),
            "path {:?} twice",
            op.path()
        );
        if let FileOp::Update {
            move_to: Some(m), ..
        } = op
        {
            ensure!(
                seen.insert(m.clone()),
                "move onto {m:?}, which is named twice"
            );
        }
    }
    // A canonical rendering reads back as the same operations. CRLF: a line may end with a CR
    // of its own (`x\r\r\n`), which only a CRLF break keeps.
    let model = PatchModel {
        style: CRLF,
        ops: patch.ops.iter().map(as_model).collect(),
    };
    let (again, _) = render(&model);
    match parse(&again) {
        Ok(Patch { ops }) => ensure!(
            without_lines(&ops) == without_lines(&patch.ops),
            "re-rendered patch reads differently:\n{again}\n{ops:#?}\nvs\n{:#?}",
            patch.ops
        ),
        Err(e) => return Err(format!("re-rendered patch refused: {e}\n{again}")),
    }
    Ok(())
}

fn operation(data: &[u8]) -> Check {
    let mut u = Unstructured::new(data);
    let (Ok(kind), Ok(path), Ok(diff)) = (
        framing::byte(&mut u),
        framing::text(&mut u),
        framing::text(&mut u),
    ) else {
        return Ok(());
    };
    let kind = ["create_file", "update_file", "delete_file", "move_file"][usize::from(kind) % 4];
    let Ok(op) = parse_operation(kind, &path, &diff) else {
        return Ok(());
    };
    ensure!(kind != "move_file", "accepted an unknown operation type");
    ensure!(op.line() == 0, "operation line {} is not 0", op.line());
    well_formed_op(&op, count_lines(&diff), false)?;
    let want = match kind {
        "create_file" => matches!(op, FileOp::Add { .. }),
        "update_file" => matches!(op, FileOp::Update { move_to: None, .. }),
        _ => matches!(op, FileOp::Delete { .. }),
    };
    ensure!(want, "{kind} parsed as {op:?}");
    let (_, _, again, _) = render_operation(&as_model(&op), CRLF);
    match parse_operation(kind, op.path(), &again) {
        Ok(back) => ensure!(
            without_lines(std::slice::from_ref(&back)) == without_lines(std::slice::from_ref(&op)),
            "re-rendered {kind} reads differently: {back:?} vs {op:?}"
        ),
        Err(e) => return Err(format!("re-rendered {kind} refused: {e}\n{again}")),
    }
    Ok(())
}

/// Renders the cleaned model and parses it back (APPLY-1, -3, -4).
pub fn check_model(model: &PatchModel) -> Check {
    let model = sanitized(model);
    let (text, expected) = render(&model);
    match parse(&text) {
        Ok(patch) => {
            ensure!(
                !expected.is_empty(),
                "accepted a patch without operations:\n{text}"
            );
            ensure!(
                patch.ops == expected,
                "parsed\n{text}\nas\n{:#?}\nexpected\n{expected:#?}",
                patch.ops
            );
        }
        Err(e) => {
            ensure!(
                expected.is_empty(),
                "refused a valid patch: {e}\n{text}\nexpected {expected:#?}"
            );
        }
    }
    for op in &model.ops {
        let (kind, path, diff, want) = render_operation(op, model.style);
        match parse_operation(kind, &path, &diff) {
            Ok(got) => ensure!(
                got == want,
                "{kind} {path:?} {diff:?} parsed as {got:#?}, expected {want:#?}"
            ),
            Err(e) => return Err(format!("{kind} {path:?} {diff:?} refused: {e}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_as_the_spec_describes_them() {
        for r in [
            "-1 +1",
            "-12,7 +12,8 @@",
            " -1,2 +3 @@ fn main()",
            "-1 +1  ",
        ] {
            assert!(is_range(r), "{r}");
        }
        for r in [
            "-1  +1",
            "-1,+1",
            "-a +1",
            "-1 +1x",
            "-1, +2",
            "1 +1",
            "-1 +1 x @@",
        ] {
            assert!(!is_range(r), "{r}");
        }
    }

    #[test]
    fn a_model_seed_decodes_to_its_model_and_passes() {
        let model = PatchModel {
            style: 0xff,
            ops: vec![
                ModelOp::Add {
                    path: " a.txt ".into(),
                    lines: vec!["x".into(), "".into()],
                },
                ModelOp::Update {
                    path: "b".into(),
                    move_to: Some("c".into()),
                    chunks: vec![
                        ModelChunk {
                            anchors: vec![],
                            lines: vec![
                                ModelLine::Context("".into()),
                                ModelLine::Removed("y".into()),
                                ModelLine::Added("z".into()),
                            ],
                            end_of_file: false,
                            bare: true,
                        },
                        ModelChunk {
                            anchors: vec!["fn f()".into(), "-1 +1 @@".into()],
                            lines: vec![ModelLine::Added("w".into())],
                            end_of_file: true,
                            bare: false,
                        },
                    ],
                },
                ModelOp::Delete {
                    path: "a.txt".into(),
                },
            ],
        };
        let bytes = model.to_bytes().unwrap();
        let back = PatchModel::read(&mut Unstructured::new(&bytes[1..])).unwrap();
        assert_eq!(back, model);
        assert_eq!(apply_patch_parse(&bytes), Ok(()));
        for style in 0..=255u8 {
            check_model(&PatchModel {
                style,
                ..model.clone()
            })
            .unwrap();
        }
    }

    #[test]
    fn raw_and_operation_modes_accept_what_they_should() {
        let text = "*** Begin Patch\n*** Update File: a\n@@ x\n-1\n+2\n*** End Patch\n";
        assert_eq!(
            apply_patch_parse(&[&[PARSE_RAW][..], text.as_bytes()].concat()),
            Ok(())
        );
        let mut w = Writer::new();
        w.byte(PARSE_OPERATION).byte(1);
        w.text("a").unwrap();
        w.text("@@\n-x\n+y\n").unwrap();
        assert_eq!(apply_patch_parse(&w.finish()), Ok(()));
    }
}
