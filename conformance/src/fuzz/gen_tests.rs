//! Tests of [`super`]: seeds repeat, features are honoured, the hard parts appear.
use super::*;

fn all() -> Allowed {
    Allowed::new(
        &editref_protocol::FEATURES
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
    )
}

#[test]
fn a_seed_gives_the_same_case_every_time_and_seeds_differ() {
    let a = from_seed(7, &all());
    assert_eq!(a, from_seed(7, &all()));
    let distinct: std::collections::BTreeSet<String> = (0..50)
        .map(|s| format!("{:?}", from_seed(s, &all())))
        .collect();
    assert!(distinct.len() > 45, "{}", distinct.len());
}

/// A tool that declares only Read, Edit and Write is asked only what those tools do — and
/// still meets the kinds of file every tool meets: CRLF and mixed endings, a BOM, UTF-16,
/// windows-1252, symlinked files, modes other than 0644.
#[test]
fn only_declared_features_are_asked_for_and_guard_files_come_anyway() {
    let declared: Vec<String> = ["read", "edit", "write"].map(String::from).to_vec();
    let minimal = Allowed::new(&declared);
    let mut guards_seen = std::collections::BTreeSet::new();
    for seed in 0..400 {
        let c = from_seed(seed, &minimal);
        let needed = crate::fuzz::requires::requires(&c);
        assert!(
            needed.iter().all(|f| declared.contains(f)),
            "seed {seed}: {needed:?} {c:?}"
        );
        guards_seen.extend(crate::fuzz::requires::guards(&c));
        for s in &c.steps {
            match s {
                GenStep::Read { window, .. } => assert!(window.is_none()),
                GenStep::Edit { edit, .. } => {
                    assert!(!edit.replace_all);
                    assert!(!edit.old.contains("\r\n"), "seed {seed}: {edit:?}");
                }
                GenStep::Write { .. } => {}
                other => panic!("seed {seed}: {other:?} needs an undeclared feature"),
            }
        }
    }
    let all: Vec<&str> = guards_seen.iter().map(String::as_str).collect();
    assert_eq!(all.len(), super::parts::GUARDS.len(), "{all:?}");
}

#[test]
fn each_dialect_is_generated_only_when_declared() {
    let five: Vec<String> = editref_protocol::FEATURES
        .iter()
        .filter(|f| !editref_protocol::EXTRA_FEATURES.contains(f))
        .map(|s| s.to_string())
        .collect();
    for extra in ["text_editor", "line_edit", "apply_patch", "search_replace"] {
        let mut declared = five.clone();
        declared.push(extra.to_string());
        let allowed = Allowed::new(&declared);
        let mut seen = 0;
        for seed in 0..300 {
            for s in from_seed(seed, &allowed).steps {
                let dialect = match s {
                    GenStep::Editor { .. } => "text_editor",
                    GenStep::LineEdit { .. } => "line_edit",
                    GenStep::Patch { .. } => "apply_patch",
                    GenStep::Blocks { .. } => "search_replace",
                    _ => continue,
                };
                assert_eq!(dialect, extra, "seed {seed}");
                seen += 1;
            }
        }
        assert!(seen > 50, "{extra}: {seen} steps in 300 cases");
    }
}

#[test]
fn links_are_made_and_swapped_between_calls() {
    let (mut made, mut swapped, mut used_after) = (0, 0, 0);
    for seed in 0..600 {
        let c = from_seed(seed, &all());
        let mut names: Vec<String> = c.links.iter().map(|(l, _)| l.clone()).collect();
        for (i, s) in c.steps.iter().enumerate() {
            if let GenStep::Link { path, .. } = s {
                if names.contains(path) {
                    swapped += 1;
                } else {
                    made += 1;
                    names.push(path.clone());
                }
                let later = &c.steps[i + 1..];
                used_after += usize::from(later.iter().any(|s| {
                    matches!(s, GenStep::Edit { path: p, .. } | GenStep::Read { path: p, .. } if p == path)
                }));
            }
        }
    }
    assert!(
        made > 20 && swapped > 10 && used_after > 10,
        "{made} {swapped} {used_after}"
    );
}

