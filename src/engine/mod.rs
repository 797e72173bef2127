//! The edit engine (EDIT-2, MATCH-3/4/5, MULTI-1..4): pure, no I/O.
//!
//! Edits apply in order, each to the result of the previous one. The current text is kept as a
//! *piece table* over the original LF view, so that however many edits run, the outcome is a
//! list of replaced spans **of the original**: everything outside them is written from the
//! original bytes (TEXT-6). A single Edit never copies the view at all.

use crate::error::{msg, Code, ToolError};
use crate::matching::{closest_regions, Haystack, Hint};
use crate::repair::{repair, Repaired};
use crate::text::{eol, line_of, quotes, Eol, Replacement};
use std::borrow::Cow;

mod pieces;

use pieces::Pieces;
pub use pieces::Splicer;

/// One requested edit, with its strings in the LF form the engine matches in (TEXT-5).
///
/// CRLF in the model's strings is normalised once, here, when the request is made: matching,
/// repair and the engine downstream only ever see LF text and never normalise again. The only
/// fact the raw strings still carry — which line ending `new_string` itself used, which picks
/// the endings of a file the edit creates — is kept in [`EditRequest::new_eol`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditRequest {
    old_string: String,
    new_string: String,
    replace_all: bool,
    expected: Option<usize>,
    new_eol: Eol,
}

impl EditRequest {
    /// A request from the strings as the model sent them.
    pub fn new(old_string: &str, new_string: &str, replace_all: bool) -> EditRequest {
        EditRequest {
            old_string: eol::normalize_crlf(old_string).into_owned(),
            new_string: eol::normalize_crlf(new_string).into_owned(),
            replace_all,
            expected: None,
            new_eol: eol::count_eols(new_string).dominant(),
        }
    }

    /// A request from strings the caller hands over: the same request as [`EditRequest::new`],
    /// made without copying them — CRLF is normalised in place, so a 50 MB `old_string` is
    /// held once, not twice.
    pub fn from_strings(
        mut old_string: String,
        mut new_string: String,
        replace_all: bool,
    ) -> EditRequest {
        let new_eol = eol::count_eols(&new_string).dominant();
        eol::normalize_crlf_in_place(&mut old_string);
        eol::normalize_crlf_in_place(&mut new_string);
        EditRequest {
            old_string,
            new_string,
            replace_all,
            expected: None,
            new_eol,
        }
    }

    /// ALIAS-5: the edit replaces every hit, and is refused with `replacement_count` unless
    /// there are exactly `count` of them (Gemini CLI's `expected_replacements`).
    pub fn with_expected_count(mut self, count: usize) -> EditRequest {
        self.expected = Some(count);
        self.replace_all = true;
        self
    }

    /// The hit count the request insists on, if any (ALIAS-5).
    pub fn expected_count(&self) -> Option<usize> {
        self.expected
    }

    /// The text to find, CRLF normalised to LF.
    pub fn old_string(&self) -> &str {
        &self.old_string
    }

    /// The text to put in its place, CRLF normalised to LF.
    pub fn new_string(&self) -> &str {
        &self.new_string
    }

    /// Whether every hit is replaced instead of requiring exactly one (MATCH-3).
    pub fn replace_all(&self) -> bool {
        self.replace_all
    }

    /// The dominant line ending of `new_string` as sent, for a file the edit creates
    /// (EDIT-1 step 4).
    pub fn new_eol(&self) -> Eol {
        self.new_eol
    }
}

/// What one edit did, for the result (EDIT-5, MULTI-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditReport {
    /// The file's own text at the first hit (differs from the request after a repair or the
    /// curly-quote fallback).
    pub old_string: String,
    /// The text written at the first hit, after quote styling.
    pub new_string: String,
    /// Whether `replace_all` was set.
    pub replace_all: bool,
    /// How many hits were replaced.
    pub replacements: usize,
    /// Repairs that fired for this edit.
    pub repairs: Vec<&'static str>,
}

/// The outcome of a successful run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Replaced spans of the original view, sorted and disjoint.
    pub replacements: Vec<Replacement>,
    /// One report per edit.
    pub edits: Vec<EditReport>,
}

/// A refused run: the index of the edit that failed and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// 0-based index of the failing edit.
    pub index: usize,
    /// The error, with its structured fields.
    pub error: ToolError,
}

