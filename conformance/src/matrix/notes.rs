//! A peer's notes on its cases (`notes.txt` beside its `report.json`): a failing case linked to
//! the tool's own bug report, or a case marked not applicable, with the reason. The matrix
//! shows both next to the case; neither changes a verdict — only the corpus can make a question
//! open (an implementation-defined case), and a tool does not certify itself by annotation.
//!
//! The format, one note per line; blank lines and lines starting with `#` are ignored:
//!
//! ```text
//! edit/empty-old-string-empty-file   bug  https://github.com/owner/tool/issues/123
//! notebook/insert-at-end             n/a  the tool edits notebooks only as JSON text, by design
//! ```

use std::collections::BTreeMap;

/// What a peer says about one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The tool's own bug report for the failure (a URL).
    Bug(String),
    /// The case does not apply to the tool, because of this.
    NotApplicable(String),
}

/// The notes of one peer, by case id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    by_case: BTreeMap<String, Note>,
}

impl Notes {
    /// Parses a notes file; every malformed line is a problem (`line N: …`).
    pub fn parse(text: &str) -> Result<Notes, Vec<String>> {
        let mut by_case = BTreeMap::new();
        let mut errors = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let (id, kind) = (words[0], words.get(1).copied().unwrap_or(""));
            let rest = words.get(2..).unwrap_or_default().join(" ");
            let rest = rest.as_str();
            let problem = if id.split('/').count() != 2 || id.split('/').any(str::is_empty) {
                Some(format!("'{id}' is not a case id (<area>/<name>)"))
            } else if by_case.contains_key(id) {
                Some(format!("{id} has a note already"))
            } else {
                match (kind, rest) {
                    ("bug", url) if url.starts_with("https://") || url.starts_with("http://") => {
                        by_case.insert(id.to_string(), Note::Bug(url.to_string()));
                        None
                    }
                    ("bug", _) => Some("a bug note needs the report's URL".into()),
                    ("n/a", "") => Some("an n/a note needs the reason".into()),
                    ("n/a", why) => {
                        by_case.insert(id.to_string(), Note::NotApplicable(why.to_string()));
                        None
                    }
                    (other, _) => Some(format!("'{other}' is not a note: bug URL, or n/a REASON")),
                }
            };
            if let Some(p) = problem {
                errors.push(format!("line {}: {p}", i + 1));
            }
        }
        if errors.is_empty() {
            Ok(Notes { by_case })
        } else {
            Err(errors)
        }
    }

    /// The note on case `id`, if any.
    pub fn get(&self, id: &str) -> Option<&Note> {
        self.by_case.get(id)
    }

    /// Every note, by case id.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Note)> {
        self.by_case.iter()
    }

    /// Whether there is no note.
    pub fn is_empty(&self) -> bool {
        self.by_case.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_bug_links_or_reasons() {
        let n = Notes::parse(
            "# notes of a tool\n\nedit/a  bug  https://example.org/issues/1#top\nread/b n/a  reads only as JSON, by design\n",
        )
        .unwrap();
        assert_eq!(
            n.get("edit/a"),
            Some(&Note::Bug("https://example.org/issues/1#top".into()))
        );
        assert_eq!(
            n.get("read/b"),
            Some(&Note::NotApplicable("reads only as JSON, by design".into()))
        );
        assert_eq!(n.get("read/c"), None);
        let errors =
            Notes::parse("edit/a bug\nread n/a x\nedit/b n/a\nedit/c maybe so\nedit/d bug http://x\nedit/d n/a y\n")
                .unwrap_err();
        assert_eq!(
            errors,
            [
                "line 1: a bug note needs the report's URL",
                "line 2: 'read' is not a case id (<area>/<name>)",
                "line 3: an n/a note needs the reason",
                "line 4: 'maybe' is not a note: bug URL, or n/a REASON",
                "line 6: edit/d has a note already",
            ]
        );
    }
}
