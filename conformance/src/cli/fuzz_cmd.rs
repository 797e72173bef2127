//! `editref conform --fuzz`: the differential fuzzing run on the command line — the adapter and
//! its handshake, the reference beside it, a progress bar with cases per second and findings,
//! and a summary of every kind of disagreement found.
//!
//! The run itself is [`crate::fuzz::campaign`]; this file only turns flags into its settings
//! and its outcome into text and an exit status: 0 when no new kind was found, 1 when one was,
//! 2 for a usage error or an adapter that fails the handshake.

use super::adapters::make_adapter;
use super::args::RunArgs;
use super::shared::usage;
use crate::adapter::Builtin;
use crate::fuzz::{campaign, Known, Outcome, Settings, Tick};
use std::io::IsTerminal;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Runs a differential fuzzing campaign as `args` say; returns the exit status.
pub(super) fn fuzz_cmd(args: &RunArgs) -> u8 {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return usage("--timeout must be a positive number of seconds");
    }
    let f = &args.fuzz;
    let time = match f.time {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return usage("--time must be a positive number of seconds")
        }
        t => t.map(Duration::from_secs_f64),
    };
    if f.cases == Some(0) {
        return usage("--cases must be at least 1");
    }
    let known = match &f.expect_divergences {
        Some(p) => match Known::read(p) {
            Ok(k) => k,
            Err(e) => return usage(&e),
        },
        None => Known::default(),
    };
    let timeout = Duration::from_secs_f64(args.timeout);
    let (mut other, command) = match make_adapter(args, timeout) {
        Ok(a) => a,
        Err(e) => return usage(&e),
    };
    let hello = match super::workers::patient_hello(other.as_mut()) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("editref conform: the adapter failed the handshake: {e}");
            return 2;
        }
    };
    let seed = f.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_secs())
    });
    let settings = Settings {
        seed,
        cases: f.cases,
        time,
        shrink_budget: f.shrink_budget,
        findings: f.findings.clone(),
        known,
        read_format: hello.read_format,
        tmp: None,
    };
    if !args.quiet {
        eprintln!(
            "editref conform --fuzz: {} {} ({command}) against the reference, seed {seed}",
            hello.name, hello.version
        );
    }
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = match f.cases {
            Some(n) => indicatif::ProgressBar::new(n),
            None => indicatif::ProgressBar::new_spinner(),
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{bar:30}] {pos} cases {per_sec} {elapsed} {wide_msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    let mut reference = Builtin::new(timeout).without_fsync();
    let mut on_tick = |t: Tick| {
        if let Some(bar) = &bar {
            bar.set_position(t.done);
            bar.set_message(format!(
                "{} new, {} known{}",
                t.findings,
                t.known,
                if t.shrinking { " · shrinking" } else { "" }
            ));
        }
    };
    let outcome = campaign(
        &mut reference,
        other.as_mut(),
        &hello.features,
        &settings,
        &mut on_tick,
    );
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    other.shutdown();
    say_raw!("{}", summary(&outcome, seed));
    if let Some(dir) = &f.findings {
        let json = summary_json(&outcome, seed, &format!("{} {}", hello.name, hello.version));
        let path = dir.join("fuzz-summary.json");
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&path, format!("{json:#}\n")));
        if let Err(e) = written {
            eprintln!("editref conform: cannot write {}: {e}", path.display());
        }
    }
    u8::from(!outcome.findings.is_empty())
}

/// The text printed at the end of a run.
pub(super) fn summary(o: &Outcome, seed: u64) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let secs = o.elapsed.as_secs_f64().max(1e-9);
    let _ = writeln!(
        s,
        "{} cases in {:.1} s ({:.1}/s), seed {seed}: {} new kind{} of disagreement, {} case{} of known kinds{}",
        o.cases,
        secs,
        o.cases as f64 / secs,
        o.findings.len(),
        if o.findings.len() == 1 { "" } else { "s" },
        o.known_cases,
        if o.known_cases == 1 { "" } else { "s" },
        if o.harness_errors > 0 {
            format!(", {} the harness could not run", o.harness_errors)
        } else {
            String::new()
        }
    );
    if o.patient > 0 {
        let _ = writeln!(
            s,
            "{} not answered in time and made again with {}× the limits (a busy machine or a slow tool)",
            if o.patient == 1 { "1 observation was".to_string() } else { format!("{} observations were", o.patient) },
            crate::run::RERUN_PATIENCE
        );
    }
    for f in &o.findings {
        let _ = writeln!(s, "\nNEW  {}  [{}]", f.kind, f.class);
        let _ = writeln!(
            s,
            "     {} case{}, first at seed {}; shrunk from {} steps and {} lines to {} and {}",
            f.hits,
            if f.hits == 1 { "" } else { "s" },
            f.seed,
            f.steps.0,
            f.lines.0,
            f.steps.1,
            f.lines.1
        );
        let _ = writeln!(s, "     {}", f.detail);
        if let Some(p) = &f.file {
            let replay = match f.replays {
                Some(true) => "replays: the reference passes it, the implementation fails it",
                _ => "does NOT replay as written (please report this)",
            };
            let _ = writeln!(s, "     written to {} ({replay})", p.display());
        }
    }
    for (kind, pattern, n) in &o.known {
        let _ = writeln!(s, "known  {kind}  ({n}×, accepted by `{pattern}`)");
    }
    s
}

/// The outcome as JSON, for nightly jobs that track kinds over time.
fn summary_json(o: &Outcome, seed: u64, implementation: &str) -> serde_json::Value {
    serde_json::json!({
        "implementation": implementation,
        "seed": seed,
        "cases": o.cases,
        "seconds": o.elapsed.as_secs_f64(),
        "harness_errors": o.harness_errors,
        "patient": o.patient,
        "known_cases": o.known_cases,
        "new": o.findings.iter().map(|f| serde_json::json!({
            "kind": f.kind,
            "class": f.class.as_str(),
            "hits": f.hits,
            "seed": f.seed,
            "steps": [f.steps.0, f.steps.1],
            "lines": [f.lines.0, f.lines.1],
            "detail": f.detail,
            "file": f.file.as_ref().map(|p| p.display().to_string()),
            "replays": f.replays,
        })).collect::<Vec<_>>(),
        "known": o.known.iter().map(|(k, p, n)| serde_json::json!({
            "kind": k, "pattern": p, "hits": n,
        })).collect::<Vec<_>>(),
    })
}
