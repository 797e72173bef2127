//! The ledger of judged mutants (`scripts/mutants_ledger.py`): a run stopped part-way must be
//! taken up exactly where it left off, so the ledger's keys must name each mutant once, survive
//! code moved above it, and tell repeated descriptions in one file apart.
//!
//! The page of survivors (`docs/mutants.md`) is what the nightly check forgives by, so it must
//! not hide a regression: each mutant judged once, by its exact key, and a survivor forgiven
//! only when that key is judged equivalent — not when its row merely says the word, nor when
//! another mutant of the same description is equivalent.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs the ledger script with `args` in `dir`, returning its exit code and standard output.
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new("python3")
        .arg(Path::new(ROOT).join("scripts/mutants_ledger.py"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("python3 runs");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let code = out.status.code().expect("an exit code");
    (code, String::from_utf8(out.stdout).expect("UTF-8 output"))
}

/// Runs the ledger script with `args` in `dir`, which must succeed; returns its standard output.
fn ledger(dir: &Path, args: &[&str]) -> String {
    let (code, out) = run(dir, args);
    assert_eq!(code, 0, "{out}");
    out
}

const LIST: &str = "\
src/a.rs:10:5: replace f -> bool with true
src/a.rs:12:9: replace + with - in f
src/a.rs:20:9: replace + with - in f
src/b.rs:3:1: replace g -> Vec<(usize, usize)> with vec![(0, 1)]
";

/// A directory holding `LIST` and a ledger made by recording one run whose outcome files
/// (`caught`, `missed`, `timeout`, …) held the given names.
fn recorded(outcomes: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("list.txt"), LIST).unwrap();
    std::fs::create_dir(d.join("out")).unwrap();
    for (outcome, name) in outcomes {
        std::fs::write(d.join(format!("out/{outcome}.txt")), format!("{name}\n")).unwrap();
    }
    ledger(
        d,
        &["record", "list.txt", "out", "ledger.tsv", "2026-11-28"],
    );
    dir
}

#[test]
fn a_recorded_run_leaves_only_the_unjudged_mutants() {
    // The run judged the first `+` mutant of f and the bool one; the second `+` is left.
    let dir = recorded(&[
        ("caught", "src/a.rs:12:9: replace + with - in f"),
        ("missed", "src/a.rs:10:5: replace f -> bool with true"),
    ]);
    let d = dir.path();
    let written = std::fs::read_to_string(d.join("ledger.tsv")).unwrap();
    let entries: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        entries,
        [
            "caught\t2026-11-28\tsrc/a.rs: replace + with - in f",
            "missed\t2026-11-28\tsrc/a.rs: replace f -> bool with true",
        ]
    );
    // The selection is the rest, as exact regexes of the names with line and column.
    assert_eq!(
        ledger(d, &["select", "list.txt", "ledger.tsv"]),
        "^src/a\\.rs:20:9: replace \\+ with - in f$\n\
         ^src/b\\.rs:3:1: replace g -> Vec<\\(usize, usize\\)> with vec!\\[\\(0, 1\\)\\]$\n"
    );
}

#[test]
fn keys_survive_code_moved_above_and_number_repeats_in_source_order() {
    // The second of the two repeated mutants is judged: its key is numbered.
    let dir = recorded(&[("timeout", "src/a.rs:20:9: replace + with - in f")]);
    let d = dir.path();
    let written = std::fs::read_to_string(d.join("ledger.tsv")).unwrap();
    assert!(written.ends_with("timeout\t2026-11-28\tsrc/a.rs: replace + with - in f #2\n"));
    // Five lines added above f move every line number; the judged mutant stays judged.
    let moved = LIST
        .replace(":10:", ":15:")
        .replace(":12:", ":17:")
        .replace(":20:", ":25:");
    std::fs::write(d.join("moved.txt"), moved).unwrap();
    let left = ledger(d, &["select", "moved.txt", "ledger.tsv"]);
    assert_eq!(left.lines().count(), 3, "{left}");
    assert!(left.contains(":17:9: replace \\+ with - in f$"), "{left}");
    assert!(!left.contains(":25:9:"), "{left}");
    let status = ledger(d, &["status", "moved.txt", "ledger.tsv"]);
    let all = status.lines().last().unwrap();
    assert_eq!(
        all.split_whitespace().collect::<Vec<_>>(),
        ["all", "4", "1", "3"]
    );
}

#[test]
fn the_page_judges_each_mutant_once_and_agrees_with_the_ledger() {
    let out = ledger(
        Path::new(ROOT),
        &["page", "docs/mutants.md", "docs/mutants-ledger.tsv"],
    );
    assert_eq!(out, "");
}

