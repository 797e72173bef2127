//! The most telling failures of a matrix: cases where a tool damaged the bytes on disk, told in
//! a phrase a reader takes in at a glance ("CRLF line endings rewritten as LF").
//!
//! A failure tells the more the more it costs a user: data failures only (the bytes and
//! metadata on disk), core cases before extended ones, a kind of damage not yet shown before one
//! already shown, and no tool more than twice. What the tool did is read from the evidence the
//! report keeps — the expected and the actual text of the file — and named by the first rule
//! below that fits; where none fits, the check's own words are shown.

use super::Matrix;
use crate::case::{Class, Level};
use crate::run::{CaseRecord, Status};
use serde_json::Value;
use std::collections::BTreeSet;

/// One telling failure.
#[derive(Debug, Clone, PartialEq)]
pub struct Telling {
    /// The tool (the matrix column).
    pub tool: String,
    /// The case id.
    pub case: String,
    /// The case's title, when the report kept it.
    pub title: String,
    /// What the tool did, in a phrase.
    pub what: String,
}

/// How many failures one tool may contribute.
const PER_TOOL: usize = 2;

impl Matrix<'_> {
    /// Up to `n` telling failures, chosen as the module says.
    pub fn telling(&self, n: usize) -> Vec<Telling> {
        // (core first, named damage first, tool, case) → candidate.
        let mut candidates: Vec<(u8, u8, Telling, Option<&'static str>)> = Vec::new();
        for (col, tool) in self.columns.iter().enumerate() {
            for rec in self.cells[col].values() {
                if rec.status != Status::Fail || !rec.failed_classes.contains(&Class::Data) {
                    continue;
                }
                let Some(evidence) = data_evidence(rec) else {
                    continue;
                };
                let kind = damage(&evidence);
                let what = match kind {
                    Some(k) => format!("{k} ({})", evidence.summary),
                    None => evidence.summary.clone(),
                };
                let level = u8::from(rec.level() != Some(Level::Core));
                let named = u8::from(kind.is_none());
                let title = rec
                    .about
                    .as_ref()
                    .map(|a| a.title.clone())
                    .unwrap_or_default();
                candidates.push((
                    level,
                    named,
                    Telling {
                        tool: tool.clone(),
                        case: rec.id.clone(),
                        title,
                        what,
                    },
                    kind,
                ));
            }
        }
        candidates.sort_by(|a, b| {
            (a.0, a.1, &a.2.case, &a.2.tool).cmp(&(b.0, b.1, &b.2.case, &b.2.tool))
        });
        let mut chosen: Vec<Telling> = Vec::new();
        let mut kinds: BTreeSet<&str> = BTreeSet::new();
        let mut cases: BTreeSet<String> = BTreeSet::new();
        // Two passes: first one failure per kind of damage, then whatever is left.
        for fresh_only in [true, false] {
            for (_, _, t, kind) in &candidates {
                if chosen.len() >= n {
                    return chosen;
                }
                let per_tool = chosen.iter().filter(|c| c.tool == t.tool).count();
                let fresh = kind.is_some_and(|k| !kinds.contains(k));
                if per_tool >= PER_TOOL || cases.contains(&t.case) || (fresh_only && !fresh) {
                    continue;
                }
                if let Some(k) = kind {
                    kinds.insert(k);
                }
                cases.insert(t.case.clone());
                chosen.push(t.clone());
            }
        }
        chosen
    }
}

/// The expected and actual text of the file a data check judged, and the check's own words.
struct Evidence {
    expected: Option<String>,
    actual: Option<String>,
    summary: String,
}

/// The first data problem of a record: the final-tree failure when it came first (its evidence
/// is kept whole), else the first further problem that names a file.
fn data_evidence(rec: &CaseRecord) -> Option<Evidence> {
    let tree_first = rec.step.is_none() && !rec.reason.is_empty();
    if tree_first {
        return Some(Evidence {
            expected: text_of(rec.expected.as_ref()),
            actual: text_of(rec.actual.as_ref()),
            summary: clean(&rec.reason),
        });
    }
    let line = rec
        .more
        .iter()
        .find(|m| m.contains(':') && !m.starts_with("step "))?;
    let (expected, actual) = quoted_pair(line);
    Some(Evidence {
        expected,
        actual,
        summary: clean(line),
    })
}

/// The text of a bytes evidence value (`{len, text, hex}`), if it has one, unescaped.
fn text_of(v: Option<&Value>) -> Option<String> {
    v?.get("text").and_then(Value::as_str).map(unescape)
}

/// The two texts of `… (expected "…", got "…"; N vs M bytes)` in a check's message: windows
/// around the first difference, as the check escaped them.
fn quoted_pair(line: &str) -> (Option<String>, Option<String>) {
    let parse = || -> Option<(String, String)> {
        let a = line.find(" (expected ")? + " (expected ".len();
        let a = a + line[a..].find('"')? + 1;
        let b = a + line[a..].find("\", got ")?;
        let c = b + "\", got ".len();
        let c = c + line[c..].find('"')? + 1;
        let vs = line.rfind(" vs ")?;
        let d = line[..vs].rfind('"')?;
        (d >= c).then(|| (unescape(&line[a..b]), unescape(&line[c..d])))
    };
    match parse() {
        Some((e, a)) => (Some(e), Some(a)),
        None => (None, None),
    }
}

