//! The tool surface an implementation declares: which tools it offers, which it does not, and
//! whether it writes at all. A verdict is stated for a surface (Bowtie reports per dialect a
//! validator supports, test262 per feature): a case that needs a tool the implementation does
//! not offer does not count against it, every other case does.
//!
//! The surface is read from the declared features: the feature of each tool (`read` for Read,
//! `apply_patch` for apply_patch, …) and `param_aliases`, the other agents' spellings of Edit's
//! and Write's parameters, which is a dialect of input rather than a tool. Every other feature
//! says what a tool does with a kind of file or call (`crlf`, `stale_detection`, …); a core
//! case needing one of those that is not declared is skipped *and* counts against the level,
//! as before — no tool gets out of CRLF, staleness or read-before-write by not declaring them.

use serde::{Deserialize, Serialize};

/// The surface features, in the order verdicts name them, with the name a verdict shows.
pub const TOOLS: [(&str, &str); 11] = [
    ("read", "Read"),
    ("edit", "Edit"),
    ("multi_edit", "MultiEdit"),
    ("write", "Write"),
    ("notebook_edit", "NotebookEdit"),
    ("undo", "Undo"),
    ("line_edit", "LineEdit"),
    ("text_editor", "str_replace_based_edit_tool"),
    ("apply_patch", "apply_patch"),
    ("search_replace", "search_replace"),
    ("param_aliases", "param_aliases"),
];

/// The features of the tools that write a file: an implementation must offer one of them to be
/// judged at all (Undo only takes writes back, Read writes nothing).
pub const WRITING: [&str; 8] = [
    "edit",
    "multi_edit",
    "write",
    "notebook_edit",
    "line_edit",
    "text_editor",
    "apply_patch",
    "search_replace",
];

/// Whether `feature` is part of the surface (a tool, or `param_aliases`).
pub fn is_surface(feature: &str) -> bool {
    TOOLS.iter().any(|(f, _)| *f == feature)
}

/// What an implementation offers and does not, by the names verdicts show.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Surface {
    /// The tools offered, in [`TOOLS`] order.
    pub offered: Vec<String>,
    /// The tools not offered, in the same order.
    pub not_offered: Vec<String>,
}

impl Surface {
    /// The surface `features` declare.
    pub fn of(features: &[String]) -> Surface {
        let mut s = Surface::default();
        for (feature, shown) in TOOLS {
            if features.iter().any(|f| f == feature) {
                s.offered.push(shown.to_string());
            } else {
                s.not_offered.push(shown.to_string());
            }
        }
        s
    }

    /// "Read, Edit, Write (not offered: MultiEdit, …)", or the offered tools alone when
    /// nothing is missing.
    pub fn describe(&self) -> String {
        let offered = if self.offered.is_empty() {
            "no tool".to_string()
        } else {
            self.offered.join(", ")
        };
        if self.not_offered.is_empty() {
            offered
        } else {
            format!("{offered} (not offered: {})", self.not_offered.join(", "))
        }
    }
}

/// Whether `features` declare a tool that writes (see [`WRITING`]).
pub fn writes(features: &[String]) -> bool {
    features.iter().any(|f| WRITING.contains(&f.as_str()))
}

/// The tool feature a corpus tool name stands for (`str_replace_editor` is the text editor).
pub fn feature_of_tool(tool: &str) -> Option<&'static str> {
    Some(match tool {
        "Read" => "read",
        "Edit" => "edit",
        "MultiEdit" => "multi_edit",
        "Write" => "write",
        "NotebookEdit" => "notebook_edit",
        "Undo" => "undo",
        "LineEdit" => "line_edit",
        "str_replace_based_edit_tool" | "str_replace_editor" => "text_editor",
        "apply_patch" => "apply_patch",
        "search_replace" => "search_replace",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_surface_names_what_is_offered_and_what_is_not() {
        let s = Surface::of(&features(&[
            "read",
            "edit",
            "multi_edit",
            "write",
            "notebook_edit",
            "crlf",
        ]));
        assert_eq!(
            s.describe(),
            "Read, Edit, MultiEdit, Write, NotebookEdit (not offered: Undo, LineEdit, \
             str_replace_based_edit_tool, apply_patch, search_replace, param_aliases)"
        );
        let all: Vec<String> = TOOLS.iter().map(|(f, _)| f.to_string()).collect();
        assert_eq!(
            Surface::of(&all).describe(),
            "Read, Edit, MultiEdit, Write, NotebookEdit, Undo, LineEdit, \
             str_replace_based_edit_tool, apply_patch, search_replace, param_aliases"
        );
        assert!(writes(&features(&["read", "apply_patch"])));
        assert!(!writes(&features(&["read", "undo", "crlf"])));
        assert!(is_surface("param_aliases") && !is_surface("stale_detection"));
        for t in editref_protocol::TOOLS {
            let f = feature_of_tool(t).unwrap();
            assert!(is_surface(f), "{t}");
            assert!(editref_protocol::FEATURES.contains(&f), "{t}");
        }
        assert_eq!(feature_of_tool("Bash"), None);
    }
}
