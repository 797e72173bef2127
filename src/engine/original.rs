//! Pi's list of edits (ALIAS-6): every edit is matched against the original text — the text the
//! model read — not against what the edits before it produce, and the spans of all of them are
//! replaced together.
//!
//! Each edit runs the rules of [`step`] on the original text, as a single Edit would (repairs,
//! the curly-quote fallback, `not_found` with its hint, `ambiguous`, `no_change`); MULTI-2 has
//! nothing to hold, since no edit ever sees another's output. What is left is the check that
//! the spans do not overlap: two edits replacing the same text have no order in which both mean
//! what they say. A line break that a deletion would take (EDIT-2) and that another edit's hit
//! begins with is that hit's, as it is between two hits of one `replace_all`.
//!
//! An edit costs a search of the text, so a list costs the text once per edit — what Pi's own
//! tool costs, and for the handful of edits a model sends, less than building the blocks of a
//! MultiEdit.

use super::step::step;
use super::{pieces, Applied, EditReport, EditRequest, Failure};
use crate::error::{Code, ToolError};

/// One replaced span of the original and the edit it belongs to.
struct Span {
    start: usize,
    end: usize,
    text: String,
    index: usize,
    /// Whether `end` includes a line break after the hit that EDIT-2 took.
    took_break: bool,
}

/// Applies `edits`, each matched against `original`. All or nothing: the first edit that
/// fails (in list order) decides, then the first overlap (in file order).
pub(super) fn run(original: &str, edits: &[EditRequest]) -> Result<Applied, Failure> {
    let bytes = original.as_bytes();
    let mut spans: Vec<Span> = Vec::with_capacity(edits.len());
    let mut reports: Vec<EditReport> = Vec::with_capacity(edits.len());
    for (index, edit) in edits.iter().enumerate() {
        let stepped = step(original, edit, index, &[]).map_err(|error| Failure { index, error })?;
        // A hit's own text ends with a line break only when old_string does; a deletion's span
        // that ends with one beyond that took it (EDIT-2).
        let old_ends_with_break = stepped.report.old_string.ends_with('\n');
        for (start, end, text) in stepped.spans {
            let took_break = text.is_empty()
                && !old_ends_with_break
                && end > start
                && bytes.get(end - 1) == Some(&b'\n');
            spans.push(Span {
                start,
                end,
                text,
                index,
                took_break,
            });
        }
        reports.push(stepped.report);
    }
    spans.sort_by_key(|s| (s.start, s.end, s.index));
    for k in 1..spans.len() {
        let (before, after) = spans.split_at_mut(k);
        let (prev, next) = (&mut before[k - 1], &after[0]);
        // The break belongs to the hit that begins with it (EDIT-2).
        if prev.took_break && prev.end == next.start + 1 && prev.start <= next.start {
            prev.end = next.start;
            prev.took_break = false;
        }
        if prev.end > next.start {
            let (first, second) = if prev.index < next.index {
                (prev.index, next.index)
            } else {
                (next.index, prev.index)
            };
            return Err(Failure {
                index: second,
                error: overlap(first, second),
            });
        }
    }
    Ok(Applied {
        replacements: pieces::replacements_of(
            spans
                .into_iter()
                .map(|s| (s.start, s.end, s.text))
                .collect(),
        ),
        edits: reports,
    })
}

/// Two edits of the list replace overlapping text.
fn overlap(first: usize, second: usize) -> ToolError {
    ToolError::new(
        Code::EditConflict,
        format!(
            "Cannot edit file: edits {first} and {second} replace overlapping text. Every edit \
             of the list is matched against the file as it was before the call, so no two may \
             replace the same text. Merge them into one edit, or make each oldText name its \
             own part of the file."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    fn req(old: &str, new: &str) -> EditRequest {
        EditRequest::new(old, new, false)
    }

    /// The text after `edits`, or the failing edit's index and code.
    fn result(text: &str, edits: &[EditRequest]) -> Result<String, (usize, Code)> {
        let applied = run(text, edits).map_err(|f| (f.index, f.error.code))?;
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
    fn alias_6_every_edit_is_matched_against_the_original() {
        // In list order or not, each names text of the original.
        assert_eq!(
            result("one two three\n", &[req("three", "3"), req("one", "1")]),
            Ok("1 two 3\n".into())
        );
        // Text that only an earlier edit writes is not there to find.
        assert_eq!(
            result("a b\n", &[req("a", "c"), req("c", "d")]),
            Err((1, Code::NotFound))
        );
        // Uniqueness is judged in the original, whatever the other edits change.
        assert_eq!(
            result("x x\n", &[req("x x", "y x"), req("x", "z")]),
            Err((1, Code::Ambiguous))
        );
        // An edit's new text that holds another's old text does not conflict (no MULTI-2).
        assert_eq!(
            result("a b\n", &[req("a", "b"), req("b", "c")]),
            Ok("b c\n".into())
        );
    }

    #[test]
    fn alias_6_overlapping_edits_are_refused_naming_the_later() {
        assert_eq!(
            result("abcd\n", &[req("bc", "X"), req("ab", "Y")]),
            Err((1, Code::EditConflict))
        );
        assert_eq!(
            result("abcd\n", &[req("cd", "X"), req("abc", "Y")]),
            Err((1, Code::EditConflict))
        );
        // The same text twice overlaps itself.
        assert_eq!(
            result("abcd\n", &[req("b", "X"), req("b", "Y")]),
            Err((1, Code::EditConflict))
        );
        // Touching spans do not overlap.
        assert_eq!(
            result("abcd\n", &[req("cd", "Y"), req("ab", "X")]),
            Ok("XY\n".into())
        );
        let f = run("abcd\n", &[req("bc", "X"), req("ab", "Y")]).unwrap_err();
        assert!(
            f.error.message.contains("edits 0 and 1"),
            "{}",
            f.error.message
        );
    }

    #[test]
    fn alias_6_edit_2_holds_and_a_break_belongs_to_the_hit_it_begins() {
        // A deletion takes its line's break (EDIT-2).
        assert_eq!(
            result("a\nfoo\nb\n", &[req("foo", ""), req("b", "B")]),
            Ok("a\nB\n".into())
        );
        // The break the deletion would take is where the other edit's hit begins: it is that
        // hit's, and the two do not overlap.
        assert_eq!(
            result("a\nb\n", &[req("a", ""), req("\nb", "X")]),
            Ok("X\n".into())
        );
        assert_eq!(
            result("a\nb\n", &[req("\nb", "X"), req("a", "")]),
            Ok("X\n".into())
        );
    }

    #[test]
    fn alias_6_the_first_failing_edit_decides() {
        assert_eq!(
            result("a b\n", &[req("a", "a"), req("zzz", "y")]),
            Err((0, Code::NoChange))
        );
        assert_eq!(
            result("a b\n", &[req("a", "x"), req("zzz", "y"), req("b", "b")]),
            Err((1, Code::NotFound))
        );
    }
}
