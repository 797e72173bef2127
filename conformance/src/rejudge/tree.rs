//! Final-tree problems of an earlier report, judged again: was the entry damaged, or left
//! exactly as it was before the case's calls (see [`crate::check::check_tree`])?
//!
//! The state before the calls is rebuilt from the case: its files, then its harness actions, in
//! a sandbox of its own (the same code that made it when the case ran). What the entry was at
//! the end comes from the evidence the report kept: the bytes of the record's first problem in
//! full (up to 4 KiB), or, for a later problem, only its reason — the window of 48 bytes it
//! shows and the length. Where that is not enough to tell, the problem stays as it was judged
//! (data) and is listed as unsettled.

use crate::case::{Case, Content, Step};
use crate::check::{shows_whole, window, window_is_whole};
use crate::sandbox::{self, Known, Sandbox};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What an entry was before the case's calls.
pub(super) struct Before {
    known: BTreeMap<PathBuf, Known>,
    /// For each symlink the harness knows, the entry it leads to (inside the case root).
    through: BTreeMap<PathBuf, PathBuf>,
}

impl Before {
    /// The state before the calls of `case`: its files and harness actions, done in a sandbox.
    pub(super) fn of(case: &Case) -> Result<Before, String> {
        let mut sb = Sandbox::new(None)?;
        sb.build(&case.files)?;
        for step in &case.steps {
            sb.act(step)?;
        }
        let root = std::fs::canonicalize(sb.root()).map_err(|e| e.to_string())?;
        let mut through = BTreeMap::new();
        for (key, known) in sb.known() {
            if matches!(known, Known::Symlink(_)) {
                if let Some(t) = std::fs::canonicalize(sb.root().join(key))
                    .ok()
                    .and_then(|t| t.strip_prefix(&root).ok().map(Path::to_path_buf))
                {
                    through.insert(key.clone(), t);
                }
            }
        }
        Ok(Before {
            known: sb.known().clone(),
            through,
        })
    }

    /// The entry at the case path `path` before the calls.
    fn at(&self, key: &Path) -> Known {
        self.known.get(key).cloned().unwrap_or(Known::Absent)
    }

    /// The bytes read at `key` before the calls, through a symlink; `None` when no file.
    fn bytes(&self, key: &Path) -> Option<Vec<u8>> {
        let key = self.through.get(key).map_or(key, PathBuf::as_path);
        match self.at(key) {
            Known::File { bytes, .. } => Some(bytes),
            _ => None,
        }
    }
}

/// What a tree problem turns out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Entry {
    /// The entry is not as it was: damage (data).
    Changed,
    /// The entry is exactly as it was: the tool did not do what the case expects.
    AsBefore,
    /// The evidence kept cannot tell; why.
    Unknown(String),
}

