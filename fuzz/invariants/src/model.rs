//! A naive reference model of Edit and MultiEdit on decoded text, written from the spec as
//! plainly as possible: a vector of characters with a tag per character saying where it came
//! from, `str::match_indices` for searching, and whole-text re-encoding at the end. It shares no code
//! with the library: decoding and encoding are the model's own ([`crate::model_codec`]).
//!
//! Out of scope: input repair (REPAIR-*). An edit whose `old_string` does not occur and holds
//! anything a repair could act on makes the whole case [`Outcome::OutOfScope`]; the `repair`
//! target covers repairs on their own.

use crate::model_codec::{self, ModelEncoding};
use editref::error::Code;

/// Where a character of the current text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    /// Untouched original text.
    Original,
    /// An original LF that was written as CRLF.
    OriginalCrlf,
    /// Inserted by an edit.
    Inserted,
}

/// One edit as the model sees it.
#[derive(Debug, Clone)]
pub struct ModelEdit {
    /// `old_string` as sent.
    pub old: String,
    /// `new_string` as sent.
    pub new: String,
    /// `replace_all`.
    pub replace_all: bool,
}

/// What the model says an edit reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelReport {
    /// Text of the file at the first hit.
    pub old_string: String,
    /// Text written at the first hit.
    pub new_string: String,
    /// Number of hits replaced.
    pub replacements: usize,
}

/// The model's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The bytes to write and the per-edit reports.
    Bytes(Vec<u8>, Vec<ModelReport>),
    /// The edit at `index` fails with `code`; for `ambiguous` also the count and hit lines.
    Error {
        /// 0-based failing edit.
        index: usize,
        /// Error code.
        code: Code,
        /// `count` and `lines` of an ambiguous error.
        ambiguous: Option<(usize, Vec<usize>)>,
    },
    /// The new text holds a character the encoding cannot represent.
    Unrepresentable(char),
    /// A repair might apply; the model does not decide this case.
    OutOfScope,
}

// Deliberately duplicates the short forms of SPEC.md's REPAIR-1 table (not the library's).
const DESANITIZE_SHORT: [&str; 18] = [
    "<fnr>",
    "<n>",
    "</n>",
    "<o>",
    "</o>",
    "<e>",
    "</e>",
    "<s>",
    "</s>",
    "<r>",
    "</r>",
    "< META_START >",
    "< META_END >",
    "< EOT >",
    "< META >",
    "< SOS >",
    "\n\nH:",
    "\n\nA:",
];

/// Whether some repair (REPAIR-1/3/6) could act on `old` against `text`.
fn repair_could_fire(old: &str, text: &str) -> bool {
    DESANITIZE_SHORT.iter().any(|s| old.contains(s))
        || (old.bytes().any(|b| b.is_ascii_digit())
            && (old.contains('\t') || old.contains('\u{2192}')))
        || old.contains("\\u")
        || (!old.is_ascii() && text.contains("\\u"))
}

/// MATCH-2's folding; deliberately duplicates the spec's four-quote table.
pub(crate) fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' => '\'',
        '\u{201C}' | '\u{201D}' => '"',
        other => other,
    }
}

/// MATCH-4 from the spec: curl the straight quotes of `new` after the style of `actual`, whose
/// neighbours in the file are `before` and `after` (they decide for the ends of `new`).
pub(crate) fn restyle(
    new: &str,
    actual: &[char],
    before: Option<char>,
    after: Option<char>,
) -> String {
    let double = actual.iter().any(|&c| c == '\u{201C}' || c == '\u{201D}');
    let single = actual.iter().any(|&c| c == '\u{2018}' || c == '\u{2019}');
    let chars: Vec<char> = new.chars().collect();
    let prev = |i: usize| if i == 0 { before } else { Some(chars[i - 1]) };
    let opening = |i: usize| match prev(i) {
        None => true,
        Some(c) => matches!(
            c,
            ' ' | '\t' | '\n' | '\r' | '(' | '[' | '{' | '\u{2014}' | '\u{2013}'
        ),
    };
    let letter_before = |i: usize| prev(i).is_some_and(char::is_alphabetic);
    let letter_after = |i: usize| {
        chars
            .get(i + 1)
            .copied()
            .or(after)
            .is_some_and(char::is_alphabetic)
    };
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        out.push(match c {
            '"' if double => {
                if opening(i) {
                    '\u{201C}'
                } else {
                    '\u{201D}'
                }
            }
            '\'' if single => {
                if letter_before(i) && letter_after(i) {
                    '\u{2019}'
                } else if opening(i) {
                    '\u{2018}'
                } else {
                    '\u{2019}'
                }
            }
            other => other,
        });
    }
    out
}

