//! The harness against a scripted protocol-v1 adapter (`scripted_adapter.py`, standard-library
//! Python) that reads files the way some shipping tools do: without line numbers, declared in
//! its `hello` as `"read_format": "plain"`, and — for one file — with a lone surrogate escape in
//! its reply, valid JSON that strict decoders refuse. Each is judged in the tool's own terms:
//! the content that matches passes, the content that differs fails (as presentation), and the
//! lone surrogate is decoded and judged, never a crash.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

/// A corpus of Read cases in `dir`: (name, file text, expected Read content).
fn corpus(dir: &Path, cases: &[(&str, &str, &str)]) {
    std::fs::write(dir.join("VERSION"), "0.1.0\n").unwrap();
    std::fs::create_dir_all(dir.join("cases/read")).unwrap();
    for (name, text, content) in cases {
        let yaml = format!(
            "id: read/{name}\ntitle: a read\nspec: [READ-1]\nlevel: core\nrequires: [read]\n\
             since: \"0.1.0\"\nfiles:\n  {name}.txt: {{text: {text}}}\nsteps:\n  \
             - call: {{tool: Read, input: {{file_path: {name}.txt}}}}\n    \
             expect: {{ok: true, output: {{type: text, file: {{content: {content}}}}}}}\n"
        );
        std::fs::write(dir.join(format!("cases/read/{name}.yaml")), yaml).unwrap();
    }
}

/// Runs the harness on `dir`'s corpus against the scripted adapter; the report's JSON.
fn run(dir: &Path) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scripted_adapter.py");
    let out = Command::new(BIN)
        .arg("--impl")
        .arg(format!("python3 '{script}'"))
        .arg("--corpus")
        .arg(dir)
        .arg("--report")
        .arg(dir.join("out"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(dir.join("out/report.json")).unwrap()).unwrap()
}

/// The record of case `id` in a report.
fn case<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("no {id} in {report}"))
}

#[test]
fn a_plain_read_is_judged_without_prefixes() {
    let dir = tempfile::tempdir().unwrap();
    corpus(
        dir.path(),
        &[
            ("same", r#""a\nb\n""#, r#""1\ta\n2\tb""#),
            ("differs", r#""a\nb\n""#, r#""1\ta\n2\tc""#),
        ],
    );
    let report = run(dir.path());
    assert_eq!(report["implementation"]["read_format"], "plain");
    assert_eq!(case(&report, "read/same")["status"], "pass");
    let differs = case(&report, "read/differs");
    assert_eq!(differs["status"], "fail");
    assert_eq!(
        differs["failed_classes"],
        serde_json::json!(["presentation"])
    );
    assert_eq!(
        differs["actual"]["output"]["file"]["content"], "a\nb",
        "the reply is reported as the tool sent it"
    );
    // The run states certification per class, data first.
    let classes: Vec<&str> = report["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["class"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["data", "capability", "contract", "presentation"]);
    assert_eq!(report["classes"][0]["certified"]["core"], true);
    assert_eq!(report["classes"][3]["certified"]["core"], false);
    assert_eq!(report["certification"]["core"], false, "fail is still fail");
}

#[test]
fn a_lone_surrogate_in_a_reply_is_judged_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    corpus(
        dir.path(),
        &[
            // The adapter answers every Read of a file named lone*.txt with "\ud800".
            ("lone", r#""x\n""#, r#""1\tx""#),
            ("lone-replaced", r#""x\n""#, r#""1\t\uFFFD""#),
        ],
    );
    let report = run(dir.path());
    let lone = case(&report, "read/lone");
    assert_eq!(lone["status"], "fail", "{lone}");
    assert_eq!(lone["actual"]["output"]["file"]["content"], "\u{fffd}");
    assert_eq!(case(&report, "read/lone-replaced")["status"], "pass");
}