/// Text shown in messages: the string, cut in the middle when very long.
pub(crate) fn shown(s: &str) -> Cow<'_, str> {
    const MAX: usize = 2000;
    if s.len() <= MAX {
        return Cow::Borrowed(s);
    }
    let mut head = MAX / 2;
    while !s.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = s.len() - MAX / 2;
    while !s.is_char_boundary(tail) {
        tail += 1;
    }
    Cow::Owned(format!(
        "{}\n... [{} bytes not shown] ...\n{}",
        &s[..head],
        tail - head,
        &s[tail..]
    ))
}

/// Repairs one edit against `text` (its strings are already in LF form).
pub fn repaired<'e>(text: &str, edit: &'e EditRequest) -> Repaired<'e> {
    repair(&Haystack::new(text), &edit.old_string, &edit.new_string)
}

/// Applies `edits` in order to `original` (an LF view). All or nothing (MULTI-3): the first
/// failing edit decides, and nothing is returned to write.
pub fn apply(original: &str, edits: &[EditRequest]) -> Result<Applied, Failure> {
    let mut pieces = Pieces::new(original);
    let mut reports = Vec::with_capacity(edits.len());
    let mut earlier_new: Vec<(usize, String)> = Vec::new();
    for (index, edit) in edits.iter().enumerate() {
        let fail = |error: ToolError| Failure { index, error };
        let text = pieces.text();
        let hay = Haystack::new(&text);
        let r = repair(&hay, &edit.old_string, &edit.new_string);
        if r.old == r.new {
            return Err(fail(ToolError::new(Code::NoChange, msg::NO_CHANGE)));
        }
        // MULTI-2: an edit must not target text an earlier edit wrote. Only trailing LFs are
        // trimmed: old_string is already CRLF-normalised, so a trailing CR is a lone CR, an
        // ordinary character (TEXT-4).
        let probe = r.old.trim_end_matches('\n');
        if !probe.is_empty() {
            if let Some((earlier, _)) = earlier_new.iter().find(|(_, n)| n.contains(probe)) {
                return Err(fail(
                    ToolError::new(
                        Code::EditConflict,
                        format!(
                            "{} (edit {index} targets text written by edit {earlier}.) Combine the two edits into one, or make this old_string match text that was in the file before.",
                            msg::EDIT_CONFLICT
                        ),
                    ),
                ));
            }
        }
        let (spans, report) = if r.old.is_empty() {
            // EDIT-1 step 10 / MULTI-4: empty old_string fills a blank text.
            if !text.chars().all(char::is_whitespace) {
                return Err(fail(ToolError::new(
                    Code::FileExists,
                    format!(
                        "{} To change it, give the exact text to replace as old_string; to replace everything, use Write.",
                        msg::FILE_EXISTS
                    ),
                )));
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
            match_spans(&hay, &r, edit.replace_all, edit.expected).map_err(fail)?
        };
        // Only a later edit looks at what this one wrote: the last one's text is not kept.
        if !(index == 0 && r.old.is_empty()) && index + 1 < edits.len() {
            earlier_new.push((index, r.new.to_string()));
        }
        drop(hay);
        drop(text);
        if edits.len() == 1 {
            // A single edit's spans are spans of the original already: no piece table needed.
            reports.push(report);
            return Ok(Applied {
                replacements: pieces::replacements_of(spans),
                edits: reports,
            });
        }
        pieces.splice(spans);
        reports.push(report);
    }
    Ok(Applied {
        replacements: pieces.into_replacements(),
        edits: reports,
    })
}

type Spans = Vec<(usize, usize, String)>;

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
    replace_all: bool,
    expected: Option<usize>,
) -> Result<(Spans, EditReport), ToolError> {
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
                    "\nThe closest text is at {} ({}% similar):\n{}",
                    line_range(best),
                    best.similarity,
                    shown(&best.text)
                ));
                for h in others {
                    message.push_str(&format!(
                        "\nAlso close, at {} ({}% similar):\n{}",
                        line_range(h),
                        h.similarity,
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
    // EDIT-2: deleting text that does not end with a line break takes the break after it.
    let eat_break = r.new.is_empty() && !r.old.ends_with('\n');
    let bytes = text.as_bytes();
    let mut spans = Vec::with_capacity(hits.spans.len());
    let mut first: Option<(String, String)> = None;
    for &(s, e) in &hits.spans {
        let actual = &text[s..e];
        let new = if hits.via_quotes {
            quotes::restyle(&r.new, actual, quotes::Around::of(text, s, e)).into_owned()
        } else {
            r.new.to_string()
        };
        let end = if eat_break && bytes.get(e) == Some(&b'\n') {
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

/// Line of an offset, re-exported for callers that describe hits.
pub fn line_at(text: &str, offset: usize) -> usize {
    line_of(text, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(old: &str, new: &str, all: bool) -> EditRequest {
        EditRequest::new(old, new, all)
    }

    fn result(text: &str, edits: &[EditRequest]) -> Result<String, (usize, Code)> {
        let applied = apply(text, edits).map_err(|f| (f.index, f.error.code))?;
        let mut out = String::new();
        let mut at = 0;
        for r in &applied.replacements {
            out.push_str(&text[at..r.start]);
            out.push_str(&r.text);
            at = r.end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }

    #[test]
    fn text_5_a_request_from_owned_strings_is_the_same_request() {
        for (old, new) in [("a\r\nb", "c\r\nd\n"), ("plain", "text"), ("x\r", "\r\n")] {
            assert_eq!(
                EditRequest::from_strings(old.into(), new.into(), true),
                EditRequest::new(old, new, true)
            );
        }
        // Without a CRLF the model's string is kept, not copied.
        let old = String::from("fn main() {}\n");
        let at = old.as_ptr();
        assert_eq!(
            EditRequest::from_strings(old, "x".into(), false)
                .old_string()
                .as_ptr(),
            at
        );
    }

    #[test]
    fn edit_2_deletion_takes_the_line_break_per_hit() {
        assert_eq!(
            result("a\nfoo\nb\n", &[req("foo", "", false)]).unwrap(),
            "a\nb\n"
        );
        assert_eq!(
            result("foo\nxfoo\nfoo", &[req("foo", "", true)]).unwrap(),
            "x"
        );
    }

    #[test]
    fn match_5_replacement_is_literal() {
        assert_eq!(result("a$&b", &[req("a", "X$&", false)]).unwrap(), "X$&$&b");
    }

    #[test]
    fn match_3_uniqueness_and_counts() {
        let err = apply("x\ny\nx\n", &[req("x", "z", false)]).unwrap_err();
        assert_eq!(err.error.code, Code::Ambiguous);
        assert_eq!(err.error.fields["count"], 2);
        assert_eq!(err.error.fields["lines"], serde_json::json!([1, 3]));
        let ok = apply("x\ny\nx\n", &[req("x", "z", true)]).unwrap();
        assert_eq!(ok.edits[0].replacements, 2);
    }

    #[test]
    fn multi_1_sequential_and_multi_3_all_or_nothing() {
        assert_eq!(
            result("one two", &[req("one", "1", false), req("two", "2", false)]).unwrap(),
            "1 2"
        );
        assert_eq!(
            result("a b", &[req("a", "x", false), req("zzz", "y", false)]),
            Err((1, Code::NotFound))
        );
    }

    #[test]
    fn multi_2_conflict_with_earlier_new_text() {
        assert_eq!(
            result("a", &[req("a", "bcd", false), req("c", "x", false)]),
            Err((1, Code::EditConflict))
        );
        // A creating first edit is exempt.
        assert_eq!(
            result("", &[req("", "abc", false), req("b", "x", false)]).unwrap(),
            "axc"
        );
    }

    #[test]
    fn multi_2_a_trailing_lone_cr_is_not_trimmed() {
        // "\r" is an ordinary character, written by edit 0: edit 1 targets it (conflict), it
        // must not be trimmed to nothing and skip the check.
        assert_eq!(
            result("a\rb", &[req("a", "c\r", false), req("\r", "", false)]),
            Err((1, Code::EditConflict))
        );
        // A CRLF-terminated old_string is normalised to LF first and the LF trimmed.
        assert_eq!(
            result(
                "a\nb\n",
                &[req("a", "a\nc", false), req("c\r\n", "d\n", false)]
            ),
            Err((1, Code::EditConflict))
        );
    }

    #[test]
    fn edit_1_empty_old_string_only_fills_blank_text() {
        assert_eq!(result(" \n", &[req("", "new", false)]).unwrap(), "new");
        assert_eq!(
            result("x", &[req("", "new", false)]),
            Err((0, Code::FileExists))
        );
    }

    #[test]
    fn match_4_each_hit_keeps_its_quote_style() {
        let text = "say “hi” or ‘hi’";
        let out = result(text, &[req("\"hi\"", "\"yo\"", false)]).unwrap();
        assert_eq!(out, "say “yo” or ‘hi’");
    }

    #[test]
    fn replacements_are_spans_of_the_original() {
        let applied = apply("abcdef", &[req("b", "X", false), req("e", "", false)]).unwrap();
        assert_eq!(
            applied.replacements,
            vec![
                Replacement {
                    start: 1,
                    end: 2,
                    text: "X".into()
                },
                Replacement {
                    start: 4,
                    end: 5,
                    text: String::new()
                },
            ]
        );
    }
}
