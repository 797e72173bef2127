//! Patch text → [`Patch`] (APPLY-1..4).
//!
//! The grammar is Codex's (`codex-rs/apply-patch/src/parser.rs`), with its leniency: the text may
//! be wrapped in a heredoc, markers may be padded with whitespace, CRLF counts as a line break,
//! the first chunk of an update may omit `@@`, and an empty line inside a chunk is an empty
//! context line. Everything else is refused with the patch line and what was expected there.
//! Where Codex would only fail later, or silently do something odd, the parser refuses early:
//! unified-diff `@@ -1,3 +1,4 @@` headers, a `*** Move to:` onto the file itself, and a path
//! touched by two operations.

pub use super::lines::ParseError;
use super::lines::*;
use super::{Chunk, FileOp, Patch};
use std::collections::HashMap;

/// Parses a whole patch (APPLY-1..4).
///
/// ```
/// use editref::dialects::apply_patch::{parse, FileOp};
///
/// let patch = parse("*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n").unwrap();
/// assert_eq!(patch.ops, vec![FileOp::Delete { path: "old.txt".into(), line: 2 }]);
///
/// let err = parse("*** Begin Patch\nfoo\n*** End Patch").unwrap_err();
/// assert_eq!(err.to_string(), "line 2: expected a hunk header ('*** Add File: PATH', \
///     '*** Delete File: PATH' or '*** Update File: PATH'), found 'foo'");
/// ```
pub fn parse(text: &str) -> Result<Patch, ParseError> {
    let lines = split_lines(text);
    let end = End {
        no: lines.len() + 1,
        what: "the end of the patch",
    };
    let nonblank = |from: usize, to: usize| -> Option<(usize, usize)> {
        let first = (from..to).find(|&i| !is_blank(&lines[i]))?;
        let last = (from..to).rev().find(|&i| !is_blank(&lines[i]))?;
        Some((first, last))
    };
    let Some((mut first, mut last)) = nonblank(0, lines.len()) else {
        return Err(error_at(&lines, lines.len(), end, format!("'{BEGIN}'")));
    };
    // The line just past the patch proper: the end of the text, or a heredoc's closing line.
    let mut past = lines.len();
    if let Some(delim) = heredoc_delimiter(lines[first].text) {
        if last == first || lines[last].text.trim() != delim {
            let at = if last == first { lines.len() } else { last };
            let opener = lines[first].no;
            return Err(error_at(
                &lines,
                at,
                end,
                format!("'{delim}' as the last line, closing the heredoc opened on line {opener}"),
            ));
        }
        past = last;
        (first, last) = nonblank(first + 1, last)
            .ok_or_else(|| error_at(&lines, past, end, format!("'{BEGIN}'")))?;
    }
    if lines[first].text.trim() != BEGIN {
        return Err(error_at(
            &lines,
            first,
            end,
            format!("'{BEGIN}' as the first line of the patch"),
        ));
    }
    if last == first || lines[last].text.trim() != END {
        let at = if last == first { past } else { last };
        return Err(error_at(
            &lines,
            at,
            end,
            format!("'{END}' as the last line of the patch"),
        ));
    }
    let end_marker = End {
        no: lines[last].no,
        what: "'*** End Patch'",
    };
    let ops = parse_ops(&lines[first + 1..last], end_marker)?;
    if ops.is_empty() {
        return Err(error_at(
            &lines,
            last,
            end,
            format!("at least one operation — {HEADERS} — before '{END}'"),
        ));
    }
    Ok(Patch { ops })
}

/// The paths named so far, with the line that named each (APPLY-4).
#[derive(Default)]
struct Touched(HashMap<String, usize>);

impl Touched {
    fn claim(&mut self, path: &str, line: usize) -> Result<(), ParseError> {
        if let Some(earlier) = self.0.get(path) {
            return Err(ParseError {
                line,
                expected: "each path in at most one operation (put all the changes to one file \
                           into a single '*** Update File' section)"
                    .into(),
                found: format!("{} again, already named on line {earlier}", quote(path)),
                earlier: Some(*earlier),
            });
        }
        self.0.insert(path.to_string(), line);
        Ok(())
    }
}

/// The path after a header marker; refuses an empty one.
fn header_path(rest: &str, line: &Line<'_>, marker: &str) -> Result<String, ParseError> {
    let path = rest.trim();
    if path.is_empty() {
        return Err(ParseError {
            line: line.no,
            expected: format!("a path after '{marker}'"),
            found: quote(line.text),
            earlier: None,
        });
    }
    Ok(path.to_string())
}

