//! Reading a model's whole reply into SEARCH/REPLACE blocks (BLOCK-1..5).
//!
//! The reply is read line by line, once, by a small state machine: outside a block every line
//! is prose except an opening marker; inside a block the lines are SEARCH text until the
//! divider and REPLACE text until the closing marker. Only the two lines before an opening
//! marker are remembered, which is where its file name can be (BLOCK-2). Anything that does
//! not fit the grammar is a [`ParseError`] naming the line and what was expected there — never
//! a guess at what the model meant.

use super::markers::{self, Marker, Style, DIVIDER};
use std::fmt;

/// One SEARCH/REPLACE block: replace the SEARCH text in `path` by the REPLACE text.
///
/// Both texts are whole lines with LF breaks (BLOCK-3), ready for the core's exact matching;
/// an empty `search` means the block had no line between its opening marker and its divider,
/// which is how the format asks for a new file or an append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The file the block edits, as written in the reply (BLOCK-2); resolving and confining it
    /// is the applying side's job.
    pub path: String,
    /// The text to find: the lines between the opening marker and the divider, each ending
    /// in `\n`; empty when there are none.
    pub search: String,
    /// The text to put in its place, formed the same way from the lines between the divider
    /// and the closing marker.
    pub replace: String,
    /// The 1-based line of the reply holding the opening marker, so that a failing block can be
    /// pointed out to the model.
    pub line: usize,
}

/// Why a reply could not be read as blocks (BLOCK-5): where, what the grammar expected there,
/// and what was found instead. The message is written for the model, which uses it to resend a
/// well-formed reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line of the reply the error is about; the end of the text counts as the
    /// line after the last line break.
    pub line: usize,
    /// What the grammar needed at that line, and for which block.
    pub expected: String,
    /// What the reply had there instead: a quoted line, `end of text`, …
    pub found: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: expected {}, found {}",
            self.line, self.expected, self.found
        )
    }
}

impl std::error::Error for ParseError {}

/// Where the reader is.
enum State {
    /// Between blocks: prose.
    Outside,
    /// Inside a block, collecting SEARCH text.
    Search(Open),
    /// Inside a block, past the divider, collecting REPLACE text.
    Replace(Open, String),
}

/// A block being read.
struct Open {
    line: usize,
    style: Style,
    path: String,
    search: String,
}

/// Reads every SEARCH/REPLACE block of a reply, in order (BLOCK-1..5).
///
/// Prose, fences and anything else between blocks is ignored; a reply without blocks gives an
/// empty list, and the caller decides whether that is an error. The first line that breaks the
/// grammar stops the reading with a [`ParseError`]: a reply is used whole or not at all, so a
/// half-read reply can never be applied.
pub fn parse(text: &str) -> Result<Vec<Block>, ParseError> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut state = State::Outside;
    // The two lines before the current one, nearest first, with their line numbers.
    let mut back: [Option<(usize, &str)>; 2] = [None, None];
    let mut number = 0;
    for raw in text.split('\n') {
        number += 1;
        // CRLF is a line break: its CR belongs to the break, not to the line (BLOCK-3).
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let mark = markers::marker(line);
        state = match (state, mark) {
            (State::Outside, Some(Marker::Open(style))) => {
                let path = file_name(&back, number, style, blocks.last())?;
                State::Search(Open {
                    line: number,
                    style,
                    path,
                    search: String::new(),
                })
            }
            (State::Outside, Some(Marker::End(style))) => {
                return Err(ParseError {
                    line: number,
                    expected: format!("'{}' to open a block before this line", style.open()),
                    found: format!("{} outside any block", quote(line)),
                })
            }
            (State::Outside, _) => State::Outside,
            (State::Search(open), Some(Marker::Divider)) => State::Replace(open, String::new()),
            (State::Search(open), Some(other)) => {
                return Err(ParseError {
                    line: number,
                    expected: format!(
                        "'{DIVIDER}' between the SEARCH and the REPLACE text of the block \
                         opened on line {}",
                        open.line
                    ),
                    found: found_marker(line, other),
                })
            }
            (State::Search(mut open), None) => {
                push_line(&mut open.search, line);
                State::Search(open)
            }
            (State::Replace(open, replace), Some(Marker::End(_))) => {
                blocks.push(Block {
                    path: open.path,
                    search: open.search,
                    replace,
                    line: open.line,
                });
                State::Outside
            }
            (State::Replace(open, _), Some(other)) => {
                return Err(ParseError {
                    line: number,
                    expected: format!(
                        "'{}' to end the block opened on line {}",
                        open.style.end(),
                        open.line
                    ),
                    found: found_marker(line, other),
                })
            }
            (State::Replace(open, mut replace), None) => {
                push_line(&mut replace, line);
                State::Replace(open, replace)
            }
        };
        back = [Some((number, line)), back[0]];
    }
    match state {
        State::Outside => Ok(blocks),
        State::Search(open) => Err(ParseError {
            line: number,
            expected: format!(
                "'{DIVIDER}' to end the SEARCH text of the block opened on line {}",
                open.line
            ),
            found: "end of text".into(),
        }),
        State::Replace(open, _) => Err(ParseError {
            line: number,
            expected: format!(
                "'{}' to end the block opened on line {}",
                open.style.end(),
                open.line
            ),
            found: "end of text".into(),
        }),
    }
}

