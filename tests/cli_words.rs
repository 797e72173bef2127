//! The command line speaks its own language: refusals name the flags a person typed, a count
//! of 0 is a usage error, `write` says whether it created or changed, a read that shows nothing
//! says why, a flag is accepted only where it means something, help texts carry no rule IDs,
//! and the completions and man pages come from the same definitions. Every refusal checks the
//! file's bytes are untouched.

use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_editref");

/// The state directory the spawned binary keeps its undo journals in (UNDO-7): one under the
/// build's temp space, never the home of whoever runs the tests.
fn state_home() -> std::path::PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("state")
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn run(args: &[&str], cwd: &Path) -> Run {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("XDG_STATE_HOME", state_home())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn no_temp_left(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!editref::disk::is_temp_name(&name), "temp residue: {name}");
    }
}

#[test]
fn an_ambiguous_edit_names_the_replace_all_flag() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"a\na\nb\n").unwrap();
    let r = run(
        &["edit", "f.txt", "--old-string", "a", "--new-string", "c"],
        d,
    );
    assert_eq!(r.code, 1);
    assert!(r.err.contains("(ambiguous)"), "{}", r.err);
    assert!(
        r.err.contains("--replace-all was not given") && r.err.contains("pass --replace-all"),
        "{}",
        r.err
    );
    assert!(!r.err.contains("replace_all"), "{}", r.err);
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"a\na\nb\n");
    no_temp_left(d);
}

#[test]
fn the_quoted_string_keeps_the_models_own_words() {
    // Only the tool's prose is translated; the text quoted back is the user's, byte for byte.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"replace_all\nreplace_all\n").unwrap();
    let r = run(
        &[
            "edit",
            "f.txt",
            "--old-string",
            "replace_all",
            "--new-string",
            "x",
        ],
        d,
    );
    assert_eq!(r.code, 1);
    assert!(r.err.contains("\nString: replace_all\n"), "{}", r.err);
    assert_eq!(
        std::fs::read(d.join("f.txt")).unwrap(),
        b"replace_all\nreplace_all\n"
    );
}

#[test]
fn line_ranges_name_start_and_end() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"1\n2\n3\n").unwrap();
    let r = run(
        &[
            "line-edit",
            "f.txt",
            "--start",
            "9",
            "--end",
            "9",
            "--content",
            "x",
        ],
        d,
    );
    assert_eq!(r.code, 1);
    assert!(
        r.err.contains("--start must be 1 to 4") && r.err.contains("--end from --start - 1"),
        "{}",
        r.err
    );
    assert!(!r.err.contains("start_line"), "{}", r.err);
    let r = run(
        &[
            "text-editor",
            "insert",
            "f.txt",
            "--insert-line",
            "7",
            "--insert-text",
            "x",
        ],
        d,
    );
    assert_eq!(r.code, 1);
    assert!(
        r.err.contains("`--insert-line` 7 is past the end"),
        "{}",
        r.err
    );
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"1\n2\n3\n");
    no_temp_left(d);
}

#[test]
fn a_count_of_zero_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"a\nb\n").unwrap();
    for args in [
        &["read", "f.txt", "--limit", "0"][..],
        &["undo", "f.txt", "--steps", "0"],
        &[
            "edit",
            "f.txt",
            "--old-string",
            "a",
            "--new-string",
            "b",
            "--expected-replacements",
            "0",
        ],
    ] {
        let r = run(args, d);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert!(r.err.contains("must be at least 1"), "{args:?}: {}", r.err);
        assert!(r.out.is_empty(), "{args:?}: {}", r.out);
    }
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"a\nb\n");
}

#[test]
fn write_says_created_for_a_new_file_and_changed_for_an_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = run(&["write", "n.txt", "--content", "one\n"], d);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.ends_with("created n.txt\n"), "{}", r.out);
    assert_eq!(std::fs::read(d.join("n.txt")).unwrap(), b"one\n");
    let r = run(&["write", "n.txt", "--content", "two\n"], d);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.ends_with("changed n.txt\n"), "{}", r.out);
    assert_eq!(std::fs::read(d.join("n.txt")).unwrap(), b"two\n");
    let r = run(&["text-editor", "create", "m.txt", "--file-text", "x"], d);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.ends_with("created m.txt\n"), "{}", r.out);
    assert_eq!(std::fs::read(d.join("m.txt")).unwrap(), b"x");
    no_temp_left(d);
}

#[test]
fn a_read_that_shows_nothing_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"a\nb\nc\n").unwrap();
    std::fs::write(d.join("e.txt"), b"").unwrap();
    let r = run(&["read", "f.txt", "--offset", "10"], d);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.is_empty(), "{}", r.out);
    assert!(
        r.err.contains("f.txt has 3 lines; line 10 is past the end"),
        "{}",
        r.err
    );
    let r = run(&["read", "e.txt"], d);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.is_empty(), "{}", r.out);
    assert!(r.err.contains("e.txt is empty"), "{}", r.err);
    // A read that shows lines says nothing extra.
    let r = run(&["read", "f.txt", "--offset", "3"], d);
    assert_eq!((r.out.as_str(), r.err.as_str()), ("3\tc\n", ""));
}

