//! The `apply_patch_parse` target's model of a patch: operations, chunks and lines as
//! arbitrary builds them, cleaned by the spec's rules (APPLY-1..4).

use crate::framing::{self, Writer};
use arbitrary::{Result, Unstructured};
use std::collections::HashSet;

/// The first byte of each mode of the `apply_patch_parse` target's input (seed writing): the
/// model writes [`PARSE_MODEL`] before its own framing.
pub const PARSE_RAW: u8 = 0;
/// See [`PARSE_RAW`].
pub const PARSE_OPERATION: u8 = 1;
/// See [`PARSE_RAW`].
pub const PARSE_MODEL: u8 = 2;

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
pub(crate) fn is_range(anchor: &str) -> bool {
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

pub(crate) fn clean(s: &str) -> String {
    s.chars().filter(|&c| c != '\n' && c != '\r').collect()
}

/// The model with the spec's constraints applied: no line breaks in texts, trimmed non-empty
/// paths each named once, moves elsewhere, anchors that are not blank and not ranges.
pub(crate) fn sanitized(model: &PatchModel) -> PatchModel {
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
