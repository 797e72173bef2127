//! The scripts run what they build from where cargo builds it: `target/` of the checkout by
//! default, but CARGO_TARGET_DIR (or cargo's `build.target-dir`) moves the whole build, and a
//! script that spells out `target/release/…` then fails after the build, or runs a stale binary
//! left there. `scripts/target-dir` asks cargo; every script finds its binaries through it.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What `scripts/target-dir` prints, run from the checkout with `env` set.
fn target_dir(env: &[(&str, &Path)]) -> PathBuf {
    let mut c = Command::new(Path::new(ROOT).join("scripts/target-dir"));
    c.current_dir(ROOT);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("scripts/target-dir runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    PathBuf::from(text.strip_suffix('\n').expect("one line"))
}

#[test]
fn target_dir_is_where_cargo_builds() {
    // This very build: CARGO_TARGET_TMPDIR is `tmp` inside its target directory.
    let this = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    assert_eq!(
        std::fs::canonicalize(target_dir(&[])).unwrap(),
        std::fs::canonicalize(this).unwrap()
    );
    // CARGO_TARGET_DIR moves it.
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(
        target_dir(&[("CARGO_TARGET_DIR", elsewhere.path())]),
        elsewhere.path()
    );
}

/// Spellings of a build directory under the checkout's `target/`, in shell and in Python.
const HARD_CODED: [&str; 5] = [
    "target/debug",
    "target/release",
    "\"target\", \"release\"",
    "\"target\" / \"release\"",
    "\"target\", \"debug\"",
];

/// The lines of `file` that spell out a build directory.
fn hard_coded(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .enumerate()
        .filter(|(_, l)| HARD_CODED.iter().any(|h| l.contains(h)))
        .map(|(i, l)| format!("{}:{}: {}", file.display(), i + 1, l.trim()))
        .collect()
}

/// Every file under `dir`, at any depth.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn the_demo_runs_the_binary_cargo_built() {
    let found = hard_coded(&Path::new(ROOT).join("scripts/demo"));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `fuzz-depth` looked for its binary in `target/debug` and failed whenever the build went
/// elsewhere; no script may spell out a build directory (a work directory such as
/// `target/peers` is the script's own choice, and stays).
#[test]
fn no_script_spells_out_a_build_directory() {
    let mut all = Vec::new();
    files(&Path::new(ROOT).join("scripts"), &mut all);
    assert!(all.len() > 20, "{all:?}");
    let found: Vec<String> = all.iter().flat_map(|f| hard_coded(f)).collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}
