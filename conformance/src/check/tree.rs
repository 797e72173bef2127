//! Judging the final tree as a whole: which entries are checked against `expect_files`, which
//! against what the harness knows, and the residue rule for everything else.
//!
//! An implementation can go wrong by leaving things behind (a temp file of an interrupted
//! atomic write) or by touching files the case never named, as much as by writing the wrong
//! bytes. Only a walk of the whole tree sees those, so this is where the tree is listed and each
//! entry is sent to the right check.

use super::entry::{as_before, check_expect_file, compare_known};
use super::evidence::actual_json;
use super::Failure;
use crate::case::Case;
use crate::class::Class;
use crate::sandbox::{self, case_path, Actual, Known, Sandbox};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// Checks the final tree: every `expect_files` entry, every other entry the harness knows
/// (it must be as the harness last knew it), and the residue rule (nothing else may exist,
/// apart from directories leading to expected or known entries, unless `allow_residue`).
///
/// An `expect_files` entry that is not as the case expects but exactly as it was before the
/// case's calls is marked [`Failure::untouched`]: not damage. Everything else that fails here
/// is data: an entry changed to something the case does not expect, an unlisted file changed
/// or removed, residue.
///
/// Returns every problem, most important (expectations) first.
pub fn check_tree(case: &Case, sb: &Sandbox) -> Vec<Failure> {
    let mut out = Vec::new();
    let mut listed = BTreeSet::new();
    for (path, e) in &case.expect_files {
        let Ok(key) = sandbox::root_relative(path) else {
            continue;
        };
        if let Some(mut f) = check_expect_file(sb, path, &key, e) {
            match e.class {
                Some(c) => f.classes = vec![c],
                // Not as the case expects, but as it was: nothing was damaged.
                None => f.untouched = as_before(sb, &key),
            }
            out.push(f);
        }
        listed.insert(key);
    }
    let snapshot = sb.snapshot();
    let mut ancestors = BTreeSet::new();
    for key in listed.iter().chain(
        sb.known()
            .iter()
            .filter(|(_, k)| **k != Known::Absent)
            .map(|(k, _)| k),
    ) {
        let mut p = key.parent();
        while let Some(a) = p {
            if a.as_os_str().is_empty() {
                break;
            }
            ancestors.insert(a.to_path_buf());
            p = a.parent();
        }
    }
    let mut residue = Vec::new();
    for (key, actual) in &snapshot {
        if listed.contains(key) {
            continue;
        }
        let path = case_path(key);
        match sb.known().get(key) {
            Some(known) => {
                if let Some(f) = compare_known(&path, known, actual) {
                    out.push(f);
                }
            }
            None if matches!(actual, Actual::Dir(_)) && ancestors.contains(key) => {}
            None => residue.push((path, actual)),
        }
    }
    for (key, known) in sb.known() {
        if !listed.contains(key) && !snapshot.contains_key(key) && *known != Known::Absent {
            if let Some(f) = compare_known(&case_path(key), known, &Actual::Absent) {
                out.push(f);
            }
        }
    }
    if !case.allow_residue && !residue.is_empty() {
        let names: Vec<String> = residue.iter().map(|(p, _)| p.clone()).collect();
        out.push(Failure {
            reason: format!(
                "residue: {} left behind ({})",
                if names.len() == 1 {
                    "an unexpected entry was".to_string()
                } else {
                    format!("{} unexpected entries were", names.len())
                },
                names.join(", ")
            ),
            expected: Some(json!({"residue": []})),
            actual: Some(Value::Object(
                residue
                    .iter()
                    .map(|(p, a)| (p.clone(), actual_json(a)))
                    .collect(),
            )),
            diff: None,
            classes: vec![Class::Data],
            untouched: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Content, ExpectFile, FileForm, Level, Step};
    use std::fs;

    fn case(
        files: Vec<(&str, &[u8])>,
        expect: Vec<(&str, ExpectFile)>,
        allow_residue: bool,
    ) -> Case {
        Case {
            id: "disk/t".into(),
            area: "disk".into(),
            title: "t".into(),
            spec: vec![],
            level: Level::Core,
            requires: vec![],
            tags: vec![],
            since: "0.1.0".into(),
            files: files
                .into_iter()
                .map(|(p, b)| {
                    (
                        p.to_string(),
                        FileForm {
                            content: Content::Bytes(b.to_vec()),
                            mode: None,
                        },
                    )
                })
                .collect(),
            steps: vec![Step::Remove { path: "x".into() }],
            expect_files: expect
                .into_iter()
                .map(|(p, e)| (p.to_string(), e))
                .collect(),
            allow_residue,
            timeout: None,
            notes: None,
            source: "t".into(),
            sha256: String::new(),
        }
    }

    #[test]
    fn residue_and_unlisted_changes_are_caught() {
        let c = case(
            vec![("a.txt", b"one\n"), ("b.txt", b"two\n"), ("../out", b"o")],
            vec![],
            false,
        );
        let mut sb = Sandbox::new(None).unwrap();
        sb.build(&c.files).unwrap();
        assert_eq!(check_tree(&c, &sb), vec![]);

        // A temp file left behind is residue; a new directory holding it is reported too.
        fs::create_dir(sb.dir().join("tmpdir")).unwrap();
        fs::write(sb.dir().join("tmpdir/.a.txt.tmp"), b"half").unwrap();
        let problems = check_tree(&c, &sb);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].reason.starts_with("residue:"),
            "{}",
            problems[0].reason
        );
        assert!(problems[0].reason.contains("tmpdir/.a.txt.tmp"));
        let tolerant = case(
            vec![("a.txt", b"one\n"), ("b.txt", b"two\n"), ("../out", b"o")],
            vec![],
            true,
        );
        assert_eq!(check_tree(&tolerant, &sb), vec![]);
        fs::remove_dir_all(sb.dir().join("tmpdir")).unwrap();

        // An unlisted file that changed fails, and so does one outside the sandbox.
        fs::write(sb.dir().join("b.txt"), b"TWO\n").unwrap();
        fs::write(sb.root().join("out"), b"p").unwrap();
        let problems = check_tree(&c, &sb);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems
            .iter()
            .any(|p| p.reason.starts_with("b.txt: changed")));
        assert!(problems
            .iter()
            .any(|p| p.reason.starts_with("../out: changed")));
        assert!(problems[0].diff.is_some());

        // A listed file is judged by its expectation only; a created file that is listed is
        // not residue, and neither are the directories leading to it.
        let c2 = case(
            vec![("a.txt", b"one\n"), ("b.txt", b"two\n"), ("../out", b"o")],
            vec![
                (
                    "b.txt",
                    ExpectFile {
                        content: Some(Content::Bytes(b"TWO\n".to_vec())),
                        ..Default::default()
                    },
                ),
                (
                    "../out",
                    ExpectFile {
                        content: Some(Content::Bytes(b"p".to_vec())),
                        ..Default::default()
                    },
                ),
                (
                    "new/dir/c.txt",
                    ExpectFile {
                        content: Some(Content::Bytes(b"c".to_vec())),
                        ..Default::default()
                    },
                ),
                (
                    "a.txt",
                    ExpectFile {
                        unchanged: true,
                        ..Default::default()
                    },
                ),
            ],
            false,
        );
        fs::create_dir_all(sb.dir().join("new/dir")).unwrap();
        fs::write(sb.dir().join("new/dir/c.txt"), b"c").unwrap();
        assert_eq!(check_tree(&c2, &sb), vec![]);

        // A removed known file fails; `absent` and `unchanged` work.
        fs::remove_file(sb.dir().join("a.txt")).unwrap();
        let problems = check_tree(&c2, &sb);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].reason.contains("removed"),
            "{}",
            problems[0].reason
        );
    }

    #[test]
    fn an_expected_change_not_made_is_untouched_and_any_other_is_not() {
        let expect = |bytes: &[u8]| ExpectFile {
            content: Some(Content::Bytes(bytes.to_vec())),
            ..Default::default()
        };
        let c = case(
            vec![("a.txt", b"one\n")],
            vec![("a.txt", expect(b"ONE\n")), ("new.txt", expect(b"n"))],
            false,
        );
        let mut sb = Sandbox::new(None).unwrap();
        sb.build(&c.files).unwrap();
        // Nothing done: both entries as they were.
        let problems = check_tree(&c, &sb);
        assert_eq!(problems.len(), 2);
        assert!(problems.iter().all(|p| p.untouched), "{problems:?}");
        // A wrong change is damage.
        fs::write(sb.dir().join("a.txt"), b"one\r\n").unwrap();
        let problems = check_tree(&c, &sb);
        assert!(!problems[0].untouched && problems[0].classes == vec![Class::Data]);
        // The same bytes written back in place are as before too (the mode is kept here).
        fs::write(sb.dir().join("a.txt"), b"one\n").unwrap();
        assert!(check_tree(&c, &sb)[0].untouched);
        // A file the case wants absent, left in place: untouched; one that should not have
        // been created: damage.
        let gone = case(
            vec![("a.txt", b"one\n")],
            vec![
                (
                    "a.txt",
                    ExpectFile {
                        absent: true,
                        ..Default::default()
                    },
                ),
                (
                    "b.txt",
                    ExpectFile {
                        absent: true,
                        ..Default::default()
                    },
                ),
            ],
            false,
        );
        fs::write(sb.dir().join("b.txt"), b"x").unwrap();
        let problems = check_tree(&gone, &sb);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].untouched, "{problems:?}");
        assert!(!problems[1].untouched, "{problems:?}");
    }
}
