//! Why an update's chunks cannot be placed in the file (APPLY-6, APPLY-7), and the message
//! that tells the model which lines were sought where, and what to change.

use std::fmt;

/// Why the chunks of an update cannot be placed in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocateError {
    /// An anchor, or the chunk's old lines, do not occur where the chunk allows them.
    NotFound {
        /// Index of the chunk in the slice given to [`locate`](super::seek::locate) (from 0).
        chunk: usize,
        /// The chunk's [`Chunk::line`](super::Chunk::line) in the patch.
        patch_line: usize,
        /// `"anchor"` or `"lines"`.
        what: &'static str,
        /// The anchor's text, or the old lines joined with `\n`.
        text: String,
        /// 1-based file line where the search began: 1, or the line after the previous chunk.
        from: usize,
        /// Where the text does occur outside the region searched (its first 1-based line), and
        /// why that place does not count.
        elsewhere: Option<(usize, &'static str)>,
    },
    /// The chunk fits at more than one place (APPLY-6).
    Ambiguous {
        /// Index of the chunk in the slice given to [`locate`](super::seek::locate) (from 0).
        chunk: usize,
        /// The chunk's [`Chunk::line`](super::Chunk::line) in the patch.
        patch_line: usize,
        /// `"lines"` when the old lines fit at several places; `"anchor"` when a chunk that only
        /// adds lines has an anchor that occurs at several places.
        what: &'static str,
        /// How many places fit.
        count: usize,
        /// The 1-based file lines where the first places (at most 10) begin, in order.
        lines: Vec<usize>,
    },
}

impl LocateError {
    /// The index of the chunk the error is about.
    pub fn chunk(&self) -> usize {
        match self {
            LocateError::NotFound { chunk, .. } | LocateError::Ambiguous { chunk, .. } => *chunk,
        }
    }
}

fn list(lines: &[usize], count: usize) -> String {
    let mut s = lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if count > lines.len() {
        s.push_str(", …");
    }
    s
}

impl fmt::Display for LocateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocateError::NotFound {
                patch_line,
                what,
                text,
                from,
                elsewhere,
                ..
            } => {
                write!(f, "the chunk at line {patch_line} of the patch: ")?;
                let region = if *from > 1 {
                    format!(" after line {}, where the previous chunk ended", from - 1)
                } else {
                    String::new()
                };
                if *what == "anchor" {
                    write!(f, "the anchor line '@@ {text}' was not found{region}.")?;
                } else {
                    write!(
                        f,
                        "the lines to change were not found{region}. Expected lines:\n{text}"
                    )?;
                }
                if let Some((line, why)) = elsewhere {
                    write!(f, "\nThey occur at line {line}, but {why}.")?;
                }
                write!(
                    f,
                    "\nRead the file again and copy its lines exactly (context lines start with a \
                     space, removed lines with '-')."
                )
            }
            LocateError::Ambiguous {
                patch_line,
                what,
                count,
                lines,
                ..
            } => {
                let at = list(lines, *count);
                if *what == "anchor" {
                    write!(
                        f,
                        "the chunk at line {patch_line} of the patch adds lines after its '@@' \
                         anchor, which occurs at {count} places (lines {at}). Choose an anchor \
                         line that occurs only once, or add context lines around the addition."
                    )
                } else {
                    write!(
                        f,
                        "the chunk at line {patch_line} of the patch fits at {count} places \
                         (starting at lines {at}); nothing was changed. Add context lines, or an \
                         '@@' line naming the enclosing function or class, so that it fits at \
                         exactly one place."
                    )
                }
            }
        }
    }
}

impl std::error::Error for LocateError {}