/// Judges one final-tree problem of a record of `case`: `reason` as the report has it, and,
/// for the record's first problem, the `actual` entry it kept.
pub(super) fn judge(case: &Case, before: &Before, reason: &str, actual: Option<&Value>) -> Entry {
    if reason.starts_with("residue:") {
        return Entry::Changed;
    }
    let Some((path, what)) = split(case, reason) else {
        return Entry::Unknown("the reason names no path of the case".into());
    };
    let Ok(key) = sandbox::root_relative(&path) else {
        return Entry::Unknown(format!("{path} is not a case path"));
    };
    let listed = case.expect_files.iter().find(|(p, _)| *p == path);
    let Some((_, expect)) = listed else {
        // An entry the case did not list: it had to stay as it was, and did not.
        return Entry::Changed;
    };
    let unknown = |why: &str| Entry::Unknown(format!("{path}: {why}"));
    // The entry's bytes as kept in full, when this is the record's first problem.
    let kept_bytes = |b: &[u8]| {
        let a = actual?;
        let text = a.get("text")?.as_str()?;
        let len = a.get("len")?.as_u64()?;
        Some(len == b.len() as u64 && shows_whole(text, b))
    };
    if let Some(rest) = what.strip_prefix("content differs at byte ") {
        let Some(before_bytes) = before.bytes(&key) else {
            return Entry::Changed; // there was no file to read: something is there now
        };
        if let Some(same) = kept_bytes(&before_bytes) {
            return if same {
                Entry::AsBefore
            } else {
                Entry::Changed
            };
        }
        let Some((first, got, len)) = parse_content(rest) else {
            return unknown("the reason cannot be read");
        };
        let want = match &expect.content {
            Some(Content::Bytes(b)) => b,
            _ => return unknown("the case expects no bytes there"),
        };
        let start = first.saturating_sub(16);
        let same_head = before_bytes.get(..first) == want.get(..first);
        if len != before_bytes.len() || !same_head || window(&before_bytes, start) != got {
            return Entry::Changed;
        }
        return if window_is_whole(&before_bytes, start) {
            Entry::AsBefore
        } else {
            unknown(
                "probably as before — its length and the bytes the reason shows are — but the \
                 bytes past those were not kept",
            )
        };
    }
    if let Some(kind) = what
        .strip_prefix("must be absent but is ")
        .or_else(|| what.strip_prefix("expected a regular file, found "))
        .or_else(|| what.strip_prefix("must still be a symlink but is "))
    {
        let was = kind_of(&before.at(&key));
        if was != kind {
            return Entry::Changed;
        }
        if kind == "absent" {
            return Entry::AsBefore;
        }
        if kind != "a regular file" {
            return unknown(&format!("still {kind}, but what it holds was not kept"));
        }
        return match (before.bytes(&key), kept_bytes) {
            (Some(b), kept) => match kept(&b) {
                Some(true) => Entry::AsBefore,
                Some(false) => Entry::Changed,
                None => unknown("its bytes were not kept"),
            },
            (None, _) => unknown("its bytes were not kept"),
        };
    }
    if what.starts_with("was rewritten in place") {
        // The same inode: as before only if the bytes are too.
        return match (before.bytes(&key), kept_bytes) {
            (Some(b), kept) => match kept(&b) {
                Some(true) => Entry::AsBefore,
                Some(false) => Entry::Changed,
                None => unknown("its bytes were not kept"),
            },
            (None, _) => Entry::Changed,
        };
    }
    if what.starts_with("mode is ") {
        // The bytes were as the case expects, which is not as they were: changed.
        return match (&expect.content, before.bytes(&key)) {
            (Some(Content::Bytes(want)), Some(b)) if *want != b => Entry::Changed,
            _ => unknown("its bytes were not kept"),
        };
    }
    if what.starts_with("changed although")
        || what.starts_with("mode changed")
        || what.contains("was removed although")
        || what.starts_with("symlink now points")
        || what.starts_with("was removed by the case")
        || what.starts_with("was a ")
    {
        return Entry::Changed;
    }
    unknown("a check the evidence does not let us judge again")
}

/// The case path a tree problem's reason starts with, and the rest: the longest path of the
/// case's expected or known entries the reason begins with (a path may hold ": ").
fn split(case: &Case, reason: &str) -> Option<(String, String)> {
    let mut paths: Vec<&str> = case
        .expect_files
        .iter()
        .map(|(p, _)| p.as_str())
        .chain(case.files.iter().map(|(p, _)| p.as_str()))
        .collect();
    for step in &case.steps {
        match step {
            Step::Modify { path, .. }
            | Step::Touch { path, .. }
            | Step::Chmod { path, .. }
            | Step::Remove { path }
            | Step::Link { path, .. } => paths.push(path),
            Step::Call { .. } => {}
        }
    }
    paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
    paths.into_iter().find_map(|p| {
        reason
            .strip_prefix(p)
            .and_then(|r| r.strip_prefix(": "))
            .map(|r| (p.to_string(), r.to_string()))
    })
}

