//! The whole corpus as named tests, against the reference implementation three times: in
//! process (`builtin::<id>`), through the `editref serve` binary (`serve::<id>`) and through
//! `editref mcp` with the harness as MCP client (`mcp::<id>`), so a failure names the case id
//! and `cargo test --test conformance -- eol/` runs one area. Two more tests run the harness
//! binary itself: as the documentation tells a user to certify the server
//! (`harness::editref_conform_mcp_editref_mcp`: certified for its default tools, in every
//! class), and over `editref serve` with the gates a CI job would set
//! (`harness::editref_conform_impl_editref_serve`).
//!
//! The corpus is `conformance/cases` of this crate, or the directory in `EDITREF_CORPUS`.
//! Every `editref mcp` started here keeps its undo journals (UNDO-7) in a state directory
//! under the build's temp space, never in the home of whoever runs the tests.

use editref_conform::adapter::{Adapter, Builtin};
use editref_conform::case::Case;
use editref_conform::load;
use editref_conform::mcp::Mcp;
use editref_conform::run::{self, CaseRecord, Status};
use editref_conform::subprocess::Subprocess;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
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
    let mut rec = run::run_case(adapter, &hello.features, case, None, false);
    if rec.status == Status::Timeout {
        // The harness's own rule: a timeout is a verdict only when the case times out again
        // with patient limits. These trials run many at once, on a machine that may be busy.
        let opts = run::CaseOptions::default();
        rec = run::rerun_after_timeout(adapter, &hello.features, case, &opts, &rec);
    }
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

/// The state directory of every `editref mcp` the trials start (`XDG_STATE_HOME`).
fn state_home() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conformance-state")
}

/// `editref-conform`, built with the profile and into the target directory of the `editref`
/// under test — beside it, where `editref conform` looks for it.
fn harness_binary() -> Result<PathBuf, Failed> {
    let editref = Path::new(env!("CARGO_BIN_EXE_editref"));
    let dir = editref
        .parent()
        .ok_or("the editref binary has no directory")?;
    let profile = match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(other) => other,
        None => return Err("the editref binary's directory has no name".into()),
    };
    let target = dir.parent().ok_or("no target directory")?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        // With `-p editref` too, the library is built with the features of this test's build,
        // whose artifacts are then reused instead of compiling it a second time.
        .args(["build", "--quiet", "-p", "editref", "-p", "editref-conform"])
        .args(["--bin", "editref-conform"])
        .args(["--profile", profile, "--target-dir"])
        .arg(target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building editref-conform failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let harness = dir.join("editref-conform");
    if !harness.is_file() {
        return Err(format!("no harness at {}", harness.display()).into());
    }
    Ok(harness)
}

/// The documented certification of editref's own server, word for word:
/// `editref-conform --mcp "<editref> mcp" --report DIR` on the whole corpus. Every case the
/// default tools can take passes — none fails, crashes or times out, and a case's tree holds
/// only what the tools wrote, the undo journal being kept outside it (UNDO-7); the only cases
/// skipped are those needing a feature the default tool list does not declare (the dialects),
/// and those do not count against it: it is certified, in every class, for the tools it
/// offers.
fn certify_the_default_server(corpus: &[Arc<Case>]) -> Result<(), Failed> {
    let harness = harness_binary()?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let reports = work.path().join("reports");
    let mut command = Command::new(&harness);
    command
        .arg("--mcp")
        .arg(format!("{} mcp", editref_command_path()))
        .arg("--report")
        .arg(&reports)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_STATE_HOME", work.path().join("state"));
    if std::env::var_os("EDITREF_CORPUS").is_some() {
        command.arg("--corpus").arg(corpus_dir());
    }
    let out = command.output().map_err(|e| e.to_string())?;
    let shown = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(reports.join("report.json"))
        .map_err(|e| format!("no report.json ({e}):\n{shown}"))?;
    let report: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let totals = &report["totals"];
    let count = |k: &str| totals[k].as_u64().unwrap_or(u64::MAX);
    for bad in [
        "fail",
        "crash",
        "timeout",
        "harness_error",
        "xpass",
        "differs",
    ] {
        if count(bad) != 0 {
            return Err(format!("{} {bad} in {totals}:\n{shown}", count(bad)).into());
        }
    }
    let cases = report["cases"].as_array().ok_or("no cases in the report")?;
    let ran = cases.iter().filter(|c| c["status"] != "skip").count() as u64;
    if count("pass") != ran || ran == 0 || cases.len() != corpus.len() {
        return Err(format!("{totals}: every case that ran must pass\n{shown}").into());
    }
    // The default tools are the five and Undo: everything is declared but the dialects'
    // features, which come only with the dialect tools (`--tools all`).
    let dialects: Vec<&str> = editref_protocol::EXTRA_FEATURES
        .into_iter()
        .filter(|f| *f != "undo")
        .collect();
    let mut declared: Vec<String> = report["implementation"]["features"]
        .as_array()
        .ok_or("no features in the report")?
        .iter()
        .filter_map(|f| f.as_str().map(str::to_string))
        .collect();
    let mut want: Vec<String> = editref_protocol::FEATURES
        .into_iter()
        .filter(|f| !dialects.contains(f))
        .map(str::to_string)
        .collect();
    declared.sort();
    want.sort();
    if declared != want {
        return Err(format!("declared {declared:?}, want {want:?}").into());
    }
    for c in cases.iter().filter(|c| c["status"] == "skip") {
        let id = c["id"].as_str().unwrap_or("");
        let case = corpus.iter().find(|k| k.id == id).ok_or(id.to_string())?;
        let missing = run::missing_features(case, &declared);
        if missing.is_empty() || !missing.iter().all(|f| dialects.contains(&f.as_str())) {
            return Err(format!("{id} was skipped ({}), not for a dialect", c["reason"]).into());
        }
    }
    // Certified for the tools it offers: the dialects' core cases do not count against it.
    let not_offered = &report["surface"]["not_offered"];
    let want = serde_json::json!([
        "LineEdit",
        "str_replace_based_edit_tool",
        "apply_patch",
        "search_replace",
        "param_aliases"
    ]);
    if *not_offered != want {
        return Err(format!("surface: not offered {not_offered}, want {want}").into());
    }
    certified_in_every_class(&report, "extended")?;
    if out.status.code() != Some(0) {
        return Err(format!("exit status {}:\n{shown}", out.status).into());
    }
    Ok(())
}

