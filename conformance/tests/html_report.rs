//! The HTML report in a real browser: a run writes `report.html`, headless Chromium opens it,
//! and the page must render (heading, certification, one row per case, no script error, nothing
//! fetched) and its filters must change which rows are visible.
//!
//! The browser is Debian's Chromium at `/usr/bin/chromium` (`apt-get install chromium`), driven
//! by `playwright-core`, pinned, which this test installs with npm into
//! `target/html-report-test` on first run (it needs `node`, `npm` and the package index). The
//! page is checked by `html_report.mjs`, which reports what it saw as JSON; the assertions are
//! here.

mod support;

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use support::browser::{ensure_playwright, tool_dir, CHROMIUM};

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");
/// A corpus of five cases in three areas: a core case that loses data, one whose reply breaks
/// the contract, one difference, two passes.
fn corpus(dir: &Path) {
    std::fs::write(dir.join("VERSION"), "0.1.0\n").unwrap();
    let case = |id: &str, level: &str, expect: &str, after: &str| {
        let file = dir.join("cases").join(format!("{id}.yaml"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            file,
            format!(
                "id: {id}\ntitle: Edit of <{id}>\nspec: [EDIT-1, MATCH-3]\nlevel: {level}\nrequires: [read, edit]\nsince: \"0.1.0\"\n\
                 files:\n  a.txt: {{text: \"one\\n\"}}\nsteps:\n  - call: {{tool: Read, input: {{file_path: a.txt}}}}\n  \
                 - call: {{tool: Edit, input: {{file_path: a.txt, old_string: one, new_string: \"1\"}}}}\n    expect: {expect}\n\
                 expect_files:\n  a.txt: {{text: \"{after}\\n\"}}\n"
            ),
        )
        .unwrap();
    };
    case("edit/fails", "core", "{error: ambiguous}", "1");
    case("edit/passes", "core", "{ok: true}", "1");
    case(
        "eol/differs",
        "implementation-defined",
        "{error: ambiguous}",
        "1",
    );
    case("eol/passes", "extended", "{ok: true}", "1");
    // The file the case expects is not the one the edit leaves: a data failure, listed first
    // although its id sorts last.
    case("zone/loses-bytes", "core", "{ok: true}", "2");
}

#[test]
fn the_report_renders_and_its_filters_work_in_chromium() {
    assert!(
        Path::new(CHROMIUM).is_file(),
        "the HTML report test needs Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    );
    let tools = tool_dir();
    ensure_playwright(&tools);
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let out = dir.path().join("out");
    let run = Command::new(BIN)
        .args(["--builtin", "-q", "--corpus"])
        .arg(dir.path())
        .arg("--report")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let seen = Command::new("timeout")
        .args(["120", "node"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/html_report.mjs"
        ))
        .arg(out.join("report.html"))
        .env("PLAYWRIGHT_DIR", &tools)
        .output()
        .expect("the HTML report test needs node");
    assert!(
        seen.status.success(),
        "the browser script failed: {}",
        String::from_utf8_lossy(&seen.stderr)
    );
    let v: Value = serde_json::from_slice(&seen.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&seen.stdout)));
    let ids = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap_or_else(|| panic!("{k} in {v}"))
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };

    assert_eq!(v["title"], "Conformance: editref 0.1.0");
    assert_eq!(v["heading"], "Conformance: editref 0.1.0");
    // The verdict leads: for the tools offered, each class, data first.
    let verdict = v["certification"].as_str().unwrap();
    assert!(
        verdict.starts_with("Not certified for Read, Edit, MultiEdit, Write, NotebookEdit,"),
        "{verdict}"
    );
    assert!(
        verdict.contains(
            " — data: not certified; capability: certified extended; contract: not certified;"
        ),
        "{verdict}"
    );
    assert_eq!(
        v["errors"],
        serde_json::json!([]),
        "no script error, nothing fetched"
    );
    assert_eq!(v["rows"], 5);
    // Failures first, data failures before the rest: the page opens on the cases to look at,
    // the gravest first.
    assert_eq!(
        ids("initial"),
        ["zone/loses-bytes", "edit/fails", "eol/differs"]
    );
    assert_eq!(v["initialShown"], "3");
    assert_eq!(
        ids("all"),
        [
            "zone/loses-bytes",
            "edit/fails",
            "eol/differs",
            "edit/passes",
            "eol/passes"
        ]
    );
    assert_eq!(v["allShown"], "5");
    assert_eq!(ids("eol"), ["eol/differs", "eol/passes"]);
    assert_eq!(ids("differs"), ["eol/differs"]);
    assert_eq!(ids("coreFailing"), ["zone/loses-bytes", "edit/fails"]);
    assert_eq!(v["detailsOpenBefore"], false);
    assert_eq!(v["detailsSummary"], "Edit of <zone/loses-bytes>");
    let details = v["detailsText"].as_str().unwrap();
    for needle in [
        "rules",
        "EDIT-1, MATCH-3",
        "cases/zone/loses-bytes.yaml",
        "a.txt: text \"one\\n\"",
        "expected",
    ] {
        assert!(details.contains(needle), "{needle} not in {details}");
    }
    // The class filter: the failures of one class, whatever else a case failed.
    assert_eq!(ids("data"), ["zone/loses-bytes"]);
    assert_eq!(v["dataShown"], "1");
    assert_eq!(ids("contract"), ["edit/fails", "eol/differs"]);
    assert_eq!(ids("presentation"), Vec::<String>::new());
}
