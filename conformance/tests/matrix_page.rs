//! The committed matrix of the shipping tools (`docs/matrix/`, written by
//! `scripts/certify-peers`) in a real browser: headless Chromium opens `matrix.html`, and the
//! page must render with every tool that ran and every tool that could not, every area, its
//! chart inline, no script error and nothing fetched from the network. The same check guards a
//! matrix made from scratch out of the example adapters' reports, so the page's promises hold
//! for any set of reports, not only for the committed one.
//!
//! The browser and its driver are those of the HTML report test (`support/browser.rs`); the page
//! is read by `matrix_page.mjs`, which reports what it saw as JSON.

mod support;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::browser::{ensure_playwright, tool_dir, CHROMIUM};

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// What the browser saw of a matrix page.
fn open(page: &Path) -> Value {
    assert!(
        Path::new(CHROMIUM).is_file(),
        "the matrix page test needs Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    );
    let tools = tool_dir();
    ensure_playwright(&tools);
    let seen = Command::new("timeout")
        .args(["120", "node"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/matrix_page.mjs"
        ))
        .arg(page)
        .env("PLAYWRIGHT_DIR", &tools)
        .output()
        .expect("the matrix page test needs node");
    assert!(
        seen.status.success(),
        "the browser script failed: {}",
        String::from_utf8_lossy(&seen.stderr)
    );
    serde_json::from_slice(&seen.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&seen.stdout)))
}

/// The column names and areas the reports in `dir/*/report.json` (or the given files) hold.
fn expected(reports: &[PathBuf]) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut tools = BTreeSet::new();
    let mut areas = BTreeSet::new();
    for path in reports {
        let r: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let i = &r["implementation"];
        let label = match i["label"].as_str() {
            Some(l) => l.to_string(),
            None => format!(
                "{} {}",
                i["name"].as_str().unwrap_or(""),
                i["version"].as_str().unwrap_or("")
            ),
        };
        tools.insert(label);
        for c in r["cases"].as_array().unwrap() {
            areas.insert(c["area"].as_str().unwrap().to_string());
        }
    }
    (tools, areas)
}

fn assert_page(
    seen: &Value,
    tools: &BTreeSet<String>,
    areas: &BTreeSet<String>,
    not_run: &[String],
) {
    let text = seen["text"].as_str().unwrap_or("");
    assert_eq!(seen["title"], "editref conformance matrix");
    for t in tools.iter().chain(not_run) {
        assert!(text.contains(t.as_str()), "{t} is not on the page");
    }
    for a in areas {
        assert!(text.contains(a.as_str()), "area {a} is not on the page");
    }
    assert!(seen["tables"].as_u64().unwrap_or(0) >= 2, "{seen}");
    assert!(
        seen["charts"].as_u64().unwrap_or(0) >= 1,
        "the chart is inline: {seen}"
    );
    assert_eq!(
        seen["fetched"],
        Value::Array(vec![]),
        "nothing from the network"
    );
    assert_eq!(seen["errors"], Value::Array(vec![]), "no script error");
}

#[test]
fn the_committed_matrix_renders_with_every_tool_and_area() {
    let dir = repo().join("docs/matrix");
    let mut reports = Vec::new();
    let mut not_run = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("docs/matrix is committed") {
        let path = entry.unwrap().path();
        if path.join("report.json").is_file() {
            reports.push(path.join("report.json"));
        } else if path.join("not-run.txt").is_file() {
            not_run.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(
        reports.len() >= 8,
        "at least eight shipping tools certified: {reports:?}"
    );
    let (tools, areas) = expected(&reports);
    assert_page(&open(&dir.join("matrix.html")), &tools, &areas, &not_run);
    // The README shows the same matrix: its generated section names every tool.
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("<!-- matrix:begin -->")
        .nth(1)
        .and_then(|s| s.split("<!-- matrix:end -->").next())
        .unwrap_or("");
    for t in &tools {
        assert!(section.contains(t.as_str()), "README section lacks {t}");
    }
    assert!(section.contains("docs/matrix/matrix.svg"));
}

#[test]
fn a_matrix_made_from_scratch_renders_and_shows_a_tool_that_did_not_run() {
    let reports: Vec<PathBuf> = ["naive", "safe", "editref"]
        .iter()
        .map(|n| repo().join(format!("conformance/adapters/reports/{n}/report.json")))
        .collect();
    let out = tempfile::tempdir().unwrap();
    let made = Command::new(BIN)
        .arg("matrix")
        .args(&reports)
        .args([
            "--not-run",
            "Broken Tool: install failed (npm ERR! 404)",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let (tools, areas) = expected(&reports);
    let seen = open(&out.path().join("matrix.html"));
    assert_page(&seen, &tools, &areas, &["Broken Tool".to_string()]);
    assert!(seen["text"]
        .as_str()
        .unwrap_or("")
        .contains("install failed (npm ERR! 404)"));
}