/// Non-overlapping hits of `needle` in `hay`, as char index ranges.
fn hits(hay: &[char], needle: &str, folded: bool) -> Vec<(usize, usize)> {
    let map = |c: char| if folded { fold_char(c) } else { c };
    let hay_s: String = hay.iter().map(|&c| map(c)).collect();
    let needle_s: String = needle.chars().map(map).collect();
    let needle_chars = needle_s.chars().count();
    let mut starts = Vec::new();
    let mut char_at = 0;
    let mut byte_at = 0;
    for (b, _) in hay_s.match_indices(needle_s.as_str()) {
        char_at += hay_s[byte_at..b].chars().count();
        byte_at = b;
        starts.push((char_at, char_at + needle_chars));
    }
    starts
}

/// Runs `edits` on the decoded, stored text of a file and encodes the result.
pub fn run(stored: &str, encoding: ModelEncoding, edits: &[ModelEdit]) -> Outcome {
    run_with(stored, encoding, edits, None)
}

/// [`run`] as the Edit and MultiEdit tools apply it, with D17: when an empty first
/// `old_string` supplies the whole content of a blank file that has no line break of its own,
/// inserted LFs take the dominant ending of `new_string` as sent (CRLF only if it has strictly
/// more CRLF than bare LF, as TEXT-4 counts).
pub fn run_tool(stored: &str, encoding: ModelEncoding, edits: &[ModelEdit]) -> Outcome {
    let d17 = edits.first().is_some_and(|e| e.old.is_empty())
        && stored.chars().all(char::is_whitespace)
        && !stored.contains('\n');
    let own = d17.then(|| dominant_of(&edits[0].new));
    run_with(stored, encoding, edits, own)
}

/// TEXT-4's dominant ending of a text.
pub fn dominant_of(s: &str) -> &'static str {
    let crlf = s.matches("\r\n").count();
    let lf = s.matches('\n').count() - crlf;
    if crlf > lf {
        "\r\n"
    } else {
        "\n"
    }
}