#[test]
fn some_files_have_a_line_longer_than_2000_characters() {
    let long = (0..1000)
        .filter(|&seed| {
            from_seed(seed, &all()).files[0]
                .text
                .split('\n')
                .any(|l| l.chars().count() > parts::LONG_LINE)
        })
        .count();
    assert!((20..=120).contains(&long), "{long} of 1000");
}

#[test]
fn most_edits_cut_their_old_string_from_the_file() {
    let mut found = 0;
    let mut edits = 0;
    for seed in 0..400 {
        let c = from_seed(seed, &all());
        let text = parts::lf_view(&c.files[0].text);
        for s in &c.steps {
            if let GenStep::Edit { path, edit } = s {
                if path == "a.txt" || path == "link.txt" {
                    edits += 1;
                    found += usize::from(text.contains(&edit.old));
                }
            }
        }
    }
    assert!(edits > 200, "{edits}");
    assert!(found * 2 > edits, "{found} of {edits}");
}

#[test]
fn windows_1252_files_are_encodable_and_not_plain_ascii() {
    for seed in 0..2000 {
        let c = from_seed(seed, &all());
        for f in &c.files {
            let bytes = f.encoding.encode(&f.text);
            assert!(bytes.is_some(), "seed {seed}: {f:?}");
            if f.encoding == Encoding::Windows1252 {
                assert!(bytes.unwrap().iter().any(|b| *b > 0x7F), "seed {seed}");
            }
        }
    }
}

#[test]
fn a_touch_never_names_a_file_a_patch_deleted() {
    // The harness cannot touch a file that is not there (CONF setup steps must succeed), so the
    // generator must know what an apply_patch Delete removed until something makes it again.
    let mut deleted_then_touched = 0;
    let mut deleted = 0;
    for seed in 0..40_000 {
        let c = from_seed(seed, &all());
        let mut missing: Vec<String> = Vec::new();
        for s in &c.steps {
            match s {
                GenStep::Patch { ops } => {
                    for op in ops {
                        missing.retain(|p| p != op.path());
                        if matches!(op, dialects::PatchOp::Delete { .. }) {
                            missing.push(op.path().to_string());
                            deleted += 1;
                        }
                    }
                }
                GenStep::Write { path, .. } | GenStep::Modify { path, .. } => {
                    missing.retain(|p| p != path)
                }
                GenStep::Touch { path } if missing.contains(path) => {
                    deleted_then_touched += 1;
                }
                _ => {}
            }
        }
    }
    assert!(
        deleted > 20,
        "the seeds delete too rarely to tell: {deleted}"
    );
    assert_eq!(deleted_then_touched, 0);
}

/// Hard links (DISK-3) come with `hard_link`, notebooks and NotebookEdit calls with
/// `notebook_edit` — replacing, inserting and deleting cells — and neither without.
#[test]
fn hard_links_and_notebooks_are_generated_when_declared() {
    let (mut hard, mut via_other_name, mut notebooks) = (0, 0, 0);
    let mut modes = std::collections::BTreeSet::new();
    for seed in 0..300 {
        let c = from_seed(seed, &all());
        if !c.hardlinks.is_empty() {
            hard += 1;
            via_other_name += usize::from(c.steps.iter().any(|s| {
                matches!(s, GenStep::Read { path, .. } | GenStep::Edit { path, .. }
                    if path == "same.txt")
            }));
        }
        notebooks += usize::from(c.files.iter().any(|f| f.path == "nb.ipynb"));
        for s in &c.steps {
            if let GenStep::NotebookEdit { call, .. } = s {
                modes.insert(call.mode.clone().unwrap_or_else(|| "replace".into()));
            }
        }
    }
    assert!(hard > 8, "{hard} cases with a hard link");
    assert!(via_other_name > 2, "{via_other_name}");
    assert!(notebooks > 30, "{notebooks} cases with a notebook");
    let modes: Vec<&str> = modes.iter().map(String::as_str).collect();
    assert_eq!(modes, ["delete", "insert", "replace"]);
    let without: Vec<String> = editref_protocol::FEATURES
        .iter()
        .filter(|f| !["hard_link", "notebook_edit"].contains(f))
        .map(|s| s.to_string())
        .collect();
    for seed in 0..300 {
        let c = from_seed(seed, &Allowed::new(&without));
        assert!(c.hardlinks.is_empty(), "seed {seed}");
        assert!(c.files.iter().all(|f| f.path != "nb.ipynb"), "seed {seed}");
    }
}
