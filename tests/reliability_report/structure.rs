//! Comparing a rendered RELIABILITY.md with the committed one by structure: figures and the
//! description of the run differ between runs, tables, rows and sentences must not.

/// The shape of a rendered document: its lines with every figure replaced by `#` and the values
/// of the "Last run" table that describe the run (date, commit, command, machine, …) by `…`.
/// Two renders of the same code from different runs have the same shape; a renderer that wrote
/// another table, row or sentence has another.
pub(crate) fn structure(md: &str) -> Vec<String> {
    let mut in_last_run = false;
    md.lines()
        .map(|line| {
            if line.starts_with("## ") {
                in_last_run = line == "## Last run";
            }
            let describes_the_run = line.contains(" | `") || line.starts_with("| counts |");
            if in_last_run && describes_the_run {
                let key = line.split(" | ").next().unwrap_or("");
                return format!("{key} | … |");
            }
            let chars: Vec<char> = line.chars().collect();
            let mut out = String::new();
            let mut i = 0;
            while i < chars.len() {
                if !chars[i].is_ascii_digit() {
                    out.push(chars[i]);
                    i += 1;
                    continue;
                }
                out.push('#');
                // 1,500 and 4.8 are one figure each; the dot of "1." ends a heading number.
                let next_is_digit = |j: usize| chars.get(j).is_some_and(char::is_ascii_digit);
                while i < chars.len()
                    && (chars[i].is_ascii_digit()
                        || (matches!(chars[i], ',' | '.') && next_is_digit(i + 1)))
                {
                    i += 1;
                }
            }
            out
        })
        .collect()
}

#[test]
fn the_structure_of_a_document_ignores_figures_and_the_run() {
    let a = "## Last run\n\n| date | `2026-11-22T03:48Z` |\n| counts | ci (seed 15) |\n| kills | 1,500 |\n\n## 1. Crash (DISK-5)\n| 4.8 MiB | 36 ms |";
    let b = "## Last run\n\n| date | `2027-01-01T00:00Z` |\n| counts | smoke (seed 9) |\n| kills | 20 |\n\n## 1. Crash (DISK-5)\n| 12.25 MiB | 7 ms |";
    assert_eq!(structure(a), structure(b));
    assert_eq!(structure(a)[4], "| kills | # |");
    assert_eq!(structure(a)[6], "## #. Crash (DISK-#)");
    let c = b.replace("| kills |", "| kills survived |");
    assert_ne!(
        structure(a),
        structure(&c),
        "a changed row label is a changed structure"
    );
}

/// Fails, showing the first difference, when `rendered` does not have the structure of the
/// document at `committed` (see [`structure`]).
pub(crate) fn assert_same_structure(rendered: &str, committed: &std::path::Path) {
    let on_disk = std::fs::read_to_string(committed)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", committed.display()));
    let (new, old) = (structure(rendered), structure(&on_disk));
    if let Some(i) = (0..new.len().max(old.len())).find(|&i| new.get(i) != old.get(i)) {
        panic!(
            "{} is not what the renderer writes now (line {}):\n  committed: {:?}\n  rendered:  {:?}\nrun scripts/reliability and commit RELIABILITY.md",
            committed.display(),
            i + 1,
            old.get(i),
            new.get(i)
        );
    }
}