/// Whether the report certifies `level` overall and in every class.
fn certified_in_every_class(report: &Value, level: &str) -> Result<(), Failed> {
    if report["certification"]["highest"] != level {
        return Err(format!("certification {}", report["certification"]).into());
    }
    let classes = report["classes"].as_array().ok_or("no classes")?;
    let names: Vec<&str> = classes.iter().filter_map(|c| c["class"].as_str()).collect();
    if names != ["data", "capability", "contract", "presentation"] {
        return Err(format!("classes {names:?}").into());
    }
    for c in classes {
        if c["certified"]["highest"] != level {
            return Err(format!("{} is {}", c["class"], c["certified"]).into());
        }
    }
    Ok(())
}

/// `editref-conform --impl "<editref> serve"` on the whole corpus, gated as a careful CI job
/// would gate it (`--require extended --require data:extended`): everything is offered, and
/// everything is certified, in every class.
fn certify_serve() -> Result<(), Failed> {
    let harness = harness_binary()?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let reports = work.path().join("reports");
    let mut command = Command::new(&harness);
    command
        .arg("--impl")
        .arg(editref_command("serve"))
        .args([
            "--require",
            "extended",
            "--require",
            "data:extended",
            "--quiet",
        ])
        .arg("--report")
        .arg(&reports)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("EDITREF_CORPUS").is_some() {
        command.arg("--corpus").arg(corpus_dir());
    }
    let out = command.output().map_err(|e| e.to_string())?;
    let shown = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.code() != Some(0) {
        return Err(format!("exit status {}:\n{shown}", out.status).into());
    }
    let text = std::fs::read_to_string(reports.join("report.json"))
        .map_err(|e| format!("no report.json ({e}):\n{shown}"))?;
    let report: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if report["surface"]["not_offered"] != serde_json::json!([]) {
        return Err(format!("surface {}", report["surface"]).into());
    }
    certified_in_every_class(&report, "extended")
}

/// The editref binary's path, quoted for `sh -c`.
fn editref_command_path() -> String {
    let exe = env!("CARGO_BIN_EXE_editref").replace('\'', "'\\''");
    format!("'{exe}'")
}

fn editref_command(subcommand: &str) -> String {
    format!("{} {subcommand}", editref_command_path())
}

fn main() {
    // Before any thread starts: every server a trial starts inherits it.
    std::env::set_var("XDG_STATE_HOME", state_home());
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
    let cases: Vec<Arc<Case>> = corpus.cases.into_iter().map(Arc::new).collect();
    let all = cases.clone();
    trials.push(Trial::test(
        "harness::editref_conform_mcp_editref_mcp",
        move || certify_the_default_server(&all),
    ));
    trials.push(Trial::test(
        "harness::editref_conform_impl_editref_serve",
        certify_serve,
    ));
    for case in cases {
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
                // Every tool offered, and the whole vocabulary declared (param_aliases is
                // declared only explicitly). The undo journal is the default one of the
                // sandbox's root, in the state directory, outside the sandbox (UNDO-7).
                let command = format!("{} --tools all", editref_command("mcp"));
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
