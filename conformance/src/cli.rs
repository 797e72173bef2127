//! `editref conform`: the command line of the harness.
//!
//! `main.rs` hands the raw arguments over, so the harness owns its own flags and help text and
//! can be driven from tests as a function (`run_cli(&args) -> exit code`).

use crate::adapter::{Adapter, Builtin, Hello};
use crate::case::Level;
use crate::load::{self, Corpus};
use crate::manifest;
use crate::matrix::Matrix;
use crate::report::{
    rfc3339, Certification, CorpusInfo, HarnessInfo, ImplInfo, Platform, Report, Selection,
    SCHEMA_VERSION,
};
use crate::run::{self, CaseRecord, Expectations, Status};
use crate::subprocess::Subprocess;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

#[derive(Parser, Debug)]
#[command(
    name = "editref conform",
    about = "Certify an implementation of the file tools against the conformance corpus",
    long_about = "Runs every corpus case against an implementation that speaks adapter protocol v1 \
                  (--impl) or against editref itself (--builtin), judges replies and final file \
                  trees, and reports per case.",
    after_help = "Exit status: 0 when no core case failed, crashed or timed out and nothing is an \
                  xpass or a harness error; 1 otherwise; 2 on usage errors.",
    args_conflicts_with_subcommands = true,
    disable_version_flag = true
)]
struct ConformCli {
    #[command(subcommand)]
    command: Option<Sub>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The command that starts the adapter (run with `sh -c`, kept running across cases).
    #[arg(long = "impl", value_name = "COMMAND", conflicts_with = "builtin")]
    implementation: Option<String>,
    /// Run against editref's own implementation, in process.
    #[arg(long)]
    builtin: bool,
    /// The corpus directory (`conformance/cases`, or the `conformance` directory above it).
    /// Default: ./conformance/cases if present, else the corpus built into this binary.
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Run only the cases whose id matches (repeatable; `*` and `?`; a bare area name matches
    /// the whole area).
    #[arg(long, value_name = "GLOB")]
    only: Vec<String>,
    /// Run only the cases that count at this level (the level and the ones below it).
    #[arg(long, value_enum, value_name = "LEVEL")]
    level: Option<LevelArg>,
    /// Known failures: one case id per line, `#` comments. Listed failures become xfail,
    /// listed passes xpass (an error).
    #[arg(long, value_name = "FILE")]
    expectations: Option<PathBuf>,
    /// Write report.json, junit.xml, report.tap and summary.md into DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Per-call timeout in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    timeout: f64,
    /// Print only the summary (no progress bar, no list of failing cases).
    #[arg(long, short)]
    quiet: bool,
    /// Let the adapter's stderr through to the terminal instead of capturing it per case.
    #[arg(long)]
    show_stderr: bool,
    /// Keep the sandbox of every case that does not pass, and print where it is.
    #[arg(long)]
    keep_sandboxes: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LevelArg {
    Core,
    Extended,
    ImplementationDefined,
}

impl From<LevelArg> for Level {
    fn from(l: LevelArg) -> Level {
        match l {
            LevelArg::Core => Level::Core,
            LevelArg::Extended => Level::Extended,
            LevelArg::ImplementationDefined => Level::ImplementationDefined,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Write conformance/manifest.json (or check that it is up to date).
    Manifest {
        /// The corpus directory (default ./conformance/cases).
        #[arg(long, value_name = "DIR")]
        corpus: Option<PathBuf>,
        /// Do not write; exit 1 if the manifest on disk is stale.
        #[arg(long)]
        check: bool,
    },
    /// Combine report.json files into matrix.md and matrix.html.
    Matrix {
        /// report.json files (one column each).
        #[arg(required = true, value_name = "REPORT.json")]
        reports: Vec<PathBuf>,
        /// Output directory.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

/// Entry point of `editref conform`: parses `args` (without the program and subcommand names)
/// and returns the process exit code.
pub fn run_cli(args: &[String]) -> u8 {
    let argv = std::iter::once("editref conform".to_string()).chain(args.iter().cloned());
    let cli = match ConformCli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Some(Sub::Manifest { corpus, check }) => manifest_cmd(corpus, check),
        Some(Sub::Matrix { reports, out }) => matrix_cmd(&reports, &out),
        None => run_cmd(cli.run),
    }
}

fn usage(msg: &str) -> u8 {
    eprintln!("editref conform: {msg}");
    2
}

/// `--corpus DIR` accepts the cases directory or the directory above it.
fn cases_dir(dir: &Path) -> PathBuf {
    let inner = dir.join("cases");
    if inner.is_dir() && !dir.ends_with("cases") {
        inner
    } else {
        dir.to_path_buf()
    }
}

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

fn run_cmd(args: RunArgs) -> u8 {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return usage("--timeout must be a positive number of seconds");
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    let (mut adapter, command): (Box<dyn Adapter>, String) =
        match (&args.implementation, args.builtin) {
            (Some(cmd), false) => (
                Box::new(Subprocess::new(cmd, timeout, !args.show_stderr)),
                cmd.clone(),
            ),
            (None, true) => (Box::new(Builtin::new(timeout)), "builtin".into()),
            _ => return usage("say what to certify: --impl \"COMMAND\" or --builtin (see --help)"),
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

fn kept_dir() -> PathBuf {
    std::env::temp_dir().join("editref-conform-kept")
}

fn implementation(hello: &Hello, command: String) -> ImplInfo {
    ImplInfo {
        name: hello.name.clone(),
        version: hello.version.clone(),
        features: hello.features.clone(),
        command,
    }
}

fn print_summary(report: &Report, quiet: bool) {
    if !quiet {
        for c in &report.cases {
            if matches!(c.status, Status::Pass | Status::Skip) {
                continue;
            }
            let level = c.level.as_deref().unwrap_or("?");
            // Implementation-defined cases never fail: a different answer is a difference.
            let label = if level == "implementation-defined" && c.status == Status::Fail {
                "DIFFERS".to_string()
            } else {
                c.status.as_str().to_uppercase()
            };
            println!(
                "{:<13} {} ({level}): {}",
                label,
                c.id,
                c.reason.replace('\n', " ")
            );
        }
    }
    let counts: Vec<String> = report
        .totals
        .iter()
        .filter(|(s, n)| **n > 0 || **s == Status::Pass)
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    println!(
        "{}: {} cases, {} (corpus {}, {:.1} s)",
        report.label(),
        report.cases.len(),
        counts.join(", "),
        report.corpus.version,
        report.duration_ms as f64 / 1000.0
    );
    match &report.certification.highest {
        Some(l) => println!("certified: {l}"),
        None => {
            let core_bad = report
                .cases
                .iter()
                .filter(|c| c.level() == Some(Level::Core) && c.status != Status::Pass)
                .count();
            if core_bad > 0 {
                println!("not certified: {core_bad} core cases did not pass");
            } else {
                println!("not certified");
            }
        }
    }
    if let Some(note) = &report.certification.note {
        println!("{note}");
    }
}

fn manifest_cmd(corpus: Option<PathBuf>, check: bool) -> u8 {
    let dir = cases_dir(&corpus.unwrap_or_else(|| PathBuf::from("conformance/cases")));
    if !dir.is_dir() {
        return usage(&format!("{} is not a corpus directory", dir.display()));
    }
    let corpus = match load::load_dir(&dir) {
        Ok(c) => c,
        Err(e) => return usage(&format!("cannot read {}: {e}", dir.display())),
    };
    if !corpus.broken.is_empty() {
        for b in &corpus.broken {
            for e in &b.errors {
                eprintln!("{e}");
            }
        }
        eprintln!(
            "editref conform manifest: {} case files have errors",
            corpus.broken.len()
        );
        return 1;
    }
    let Some(base) = corpus.base.clone() else {
        return usage("the corpus directory has no parent to hold manifest.json");
    };
    if corpus.version == "unversioned" {
        return usage(&format!(
            "{} is missing: the manifest records the corpus version",
            base.join("VERSION").display()
        ));
    }
    let path = base.join("manifest.json");
    if check {
        let on_disk = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!(
                    "editref conform manifest: cannot read {}: {e}",
                    path.display()
                );
                return 1;
            }
        };
        let diff = manifest::differences(&on_disk, &corpus);
        if diff.is_empty() {
            println!(
                "{} is up to date ({} cases)",
                path.display(),
                corpus.cases.len()
            );
            0
        } else {
            for d in &diff {
                eprintln!("{d}");
            }
            eprintln!(
                "{} is stale; run `editref conform manifest` and commit it",
                path.display()
            );
            1
        }
    } else {
        match std::fs::write(&path, manifest::render(&corpus)) {
            Ok(()) => {
                println!(
                    "wrote {} ({} cases, corpus {})",
                    path.display(),
                    corpus.cases.len(),
                    corpus.version
                );
                0
            }
            Err(e) => usage(&format!("cannot write {}: {e}", path.display())),
        }
    }
}

fn matrix_cmd(paths: &[PathBuf], out: &Path) -> u8 {
    let mut reports = Vec::new();
    for p in paths {
        let text = match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(e) => return usage(&format!("cannot read {}: {e}", p.display())),
        };
        match serde_json::from_str::<Report>(&text) {
            Ok(r) if r.schema_version == SCHEMA_VERSION => reports.push(r),
            Ok(r) => {
                return usage(&format!(
                    "{} has report schema {}, this harness reads {SCHEMA_VERSION}",
                    p.display(),
                    r.schema_version
                ))
            }
            Err(e) => return usage(&format!("{} is not a report.json: {e}", p.display())),
        }
    }
    let m = Matrix::new(&reports);
    let written = std::fs::create_dir_all(out)
        .and_then(|_| std::fs::write(out.join("matrix.md"), m.markdown()))
        .and_then(|_| std::fs::write(out.join("matrix.html"), m.html()));
    match written {
        Ok(()) => {
            println!(
                "wrote {} and {} ({} implementations)",
                out.join("matrix.md").display(),
                out.join("matrix.html").display(),
                reports.len()
            );
            0
        }
        Err(e) => usage(&format!("cannot write to {}: {e}", out.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn usage_errors_exit_2() {
        assert_eq!(run_cli(&args(&["--nope"])), 2);
        assert_eq!(run_cli(&args(&[])), 2, "neither --impl nor --builtin");
        assert_eq!(run_cli(&args(&["--builtin", "--impl", "x"])), 2);
        assert_eq!(run_cli(&args(&["--builtin", "--timeout", "0"])), 2);
        let help = ConformCli::try_parse_from(["editref conform", "--help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        assert!(help.to_string().contains("--expectations <FILE>"));
        assert_eq!(run_cli(&args(&["matrix", "--out", "/tmp/x"])), 2);
    }

    #[test]
    fn a_run_over_a_small_corpus_writes_every_report() {
        let dir = tempfile::tempdir().unwrap();
        let cases = dir.path().join("conformance/cases/edit");
        std::fs::create_dir_all(&cases).unwrap();
        std::fs::write(dir.path().join("conformance/VERSION"), "0.1.0\n").unwrap();
        std::fs::write(
            cases.join("one.yaml"),
            "id: edit/one\ntitle: t\nspec: [EDIT-1]\nlevel: core\nrequires: [read, edit]\nsince: \"0.1.0\"\n\
             files:\n  a.txt: {text: \"one\\n\"}\nsteps:\n  - call: {tool: Read, input: {file_path: a.txt}}\n  \
             - call: {tool: Edit, input: {file_path: a.txt, old_string: one, new_string: \"1\"}}\n    \
             expect: {ok: true, output: {replacements: 1}}\nexpect_files:\n  a.txt: {text: \"1\\n\"}\n",
        )
        .unwrap();
        std::fs::write(cases.join("broken.yaml"), "id: edit/broken\nlevel: [\n").unwrap();
        let corpus = dir.path().join("conformance");
        let report = dir.path().join("out");
        let code = run_cli(&args(&[
            "--builtin",
            "--quiet",
            "--corpus",
            corpus.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ]));
        assert_eq!(code, 1, "the broken case is a harness error");
        let r: Report =
            serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
                .unwrap();
        assert_eq!(r.cases.len(), 2);
        assert_eq!(r.cases[0].status, Status::HarnessError);
        assert_eq!(r.cases[1].status, Status::Pass, "{:?}", r.cases[1]);
        for f in ["junit.xml", "report.tap", "summary.md"] {
            assert!(report.join(f).is_file(), "{f}");
        }
        std::fs::remove_file(cases.join("broken.yaml")).unwrap();
        let c = corpus.to_str().unwrap();
        assert_eq!(run_cli(&args(&["manifest", "--corpus", c, "--check"])), 1);
        assert_eq!(run_cli(&args(&["manifest", "--corpus", c])), 0);
        assert_eq!(run_cli(&args(&["manifest", "--corpus", c, "--check"])), 0);
        let exp = dir.path().join("known.txt");
        std::fs::write(&exp, "edit/one # listed but passes\n").unwrap();
        assert_eq!(
            run_cli(&args(&[
                "--builtin",
                "-q",
                "--corpus",
                c,
                "--expectations",
                exp.to_str().unwrap()
            ])),
            1,
            "xpass"
        );
        assert_eq!(run_cli(&args(&["--builtin", "-q", "--corpus", c])), 0);
        let rj = report.join("report.json");
        let m = dir.path().join("m");
        assert_eq!(
            run_cli(&args(&[
                "matrix",
                rj.to_str().unwrap(),
                rj.to_str().unwrap(),
                "--out",
                m.to_str().unwrap()
            ])),
            0
        );
        assert!(m.join("matrix.html").is_file());
    }
}
