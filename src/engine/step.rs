//! One edit of a run, on the text as the edits before it left it (EDIT-1 steps 2 and 10–12,
//! EDIT-2, MATCH-1..6, MULTI-2, REPAIR-*): the rules as the spec states them, on the whole text
//! in one string.
//!
//! A single Edit runs only this, on the file's view. A MultiEdit runs it for every edit the
//! block search of [`super::multi`] cannot settle on its own — a repair, the curly-quote
//! fallback, an empty `old_string`, every refusal — on the text as the earlier edits left it,
//! so that every answer, and the wording of every error, is this module's.

use super::likeness::likeness;
use super::{shown, EditReport, EditRequest};
use crate::error::{msg, Code, ToolError};
use crate::matching::{closest_regions, Haystack, Hint};
use crate::repair::{repair, Repaired};
use crate::text::quotes;
use std::borrow::Cow;

/// What one edit did: its spans of the text it ran on, its report, and the `new_string` it
/// wrote after repair (what MULTI-2 holds later edits against).
pub(super) struct Stepped<'e> {
    pub(super) spans: Spans,
    pub(super) report: EditReport,
    pub(super) new: Cow<'e, str>,
}

/// The `new_string` of each earlier edit a later one may not target (MULTI-2), with its index.
pub(super) type Earlier<'e> = [(usize, Cow<'e, str>)];

/// Runs edit `index` on `text`; `earlier` holds the `new_string` of the edits before it that
/// MULTI-2 counts.
pub(super) fn step<'e>(
    text: &str,
    edit: &'e EditRequest,
    index: usize,
    earlier: &Earlier<'e>,
) -> Result<Stepped<'e>, ToolError> {
    let hay = Haystack::new(text);
    let r = repair(&hay, &edit.old_string, &edit.new_string);
    if r.old == r.new {
        return Err(ToolError::new(Code::NoChange, msg::NO_CHANGE));
    }
    // MULTI-2: an edit must not target text an earlier edit wrote. Only trailing LFs are
    // trimmed: old_string is already CRLF-normalised, so a trailing CR is a lone CR, an
    // ordinary character (TEXT-4).
    let probe = r.old.trim_end_matches('\n');
    if !probe.is_empty() {
        if let Some((before, _)) = earlier.iter().find(|(_, n)| n.contains(probe)) {
            return Err(conflict(index, *before));
        }
    }
    let (spans, report) = if r.old.is_empty() {
        // EDIT-1 step 10 / MULTI-4: empty old_string fills a blank text.
        if !text.chars().all(char::is_whitespace) {
            return Err(ToolError::new(
                Code::FileExists,
                format!(
                    "{} To change it, give the exact text to replace as old_string; to replace everything, use Write.",
                    msg::FILE_EXISTS
                ),
            ));
        }
        let report = EditReport {
            old_string: text.to_string(),
            new_string: r.new.to_string(),
            replace_all: edit.replace_all,
            replacements: 1,
            repairs: r.repairs.clone(),
        };
        (vec![(0, text.len(), r.new.to_string())], report)
    } else {
        match_spans(&hay, &r, edit)?
    };
    Ok(Stepped {
        spans,
        report,
        new: r.new,
    })
}

/// MULTI-2's refusal: edit `index` targets text written by edit `before`.
fn conflict(index: usize, before: usize) -> ToolError {
    ToolError::new(
        Code::EditConflict,
        format!(
            "{} (edit {index} targets text written by edit {before}.) Combine the two edits into one, or make this old_string match text that was in the file before.",
            msg::EDIT_CONFLICT
        ),
    )
}

/// Replaced spans of a text: start, end and the text put in their place.
pub(super) type Spans = Vec<(usize, usize, String)>;

/// How many regions a `not_found` hint offers at most (MATCH-6).
const HINTS: usize = 3;

/// `line 4` or `lines 4-6`, for a hint's message.
fn line_range(h: &Hint) -> String {
    if h.start_line == h.end_line {
        format!("line {}", h.start_line)
    } else {
        format!("lines {}-{}", h.start_line, h.end_line)
    }
}

/// How close a hint's region is to the old string, as the message says it: what alone the
/// model must change when that is only whitespace, indentation or quotes (a similarity of 100 %
/// would hide it), else the similarity.
fn how_close(h: &Hint, old: &str) -> String {
    match likeness(&h.text, old) {
        Some(l) => format!("; it differs from old_string only in {}", l.words()),
        None => format!(" ({}% similar)", h.similarity),
    }
}

/// A hint as the error's `hint` field carries it (SPEC §13.2).
fn hint_json(h: &Hint) -> serde_json::Value {
    serde_json::json!({
        "startLine": h.start_line,
        "endLine": h.end_line,
        "text": h.text,
        "similarity": h.similarity,
    })
}

