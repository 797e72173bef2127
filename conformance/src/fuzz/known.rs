//! Known divergences: kinds of disagreement a user has looked at and accepts (`this tool does
//! not repair line prefixes`), so that a nightly run reports only kinds it has not seen.
//!
//! The file holds one pattern per line, matched against the whole kind with `*` and `?`
//! wildcards (as `--only` matches case ids); `#` starts a comment, which is the place to say
//! why the divergence is accepted. For example:
//!
//! ```text
//! # We do not repair line-number prefixes copied from Read.
//! *after repairing line_prefix*
//! Edit: refused (ambiguous) where the reference succeeds
//! ```

use crate::run::glob_match;
use std::path::Path;

/// The accepted patterns of a known-divergences file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// The patterns, in file order.
    pub patterns: Vec<String>,
}

impl Known {
    /// Parses the text of a known-divergences file.
    pub fn parse(text: &str) -> Known {
        let patterns = text
            .lines()
            .map(|l| l.split_once('#').map_or(l, |(p, _)| p).trim())
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect();
        Known { patterns }
    }

    /// Reads and parses a known-divergences file.
    pub fn read(path: &Path) -> Result<Known, String> {
        std::fs::read_to_string(path)
            .map(|t| Known::parse(&t))
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
    }

    /// The pattern that accepts `kind`, if any.
    pub fn accepts(&self, kind: &str) -> Option<&str> {
        self.patterns
            .iter()
            .find(|p| glob_match(p, kind))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_whole_kinds_and_comments_are_ignored() {
        let k = Known::parse(
            "# accepted\n*after repairing line_prefix*  # no prefix repair\n\n\
             Edit: refused (ambiguous) where the reference succeeds\n",
        );
        assert_eq!(k.patterns.len(), 2);
        assert!(k
            .accepts("Edit: refused (not_found) where the reference succeeds after repairing line_prefix")
            .is_some());
        assert!(k
            .accepts("Edit: refused (ambiguous) where the reference succeeds")
            .is_some());
        assert_eq!(
            k.accepts(
                "Edit: refused (ambiguous) where the reference succeeds after repairing desanitize"
            ),
            None,
            "a pattern without a wildcard matches the whole kind only"
        );
        assert_eq!(
            k.accepts("bytes: line endings differ outside the edit"),
            None
        );
    }
}