#[test]
fn flags_are_accepted_only_where_they_mean_something() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"a\n").unwrap();
    for args in [
        &["read", "f.txt", "--no-fsync"][..],
        &["read", "f.txt", "--undo-dir", "j"],
        &["read", "f.txt", "--no-undo"],
        &["undo", "f.txt", "--no-undo"],
    ] {
        let r = run(args, d);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert!(r.err.contains("unexpected argument"), "{args:?}: {}", r.err);
    }
    // Reading writes nothing, not even an undo journal.
    let r = run(&["read", "f.txt"], d);
    assert_eq!(r.code, 0);
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["f.txt"]);
}

/// The subcommands, as `editref --help` lists them.
fn subcommands() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let help = run(&["--help"], dir.path()).out;
    let listed: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap_or("")
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(str::to_string)
        .collect();
    assert!(listed.len() >= 15, "{help}");
    listed
}

#[test]
fn help_texts_carry_no_rule_ids() {
    let rule_id = |text: &str| -> Option<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .find(|w| {
                w.split_once('-').is_some_and(|(a, n)| {
                    a.len() >= 3
                        && a.chars().all(|c| c.is_ascii_uppercase())
                        && !n.is_empty()
                        && n.chars().all(|c| c.is_ascii_digit())
                })
            })
            .map(str::to_string)
    };
    let dir = tempfile::tempdir().unwrap();
    let top = run(&["--help"], dir.path());
    assert_eq!(rule_id(&top.out), None, "{}", top.out);
    for sub in subcommands().iter().filter(|s| *s != "conform") {
        let r = run(&[sub, "--help"], dir.path());
        assert_eq!(r.code, 0, "{sub}: {}", r.err);
        assert_eq!(rule_id(&r.out), None, "editref {sub} --help:\n{}", r.out);
    }
}

/// A deletion takes the line break after it when the old text stops short of one (EDIT-2),
/// which other tools do not do: `editref edit --help` says so, and so does the man page,
/// generated from the same definition.
#[test]
fn edit_help_says_a_deleted_line_takes_its_line_break() {
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = "when the old text does not end with a line break, the line break right after \
                it goes too: deleting all the text of a line deletes the line itself";
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--help", "-h"] {
        let r = run(&["edit", flag], dir.path());
        assert_eq!(r.code, 0, "{}", r.err);
        assert!(words(&r.out).contains(said), "edit {flag}:\n{}", r.out);
    }
    let man = dir.path().join("man");
    let r = run(&["man", "--out", man.to_str().unwrap()], dir.path());
    assert_eq!(r.code, 0, "{}", r.err);
    let page = std::fs::read_to_string(man.join("editref-edit.1")).unwrap();
    assert!(words(&page).contains(said), "{page}");
}

#[test]
fn bash_completes_subcommands_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(&["completions", "bash"], dir.path());
    assert_eq!(r.code, 0, "{}", r.err);
    let script = dir.path().join("editref.bash");
    std::fs::write(&script, &r.out).unwrap();
    // The script is sourced into a real bash, and its completion function asked what
    // `editref ed<TAB>` and `editref edit f --repl<TAB>` complete to.
    let complete = |words: &str, cword: usize| -> String {
        let program = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE='{words}'; \
             COMP_POINT=${{#COMP_LINE}}; _editref editref \"${{COMP_WORDS[COMP_CWORD]}}\" \
             \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = Command::new("bash")
            .args(["--norc", "-c", &program])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let subs = complete("editref ed", 1);
    assert_eq!(subs.lines().collect::<Vec<_>>(), ["edit"], "{subs}");
    let flags = complete("editref edit f.txt --repl", 3);
    assert_eq!(
        flags.lines().collect::<Vec<_>>(),
        ["--replace-all"],
        "{flags}"
    );
}

#[test]
fn every_shell_gets_a_script_naming_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let subs = subcommands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let r = run(&["completions", shell], dir.path());
        assert_eq!(r.code, 0, "{shell}: {}", r.err);
        for sub in &subs {
            assert!(r.out.contains(sub.as_str()), "{shell} script lacks {sub}");
        }
    }
    let r = run(&["completions", "tcsh"], dir.path());
    assert_eq!(r.code, 2, "{}", r.err);
}

#[test]
fn man_pages_are_built_into_target() {
    // CARGO_TARGET_TMPDIR is target/tmp: the pages go next to it, in target/man.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let man = target.join("man");
    let _ = std::fs::remove_dir_all(&man);
    let r = run(&["man", "--out", man.to_str().unwrap()], &target);
    assert_eq!(r.code, 0, "{}", r.err);
    let top = std::fs::read_to_string(man.join("editref.1")).unwrap();
    assert!(top.contains(".TH editref 1"), "{top}");
    for sub in subcommands() {
        let page = std::fs::read_to_string(man.join(format!("editref-{sub}.1")))
            .unwrap_or_else(|e| panic!("editref-{sub}.1: {e}"));
        assert!(
            page.contains(&format!(".TH editref-{sub} 1")),
            "{sub}: {page}"
        );
    }
    let edit = std::fs::read_to_string(man.join("editref-edit.1")).unwrap();
    assert!(edit.contains("replace\\-all"), "{edit}");
    // The page on stdout is the same editref.1.
    let r = run(&["man"], &target);
    assert_eq!(r.out, top);
    // Where groff is installed, the pages render without a warning.
    if let Ok(out) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(man.join("editref-edit.1"))
        .output()
    {
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    }
}