/// MATCH-1..5 and EDIT-2 for one non-empty `old_string`.
fn match_spans(
    hay: &Haystack<'_>,
    r: &Repaired<'_>,
    edit: &EditRequest,
) -> Result<(Spans, EditReport), ToolError> {
    let (replace_all, expected) = (edit.replace_all, edit.expected);
    let text = hay.text();
    let hits = hay.find(&r.old);
    if hits.spans.is_empty() {
        let hints = closest_regions(text, &r.old, HINTS);
        let mut message = format!(
            "String to replace not found in file.\nString: {}",
            shown(&r.old)
        );
        let hint_json = match hints.split_first() {
            Some((best, others)) => {
                message.push_str(&format!(
                    "\nThe closest text is at {}{}:\n{}",
                    line_range(best),
                    how_close(best, &r.old),
                    shown(&best.text)
                ));
                for h in others {
                    message.push_str(&format!(
                        "\nAlso close, at {}{}:\n{}",
                        line_range(h),
                        how_close(h, &r.old),
                        shown(&h.text)
                    ));
                }
                message.push_str("\nCopy the exact text from the file (whitespace, quotes and line breaks included) into old_string and try again.");
                let mut json = hint_json(best);
                if !others.is_empty() {
                    json["alternatives"] = others.iter().map(hint_json).collect();
                }
                json
            }
            None => {
                message.push_str("\nNothing similar was found. Read the file again and copy the exact text to replace.");
                serde_json::Value::Null
            }
        };
        return Err(ToolError::new(Code::NotFound, message).with("hint", hint_json));
    }
    if let Some(n) = expected.filter(|n| *n != hits.spans.len()) {
        let lines = hit_lines(text, &hits.spans, 10);
        return Err(ToolError::new(
            Code::ReplacementCount,
            format!(
                "Expected {n} occurrence{} of the string to replace but found {}; nothing was changed. Set expected_replacements to the number you mean to replace, or give a longer old_string that occurs exactly as often as you expect.\nString: {}\nMatches start on lines: {}",
                if n == 1 { "" } else { "s" },
                hits.spans.len(),
                shown(&r.old),
                lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
            ),
        )
        .with("expected", n)
        .with("count", hits.spans.len())
        .with("lines", lines));
    }
    if hits.spans.len() > 1 && !replace_all {
        let lines = hit_lines(text, &hits.spans, 10);
        let shown_lines = lines
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ToolError::new(
            Code::Ambiguous,
            format!(
                "Found {} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {}\nMatches start on lines: {}{}",
                hits.spans.len(),
                shown(&r.old),
                shown_lines,
                if hits.spans.len() > lines.len() { ", …" } else { "" }
            ),
        )
        .with("count", hits.spans.len())
        .with("lines", lines));
    }
    // EDIT-2: deleting text that does not end with a line break takes the break after it
    // (not so for the text editor's exact deletions, EDITOR-4).
    let eat_break = edit.takes_line_break() && r.new.is_empty() && !r.old.ends_with('\n');
    let bytes = text.as_bytes();
    let mut spans = Vec::with_capacity(hits.spans.len());
    let mut first: Option<(String, String)> = None;
    for (k, &(s, e)) in hits.spans.iter().enumerate() {
        let actual = &text[s..e];
        let new = if hits.via_quotes {
            quotes::restyle(&r.new, actual, quotes::Around::of(text, s, e)).into_owned()
        } else {
            r.new.to_string()
        };
        // A break that the next hit begins with is that hit's to delete (EDIT-2): the spans
        // stay disjoint and the break goes once.
        let next_starts_here = hits.spans.get(k + 1).is_some_and(|&(next, _)| next == e);
        let end = if eat_break && bytes.get(e) == Some(&b'\n') && !next_starts_here {
            e + 1
        } else {
            e
        };
        if first.is_none() {
            first = Some((actual.to_string(), new.clone()));
        }
        spans.push((s, end, new));
    }
    let (old_string, new_string) = first.unwrap_or_default();
    Ok((
        spans,
        EditReport {
            old_string,
            new_string,
            replace_all,
            replacements: hits.spans.len(),
            repairs: r.repairs.clone(),
        },
    ))
}

/// 1-based line numbers where the first `max` hits start.
fn hit_lines(text: &str, spans: &[(usize, usize)], max: usize) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut line = 1;
    let mut at = 0;
    for &(s, _) in spans.iter().take(max) {
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[at..s]).count();
        at = s;
        lines.push(line);
    }
    lines
}
