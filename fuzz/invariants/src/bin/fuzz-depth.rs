//! Replays a corpus through the fuzz targets' checks on stable Rust and prints how deep it
//! reaches: per target the inputs, how many end at the real check, and where the rest stop.
//!
//! Usage: `fuzz-depth [--dir DIR] [--random N] [--check] [TARGET...]`
//! - `--dir DIR`: a folder with one subfolder per target (default `fuzz/seeds`); a libFuzzer
//!   corpus folder (`fuzz/corpus`) works the same way;
//! - `--random N`: instead of a folder, N deterministic pseudo-random inputs per target (how
//!   much of the framing raw bytes reach);
//! - `--check`: exit 1 when a target misses its depth goal (`editref_fuzzing::depth::GOALS`) or
//!   an input violates an invariant.
//!
//! `scripts/fuzz-depth` runs this, after an optional fuzzing run.

use editref_fuzzing::depth::{self, Tally};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../seeds");
    let mut random: Option<usize> = None;
    let mut check = false;
    let mut targets: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--dir" => match args.next() {
                Some(d) => dir = PathBuf::from(d),
                None => return usage("--dir needs a folder"),
            },
            "--random" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => random = Some(n),
                None => return usage("--random needs a count"),
            },
            "--check" => check = true,
            "-h" | "--help" => return usage(""),
            t if editref_fuzzing::TARGETS.contains(&t) => targets.push(t.to_string()),
            other => return usage(&format!("unknown argument {other}")),
        }
    }
    if targets.is_empty() {
        targets = editref_fuzzing::TARGETS
            .iter()
            .map(|t| t.to_string())
            .collect();
    }
    let source = match random {
        Some(n) => format!("{n} pseudo-random inputs per target"),
        None => dir.display().to_string(),
    };
    println!("depth of {source}\n");
    println!("| target | inputs | reach the real check | % | where the rest stop |");
    println!("|---|---|---|---|---|");
    let mut failed = Vec::new();
    for t in &targets {
        let (tally, deep_places) = match random {
            Some(n) => replay_random(t, n),
            None => depth::replay_dir(t, &dir.join(t)),
        };
        let deep_counts: Vec<String> = deep_places
            .iter()
            .map(|p| format!("{p} {}", tally.places.get(p).copied().unwrap_or(0)))
            .collect();
        println!(
            "| `{t}` | {} | {} ({}) | {:.1} % | {} |",
            tally.inputs,
            tally.deep,
            deep_counts.join(", "),
            tally.deep_percent(),
            tally.shallow_places(&deep_places)
        );
        if let Some(goal) = depth::goal(t) {
            failed.extend(tally.shortfalls(goal));
        }
        failed.extend(tally.violations.iter().take(3).cloned());
    }
    if !failed.is_empty() {
        println!();
        for f in &failed {
            println!("below goal or failing: {f}");
        }
        if check {
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

fn replay_random(target: &str, n: usize) -> (Tally, Vec<String>) {
    let mut tally = Tally::default();
    let mut deep = Vec::new();
    for (i, data) in depth::random_inputs(n, 512, 0x5EED_0018)
        .into_iter()
        .enumerate()
    {
        let r = editref_fuzzing::reach(target, &data).unwrap_or(Err("unknown target".into()));
        if let Ok(e) = &r {
            if e.deep && !deep.contains(&e.place) {
                deep.push(e.place.clone());
            }
        }
        tally.add(r.map_err(|v| format!("random input {i}: {v}")));
    }
    (tally, deep)
}

fn usage(problem: &str) -> ExitCode {
    if !problem.is_empty() {
        eprintln!("fuzz-depth: {problem}");
    }
    eprintln!("usage: fuzz-depth [--dir DIR] [--random N] [--check] [TARGET...]");
    ExitCode::from(2)
}
