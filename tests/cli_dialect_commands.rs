//! The dialects' subcommands as a person runs them: `apply-patch` (stdin, argument, `@FILE`,
//! `--cwd`, `--dry-run`), `search-replace` (stdin, `--dry-run`), `line-edit`, `text-editor`
//! with each command, and `undo FILE --steps N`. Each checks the exit code, what is printed and
//! the exact bytes of the whole working tree afterwards — so a dry run that wrote, a temp file
//! left behind or a file created by a refusal fails the test.

mod dialect_support;

use dialect_support::{assert_tree, Sandbox};

const PATCH: &str = "*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello\")\n*** Add File: NOTES.md\n+# Notes\n*** Delete File: old.txt\n*** End Patch\n";

fn project() -> Sandbox {
    Sandbox::new(&[
        ("src/app.py", b"def greet():\r\n    print(\"Hi\")\r\n"),
        ("old.txt", b"obsolete\n"),
    ])
}

/// The tree [`PATCH`] leaves in [`project`].
const PATCHED: &[(&str, &[u8])] = &[
    ("src/app.py", b"def greet():\r\n    print(\"Hello\")\r\n"),
    ("NOTES.md", b"# Notes\n"),
];

#[test]
fn apply_patch_from_stdin() {
    let s = project();
    let r = s.run(&["apply-patch"], PATCH);
    assert_eq!(r.code, 0, "{}", r.err);
    for line in [
        "changed src/app.py",
        "created NOTES.md",
        "deleted old.txt",
        "+    print(\"Hello\")",
    ] {
        assert!(r.out.contains(line), "{line:?} in {}", r.out);
    }
    assert_tree(&s, PATCHED);
}

#[test]
fn apply_patch_as_an_argument_and_from_a_file() {
    let s = project();
    let r = s.run(&["apply-patch", PATCH], "");
    assert_eq!(r.code, 0, "{}", r.err);
    assert_tree(&s, PATCHED);

    let s = project();
    let file = s.undo.with_file_name("change.patch");
    std::fs::write(&file, PATCH).unwrap();
    let at = format!("@{}", file.display());
    let r = s.run(&["apply-patch", &at], "");
    assert_eq!(r.code, 0, "{}", r.err);
    assert_tree(&s, PATCHED);
}

#[test]
fn apply_patch_resolves_paths_against_cwd() {
    let s = project();
    let elsewhere = s.state.clone();
    let work = s.work.to_str().unwrap();
    let undo = s.undo.to_str().unwrap();
    let r = s.run_in(
        Some(&elsewhere),
        &["apply-patch", "--cwd", work, "--undo-dir", undo],
        PATCH,
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert_tree(&s, PATCHED);
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing written where the process ran"
    );
}

#[test]
fn apply_patch_dry_run_shows_the_change_and_writes_nothing() {
    let s = project();
    let before = s.tree();
    let r = s.run(&["apply-patch", "--dry-run"], PATCH);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.contains("would be changed src/app.py")
            && r.out.contains("would be created NOTES.md"),
        "{}",
        r.out
    );
    assert!(r.out.contains("+    print(\"Hello\")"), "{}", r.out);
    assert_eq!(s.tree(), before);
    // APPLY-19: nothing recorded either.
    let r = s.run(&["undo", "src/app.py"], "");
    assert_eq!(r.code, 1);
    assert!(r.err.contains("nothing_to_undo"), "{}", r.err);
    assert_eq!(s.tree(), before);
}

#[test]
fn apply_patch_refused_changes_nothing_and_exits_1() {
    let s = project();
    let before = s.tree();
    let bad = PATCH.replace("-    print(\"Hi\")", "-    print(\"Bye\")");
    let r = s.run(&["apply-patch"], &bad);
    assert_eq!(r.code, 1, "{}", r.out);
    assert!(r.err.contains("refused (not_found)"), "{}", r.err);
    assert_eq!(s.tree(), before);
    let r = s.run(
        &["apply-patch"],
        "*** Begin Patch\n*** Frobnicate: x\n*** End Patch\n",
    );
    assert_eq!(r.code, 1);
    assert!(
        r.err.contains("invalid_patch") && r.err.contains("line 2"),
        "{}",
        r.err
    );
    assert_eq!(s.tree(), before);
}

const REPLY: &str = "I'll rename the function.\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\ndef greet():\n=======\ndef welcome():\n>>>>>>> REPLACE\n```\n\nREADME.md\n```\n<<<<<<< SEARCH\n=======\nCall welcome().\n>>>>>>> REPLACE\n```\n";

#[test]
fn search_replace_from_stdin() {
    let s = project();
    let r = s.run(&["search-replace"], REPLY);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.contains("changed src/app.py") && r.out.contains("created README.md"),
        "{}",
        r.out
    );
    assert_tree(
        &s,
        &[
            ("src/app.py", b"def welcome():\r\n    print(\"Hi\")\r\n"),
            ("old.txt", b"obsolete\n"),
            ("README.md", b"Call welcome().\n"),
        ],
    );
}

