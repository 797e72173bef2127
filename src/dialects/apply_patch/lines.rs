//! The patch text as lines, and how a position in it is described in an error (APPLY-1,
//! APPLY-2): the pieces the parser is built from.

use std::fmt;

/// Why a patch (or one operation) cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line of the patch text (for [`parse_operation`](super::parse::parse_operation), of the diff) where the
    /// problem is; one past the last line when the text ends too early; 0 when the problem is
    /// not in the text (an operation's type or path).
    pub line: usize,
    /// What the format allows at that point.
    pub expected: String,
    /// What is there, described for the reader: the line in single quotes (shortened when
    /// long), `an empty line`, or `the end of the patch`.
    pub found: String,
    /// For a path named by two operations (APPLY-4): the line that named it first.
    pub earlier: Option<usize>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl std::error::Error for ParseError {}

pub(super) const BEGIN: &str = "*** Begin Patch";
pub(super) const END: &str = "*** End Patch";
pub(super) const ADD: &str = "*** Add File:";
pub(super) const DELETE: &str = "*** Delete File:";
pub(super) const UPDATE: &str = "*** Update File:";
pub(super) const MOVE: &str = "*** Move to:";
pub(super) const EOF_MARKER: &str = "*** End of File";
pub(super) const HEADERS: &str =
    "a hunk header ('*** Add File: PATH', '*** Delete File: PATH' or '*** Update File: PATH')";
pub(super) const DIFF_LINE: &str =
    "a line starting with ' ' (context), '-' (removed) or '+' (added)";

/// Longest line quoted in full in an error; longer ones are cut (keeps messages bounded).
pub(super) const QUOTE_MAX: usize = 160;

/// One line of the text: its 1-based number and its content without the line break.
#[derive(Debug, Clone, Copy)]
pub(super) struct Line<'a> {
    /// 1-based line number.
    pub(super) no: usize,
    /// The line without its break.
    pub(super) text: &'a str,
}

/// Splits on LF, reading CRLF as one break (APPLY-1). A final line break does not start one
/// more line, so `"a\n"` is one line and `""` none.
pub(super) fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut no = 1;
    while !rest.is_empty() {
        let (line, next) = match rest.find('\n') {
            Some(at) => {
                let line = &rest[..at];
                (line.strip_suffix('\r').unwrap_or(line), &rest[at + 1..])
            }
            None => (rest, ""),
        };
        out.push(Line { no, text: line });
        no += 1;
        rest = next;
    }
    out
}

pub(super) fn quote(line: &str) -> String {
    match line.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!("'{}…'", &line[..cut]),
        None => format!("'{line}'"),
    }
}

/// What comes after the last line of a slice of lines: its line number and a description.
#[derive(Debug, Clone, Copy)]
pub(super) struct End {
    /// The line number after the slice.
    pub(super) no: usize,
    /// How that place is described.
    pub(super) what: &'static str,
}

/// What is at `lines[i]` (or after the last line), as `(line number, description)`.
pub(super) fn found_at(lines: &[Line<'_>], i: usize, end: End) -> (usize, String) {
    match lines.get(i) {
        Some(l) if l.text.is_empty() => (l.no, "an empty line".into()),
        Some(l) if l.text.trim().is_empty() => (
            l.no,
            format!("a line of only whitespace ({})", quote(l.text)),
        ),
        Some(l) => (l.no, quote(l.text)),
        None => (end.no, end.what.into()),
    }
}

pub(super) fn error_at(
    lines: &[Line<'_>],
    i: usize,
    end: End,
    expected: impl Into<String>,
) -> ParseError {
    let (line, found) = found_at(lines, i, end);
    ParseError {
        line,
        expected: expected.into(),
        found,
        earlier: None,
    }
}

pub(super) fn is_blank(l: &Line<'_>) -> bool {
    l.text.trim().is_empty()
}

/// The delimiter of a heredoc opener: `<<EOF`, `<<'EOF'`, `<<"EOF"`, `<<-EOF`, each optionally
/// preceded by `apply_patch` (or `applypatch`) and whitespace.
pub(super) fn heredoc_delimiter(line: &str) -> Option<&str> {
    let t = line.trim();
    let rest = ["apply_patch", "applypatch"]
        .iter()
        .find_map(|cmd| t.strip_prefix(cmd))
        .map(str::trim_start)
        .unwrap_or(t);
    let rest = rest.strip_prefix("<<")?;
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let (delim, tail) = match rest.chars().next() {
        Some(q @ ('\'' | '"')) => {
            let inner = &rest[1..];
            let close = inner.find(q)?;
            (&inner[..close], &inner[close + 1..])
        }
        _ => {
            let end = rest.find(|c: char| !word(c)).unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        }
    };
    (!delim.is_empty() && delim.chars().all(word) && tail.trim().is_empty()).then_some(delim)
}