/// Appends one line of SEARCH or REPLACE text with its LF (BLOCK-3).
fn push_line(text: &mut String, line: &str) {
    text.push_str(line);
    text.push('\n');
}

/// The file name of a block opening on line `number` (BLOCK-2): on the line before the opening
/// marker, or — when that line is a fence — in the fence's info string or on the line before
/// the fence; failing that, the previous block's file.
fn file_name(
    back: &[Option<(usize, &str)>; 2],
    number: usize,
    style: Style,
    previous: Option<&Block>,
) -> Result<String, ParseError> {
    let mut looked_at = back[0];
    if let Some((_, before)) = back[0] {
        if let Some(info) = markers::fence_info(before) {
            if let Some(name) = markers::fence_name(info) {
                return Ok(name);
            }
            looked_at = back[1];
        }
    }
    if let Some(name) = looked_at.and_then(|(_, l)| markers::name_in(l)) {
        return Ok(name);
    }
    if let Some(block) = previous {
        return Ok(block.path.clone());
    }
    let found = match looked_at {
        None => "the start of the reply".to_string(),
        Some((at, l)) if l.trim().is_empty() => format!("a blank line (line {at})"),
        Some((at, l)) => format!("{} (line {at})", quote(l)),
    };
    Err(ParseError {
        line: number,
        expected: format!(
            "the file's path alone on the line before '{}' or before its opening fence \
             (only a block that follows another may leave it out, and then edits the same file)",
            style.open()
        ),
        found,
    })
}

/// How an unexpected marker is named in a message.
fn found_marker(line: &str, marker: Marker) -> String {
    match marker {
        Marker::Open(_) => format!(
            "{}, a new block before this one ended (a file line that is itself a marker cannot \
             be part of a block)",
            quote(line)
        ),
        Marker::Divider => format!(
            "a second {} (a block has exactly one divider; a file line that is itself a marker \
             cannot be part of a block)",
            quote(line)
        ),
        Marker::End(_) => quote(line),
    }
}

/// Longest excerpt of a line quoted in a message, in characters.
const QUOTE_CHARS: usize = 60;

/// A line quoted for a message: trimmed, and shortened at a character boundary when long.
fn quote(line: &str) -> String {
    let t = line.trim();
    match t.char_indices().nth(QUOTE_CHARS) {
        Some((cut, _)) => format!("'{}…'", t.get(..cut).unwrap_or(t)),
        None => format!("'{t}'"),
    }
}