#[test]
fn search_replace_dry_run_writes_nothing() {
    let s = project();
    let before = s.tree();
    let r = s.run(&["search-replace", "--dry-run"], REPLY);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.contains("would be changed src/app.py") && r.out.contains("+def welcome():"),
        "{}",
        r.out
    );
    assert_eq!(s.tree(), before);
    // A refusal in dry-run mode is the same refusal (BLOCK-15), and writes nothing either.
    let r = s.run(
        &["search-replace", "--dry-run"],
        "src/app.py\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n",
    );
    assert_eq!(r.code, 1);
    assert!(r.err.contains("not_found"), "{}", r.err);
    assert_eq!(s.tree(), before);
}

#[test]
fn line_edit_replaces_lines_by_number() {
    let s = Sandbox::new(&[("f.txt", b"one\r\ntwo\r\nthree")]);
    let r = s.run(
        &[
            "line-edit",
            "f.txt",
            "--start",
            "3",
            "--end",
            "3",
            "--content",
            "THREE\nFOUR",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("changed f.txt"), "{}", r.out);
    // LINES-3: CRLF between the new lines; no final line break, as the file had none.
    assert_tree(&s, &[("f.txt", b"one\r\ntwo\r\nTHREE\r\nFOUR")]);
    let before = s.tree();
    let r = s.run(
        &[
            "line-edit",
            "f.txt",
            "--start",
            "1",
            "--end",
            "1",
            "--content",
            "x",
            "--expected",
            "zero",
        ],
        "",
    );
    assert_eq!(r.code, 1);
    assert!(r.err.contains("stale"), "{}", r.err);
    assert_eq!(s.tree(), before);
}

#[test]
fn text_editor_commands_one_after_another() {
    let s = Sandbox::new(&[("docs/a.txt", b"alpha\nbeta\ngamma\n")]);
    let r = s.run(
        &[
            "text-editor",
            "view",
            "docs/a.txt",
            "--view-range",
            "2",
            "-1",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "2\tbeta\n3\tgamma\n");
    let r = s.run(&["text-editor", "view", "docs"], "");
    assert_eq!((r.code, r.out.as_str()), (0, "a.txt\n"), "{}", r.err);

    let r = s.run(
        &[
            "text-editor",
            "create",
            "docs/b.txt",
            "--file-text",
            "first\nsecond\n",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("created docs/b.txt"), "{}", r.out);
    let created: &[(&str, &[u8])] = &[
        ("docs/a.txt", b"alpha\nbeta\ngamma\n"),
        ("docs/b.txt", b"first\nsecond\n"),
    ];
    assert_tree(&s, created);

    let r = s.run(
        &[
            "text-editor",
            "str_replace",
            "docs/a.txt",
            "--old-str",
            "beta",
            "--new-str",
            "BETA",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.contains("-beta") && r.out.contains("+BETA"),
        "{}",
        r.out
    );
    let r = s.run(
        &[
            "text-editor",
            "insert",
            "docs/a.txt",
            "--insert-line",
            "0",
            "--insert-text",
            "-",
        ],
        "top\n",
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert_tree(
        &s,
        &[
            ("docs/a.txt", b"top\nalpha\nBETA\ngamma\n"),
            ("docs/b.txt", b"first\nsecond\n"),
        ],
    );

    // undo_edit takes back the insert, then the str_replace, one per call (EDITOR-6).
    let r = s.run(&["text-editor", "undo_edit", "docs/a.txt"], "");
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "undo_edit docs/a.txt\n");
    assert_tree(
        &s,
        &[
            ("docs/a.txt", b"alpha\nBETA\ngamma\n"),
            ("docs/b.txt", b"first\nsecond\n"),
        ],
    );
    let r = s.run(&["text-editor", "undo_edit", "docs/a.txt"], "");
    assert_eq!(r.code, 0, "{}", r.err);
    assert_tree(&s, created);

    // A refusal: str_replace of text that occurs twice; nothing changes.
    let r = s.run(
        &[
            "text-editor",
            "str_replace",
            "docs/b.txt",
            "--old-str",
            "s",
            "--new-str",
            "S",
        ],
        "",
    );
    assert_eq!(r.code, 1);
    assert!(r.err.contains("ambiguous"), "{}", r.err);
    assert_tree(&s, created);
}

#[test]
fn undo_steps_two_takes_back_two_edits_in_one_call() {
    let original: &[u8] = b"\xEF\xBB\xBFv1\r\nkeep\r\n";
    let s = Sandbox::new(&[("f.txt", original)]);
    for (old, new) in [("v1", "v2"), ("v2", "v3")] {
        let r = s.run(
            &["edit", "f.txt", "--old-string", old, "--new-string", new],
            "",
        );
        assert_eq!(r.code, 0, "{}", r.err);
    }
    assert_tree(&s, &[("f.txt", b"\xEF\xBB\xBFv3\r\nkeep\r\n")]);
    let r = s.run(&["undo", "f.txt", "--steps", "2", "--json"], "");
    assert_eq!(r.code, 0, "{}", r.err);
    let undone = r.json()["undone"].as_array().cloned().unwrap_or_default();
    assert_eq!(undone.len(), 2, "{}", r.out);
    assert_tree(&s, &[("f.txt", original)]);
    // Nothing further is recorded: a third step is refused, and changes nothing.
    let r = s.run(&["undo", "f.txt"], "");
    assert_eq!(r.code, 1);
    assert!(r.err.contains("nothing_to_undo"), "{}", r.err);
    assert_tree(&s, &[("f.txt", original)]);
}
