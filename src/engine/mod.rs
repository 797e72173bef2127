//! The edit engine (EDIT-2, MATCH-3/4/5, MULTI-1..4, ALIAS-6): pure, no I/O.
//!
//! Edits apply in order, each to the result of the previous one. However many edits run, the
//! outcome is a list of replaced spans **of the original** LF view: everything outside them is
//! written from the original bytes (TEXT-6). A single Edit runs the rules of `step` on the view
//! and never copies it. A MultiEdit keeps its current text as small blocks of pieces of the
//! original and of inserted text (`blocks`), finds each needle through an index built in one
//! pass over the file (`index`) and checks MULTI-2 with one scan per `new_string`
//! (`conflicts`), so that a thousand edits cost about what one does; whatever that way cannot
//! settle runs `step` on the whole current text (`multi`). Pi's list of edits (ALIAS-6) is the
//! one run not in order: every edit runs `step` on the original itself, and the spans, which
//! may not overlap, are replaced together (`original`).

use crate::error::ToolError;
use crate::matching::Haystack;
use crate::repair::{repair, Repaired};
use crate::text::{eol, line_of, Eol, Replacement};
use std::borrow::Cow;

mod blocks;
mod conflicts;
mod index;
mod likeness;
mod multi;
mod original;
mod pieces;
mod step;

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
    exact_deletion: bool,
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
            exact_deletion: false,
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
            exact_deletion: false,
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

    /// EDITOR-4: a deletion removes exactly the text of its hits, and never the line break
    /// after them that EDIT-2 would take (the text editor's `str_replace`).
    pub fn with_exact_deletion(mut self) -> EditRequest {
        self.exact_deletion = true;
        self
    }

    /// Whether a deletion takes the line break after its hit (EDIT-2), as Edit's do, or
    /// removes exactly the hit (EDITOR-4).
    pub fn takes_line_break(&self) -> bool {
        !self.exact_deletion
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
///
/// A single edit runs the rules of `step` on the view itself, whose spans are spans of the
/// original already. Several run through `multi`, which keeps the current text in blocks
/// and finds most edits without copying it; its answers are those of running `step` on
/// the whole current text for every edit in turn.
pub fn apply(original: &str, edits: &[EditRequest]) -> Result<Applied, Failure> {
    match edits {
        [edit] => {
            let stepped =
                step::step(original, edit, 0, &[]).map_err(|error| Failure { index: 0, error })?;
            Ok(Applied {
                replacements: pieces::replacements_of(stepped.spans),
                edits: vec![stepped.report],
            })
        }
        _ => multi::run(original, edits),
    }
}

/// Applies `edits` as Pi's list of edits (ALIAS-6): every edit is matched against `original`
/// itself, as a single Edit would be, and the spans of all of them, which must not overlap
/// (`edit_conflict`), are replaced together. All or nothing, as [`apply`].
pub fn apply_to_original(original: &str, edits: &[EditRequest]) -> Result<Applied, Failure> {
    original::run(original, edits)
}

/// [`apply`] for several edits with the run laid out by hand: blocks of `block` bytes, needles
/// of up to `longest` bytes searched through the index and longer ones in the whole text.
/// Every layout gives the answers of [`apply`]; this is how the tests check that. Not part of
/// the API.
#[doc(hidden)]
pub fn apply_with_layout(
    original: &str,
    edits: &[EditRequest],
    block: usize,
    longest: usize,
) -> Result<Applied, Failure> {
    multi::run_with(original, edits, multi::Plan { block, longest })
}

/// Line of an offset, re-exported for callers that describe hits.
pub fn line_at(text: &str, offset: usize) -> usize {
    line_of(text, offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    fn req(old: &str, new: &str, all: bool) -> EditRequest {
        EditRequest::new(old, new, all)
    }

    /// MULTI-1: each edit's report says whether it replaced all hits, also for a replace_all
    /// edit that found one hit.
    #[test]
    fn multi_1_reports_keep_replace_all() {
        let edits = [
            req("a", "x", true),
            req("c", "y", false),
            req("d", "z", true),
        ];
        let applied = apply("a b c d d\n", &edits).unwrap();
        let flags: Vec<(bool, usize)> = applied
            .edits
            .iter()
            .map(|e| (e.replace_all, e.replacements))
            .collect();
        assert_eq!(flags, vec![(true, 1), (false, 1), (true, 2)]);
    }

    /// MATCH-6 (§13.2): a not_found hint names the closest region, and lists the other close
    /// ones as `alternatives` only when there are any.
    #[test]
    fn match_6_alternatives_only_when_there_are_others() {
        let text = "fn alpha_one() {}\nfn alpha_two() {}\nlet q = 9;\n";
        let f = apply(text, &[req("fn alpha_on() {}", "x", false)]).unwrap_err();
        let hint = &f.error.fields["hint"];
        assert_eq!(hint["startLine"], 1, "{hint}");
        assert_eq!(hint["text"], "fn alpha_one() {}", "{hint}");
        assert_eq!(hint["alternatives"][0]["startLine"], 2, "{hint}");
        let f = apply(
            "fn alpha_one() {}\n",
            &[req("fn alpha_on() {}", "x", false)],
        )
        .unwrap_err();
        let hint = &f.error.fields["hint"];
        assert_eq!(hint["startLine"], 1, "{hint}");
        assert!(hint.get("alternatives").is_none(), "{hint}");
        assert!(
            f.error.message.contains("The closest text is at line 1 ("),
            "{}",
            f.error.message
        );
        // A hint over two lines names both.
        let text = "fn alpha_one() {\n    body();\n}\n";
        let f = apply(text, &[req("fn alpha_one() {\n    bod();", "x", false)]).unwrap_err();
        assert!(
            f.error
                .message
                .contains("The closest text is at lines 1-2 ("),
            "{}",
            f.error.message
        );
    }

    /// MATCH-6: a region that differs from the old string only in whitespace, in indentation
    /// (tabs where the model wrote spaces) or in quotes is said to, instead of "100% similar",
    /// which would not tell the model what to change.
    #[test]
    fn match_6_a_region_that_differs_only_in_layout_or_quotes_says_which() {
        let message = |text: &str, old: &str| {
            apply(text, &[req(old, "x", false)])
                .unwrap_err()
                .error
                .message
        };
        let m = message("let  x = 1;\n", "let x = 1;");
        assert!(
            m.contains("The closest text is at line 1; it differs from old_string only in whitespace (spaces, tabs or line breaks):\nlet  x = 1;"),
            "{m}"
        );
        let m = message(
            "fn f() {\n\tif x {\n\t\treturn 1;\n\t}\n}\n",
            "    if x {\n        return 1;",
        );
        assert!(
            m.contains("The closest text is at lines 2-3; it differs from old_string only in indentation (the file indents with tabs where old_string has spaces):\n\tif x {\n\t\treturn 1;"),
            "{m}"
        );
        let m = message("print('yes')\n", "print(\"yes\")");
        assert!(
            m.contains("The closest text is at line 1; it differs from old_string only in quotes (the file has ' where old_string has \"):\nprint('yes')"),
            "{m}"
        );
        assert!(!m.contains("% similar"), "{m}");
        // A real difference keeps its percentage.
        let m = message("print('no')\n", "print(\"yes\")");
        assert!(m.contains("The closest text is at line 1 ("), "{m}");
    }

    #[test]
    fn line_at_counts_lines_from_one() {
        assert_eq!(line_at("a\nb\nc", 0), 1);
        assert_eq!(line_at("a\nb\nc", 1), 1);
        assert_eq!(line_at("a\nb\nc", 2), 2);
        assert_eq!(line_at("a\nb\nc", 4), 3);
    }

    /// A refusal quotes the model's text so it can see what did not match: whole when short,
    /// else its first and last thousand bytes (cut on character boundaries) around a count.
    #[test]
    fn messages_quote_the_string_whole_or_cut_in_the_middle() {
        let f = apply("abc\n", &[req("xyz-not-there", "q", false)]).unwrap_err();
        assert!(
            f.error.message.contains("xyz-not-there"),
            "{}",
            f.error.message
        );
        assert_eq!(shown("short"), "short");
        let exact = "w".repeat(2000);
        assert_eq!(shown(&exact), exact);
        let long = format!("{}é{}z", "x".repeat(999), "y".repeat(1500));
        let expected = format!(
            "{}\n... [503 bytes not shown] ...\n{}z",
            "x".repeat(999),
            "y".repeat(999)
        );
        assert_eq!(shown(&long), expected);
        // The cut at the end moves forward out of a character it falls in.
        let long = format!("{}é{}", "a".repeat(1500), "b".repeat(999));
        let expected = format!(
            "{}\n... [502 bytes not shown] ...\n{}",
            "a".repeat(1000),
            "b".repeat(999)
        );
        assert_eq!(shown(&long), expected);
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
        // The break after a hit that the next hit begins with is deleted once, by that hit.
        let applied = apply("a\nfoo\nfoo\nb", &[req("\nfoo", "", true)]).unwrap();
        let spans: Vec<_> = applied
            .replacements
            .iter()
            .map(|r| (r.start, r.end))
            .collect();
        assert_eq!(spans, vec![(1, 10)]);
        assert_eq!(
            result("a\nfoo\nfoo\nb", &[req("\nfoo", "", true)]).unwrap(),
            "ab"
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
