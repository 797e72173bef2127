//! LineEdit (LINES-1..6): lines replaced by number, guarded against lines that moved.
//!
//! Line numbers are the most fragile way to address text: one line inserted above by a linter
//! and the edit lands on the wrong lines. So LineEdit requires a full, fresh Read like Edit
//! (any change since is `stale`), optionally checks `expected_text` against the lines, and
//! otherwise reuses everything: the span goes through the same patch builder, renderer and
//! atomic write as an Edit.

use super::open::{open_text, ReadRule};
use crate::api::{Change, LineEditInput, LineEditOutput};
use crate::disk::WriteRequest;
use crate::error::{msg, Code, ToolError, ToolResult};
use crate::patch::Patch;
use crate::session::{Entry, Session};
use crate::text::{eol, Replacement};

/// Runs LineEdit.
pub fn run(session: &Session, input: LineEditInput) -> ToolResult<LineEditOutput> {
    run_as(session, input, "LineEdit")
}

/// Runs LineEdit under another tool's name in the undo journal (the text editor's `insert`).
pub fn run_as(session: &Session, input: LineEditInput, tool: &str) -> ToolResult<LineEditOutput> {
    let _turn = session.turn_for(&[&input.file_path]); // SESSION-6
    let opened = open_text(session, &input.file_path, ReadRule::Required)?;
    let doc = opened.document()?;
    let view = doc.view();
    let (start, end) = line_span(view, input.start_line, input.end_line)?;
    let old_text = view.get(start..end).unwrap_or("").to_string();
    if let Some(expected) = &input.expected_text {
        if !same_lines(&eol::normalize_crlf(expected), &old_text) {
            return Err(ToolError::new(
                Code::Stale,
                format!(
                    "Lines {}-{} of '{}' do not hold expected_text; they are now:\n{}\nRead the file again and give the line numbers of the text you mean.",
                    input.start_line, input.end_line, input.file_path, old_text
                ),
            )
            .with("actual", old_text));
        }
    }
    let mut text = eol::normalize_crlf(&input.new_content).into_owned();
    // LINES-3: lines stay lines. Replaced lines that ended with a break, and text inserted
    // before a line or at the end of a file that ends with a break, end with one too.
    let insertion = start == end;
    let needs_break = old_text.ends_with('\n')
        || (insertion && !view.is_empty() && (start < view.len() || view.ends_with('\n')));
    if needs_break && !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    // An insertion at the end of a file without a final line break starts a new line.
    if start == end && start == view.len() && !view.is_empty() && !view.ends_with('\n') {
        text.insert(0, '\n');
    }
    if text == old_text {
        return Err(ToolError::new(Code::NoChange, msg::NO_CHANGE));
    }
    let replacements = vec![Replacement { start, end, text }];
    let patch = Patch::new(&opened.resolved.given, view, &replacements);
    let durable = if input.dry_run {
        true
    } else {
        let chunks = doc.render(&replacements).map_err(|c| {
            super::unrepresentable(c.0, doc.encoding().name(), &opened.resolved.given)
        })?;
        let fingerprint = doc.fingerprint_after(&replacements);
        let written = session.write_file(
            tool,
            &WriteRequest {
                target: &opened.resolved.target,
                chunks: &chunks,
                existing: Some(&opened.loaded),
                fsync: session.config().fsync,
                mode: None,
            },
        )?;
        session.remember(
            &opened.resolved.target,
            Entry::full(fingerprint, &written.meta),
        );
        written.durable
    };
    Ok(LineEditOutput {
        file_path: input.file_path,
        start_line: input.start_line,
        end_line: input.end_line,
        old_text,
        change: Change::new(patch),
        dry_run: input.dry_run,
        durable,
    })
}

/// LINES-2: the byte span of lines `start..=end` (1-based) in the LF view, or
/// `invalid_input` naming the valid range. `end = start - 1` is the empty span before `start`.
pub fn line_span(view: &str, start: u64, end: u64) -> ToolResult<(usize, usize)> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(view.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < view.len() || i == 0)
        .collect();
    let lines = if view.is_empty() { 0 } else { starts.len() } as u64;
    // `start - 1` rather than `end + 1`: an `end_line` of u64::MAX must be refused, not overflow.
    if start == 0 || start > lines + 1 || end < start - 1 || end > lines {
        return Err(ToolError::invalid_input(format!(
            "The file has {lines} line{}; start_line must be 1 to {} and end_line from start_line - 1 (insert) to {lines}. Got {start}-{end}.",
            if lines == 1 { "" } else { "s" },
            lines + 1
        ))
        .with("lines", lines));
    }
    let offset = |line: u64| -> usize {
        usize::try_from(line)
            .ok()
            .and_then(|l| starts.get(l.saturating_sub(1)).copied())
            .unwrap_or(view.len())
    };
    let from = offset(start);
    let to = if end < start { from } else { offset(end + 1) };
    Ok((from, to))
}

/// expected_text matches the lines, a final line break on either side aside.
fn same_lines(expected: &str, actual: &str) -> bool {
    expected.strip_suffix('\n').unwrap_or(expected) == actual.strip_suffix('\n').unwrap_or(actual)
}

#[cfg(test)]
mod tests {
    use super::line_span;

    #[test]
    fn lines_2_spans_of_lines() {
        let v = "a\nbb\nccc\n";
        assert_eq!(line_span(v, 1, 1).ok(), Some((0, 2)));
        assert_eq!(line_span(v, 2, 3).ok(), Some((2, 9)));
        assert_eq!(line_span(v, 4, 3).ok(), Some((9, 9)));
        assert_eq!(line_span(v, 1, 0).ok(), Some((0, 0)));
        assert!(line_span(v, 0, 1).is_err());
        assert!(line_span(v, 2, 4).is_err());
        assert!(line_span(v, 5, 4).is_err());
        // The largest numbers the JSON entry accepts are refused like any other.
        assert!(line_span(v, 1, u64::MAX).is_err());
        assert!(line_span(v, u64::MAX, u64::MAX).is_err());
        assert!(line_span(v, u64::MAX, u64::MAX - 1).is_err());
        let no_final = "a\nb";
        assert_eq!(line_span(no_final, 2, 2).ok(), Some((2, 3)));
        assert_eq!(line_span(no_final, 3, 2).ok(), Some((3, 3)));
        assert_eq!(line_span("", 1, 0).ok(), Some((0, 0)));
        assert!(line_span("", 1, 1).is_err());
    }
}