/// From `N (expected E, got G; X vs Y bytes)`: the first differing byte, the window of the
/// actual bytes and their length.
fn parse_content(rest: &str) -> Option<(usize, String, usize)> {
    let (first, rest) = rest.split_once(" (expected ")?;
    let rest = rest.strip_suffix(" bytes)")?;
    let (rest, lens) = rest.rsplit_once("; ")?;
    let (_, len) = lens.split_once(" vs ")?;
    let (_, got) = rest.rsplit_once(", got ")?;
    Some((first.parse().ok()?, got.to_string(), len.parse().ok()?))
}

/// What an entry was, in the words the tree checks use for what it is.
fn kind_of(k: &Known) -> &'static str {
    match k {
        Known::File { .. } => "a regular file",
        Known::Symlink(_) => "a symlink",
        Known::Dir(_) => "a directory",
        Known::Fifo => "a FIFO",
        Known::Absent => "absent",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(yaml_tail: &str) -> Case {
        let text = format!(
            "id: edit/t\ntitle: t\nspec: [X-1]\nlevel: core\nrequires: [edit]\nsince: \"0.1.0\"\n{yaml_tail}"
        );
        crate::load::parse_case("t", "edit/t.yaml", text.as_bytes()).unwrap()
    }

    #[test]
    fn an_entry_is_judged_from_the_evidence_kept() {
        let c = case(
            "files:\n  a.txt: {text: \"one\\n\"}\nsteps:\n  - call: {tool: Edit, input: {file_path: a.txt, old_string: one, new_string: two}}\nexpect_files:\n  a.txt: {text: \"two\\n\"}\n  b.txt: {text: \"b\"}\n",
        );
        let before = Before::of(&c).unwrap();
        let as_before =
            "a.txt: content differs at byte 0 (expected \"two\\n\", got \"one\\n\"; 4 vs 4 bytes)";
        assert_eq!(judge(&c, &before, as_before, None), Entry::AsBefore);
        let crlf = "a.txt: content differs at byte 0 (expected \"two\\n\", got \"two\\r\\n\"; 4 vs 5 bytes)";
        assert_eq!(judge(&c, &before, crlf, None), Entry::Changed);
        // The first problem keeps the bytes: they decide.
        let kept = serde_json::json!({"len": 4, "text": "one\\n", "hex": "6f 6e 65 0a"});
        assert_eq!(judge(&c, &before, as_before, Some(&kept)), Entry::AsBefore);
        assert_eq!(
            judge(
                &c,
                &before,
                "b.txt: expected a regular file, found absent",
                None
            ),
            Entry::AsBefore
        );
        assert_eq!(
            judge(
                &c,
                &before,
                "b.txt: must be absent but is a regular file",
                None
            ),
            Entry::Changed
        );
        assert_eq!(
            judge(
                &c,
                &before,
                "residue: an unexpected entry was left behind (x)",
                None
            ),
            Entry::Changed
        );
        assert!(matches!(
            judge(
                &c,
                &before,
                "a.txt: was rewritten in place (same inode)",
                None
            ),
            Entry::Unknown(_)
        ));
    }

    #[test]
    fn a_long_file_is_settled_only_as_far_as_the_window_shows() {
        let long = "x".repeat(100);
        let c = case(&format!(
            "files:\n  a.txt: {{text: \"{long}\"}}\nsteps:\n  - call: {{tool: Read, input: {{file_path: a.txt}}}}\nexpect_files:\n  a.txt: {{text: \"y{}\"}}\n",
            &long[1..]
        ));
        let before = Before::of(&c).unwrap();
        let bytes = long.as_bytes();
        let reason = format!(
            "a.txt: content differs at byte 0 (expected {}, got {}; 100 vs 100 bytes)",
            window(b"y", 0),
            window(bytes, 0)
        );
        assert!(matches!(
            judge(&c, &before, &reason, None),
            Entry::Unknown(_)
        ));
        assert_eq!(
            parse_content("3 (expected \"a\", got \"b\"; 3 vs 4 bytes)"),
            Some((3, "\"b\"".into(), 4))
        );
    }
}