fn run_with(
    stored: &str,
    encoding: ModelEncoding,
    edits: &[ModelEdit],
    dominant_override: Option<&'static str>,
) -> Outcome {
    // The LF view, one tag per character.
    let mut chars: Vec<char> = Vec::new();
    let mut tags: Vec<Tag> = Vec::new();
    let mut it = stored.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\r' && it.peek() == Some(&'\n') {
            it.next();
            chars.push('\n');
            tags.push(Tag::OriginalCrlf);
        } else {
            chars.push(c);
            tags.push(Tag::Original);
        }
    }
    let crlf = tags.iter().filter(|&&t| t == Tag::OriginalCrlf).count();
    let lf = chars
        .iter()
        .zip(&tags)
        .filter(|(&c, &t)| c == '\n' && t == Tag::Original)
        .count();
    let dominant = match dominant_override {
        Some(d) => d,
        None if crlf > lf => "\r\n",
        None => "\n",
    };

    let mut reports = Vec::new();
    let mut earlier_new: Vec<String> = Vec::new();
    for (index, edit) in edits.iter().enumerate() {
        let fail = |code: Code| Outcome::Error {
            index,
            code,
            ambiguous: None,
        };
        let old = edit.old.replace("\r\n", "\n");
        let new = edit.new.replace("\r\n", "\n");
        let text: String = chars.iter().collect();
        let occurs = !old.is_empty()
            && (text.contains(old.as_str()) || !hits(&chars, &old, true).is_empty());
        if !old.is_empty() && !occurs && repair_could_fire(&old, &text) {
            return Outcome::OutOfScope;
        }
        if old == new {
            return fail(Code::NoChange);
        }
        // MULTI-2: trailing line breaks trimmed.
        let probe = old.trim_end_matches('\n');
        if !probe.is_empty() && earlier_new.iter().any(|n| n.contains(probe)) {
            return fail(Code::EditConflict);
        }
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        let report;
        if old.is_empty() {
            // EDIT-1 step 10.
            if !chars.iter().all(|c| c.is_whitespace()) {
                return fail(Code::FileExists);
            }
            spans.push((0, chars.len(), new.clone()));
            report = ModelReport {
                old_string: text.clone(),
                new_string: new.clone(),
                replacements: 1,
            };
        } else {
            let mut found = hits(&chars, &old, false);
            let via_quotes = found.is_empty();
            if via_quotes {
                found = hits(&chars, &old, true);
            }
            if found.is_empty() {
                return fail(Code::NotFound);
            }
            if found.len() > 1 && !edit.replace_all {
                let lines = found
                    .iter()
                    .take(10)
                    .map(|&(s, _)| 1 + chars[..s].iter().filter(|&&c| c == '\n').count())
                    .collect();
                return Outcome::Error {
                    index,
                    code: Code::Ambiguous,
                    ambiguous: Some((found.len(), lines)),
                };
            }
            let eat_break = new.is_empty() && !old.ends_with('\n');
            for (k, &(s, e)) in found.iter().enumerate() {
                let written = if via_quotes {
                    restyle(
                        &new,
                        &chars[s..e],
                        s.checked_sub(1).map(|b| chars[b]),
                        chars.get(e).copied(),
                    )
                } else {
                    new.clone()
                };
                // EDIT-2: a break the next hit begins with goes with that hit, once.
                let next_starts_here = found.get(k + 1).is_some_and(|&(next, _)| next == e);
                let end = if eat_break && chars.get(e) == Some(&'\n') && !next_starts_here {
                    e + 1
                } else {
                    e
                };
                spans.push((s, end, written));
            }
            report = ModelReport {
                old_string: chars[found[0].0..found[0].1].iter().collect(),
                new_string: spans[0].2.clone(),
                replacements: found.len(),
            };
        }
        for (s, e, written) in spans.into_iter().rev() {
            let inserted: Vec<char> = written.chars().collect();
            let n = inserted.len();
            chars.splice(s..e, inserted);
            tags.splice(s..e, std::iter::repeat_n(Tag::Inserted, n));
        }
        reports.push(report);
        if !(index == 0 && old.is_empty()) {
            earlier_new.push(new);
        }
    }
    let mut out_text = String::new();
    for (c, t) in chars.iter().zip(&tags) {
        match (c, t) {
            ('\n', Tag::OriginalCrlf) => out_text.push_str("\r\n"),
            ('\n', Tag::Inserted) => out_text.push_str(dominant),
            (c, _) => out_text.push(*c),
        }
    }
    match model_codec::encode(&out_text, encoding) {
        Ok(bytes) => Outcome::Bytes(bytes, reports),
        Err(c) => Outcome::Unrepresentable(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> ModelEdit {
        ModelEdit {
            old: old.into(),
            new: new.into(),
            replace_all: false,
        }
    }

    fn bytes(o: Outcome) -> Vec<u8> {
        match o {
            Outcome::Bytes(b, _) => b,
            other => panic!("{other:?}"),
        }
    }

    const UTF8: ModelEncoding = ModelEncoding::Utf8 { bom: false };

    #[test]
    fn the_model_keeps_endings_and_follows_the_spec_examples() {
        assert_eq!(
            bytes(run("a\r\nb\nc\rd\r\n", UTF8, &[edit("b\nc", "B\nC")])),
            b"a\r\nB\r\nC\rd\r\n"
        );
        assert_eq!(
            bytes(run("a\nfoo\nb\n", UTF8, &[edit("foo", "")])),
            b"a\nb\n"
        );
        assert_eq!(
            bytes(run(
                "say \u{201C}hi\u{201D}",
                UTF8,
                &[edit("\"hi\"", "\"yo\"")]
            )),
            "say \u{201C}yo\u{201D}".as_bytes()
        );
        assert_eq!(
            run("x\ny\nx\n", UTF8, &[edit("x", "z")]),
            Outcome::Error {
                index: 0,
                code: Code::Ambiguous,
                ambiguous: Some((2, vec![1, 3]))
            }
        );
        assert_eq!(
            run("a <n>", UTF8, &[edit("<n>x", "y")]),
            Outcome::OutOfScope
        );
    }
}