/// Undoes the evidence escaping (`\n`, `\r`, `\t`, `\\`, `\u{…}`; a byte that is not UTF-8,
/// `\xNN`, becomes U+E000 so that it is never mistaken for a replacement character).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('x') => {
                chars.next();
                chars.next();
                out.push('\u{E000}');
            }
            Some('u') if chars.peek() == Some(&'{') => {
                chars.next();
                let hex: String = chars.by_ref().take_while(|c| *c != '}').collect();
                let c = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or('\u{E000}');
                out.push(c);
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A message without sandbox paths, shortened for a table cell.
fn clean(message: &str) -> String {
    let one_line = message.replace("<sandbox>/", "").replace('\n', " ");
    if one_line.chars().count() <= 160 {
        one_line
    } else {
        let cut: String = one_line.chars().take(157).collect();
        format!("{cut}…")
    }
}

/// Names the damage, by the first rule that fits the expected and actual text.
fn damage(e: &Evidence) -> Option<&'static str> {
    let summary = e.summary.as_str();
    if summary.contains("was a symlink and is now a regular file") {
        return Some("a symbolic link replaced by a regular file");
    }
    if summary.contains("must be a symlink") {
        return Some("a symbolic link not kept");
    }
    if summary.contains("mode changed from") {
        return Some("file mode changed");
    }
    let (Some(want), Some(got)) = (&e.expected, &e.actual) else {
        return summary
            .contains("left")
            .then_some("a file left behind that should not exist");
    };
    if got.is_empty() && !want.is_empty() {
        return Some("the file ends up empty");
    }
    if got.contains('\u{FFFD}') && !want.contains('\u{FFFD}') {
        return Some("characters the encoding could not hold replaced by U+FFFD");
    }
    if want.starts_with('\u{FEFF}') && !got.starts_with('\u{FEFF}') {
        return Some("the byte order mark dropped");
    }
    let crlf = |s: &str| s.matches("\r\n").count();
    if crlf(want) > 0 && crlf(got) == 0 && got.contains('\n') {
        return Some("CRLF line endings rewritten as LF");
    }
    if crlf(got) > crlf(want) {
        return Some("LF line endings rewritten as CRLF");
    }
    if want.contains('\r') && got.matches('\r').count() < want.matches('\r').count() {
        return Some("a carriage return dropped");
    }
    if ["\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}"]
        .iter()
        .any(|q| want.contains(q) && !got.contains(q))
    {
        return Some("curly quotes straightened");
    }
    if !want.ends_with('\n') && got.ends_with('\n') && got.trim_end_matches('\n') == want {
        return Some("a final newline added");
    }
    if want.ends_with('\n') && !got.ends_with('\n') && want.trim_end_matches('\n') == got {
        return Some("the final newline removed");
    }
    if summary.contains("did not expect it to") {
        return Some("a file changed by a call that had to be refused");
    }
    if got.len() > want.len() && got.starts_with(want.as_str()) {
        return Some("content appended instead of replaced");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(want: &str, got: &str, summary: &str) -> Evidence {
        Evidence {
            expected: Some(want.into()),
            actual: Some(got.into()),
            summary: summary.into(),
        }
    }

    #[test]
    fn the_damage_is_named_from_the_bytes() {
        let cases = [
            (
                ev("a\r\nb\r\n", "a\nb\n", "a.txt differs"),
                "CRLF line endings rewritten as LF",
            ),
            (
                ev("a\nb\n", "a\r\nb\n", "a.txt differs"),
                "LF line endings rewritten as CRLF",
            ),
            (
                ev("\u{FEFF}x", "x", "a.txt differs"),
                "the byte order mark dropped",
            ),
            (
                ev("caf\u{e9}", "caf\u{FFFD}", "a.txt differs"),
                "characters the encoding could not hold replaced by U+FFFD",
            ),
            (ev("one\n", "", "a.txt differs"), "the file ends up empty"),
            (ev("x", "x\n", "a.txt differs"), "a final newline added"),
            (
                ev(
                    "one\n",
                    "1\n",
                    "a.txt: changed although the case did not expect it to",
                ),
                "a file changed by a call that had to be refused",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(damage(&e), Some(want), "{:?} / {:?}", e.expected, e.actual);
        }
        assert_eq!(damage(&ev("abc\n", "abd\n", "a.txt differs")), None);
        let link = Evidence {
            expected: None,
            actual: None,
            summary: "link.txt: was a symlink and is now a regular file".into(),
        };
        assert_eq!(
            damage(&link),
            Some("a symbolic link replaced by a regular file")
        );
        let kept = Evidence {
            summary: "link.txt: expected a regular file, found a symlink".into(),
            ..link
        };
        assert_eq!(
            damage(&kept),
            None,
            "a link kept where a file was due is not that"
        );
    }

    #[test]
    fn the_quoted_texts_of_a_check_message_are_read_back() {
        let line = r#"a.txt: changed although the case did not expect it to at byte 0 (expected "one\r\n\u{feff}", got …"1\n\xFF"…; 5 vs 2 bytes)"#;
        assert_eq!(
            quoted_pair(line),
            (
                Some("one\r\n\u{feff}".to_string()),
                Some("1\n\u{E000}".to_string())
            )
        );
        assert_eq!(quoted_pair("no quotes"), (None, None));
    }
}
