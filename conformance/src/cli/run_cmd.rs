//! The run command: certify one implementation against the corpus — pick the adapter, load the
//! corpus and the expectations, select the cases, run them (in parallel), and write the report.
//!
//! This is the harness's main path and the only one that drives adapters, so it holds the
//! order of a run (checks, handshake, cases, report, exit status) in one function that reads
//! top to bottom. What the run selects is the plan module's job, what it shows while running
//! the live module's, what it prints at the end the summary module's, what it writes the report
//! module's.

use super::adapters::{make_adapter, portable};
use super::args::RunArgs;
use super::live::Live;
use super::plan;
use super::shared::{load_corpus, usage, EXIT_NO_CASES};
use super::summary::{count, print_summary, print_where};
use crate::adapter::Hello;
use crate::case::Level;
use crate::manifest;
use crate::report::{
    rfc3339, Certification, CorpusInfo, HarnessInfo, ImplInfo, Platform, Report, Selection,
    SCHEMA_VERSION,
};
use crate::run::{self, CaseOptions, CaseRecord, Flow, Keep, Pool};
use crate::surface::{self, Surface};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// Where `--keep-sandboxes` keeps trees when no directory is given.
fn default_kept_dir() -> PathBuf {
    std::env::temp_dir().join("editref-conform-kept")
}

