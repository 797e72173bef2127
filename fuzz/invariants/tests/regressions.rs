//! Replays every committed fuzz regression input, so that a fixed crash or invariant violation
//! stays fixed on every `cargo test` — on stable, without libFuzzer.
//!
//! Each file under `fuzz/regressions/<target>/` is raw fuzzer input; it goes through
//! `editref_fuzzing::run`, the same function the cargo-fuzz target calls.

use std::path::{Path, PathBuf};

/// `fuzz/`, the folder above this crate: the cargo-fuzz package and its regression inputs.
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn regressions_dir() -> PathBuf {
    fuzz_dir().join("regressions")
}

/// Runs every input of one target; reports all failures at once.
fn replay(target: &str) {
    let dir = regressions_dir().join(target);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => return, // no regressions for this target yet
    };
    files.retain(|p| {
        p.is_file()
            && !p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    });
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let data = std::fs::read(path).expect("regression file is readable");
        let outcome = std::panic::catch_unwind(|| editref_fuzzing::run(target, &data));
        match outcome {
            Ok(Some(Ok(()))) => {}
            Ok(Some(Err(violation))) => failures.push(format!("{}: {violation}", path.display())),
            Ok(None) => failures.push(format!("{}: unknown target {target}", path.display())),
            Err(_) => failures.push(format!("{}: panicked (message above)", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} regression inputs of {target} fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

macro_rules! targets {
    ($($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                replay(stringify!($name));
            }
        )*

        #[test]
        fn every_target_has_a_replay_test() {
            let mut here = vec![$(stringify!($name)),*];
            let mut lib = editref_fuzzing::TARGETS.to_vec();
            here.sort();
            lib.sort();
            assert_eq!(here, lib);
        }
    };
}

targets!(
    document_roundtrip,
    edit_vs_model,
    repair,
    quotes,
    atomic_write,
    inputs,
    search_replace_parse,
    apply_patch_parse,
    apply_patch_seek,
    dialect_inputs,
    conform_gen
);

/// The fuzz package builds exactly the library's targets, and every regression directory
/// belongs to one of them (a typo would silently never be replayed).
#[test]
fn fuzz_package_and_regression_dirs_match_the_targets() {
    let root = fuzz_dir();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut bins: Vec<String> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("name = \""))
        .map(|rest| rest.trim_end_matches('"').to_string())
        .filter(|n| n != "editref-fuzz")
        .collect();
    bins.sort();
    let mut targets: Vec<String> = editref_fuzzing::TARGETS
        .iter()
        .map(|s| s.to_string())
        .collect();
    targets.sort();
    assert_eq!(bins, targets, "[[bin]]s of fuzz/Cargo.toml");
    for t in &targets {
        assert!(
            root.join("fuzz_targets").join(format!("{t}.rs")).is_file(),
            "fuzz_targets/{t}.rs"
        );
    }
    if let Ok(entries) = std::fs::read_dir(regressions_dir()) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                assert!(
                    targets.contains(&name),
                    "fuzz/regressions/{name} is not a target"
                );
            }
        }
    }
}