/// The operations between the markers; `end` describes the `*** End Patch` line.
fn parse_ops(lines: &[Line<'_>], end: End) -> Result<Vec<FileOp>, ParseError> {
    let mut ops = Vec::new();
    let mut touched = Touched::default();
    let mut i = 0;
    while i < lines.len() {
        let header = lines[i];
        let t = header.text.trim();
        if t.is_empty() {
            i += 1;
            continue;
        }
        if let Some(rest) = t.strip_prefix(ADD) {
            let path = header_path(rest, &header, ADD)?;
            i += 1;
            let mut content = Vec::new();
            while let Some(text) = lines.get(i).and_then(|l| l.text.strip_prefix('+')) {
                content.push(text.to_string());
                i += 1;
            }
            if let Some(next) = lines.get(i) {
                if is_blank(next) {
                    let after = (i..lines.len()).find(|&j| !is_blank(&lines[j]));
                    if after.is_some_and(|j| lines[j].text.starts_with('+')) {
                        return Err(error_at(
                            lines,
                            i,
                            end,
                            "'+' at the start of every line of an added file, empty lines too \
                             ('+' alone)",
                        ));
                    }
                } else if !starts_marker(next.text) {
                    return Err(error_at(
                        lines,
                        i,
                        end,
                        format!(
                            "a line of the added file (starting with '+') or {HEADERS} after \
                             '{ADD} {path}'"
                        ),
                    ));
                }
            }
            touched.claim(&path, header.no)?;
            ops.push(FileOp::Add {
                path,
                lines: content,
                line: header.no,
            });
        } else if let Some(rest) = t.strip_prefix(DELETE) {
            let path = header_path(rest, &header, DELETE)?;
            touched.claim(&path, header.no)?;
            ops.push(FileOp::Delete {
                path,
                line: header.no,
            });
            i += 1;
        } else if let Some(rest) = t.strip_prefix(UPDATE) {
            let path = header_path(rest, &header, UPDATE)?;
            touched.claim(&path, header.no)?;
            i += 1;
            let mut move_to = None;
            if let Some(mv) = lines.get(i) {
                if let Some(rest) = mv.text.trim_end().strip_prefix(MOVE) {
                    let dest = header_path(rest, mv, MOVE)?;
                    if dest == path {
                        return Err(ParseError {
                            line: mv.no,
                            expected: format!(
                                "a destination other than the file itself after '{MOVE}'"
                            ),
                            found: quote(mv.text),
                            earlier: None,
                        });
                    }
                    touched.claim(&dest, mv.no)?;
                    move_to = Some(dest);
                    i += 1;
                }
            }
            let context = format!("'{UPDATE} {path}'");
            let (chunks, next) = parse_chunks(lines, i, end, &context)?;
            i = next;
            ops.push(FileOp::Update {
                path,
                move_to,
                chunks,
                line: header.no,
            });
        } else {
            return Err(error_at(lines, i, end, HEADERS));
        }
    }
    Ok(ops)
}

/// Whether a line (trimmed) is one of the `***` markers that may follow an added file's lines.
fn starts_marker(text: &str) -> bool {
    text.trim_start().starts_with("***")
}

/// The chunks of one update, from `lines[start]` up to the next line that starts with `***`
/// (or the end). Returns the chunks and the index after them. `what` names the update in
/// messages.
fn parse_chunks(
    lines: &[Line<'_>],
    start: usize,
    end: End,
    what: &str,
) -> Result<(Vec<Chunk>, usize), ParseError> {
    let mut chunks = Vec::new();
    let mut i = start;
    // Blank lines before the first chunk are skipped (Codex does the same).
    while lines.get(i).is_some_and(is_blank) {
        i += 1;
    }
    while let Some(l) = lines.get(i) {
        if l.text.starts_with("***") {
            if l.text.trim_end() == EOF_MARKER {
                return Err(error_at(
                    lines,
                    i,
                    end,
                    format!("{DIFF_LINE} before '{EOF_MARKER}'"),
                ));
            }
            break;
        }
        let (chunk, next) = parse_chunk(lines, i, end, chunks.is_empty())?;
        chunks.push(chunk);
        i = next;
    }
    if chunks.is_empty() {
        return Err(error_at(
            lines,
            i,
            end,
            format!(
                "at least one chunk for {what}: '@@' (optionally '@@ ' and a line of the file) \
                 followed by lines starting with ' ', '-' or '+'"
            ),
        ));
    }
    Ok((chunks, i))
}

/// Whether an anchor is really the range part of a unified-diff hunk header
/// (`-12,7 +12,8 @@ …`), which V4A does not have.
fn looks_unified(anchor: &str) -> bool {
    fn range(s: &str, sign: char) -> Option<&str> {
        let s = s.strip_prefix(sign)?;
        let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        if digits == 0 {
            return None;
        }
        let s = &s[digits..];
        match s.strip_prefix(',') {
            Some(r) => {
                let d = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
                (d > 0).then(|| &r[d..])
            }
            None => Some(s),
        }
    }
    let Some(rest) = range(anchor.trim(), '-') else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(' ') else {
        return false;
    };
    range(rest, '+')
        .is_some_and(|tail| tail.trim().is_empty() || tail.trim_start().starts_with("@@"))
}

/// One chunk starting at `lines[start]`: `@@` lines (required unless `first`), then diff lines,
/// then optionally `*** End of File`.
fn parse_chunk(
    lines: &[Line<'_>],
    start: usize,
    end: End,
    first: bool,
) -> Result<(Chunk, usize), ParseError> {
    let mut i = start;
    let mut anchors = Vec::new();
    let mut marked = false;
    while let Some(l) = lines.get(i) {
        let Some(rest) = l.text.strip_prefix("@@") else {
            break;
        };
        if !rest.trim().is_empty() {
            let Some(anchor) = rest.strip_prefix([' ', '\t']) else {
                return Err(error_at(
                    lines,
                    i,
                    end,
                    "'@@' alone, or '@@ ' followed by a line of the file",
                ));
            };
            if looks_unified(anchor) {
                return Err(error_at(
                    lines,
                    i,
                    end,
                    "'@@' alone, or '@@ ' followed by a line of the file (this format has no \
                     line numbers: unified-diff ranges such as '@@ -12,7 +12,8 @@' are not part \
                     of it)",
                ));
            }
            anchors.push(anchor.to_string());
        }
        marked = true;
        i += 1;
    }
    if !marked && !first {
        return Err(error_at(
            lines,
            i,
            end,
            format!(
                "'@@' (or '@@ ' and a line of the file) to start the next chunk, {DIFF_LINE}, \
                 or {HEADERS}"
            ),
        ));
    }
    let mut old = Vec::new();
    let mut new = Vec::new();
    let mut end_of_file = false;
    let mut count = 0;
    while let Some(l) = lines.get(i) {
        let text = l.text;
        if text.starts_with("***") {
            if text.trim_end() == EOF_MARKER && count > 0 {
                end_of_file = true;
                i += 1;
            }
            break;
        }
        if count > 0 && text.starts_with("@@") {
            break;
        }
        match text.as_bytes().first() {
            None => {
                old.push(String::new());
                new.push(String::new());
            }
            Some(b' ') => {
                old.push(text[1..].to_string());
                new.push(text[1..].to_string());
            }
            Some(b'-') => old.push(text[1..].to_string()),
            Some(b'+') => new.push(text[1..].to_string()),
            Some(_) => {
                let expected = if count > 0 {
                    format!(
                        "{DIFF_LINE}, '@@' to start another chunk, '{EOF_MARKER}', or {HEADERS}"
                    )
                } else if marked {
                    DIFF_LINE.to_string()
                } else {
                    format!("'@@' (optionally '@@ ' and a line of the file) or {DIFF_LINE}")
                };
                return Err(error_at(lines, i, end, expected));
            }
        }
        count += 1;
        i += 1;
    }
    if count == 0 {
        return Err(error_at(
            lines,
            i,
            end,
            format!("{DIFF_LINE} after the '@@' line"),
        ));
    }
    Ok((
        Chunk {
            anchors,
            old,
            new,
            end_of_file,
            line: lines[start].no,
        },
        i,
    ))
}

/// Parses one operation of the Responses API form `{type, path, diff}` (APPLY-3).
///
/// - `create_file`: every line of `diff` starts with `+` and the rest of it is a line of the new
///   file (an empty diff makes an empty file). Lines without `+` are refused rather than taken
///   as content, because a file line that itself starts with `+` could not be told apart.
///   Blank lines after the last `+` line are ignored.
/// - `update_file`: `diff` is the body of one `*** Update File` — chunks, the first of which may
///   omit `@@` — without any `***` header.
/// - `delete_file`: `diff` is ignored.
///
/// Line numbers in errors and in [`Chunk::line`] count lines of `diff`; the operation's own
/// `line` is 0. Errors about `kind` or `path` have line 0.
pub fn parse_operation(kind: &str, path: &str, diff: &str) -> Result<FileOp, ParseError> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err(ParseError {
            line: 0,
            expected: "a non-empty path".into(),
            found: quote(path),
            earlier: None,
        });
    }
    let path = trimmed.to_string();
    let lines = split_lines(diff);
    let end = End {
        no: lines.len() + 1,
        what: "the end of the diff",
    };
    match kind {
        "create_file" => {
            let used = lines
                .iter()
                .rposition(|l| !is_blank(l))
                .map_or(0, |last| last + 1);
            let mut content = Vec::with_capacity(used);
            for (i, l) in lines[..used].iter().enumerate() {
                match l.text.strip_prefix('+') {
                    Some(text) => content.push(text.to_string()),
                    None => {
                        return Err(error_at(
                            &lines,
                            i,
                            end,
                            "'+' at the start of every line of a created file, empty lines too \
                             ('+' alone)",
                        ))
                    }
                }
            }
            Ok(FileOp::Add {
                path,
                lines: content,
                line: 0,
            })
        }
        "update_file" => {
            let what = format!("the update of {}", quote(&path));
            let (chunks, next) = parse_chunks(&lines, 0, end, &what)?;
            if next < lines.len() {
                return Err(error_at(
                    &lines,
                    next,
                    end,
                    format!(
                        "{DIFF_LINE}, '@@' or '{EOF_MARKER}' (an update_file diff holds the \
                         chunks of one file, without '***' headers)"
                    ),
                ));
            }
            Ok(FileOp::Update {
                path,
                move_to: None,
                chunks,
                line: 0,
            })
        }
        "delete_file" => Ok(FileOp::Delete { path, line: 0 }),
        other => Err(ParseError {
            line: 0,
            expected: "an operation type 'create_file', 'update_file' or 'delete_file'".into(),
            found: quote(other),
            earlier: None,
        }),
    }
}
