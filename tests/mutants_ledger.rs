//! The ledger of judged mutants (`scripts/mutants_ledger.py`): a run stopped part-way must be
//! taken up exactly where it left off, so the ledger's keys must name each mutant once, survive
//! code moved above it, and tell repeated descriptions in one file apart.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs the ledger script with `args` in `dir`, returning its standard output.
fn ledger(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(Path::new(ROOT).join("scripts/mutants_ledger.py"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
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