/// Runs the selected cases against the implementation of `args`; returns the exit code.
pub(super) fn run_cmd(args: RunArgs) -> u8 {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return usage("--timeout must be a positive number of seconds");
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    let jobs = match args.jobs {
        Some(0) => return usage("--jobs must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let (mut first, command) = match make_adapter(&args, timeout) {
        Ok(a) => a,
        Err(e) => return usage(&e),
    };
    let corpus = match load_corpus(args.corpus.clone()) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let expectations = match &args.expectations {
        None => None,
        Some(p) => match plan::expectations(p, &corpus) {
            Ok(e) => Some(e),
            Err(errors) => {
                for e in errors {
                    eprintln!("editref conform: {e}");
                }
                return 2;
            }
        },
    };
    let rerun = match &args.rerun_failed {
        None => None,
        Some(p) => match plan::rerun_ids(p, &corpus) {
            Err(e) => return usage(&e),
            Ok((ids, _)) if ids.is_empty() => {
                say!(
                    "nothing to rerun: {} records no case that failed",
                    p.display()
                );
                return 0;
            }
            Ok((ids, gone)) => {
                if gone > 0 && !args.quiet {
                    eprintln!(
                        "editref conform: note: {} of {} are no longer in the corpus",
                        count(gone, "failed case", "failed cases"),
                        p.display()
                    );
                }
                Some(ids)
            }
        },
    };
    let max_level = args.level.map(Level::from);
    let selection = plan::select(&corpus, &args.only, max_level, rerun.as_ref());
    if selection.is_empty() {
        eprintln!(
            "editref conform: {}",
            plan::nothing_selected(&corpus, &args.only, max_level, args.rerun_failed.as_deref())
        );
        return EXIT_NO_CASES;
    }

    let hello = match super::workers::patient_hello(first.as_mut()) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("editref conform: the adapter failed the handshake: {e}");
            let stderr = first.take_stderr();
            if !stderr.trim().is_empty() {
                eprintln!("its stderr:\n{}", stderr.trim_end());
            }
            return 2;
        }
    };
    note_unknown_features(&hello, args.quiet);
    if !surface::writes(&hello.features) {
        first.shutdown();
        eprintln!(
            "editref conform: {} declares no tool that writes (its features: {}); declare at least one of {} — a tool that writes nothing has nothing to certify",
            hello.name,
            if hello.features.is_empty() {
                "none".to_string()
            } else {
                hello.features.join(", ")
            },
            surface::WRITING.join(", ")
        );
        return 2;
    }

    let kept_dir = args.keep_sandboxes.as_ref().map(|d| {
        if d.as_os_str().is_empty() {
            default_kept_dir()
        } else {
            d.clone()
        }
    });
    let options = CaseOptions {
        tmp: None,
        keep: kept_dir.clone().map_or(Keep::Nothing, Keep::Named),
        read_format: hello.read_format,
    };
    let wanted = jobs.min(selection.cases.len());
    let adapters = match super::workers::workers(first, &hello, wanted, args.quiet, || {
        make_adapter(&args, timeout).map(|(a, _)| a)
    }) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("editref conform: {e}");
            return 2;
        }
    };

    let started_at = SystemTime::now();
    let started = Instant::now();
    let require = &args.require;
    let live = Live::new(selection.cases.len(), args.quiet);
    let mut records: Vec<CaseRecord> = selection
        .broken
        .iter()
        .map(|b| CaseRecord::broken(b))
        .collect();
    let mut stopped_at: Option<String> = None;
    let pool = Pool {
        jobs,
        features: &hello.features,
        options: &options,
    };
    records.extend(pool.run(&selection.cases, adapters, |rec| {
        if let Some(e) = &expectations {
            e.apply(std::slice::from_mut(rec));
        }
        live.finished(rec);
        if args.fail_fast && stopped_at.is_none() && run::fails_gate(rec, require) {
            stopped_at = Some(rec.id.clone());
            return Flow::Stop;
        }
        Flow::Continue
    }));
    live.finish();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(dir) = &kept_dir {
        tidy_kept(dir);
    }

    let ran_all = records.len() == selection.cases.len() + selection.broken.len();
    let stopped_early = stopped_at.map(|id| {
        format!(
            "Stopped early (--fail-fast) after {id}: {} not run.",
            count(
                selection.cases.len() + selection.broken.len() - records.len(),
                "case",
                "cases"
            )
        )
    });
    // A tool declared and then denied leaves the run without a verdict.
    let denied: Vec<&CaseRecord> = records
        .iter()
        .filter(|r| r.tool_not_offered.is_some())
        .collect();
    let complete = |level: Level| {
        denied.is_empty()
            && ran_all
            && args.only.is_empty()
            && rerun.is_none()
            && max_level.is_none_or(|m| m >= level)
    };
    let cert = run::certification(&records, complete);
    let highest = run::highest(&cert);
    let partial = !args.only.is_empty()
        || rerun.is_some()
        || !ran_all
        || max_level.is_some_and(|m| m < Level::Extended);
    let note = if let Some(first) = denied.first() {
        Some(format!(
            "No verdict: the implementation declares {} but answered that it has no such tool ({}).",
            first.tool_not_offered.as_deref().unwrap_or("a tool"),
            first.id
        ))
    } else {
        partial.then(|| {
            "Partial run (--only, --level, --rerun-failed or --fail-fast): levels not fully run cannot be certified."
                .to_string()
        })
    };
    let denied: Vec<String> = denied.iter().map(|r| r.reason.clone()).collect();
    let mut report = Report {
        schema_version: SCHEMA_VERSION,
        harness: HarnessInfo {
            name: "editref conform".into(),
            version: editref::VERSION.into(),
            protocol: editref::protocol::PROTOCOL,
        },
        corpus: CorpusInfo {
            version: corpus.version.clone(),
            manifest_sha256: manifest::hash(&corpus),
            origin: corpus.origin.clone(),
            cases: corpus.cases.len() + corpus.broken.len(),
        },
        implementation: implementation(&hello, command, args.label.clone()),
        verdict: String::new(),
        surface: Some(Surface::of(&hello.features)),
        certification: Certification {
            core: cert.iter().any(|(l, ok)| *l == Level::Core && *ok),
            extended: cert.iter().any(|(l, ok)| *l == Level::Extended && *ok),
            highest: highest.map(|l| l.as_str().to_string()),
            note,
        },
        classes: run::class_results(&records, complete),
        rejudged: None,
        platform: Platform::current(),
        started: rfc3339(started_at),
        duration_ms: started.elapsed().as_millis() as u64,
        selection: Selection {
            only: args.only.clone(),
            level: max_level.map(|l| l.as_str().to_string()),
            expectations: args.expectations.as_ref().map(|p| p.display().to_string()),
            timeout_s: args.timeout,
            rerun_failed: args.rerun_failed.as_ref().map(|p| p.display().to_string()),
            require: (!require.is_empty()).then(|| {
                require
                    .iter()
                    .map(|g| g.as_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
        },
        totals: run::totals(&records),
        stopped_early,
        cases: records,
    };
    report.verdict = report.headline();
    if let Some(dir) = &args.report {
        if let Err(e) = report.write_all(dir) {
            eprintln!(
                "editref conform: cannot write the report to {}: {e}",
                dir.display()
            );
            return 2;
        }
    }
    print_summary(&report, args.quiet, live.lists_cases());
    if let Some(dir) = &kept_dir {
        let kept = report
            .cases
            .iter()
            .filter(|c| c.status.needs_attention() && dir.join(&c.id).is_dir())
            .count();
        if kept > 0 {
            say!(
                "sandboxes of the {} that did not pass are kept in {} (as <area>/<name>/sandbox)",
                count(kept, "case", "cases"),
                dir.display()
            );
        }
    }
    if let Some(file) = &args.write_expectations {
        if let Err(e) = write_expectations(file, &report) {
            eprintln!("editref conform: {e}");
            return 2;
        }
    }
    if let Some(dir) = &args.report {
        print_where(dir);
    }
    if !denied.is_empty() {
        for d in &denied {
            eprintln!("editref conform: {d}");
        }
        return 2;
    }
    run::exit_code_for(&report.cases, require)
}

/// Writes the run's failures as a known-failures file (`--write-expectations`), headed by what
/// ran: the implementation, the corpus and its manifest, the harness and the date.
fn write_expectations(file: &std::path::Path, report: &Report) -> Result<(), String> {
    let header = [
        format!("Known failures of {}, as of the run started {}:", report.label(), report.started),
        format!(
            "corpus {} (manifest {}), editref conform {}.",
            report.corpus.version, report.corpus.manifest_sha256, report.harness.version
        ),
        "Use with --expectations; delete a line once its case passes (a listed pass is an xpass, which fails the run).".to_string(),
    ];
    let text = run::known_failures(&report.cases, &header);
    std::fs::write(file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    println!("known failures written to {}", file.display());
    Ok(())
}

/// Says (unless quiet) which declared features are outside the vocabulary: probably typos,
/// and cases can never require them.
fn note_unknown_features(hello: &Hello, quiet: bool) {
    let unknown: Vec<&str> = hello
        .features
        .iter()
        .map(String::as_str)
        .filter(|f| !crate::case::FEATURES.contains(f))
        .collect();
    if !unknown.is_empty() && !quiet {
        eprintln!(
            "editref conform: note: the adapter declares features outside the vocabulary: {}",
            unknown.join(", ")
        );
    }
}

/// Removes the area directories of `--keep-sandboxes DIR` that hold no kept case (every case
/// of the area passed); other entries are left alone.
fn tidy_kept(dir: &std::path::Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.filter_map(Result::ok) {
            // Fails, harmlessly, on any directory that is not empty.
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// The implementation as the report records it: its `hello`, and how it was started.
fn implementation(hello: &Hello, command: String, label: Option<String>) -> ImplInfo {
    ImplInfo {
        name: hello.name.clone(),
        version: hello.version.clone(),
        features: hello.features.clone(),
        command: portable(&command),
        read_format: hello.read_format.as_str().into(),
        label,
    }
}
