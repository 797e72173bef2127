//! The whole corpus as named tests, against the reference implementation three times: in
//! process (`builtin::<id>`), through the `editref serve` binary (`serve::<id>`) and through
//! `editref mcp` with the harness as MCP client (`mcp::<id>`), so a failure names the case id
//! and `cargo test --test conformance -- eol/` runs one area.
//!
//! The corpus is `conformance/cases` of this crate, or the directory in `EDITREF_CORPUS`.

use editref_conform::adapter::{Adapter, Builtin};
use editref_conform::case::Case;
use editref_conform::load;
use editref_conform::mcp::Mcp;
use editref_conform::run::{self, CaseRecord, Status};
use editref_conform::subprocess::Subprocess;
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

fn corpus_dir() -> PathBuf {
    match std::env::var_os("EDITREF_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("conformance/cases"),
    }
}

fn explain(rec: &CaseRecord) -> String {
    let mut s = format!("{} {}: {}", rec.status, rec.id, rec.reason);
    match &rec.diff {
        // For bytes the diff says it all; the full dumps are in the report.
        Some(d) => s.push_str(&format!("\n{d}")),
        None => {
            if let Some(e) = &rec.expected {
                s.push_str(&format!("\n  expected: {e}"));
            }
            if let Some(a) = &rec.actual {
                s.push_str(&format!("\n  actual:   {a}"));
            }
        }
    }
    for m in &rec.more {
        s.push_str(&format!("\n  also: {m}"));
    }
    if let Some(e) = &rec.stderr {
        s.push_str(&format!("\n  stderr: {e}"));
    }
    s
}

/// Pass and skip pass. An implementation-defined case whose expectation the reference does not
/// share is a difference (`differs`), not a failure (conformance spec §3), so it passes too —
/// unless the reference crashed or hung on it.
fn verdict(rec: CaseRecord) -> Result<(), Failed> {
    match rec.status {
        Status::Pass | Status::Skip | Status::Differs => Ok(()),
        _ => Err(explain(&rec).into()),
    }
}

fn run_with(adapter: &mut dyn Adapter, case: &Case) -> Result<(), Failed> {
    let hello = adapter.hello().map_err(|e| format!("hello: {e}"))?;
    let rec = run::run_case(adapter, &hello.features, case, None, false);
    adapter.shutdown();
    verdict(rec)
}

/// The reference's whole feature vocabulary.
fn all_features() -> Vec<String> {
    editref::protocol::FEATURES
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The journal directory of the `mcp` trials, under the build's temp space.
fn undo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conformance-mcp-undo")
}

fn editref_command(subcommand: &str) -> String {
    let exe = env!("CARGO_BIN_EXE_editref").replace('\'', "'\\''");
    format!("'{exe}' {subcommand}")
}

fn main() {
    let args = Arguments::from_args();
    let dir = corpus_dir();
    let corpus = match load::load_dir(&dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot read the corpus at {}: {e}", dir.display());
            std::process::exit(101);
        }
    };
    let features: Vec<String> = editref::protocol::FEATURES
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut trials = Vec::new();
    for case in corpus.cases {
        let case = Arc::new(case);
        let ignored = !run::missing_features(&case, &features).is_empty();
        let c = Arc::clone(&case);
        trials.push(
            Trial::test(format!("builtin::{}", case.id), move || {
                run_with(&mut Builtin::new(TIMEOUT), &c)
            })
            .with_ignored_flag(ignored),
        );
        let c = Arc::clone(&case);
        trials.push(
            Trial::test(format!("serve::{}", case.id), move || {
                run_with(
                    &mut Subprocess::new(&editref_command("serve"), TIMEOUT, true),
                    &c,
                )
            })
            .with_ignored_flag(ignored),
        );
        let c = Arc::clone(&case);
        trials.push(
            Trial::test(format!("mcp::{}", case.id), move || {
                // Each case's undo journal outside its sandbox (UNDO-7): one directory for the
                // run, whose units name each sandbox's absolute paths.
                // Every tool offered, and the whole vocabulary declared (param_aliases is
                // declared only explicitly).
                let command = format!(
                    "{} --tools all --undo-dir '{}'",
                    editref_command("mcp"),
                    undo_dir().display()
                );
                let mut mcp = Mcp::new(&command, TIMEOUT, true)?.with_features(all_features());
                run_with(&mut mcp, &c)
            })
            .with_ignored_flag(ignored),
        );
    }
    for broken in corpus.broken {
        let errors: Vec<String> = broken.errors.iter().map(|e| e.to_string()).collect();
        trials.push(Trial::test(format!("load::{}", broken.id), move || {
            Err(errors.join("\n").into())
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