/// A page of survivors with the given rows under the table's header, and the prose around it.
fn page(rows: &[&str]) -> String {
    format!(
        "# Mutation testing\n\n## Survivors\n\n| mutant | verdict |\n|---|---|\n{}\nAfter the table.\n",
        rows.join("\n")
    )
}

/// A directory holding `LIST`, a ledger and `page.md`.
fn judged(ledger_lines: &str, rows: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("list.txt"), LIST).unwrap();
    std::fs::write(d.join("ledger.tsv"), ledger_lines).unwrap();
    std::fs::write(d.join("page.md"), page(rows)).unwrap();
    dir
}

const KILLED_PLUS: &str = "| `src/a.rs: replace + with - in f #2` | **killed** by `t`. |";
const EQUIVALENT_PLUS: &str =
    "| `src/a.rs: replace + with - in f` | **equivalent**: the same sum. |";
const KILLED_BOOL: &str =
    "| `src/a.rs: replace f -> bool with true` | **killed** by `t` (once thought equivalent). |";

#[test]
fn a_contradictory_page_is_refused() {
    let ledger_lines = "missed\t2026-11-28\tsrc/a.rs: replace + with - in f\n\
                        caught\t2026-11-28\tsrc/a.rs: replace f -> bool with true\n";
    let page_of = |rows: &[&str]| {
        let dir = judged(ledger_lines, rows);
        run(dir.path(), &["page", "page.md", "ledger.tsv"])
    };
    assert_eq!(
        page_of(&[EQUIVALENT_PLUS, KILLED_PLUS, KILLED_BOOL]),
        (0, String::new())
    );
    // One mutant, two verdicts: however the rows are spelt, the page contradicts itself.
    let (code, out) = page_of(&[
        EQUIVALENT_PLUS,
        "| `src/a.rs: replace f -> bool with true`, `src/a.rs: replace + with - in f` | **killed** by `t`. |",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("`src/a.rs: replace + with - in f` is judged twice (line 7: equivalent; line 8: killed)"),
        "{out}"
    );
    // Equivalent, although the ledger's run caught it.
    let (code, out) = page_of(&[
        EQUIVALENT_PLUS,
        "| `src/a.rs: replace f -> bool with true` | **equivalent**. |",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("is called equivalent, but the ledger's run caught it"),
        "{out}"
    );
    // A survivor of the ledger's run that no row judges.
    let (code, out) = page_of(&[KILLED_BOOL]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("`src/a.rs: replace + with - in f` survived the ledger's run"),
        "{out}"
    );
    // A verdict that does not start its cell is no verdict.
    let (code, out) = page_of(&[
        "| `src/a.rs: replace + with - in f` | (on one line) **equivalent**. |",
        KILLED_BOOL,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("line 7: the verdict must start the cell"),
        "{out}"
    );
}

#[test]
fn check_forgives_a_survivor_only_by_its_exact_key_judged_equivalent() {
    let dir = judged("", &[EQUIVALENT_PLUS, KILLED_PLUS, KILLED_BOOL]);
    let d = dir.path();
    let check = |missed: &str| {
        std::fs::write(d.join("missed.txt"), missed).unwrap();
        run(d, &["check", "list.txt", "missed.txt", "page.md"])
    };
    // The first `+` of f is equivalent: forgiven.
    assert_eq!(
        check("src/a.rs:12:9: replace + with - in f\n"),
        (0, String::new())
    );
    // The second is killed: its survival fails the check, though the first is equivalent.
    let (code, out) = check("src/a.rs:20:9: replace + with - in f\n");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.ends_with("\nsrc/a.rs: replace + with - in f #2 (the page says killed)\n"),
        "{out}"
    );
    // A row that says "equivalent" in its text but is killed forgives nothing.
    let (code, out) = check("src/a.rs:10:5: replace f -> bool with true\n");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("replace f -> bool with true (the page says killed)"),
        "{out}"
    );
    // A survivor the page does not name at all.
    let (code, out) = check("src/b.rs:3:1: replace g -> Vec<(usize, usize)> with vec![(0, 1)]\n");
    assert_eq!(code, 1, "{out}");
    assert!(out.ends_with("with vec![(0, 1)]\n"), "{out}");
    // No survivor at all passes; a contradictory page fails even then.
    assert_eq!(check(""), (0, String::new()));
    std::fs::write(
        d.join("page.md"),
        page(&[
            EQUIVALENT_PLUS,
            EQUIVALENT_PLUS
                .replace("**equivalent**", "**killed**")
                .as_str(),
        ]),
    )
    .unwrap();
    let (code, out) = check("");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("is judged twice"), "{out}");
}
