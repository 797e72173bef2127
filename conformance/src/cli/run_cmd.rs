//! The run command: certify one implementation against the corpus — pick the adapter, load the
//! corpus and the expectations, run the selected cases, and write the report.
//!
//! This is the harness's main path and the only one that drives an adapter, so it holds the
//! order of a run (handshake, cases, expectations, certification) in one function that reads
//! top to bottom. What it prints at the end is the summary module's job; what it writes is the
//! report module's.

use super::args::RunArgs;
use super::summary::print_summary;
use super::{cases_dir, usage};
use crate::adapter::{Adapter, Builtin, Hello};
use crate::case::Level;
use crate::load::{self, Corpus};
use crate::manifest;
use crate::mcp::mapping::{self, ToolMap};
use crate::mcp::Mcp;
use crate::report::{
    rfc3339, Certification, CorpusInfo, HarnessInfo, ImplInfo, Platform, Report, Selection,
    SCHEMA_VERSION,
};
use crate::run::{self, CaseRecord, Expectations, Status};
use crate::subprocess::Subprocess;
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// The corpus of `--corpus`, else ./conformance/cases when present, else the embedded one.
fn load_corpus(corpus: Option<PathBuf>) -> Result<Corpus, String> {
    let dir = match corpus {
        Some(d) => Some(cases_dir(&d)),
        None => {
            let d = PathBuf::from("conformance/cases");
            d.is_dir().then_some(d)
        }
    };
    match dir {
        Some(d) => {
            load::load_dir(&d).map_err(|e| format!("cannot read the corpus {}: {e}", d.display()))
        }
        None => Ok(load::load_embedded()),
    }
}

/// The `--mcp` adapter with its `--mcp-tools` and `--mcp-features`.
fn mcp_adapter(args: &RunArgs, command: &str, timeout: Duration) -> Result<Mcp, String> {
    let mut adapter = Mcp::new(command, timeout, !args.show_stderr)?;
    if let Some(spec) = &args.mcp_tools {
        adapter = adapter.with_tools(ToolMap::parse(spec)?);
    }
    if let Some(spec) = &args.mcp_features {
        adapter = adapter.with_features(mapping::parse_features(spec));
    }
    Ok(adapter)
}

