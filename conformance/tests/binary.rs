//! The harness as its own program: `editref-conform --builtin` certifies the reference on a
//! slice of the built-in corpus and writes its reports, exactly as `editref conform` does.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

#[test]
fn builtin_run_of_one_area_passes_and_writes_the_reports() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(BIN)
        .args(["--builtin", "--only", "eol/*", "--quiet", "--report"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(
        status.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("report.json")).unwrap()).unwrap();
    let cases = report["cases"].as_array().unwrap();
    let on_disk = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/cases/eol"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".yaml"))
        })
        .count();
    assert_eq!(cases.len(), on_disk, "every eol case ran");
    assert!(cases
        .iter()
        .all(|c| c["id"].as_str().unwrap().starts_with("eol/")));
    assert_eq!(report["totals"]["pass"].as_u64(), Some(on_disk as u64));
    for name in ["junit.xml", "report.tap", "summary.md"] {
        assert!(out.path().join(name).is_file(), "{name} written");
    }
}

#[test]
fn usage_errors_exit_2() {
    let status = Command::new(BIN).arg("--no-such-flag").output().unwrap();
    assert_eq!(status.status.code(), Some(2));
}
