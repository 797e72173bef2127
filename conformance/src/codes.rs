//! Error codes as a caller relies on them: which codes are interchangeable, and which
//! distinctions the spec requires (SPEC.md §12, "What a caller can rely on").
//!
//! A caller acts on a refusal by what it must do next. Where two codes send it the same way —
//! fix the call, use another path, read the file (again), leave the file to another tool, tell
//! the user — a tool that answers the one where the corpus names the other has kept the
//! contract; such codes form a *family*. Where the next step differs (fix `old_string`, add
//! context, create the file, use NotebookEdit, page through the file), the spec requires the
//! distinction, and a code outside the expected one's family is a contract failure.
//!
//! Families may share a code: `invalid_path` is both a path refusal and a malformed input.
//! Two codes are interchangeable when one family holds both.

/// A set of interchangeable codes and what each of them tells a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    /// The family's name, as documentation and reports give it.
    pub name: &'static str,
    /// Its codes.
    pub codes: &'static [&'static str],
    /// What a caller can rely on when it meets any of them.
    pub means: &'static str,
}

/// The families of SPEC.md §12. Every code of the spec not listed here stands alone.
pub const FAMILIES: [Family; 5] = [
    Family {
        name: "path refusal",
        codes: &[
            "invalid_path",
            "outside_root",
            "blocked_path",
            "not_regular_file",
            "is_directory",
        ],
        means: "this path cannot be used with this tool; nothing was touched; name another path",
    },
    Family {
        name: "invalid input",
        codes: &["invalid_input", "invalid_path", "invalid_patch"],
        means: "the call is malformed; nothing was touched; fix the call",
    },
    Family {
        name: "read first",
        codes: &["not_read", "partial_read", "stale"],
        means: "the file must be read in full, again if it changed, before it is written",
    },
    Family {
        name: "not text",
        codes: &["encoding", "binary"],
        means: "the file's bytes cannot be edited as text without changing others; it was left as it was",
    },
    Family {
        name: "cannot write",
        codes: &["permission_denied", "hard_link", "attribute_not_kept", "io"],
        means: "the file cannot be written safely here; it was left as it was; tell the user",
    },
];

/// The codes whose distinction the spec requires: each stands alone, since a caller does
/// something different next for each.
pub const DISTINCT: [(&str, &str); 13] = [
    (
        "not_found",
        "fix old_string (the hint names the closest lines)",
    ),
    (
        "ambiguous",
        "add context to old_string, or ask for replace_all",
    ),
    ("no_change", "nothing to do"),
    (
        "edit_conflict",
        "reorder or merge the edits of the MultiEdit",
    ),
    (
        "replacement_count",
        "the count of hits is not the one expected",
    ),
    ("file_not_found", "create the file, or fix the path"),
    (
        "file_exists",
        "read the file and edit it instead of creating it",
    ),
    ("use_notebook_edit", "use NotebookEdit for a notebook"),
    ("not_notebook", "use Edit for a file that is not a notebook"),
    ("too_large", "page through the file with offset and limit"),
    ("invalid_notebook", "the notebook itself is malformed"),
    ("cell_not_found", "name a cell the notebook has"),
    (
        "nothing_to_undo",
        "no (further) write of the file is recorded",
    ),
];

/// Whether a refusal with `actual` keeps the contract of one with `expected`: the same code,
/// or a code of one of its families.
pub fn interchangeable(expected: &str, actual: &str) -> bool {
    expected == actual
        || FAMILIES
            .iter()
            .any(|f| f.codes.contains(&expected) && f.codes.contains(&actual))
}

/// The families that hold `code`, by name.
pub fn families_of(code: &str) -> Vec<&'static str> {
    FAMILIES
        .iter()
        .filter(|f| f.codes.contains(&code))
        .map(|f| f.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_decide_what_is_interchangeable() {
        // The two refusals the issue names: a path refusal for another, a malformed path
        // answered as malformed input.
        assert!(interchangeable("blocked_path", "outside_root"));
        assert!(interchangeable("invalid_path", "invalid_input"));
        assert!(interchangeable("stale", "not_read"));
        assert!(interchangeable("binary", "encoding"));
        assert!(interchangeable("hard_link", "io"));
        // invalid_path is in two families; the relation does not run through it.
        assert!(!interchangeable("outside_root", "invalid_input"));
        // Distinctions the spec requires.
        assert!(!interchangeable("not_found", "ambiguous"));
        assert!(!interchangeable("file_not_found", "outside_root"));
        assert!(!interchangeable("no_change", "invalid_input"));
        assert!(!interchangeable("ambiguous", "error"));
        assert!(interchangeable("ambiguous", "ambiguous"));
        assert_eq!(
            families_of("invalid_path"),
            ["path refusal", "invalid input"]
        );
    }

    #[test]
    fn every_code_of_the_spec_is_placed_once() {
        let spec = include_str!("../../SPEC.md");
        let table = &spec[spec.find("## 12. Error codes").unwrap()..];
        let table = &table[..table.find("\n## 13").unwrap()];
        let mut codes: Vec<&str> = Vec::new();
        for line in table.lines().filter(|l| l.starts_with("| `")) {
            let first = line.split('|').nth(1).unwrap_or("");
            codes.extend(first.split('`').skip(1).step_by(2));
        }
        assert!(codes.len() > 20, "{codes:?}");
        for code in codes {
            let in_family = FAMILIES.iter().any(|f| f.codes.contains(&code));
            let alone = DISTINCT.iter().any(|(c, _)| *c == code);
            assert!(
                in_family != alone,
                "{code}: in a family and distinct, or neither"
            );
        }
    }
}