/// Runs the selected cases against the implementation of `args`; returns the exit code.
pub(super) fn run_cmd(args: RunArgs) -> u8 {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return usage("--timeout must be a positive number of seconds");
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    let (mut adapter, command): (Box<dyn Adapter>, String) = match (
        &args.implementation,
        &args.mcp,
        args.builtin,
    ) {
        (Some(cmd), None, false) => (
            Box::new(Subprocess::new(cmd, timeout, !args.show_stderr)),
            cmd.clone(),
        ),
        (None, Some(cmd), false) => match mcp_adapter(&args, cmd, timeout) {
            Ok(a) => (Box::new(a), format!("mcp: {cmd}")),
            Err(e) => return usage(&e),
        },
        (None, None, true) => (Box::new(Builtin::new(timeout)), "builtin".into()),
        _ => return usage(
            "say what to certify: --impl \"COMMAND\", --mcp \"COMMAND\" or --builtin (see --help)",
        ),
    };
    let corpus = match load_corpus(args.corpus.clone()) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let expectations = match &args.expectations {
        None => None,
        Some(p) => match std::fs::read_to_string(p) {
            Err(e) => return usage(&format!("cannot read {}: {e}", p.display())),
            Ok(text) => match Expectations::parse(&text) {
                Ok(e) => Some(e),
                Err(errors) => {
                    for e in errors {
                        eprintln!("{}: {e}", p.display());
                    }
                    return 2;
                }
            },
        },
    };
    let max_level = args.level.map(Level::from);
    let hello = match adapter.hello() {
        Ok(h) => h,
        Err(e) => {
            eprintln!("editref conform: the adapter failed the handshake: {e}");
            let stderr = adapter.take_stderr();
            if !stderr.trim().is_empty() {
                eprintln!("its stderr:\n{}", stderr.trim_end());
            }
            return 2;
        }
    };
    let unknown_features: Vec<&String> = hello
        .features
        .iter()
        .filter(|f| !crate::case::FEATURES.contains(&f.as_str()))
        .collect();
    if !unknown_features.is_empty() && !args.quiet {
        eprintln!(
            "editref conform: note: the adapter declares features outside the vocabulary: {}",
            unknown_features
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    let started_at = SystemTime::now();
    let started = Instant::now();
    let selected: Vec<&crate::case::Case> = corpus
        .cases
        .iter()
        .filter(|c| run::selected(&c.id, Some(c.level), &args.only, max_level))
        .collect();
    let broken: Vec<&load::BrokenCase> = corpus
        .broken
        .iter()
        .filter(|b| run::selected(&b.id, None, &args.only, max_level))
        .collect();
    let progress = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(selected.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{bar:30}] {pos}/{len} {elapsed} {wide_msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    let mut records: Vec<CaseRecord> = broken.iter().map(|b| CaseRecord::broken(b)).collect();
    let mut kept = Vec::new();
    let tmp = args.keep_sandboxes.then(|| {
        let d = kept_dir();
        let _ = std::fs::create_dir_all(&d);
        d
    });
    for case in &selected {
        if let Some(bar) = &progress {
            bar.set_message(case.id.clone());
        }
        let rec = run::run_case(
            adapter.as_mut(),
            &hello.features,
            case,
            tmp.as_deref(),
            args.keep_sandboxes,
        );
        if args.keep_sandboxes && !matches!(rec.status, Status::Pass | Status::Skip) {
            kept.push(case.id.clone());
        }
        if let Some(bar) = &progress {
            if rec.status.is_failure() || rec.status == Status::HarnessError {
                bar.println(format!(
                    "{:<8} {}",
                    rec.status.as_str().to_uppercase(),
                    rec.id
                ));
            }
            bar.inc(1);
        }
        records.push(rec);
    }
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    adapter.shutdown();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(e) = &expectations {
        e.apply(&mut records);
        let known: BTreeSet<&str> = corpus
            .cases
            .iter()
            .map(|c| c.id.as_str())
            .chain(corpus.broken.iter().map(|b| b.id.as_str()))
            .collect();
        for id in e.unknown(&known) {
            eprintln!(
                "editref conform: note: the expectations list {id}, which is not in the corpus"
            );
        }
    }

    let complete = |level: Level| args.only.is_empty() && max_level.is_none_or(|m| m >= level);
    let cert = run::certification(&records, complete);
    let highest = run::highest(&cert);
    let partial = !args.only.is_empty() || max_level.is_some_and(|m| m < Level::Extended);
    let report = Report {
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
        implementation: implementation(&hello, command),
        platform: Platform::current(),
        started: rfc3339(started_at),
        duration_ms: started.elapsed().as_millis() as u64,
        selection: Selection {
            only: args.only.clone(),
            level: max_level.map(|l| l.as_str().to_string()),
            expectations: args.expectations.as_ref().map(|p| p.display().to_string()),
            timeout_s: args.timeout,
        },
        totals: run::totals(&records),
        certification: Certification {
            core: cert.iter().any(|(l, ok)| *l == Level::Core && *ok),
            extended: cert.iter().any(|(l, ok)| *l == Level::Extended && *ok),
            highest: highest.map(|l| l.as_str().to_string()),
            note: partial.then(|| {
                "Partial run (--only or --level): levels not fully run cannot be certified.".into()
            }),
        },
        cases: records,
    };
    if let Some(dir) = &args.report {
        if let Err(e) = report.write_all(dir) {
            eprintln!(
                "editref conform: cannot write the report to {}: {e}",
                dir.display()
            );
            return 2;
        }
    }
    print_summary(&report, args.quiet);
    if !kept.is_empty() {
        println!(
            "sandboxes of the {} cases that did not pass are kept under {}",
            kept.len(),
            kept_dir().display()
        );
    }
    run::exit_code(&report.cases)
}

/// Where `--keep-sandboxes` keeps the trees of cases that did not pass.
fn kept_dir() -> PathBuf {
    std::env::temp_dir().join("editref-conform-kept")
}

/// The implementation as the report records it: its `hello`, and how it was started.
fn implementation(hello: &Hello, command: String) -> ImplInfo {
    ImplInfo {
        name: hello.name.clone(),
        version: hello.version.clone(),
        features: hello.features.clone(),
        command,
    }
}
