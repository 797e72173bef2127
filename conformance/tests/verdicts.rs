//! The verdict as a user reads it, from the harness binary: a tool that refuses every call is
//! safe, not capable, and every format says so; `--require` gates on a class; a run's failures
//! become a known-failures file the next run accepts; and an adapter whose declaration is wrong —
//! no tool that writes, or a declared tool it then denies having — gets a harness error, not a
//! verdict. The adapter is `declared_adapter.py` (standard-library Python).

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

/// The five tools, as a Claude-Code-shaped tool declares them.
const FIVE: [&str; 5] = ["read", "edit", "multi_edit", "write", "notebook_edit"];

/// The five tools and every behaviour of the vocabulary: refusing every call, the tool keeps
/// all of them safely.
fn five_and_behaviours() -> Vec<&'static str> {
    let tools = [
        "undo",
        "line_edit",
        "text_editor",
        "apply_patch",
        "search_replace",
        "param_aliases",
    ];
    editref_protocol::FEATURES
        .into_iter()
        .filter(|f| !tools.contains(f))
        .collect()
}

/// Runs the harness on the core cases of the built-in corpus against the scripted adapter
/// declaring `adapter_args`, with `extra` arguments.
fn run(adapter_args: &[&str], extra: &[&str]) -> Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/declared_adapter.py");
    let mut command = format!("python3 '{script}'");
    for a in adapter_args {
        command.push(' ');
        command.push_str(a);
    }
    let empty = tempfile::tempdir().unwrap();
    Command::new(BIN)
        .args(["--impl", &command, "--level", "core", "--quiet"])
        .args(extra)
        // Outside the checkout, so the built-in corpus runs.
        .current_dir(empty.path())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

#[test]
fn a_tool_that_refuses_everything_is_safe_not_capable_in_every_format() {
    let out = tempfile::tempdir().unwrap();
    let known = out.path().join("known.txt");
    let report = out.path().join("r");
    let five = five_and_behaviours();
    let first = run(
        &five,
        &[
            "--report",
            report.to_str().unwrap(),
            "--write-expectations",
            known.to_str().unwrap(),
        ],
    );
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    let stdout = text(&first.stdout);
    assert!(
        stdout.contains(
            "\nnot certified for Read, Edit, MultiEdit, Write, NotebookEdit (not offered: Undo,"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("\nsafe, not capable:"), "{stdout}");
    assert!(
        stdout.contains("by class: data: certified core; capability: not certified;"),
        "{stdout}"
    );
    let summary = read(&report, "summary.md");
    assert!(summary.contains("\n**Safe, not capable:**"), "{summary}");
    assert!(
        summary.contains("\n- **data: certified core**"),
        "{summary}"
    );
    let json: Value = serde_json::from_str(&read(&report, "report.json")).unwrap();
    let verdict = json["verdict"].as_str().unwrap();
    assert!(
        verdict.contains(": safe, not capable — data: certified core;"),
        "{verdict}"
    );
    assert_eq!(json["surface"]["not_offered"][0], "Undo");
    assert_eq!(json["classes"][0]["class"], "data");
    assert_eq!(json["classes"][0]["certified"]["core"], true);
    assert_eq!(json["classes"][1]["class"], "capability");
    assert_eq!(json["classes"][1]["certified"]["core"], false);
    // Core cases of the dialects and of Undo are not the tool's: counted as not offered.
    assert!(
        json["classes"][0]["levels"]["core"]["not_offered"]
            .as_u64()
            .unwrap()
            > 40
    );
    let junit = read(&report, "junit.xml");
    assert!(
        junit.contains("safe, not capable — data: certified core"),
        "{}",
        &junit[..600]
    );
    let tap = read(&report, "report.tap");
    assert!(tap.contains("safe, not capable"), "{}", &tap[..400]);
    let html = read(&report, "report.html");
    assert!(html.contains("safe, not capable"));

    // Gating on a class: safe passes the data gate, and nothing else.
    assert_eq!(
        run(&five, &["--require", "data:core"]).status.code(),
        Some(0)
    );
    assert_eq!(
        run(&five, &["--require", "capability:core"]).status.code(),
        Some(1)
    );
    assert_eq!(
        run(&five, &["--require", "data:core", "--require", "core"])
            .status
            .code(),
        Some(1)
    );
    // Declaring less does not get a tool out of the cases of what it left out: a skip for
    // staleness counts against data as much as a failure would.
    assert_eq!(
        run(&FIVE, &["--require", "data:core"]).status.code(),
        Some(1)
    );

    // The known-failures file turns every failure into an xfail on the next run.
    let list = read(out.path(), "known.txt");
    assert!(list.starts_with("# Known failures of refuses 1"), "{list}");
    assert!(list.contains("\neol/crlf-single-line-edit"), "{list}");
    assert!(list.contains("# fail (capability): "), "{list}");
    let again = run(&five, &["--expectations", known.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stdout));
    assert!(
        text(&again.stdout).contains(" xfail"),
        "{}",
        text(&again.stdout)
    );
}

#[test]
fn a_declaration_that_is_wrong_gets_a_harness_error_not_a_verdict() {
    // No tool that writes.
    let none = run(&["read", "crlf"], &[]);
    assert_eq!(none.status.code(), Some(2));
    let err = text(&none.stderr);
    assert!(
        err.contains("refuses declares no tool that writes (its features: read, crlf)"),
        "{err}"
    );
    assert!(none.stdout.is_empty(), "no verdict: {}", text(&none.stdout));
    // A tool declared, then denied.
    let out = tempfile::tempdir().unwrap();
    let denied = run(
        &["--unknown", "Write", "read", "edit", "write"],
        &["--report", out.path().to_str().unwrap()],
    );
    assert_eq!(denied.status.code(), Some(2), "{}", text(&denied.stdout));
    let err = text(&denied.stderr);
    assert!(
        err.contains("the implementation declares write but answered that it has no tool Write"),
        "{err}"
    );
    let json: Value = serde_json::from_str(&read(out.path(), "report.json")).unwrap();
    assert_eq!(json["certification"]["highest"], Value::Null);
    assert!(json["certification"]["note"]
        .as_str()
        .unwrap()
        .starts_with("No verdict: the implementation declares Write"));
    assert!(json["classes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["certified"]["core"] == false));
    // A gate that names no class or level is a usage error.
    for bad in ["bytes:core", "data:all", "implementation-defined"] {
        let r = run(&FIVE, &["--require", bad]);
        assert_eq!(r.status.code(), Some(2), "{bad}");
        assert!(text(&r.stderr).contains(bad), "{}", text(&r.stderr));
    }
}
