//! The GitHub Action's entry script (`scripts/conform-action`, what `action.yml` runs) driven
//! as the action drives it — inputs as `INPUT_*` variables, `GITHUB_OUTPUT` and
//! `GITHUB_STEP_SUMMARY` files — against the naive example adapter and the scripted MCP server.
//! The exit code, the outputs and the reports must agree with the harness's own report.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root: the naive adapter's command is given relative to it, as a user's
/// workflow gives its own adapter relative to its checkout.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

struct Action {
    code: i32,
    outputs: BTreeMap<String, String>,
    summary: String,
    stderr: String,
}

/// Runs the entry script with `inputs` (names without the `INPUT_` prefix) and a fresh
/// `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`.
fn action(inputs: &[(&str, &str)], work: &Path) -> Action {
    let output = work.join("github-output");
    let summary = work.join("step-summary");
    let mut cmd = Command::new(root().join("scripts/conform-action"));
    cmd.current_dir(root())
        .env("EDITREF_CONFORM", env!("CARGO_BIN_EXE_editref-conform"))
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary);
    for var in [
        "INPUT_IMPL",
        "INPUT_MCP",
        "INPUT_MCP_TOOLS",
        "INPUT_MCP_FEATURES",
        "INPUT_LEVEL",
        "INPUT_REQUIRE",
        "INPUT_ONLY",
        "INPUT_EXPECTATIONS",
        "INPUT_REPORT_DIR",
    ] {
        cmd.env_remove(var);
    }
    for (name, value) in inputs {
        cmd.env(format!("INPUT_{name}"), value);
    }
    let out = cmd.output().expect("the entry script runs");
    let outputs = std::fs::read_to_string(&output)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Action {
        code: out.status.code().unwrap_or(-1),
        outputs,
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("report.json is JSON")
}

#[test]
fn a_failing_adapter_fails_the_step_and_the_outputs_match_the_report() {
    let work = tempfile::tempdir().unwrap();
    let reports = work.path().join("reports");
    let a = action(
        &[
            ("IMPL", "python3 conformance/adapters/naive.py"),
            ("LEVEL", "core"),
            ("ONLY", "unique, eol"),
            ("REPORT_DIR", reports.to_str().unwrap()),
        ],
        work.path(),
    );
    assert_eq!(a.code, 1, "{}", a.stderr);
    let r = report(&reports);
    let totals = &r["totals"];
    assert!(totals["fail"].as_u64().unwrap_or(0) > 0, "{r}");
    assert_eq!(a.outputs["exit-code"], "1");
    for key in ["pass", "fail", "skip", "crash", "timeout"] {
        assert_eq!(a.outputs[key], totals[key].to_string(), "{key}");
    }
    assert_eq!(a.outputs["certified"], "none");
    assert_eq!(a.outputs["report-dir"], reports.to_str().unwrap());
    // The verdict comes first, per class, for the tools the adapter offers.
    assert_eq!(a.outputs["verdict"], r["verdict"].as_str().unwrap());
    assert!(
        a.outputs["verdict"].starts_with("Not certified for Read, Edit, Write"),
        "{:?}",
        a.outputs
    );
    for class in ["data", "capability", "contract", "presentation"] {
        let want = r["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["class"] == class)
            .unwrap()["certified"]["highest"]
            .as_str()
            .unwrap_or("none")
            .to_string();
        assert_eq!(a.outputs[class], want, "{class}");
    }
    assert_eq!(a.outputs["data"], "none", "the naive tool damages files");
    assert_eq!(a.outputs["surface"], "Read, Edit, Write");
    // Only the selected areas ran, at the selected level.
    for case in r["cases"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        assert!(id.starts_with("unique/") || id.starts_with("eol/"), "{id}");
        assert_eq!(case["level"], "core", "{id}");
    }
    // The job summary is the run's summary.md, and the JUnit file is there to upload.
    let summary = std::fs::read_to_string(reports.join("summary.md")).unwrap();
    assert_eq!(a.summary, summary);
    assert!(reports.join("junit.xml").is_file());
}

#[test]
fn known_failures_listed_in_expectations_keep_the_step_green() {
    let work = tempfile::tempdir().unwrap();
    let first = work.path().join("first");
    let inputs = [
        ("IMPL", "python3 conformance/adapters/naive.py"),
        ("LEVEL", "core"),
        ("ONLY", "unique"),
    ];
    let mut with_dir = inputs.to_vec();
    with_dir.push(("REPORT_DIR", first.to_str().unwrap()));
    assert_eq!(action(&with_dir, work.path()).code, 1);
    // Every case that did not pass becomes a known failure.
    let listed: Vec<String> = report(&first)["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| ["fail", "crash", "timeout"].contains(&c["status"].as_str().unwrap_or("")))
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!listed.is_empty());
    let known = work.path().join("known-failures.txt");
    std::fs::write(&known, format!("# naive\n{}\n", listed.join("\n"))).unwrap();
    let second = work.path().join("second");
    let mut with_known = inputs.to_vec();
    with_known.push(("REPORT_DIR", second.to_str().unwrap()));
    with_known.push(("EXPECTATIONS", known.to_str().unwrap()));
    let a = action(&with_known, work.path());
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(a.outputs["exit-code"], "0");
    assert_eq!(a.outputs["fail"], "0");
    assert_eq!(
        report(&second)["totals"]["xfail"].as_u64(),
        Some(listed.len() as u64)
    );
    // Requiring a level the run does not certify fails the step again, and so does a gate on
    // the class the naive tool breaks; a class it keeps passes its gate.
    let gate = |g: &'static str| {
        let mut inputs = with_known.clone();
        inputs.push(("REQUIRE", g));
        action(&inputs, work.path()).code
    };
    assert_eq!(gate("core"), 1);
    assert_eq!(gate("data:core"), 1);
    assert_eq!(gate("presentation:core, capability:core"), 0);
    assert_eq!(gate("data:often"), 2, "an unknown level is a usage error");
}

#[test]
fn an_mcp_server_is_certified_through_the_mcp_inputs() {
    let work = tempfile::tempdir().unwrap();
    let reports = work.path().join("reports");
    let server = format!(
        "python3 {}/tests/scripted_mcp_server.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let a = action(
        &[
            ("MCP", server.as_str()),
            ("MCP_TOOLS", "Edit=edit_file"),
            ("ONLY", "unique"),
            ("REPORT_DIR", reports.to_str().unwrap()),
        ],
        work.path(),
    );
    assert!(a.code == 0 || a.code == 1, "{}", a.stderr);
    let r = report(&reports);
    assert_eq!(a.outputs["exit-code"], a.code.to_string());
    assert_eq!(a.outputs["pass"], r["totals"]["pass"].to_string());
    let features = r["implementation"]["features"].as_array().unwrap();
    assert!(features.contains(&Value::from("edit")), "{features:?}");
}

#[test]
fn exactly_one_of_impl_and_mcp_is_a_usage_rule() {
    let work = tempfile::tempdir().unwrap();
    for inputs in [vec![], vec![("IMPL", "python3 a.py"), ("MCP", "server")]] {
        let a = action(&inputs, work.path());
        assert_eq!(a.code, 2, "{inputs:?}");
        assert!(a.stderr.contains("exactly one of"), "{}", a.stderr);
        assert!(a.outputs.is_empty(), "{:?}", a.outputs);
    }
}
