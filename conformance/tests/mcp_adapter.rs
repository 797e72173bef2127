//! The MCP client adapter (`--mcp`) against a scripted MCP server (`scripted_mcp_server.py`,
//! standard-library Python): tool names mapped with `--mcp-tools`, features derived from the
//! tool list or overridden, every result shape mapped to a reply, roots answered with the
//! sandbox, and a server that exits or hangs mid-case ending that case only.

use editref_conform::adapter::{Adapter, AdapterError, Reply};
use editref_conform::mcp::inputs::{ErrorRules, InputMap};
use editref_conform::mcp::mapping::ToolMap;
use editref_conform::mcp::Mcp;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

fn server_command() -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scripted_mcp_server.py");
    format!("python3 '{script}'")
}

fn mapped() -> ToolMap {
    ToolMap::parse("Edit=edit_file,Read=read_text_file").unwrap()
}

fn adapter(timeout: Duration) -> Mcp {
    Mcp::new(&server_command(), timeout, true)
        .unwrap()
        .with_tools(mapped())
}

fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let canonical = std::fs::canonicalize(dir.path()).unwrap();
    (dir, canonical)
}

fn how(a: &mut Mcp, tool: &str, how: &str) -> Result<Reply, AdapterError> {
    a.call(1, tool, &json!({"file_path": "a.txt", "how": how}))
}

#[test]
fn calls_go_to_the_mapped_tools_and_every_result_shape_becomes_a_reply() {
    let mut a = adapter(Duration::from_secs(20));
    let hello = a.hello().unwrap();
    assert_eq!(
        (hello.name.as_str(), hello.version.as_str()),
        ("scripted", "0.0.1")
    );
    assert_eq!(hello.features, ["read", "edit"], "only the tools it lists");

    let (_keep, dir) = sandbox();
    a.case_start("x/one", &dir).unwrap();
    assert_eq!(
        how(&mut a, "Edit", "plain").unwrap(),
        Reply::Ok(json!({"content": "done: edit_file"}))
    );
    assert_eq!(
        how(&mut a, "Read", "structured").unwrap(),
        Reply::Ok(json!({"tool": "read_text_file", "cwd": dir.to_str().unwrap()})),
        "structuredContent is the output; the server runs in the sandbox"
    );
    assert_eq!(
        how(&mut a, "Edit", "refuse").unwrap(),
        Reply::Err(json!({"code": "error", "message": "no such file"})),
        "isError without an error object: the text is the message"
    );
    assert_eq!(
        how(&mut a, "Edit", "refuse_structured").unwrap(),
        Reply::Err(json!({"code": "ambiguous", "message": "twice", "count": 2}))
    );
    assert_eq!(
        how(&mut a, "Read", "lone_surrogate").unwrap(),
        Reply::Ok(json!({"file": {"content": "1\t\u{fffd}"}})),
        "a lone surrogate escape is valid JSON: decoded (as U+FFFD), not a dropped message"
    );
    match how(&mut a, "Edit", "roots").unwrap() {
        Reply::Ok(out) => assert_eq!(
            out["roots"],
            json!([{"uri": format!("file://{}", dir.display())}]),
            "roots/list answers exactly the sandbox"
        ),
        other => panic!("{other:?}"),
    }
    for (tool, h) in [("Edit", "no-such-how"), ("Write", "plain")] {
        match how(&mut a, tool, h).unwrap() {
            Reply::Err(e) => {
                assert_eq!(e["code"], "protocol_error", "{e}");
                assert!(e["message"].as_str().unwrap().contains("-32602"), "{e}");
            }
            other => panic!("{tool}: {other:?}"),
        }
    }
    match a.call(1, "Edit", &json!(["not", "an", "object"])).unwrap() {
        Reply::Err(e) => assert_eq!(e["code"], "protocol_error", "{e}"),
        other => panic!("MCP arguments are an object: {other:?}"),
    }
    a.case_end().unwrap();
    a.shutdown();
}

#[test]
fn input_templates_rename_arguments_and_error_rules_name_codes() {
    let inputs = InputMap::parse(&[
        r#"Edit={"path":"$file_path","edits":[{"oldText":"$old_string","newText":"$new_string"}],"how":"$how"}"#
            .to_string(),
    ])
    .unwrap();
    let errors = ErrorRules::parse(&["file_not_found=no such file".to_string()]).unwrap();
    let mut a = adapter(Duration::from_secs(20))
        .with_inputs(inputs)
        .with_errors(errors);
    a.hello().unwrap();
    let (_keep, dir) = sandbox();
    a.case_start("x/templates", &dir).unwrap();
    let input = json!({"file_path": "a.txt", "old_string": "x", "new_string": "y",
                       "replace_all": false, "how": "echo"});
    assert_eq!(
        a.call(1, "Edit", &input).unwrap(),
        Reply::Ok(json!({"arguments": {"path": "a.txt",
            "edits": [{"oldText": "x", "newText": "y"}], "how": "echo"}})),
        "the server gets the template's arguments, and only those"
    );
    // A tool without a template gets the corpus input as it is.
    assert_eq!(
        a.call(2, "Read", &json!({"file_path": "a.txt", "how": "echo"}))
            .unwrap(),
        Reply::Ok(json!({"arguments": {"file_path": "a.txt", "how": "echo"}}))
    );
    assert_eq!(
        how(&mut a, "Edit", "refuse").unwrap(),
        Reply::Err(json!({"code": "file_not_found", "message": "no such file"})),
        "an error given only as text gets the code its rule names"
    );
    assert_eq!(
        how(&mut a, "Edit", "refuse_structured").unwrap(),
        Reply::Err(json!({"code": "ambiguous", "message": "twice", "count": 2})),
        "a server's own code is never relabelled"
    );
    a.case_end().unwrap();
    a.shutdown();
}

#[test]
fn features_come_from_the_names_the_server_lists_unless_overridden() {
    let mut plain = Mcp::new(&server_command(), Duration::from_secs(20), true).unwrap();
    assert!(
        plain.hello().unwrap().features.is_empty(),
        "without --mcp-tools it offers none of the corpus tools"
    );
    let mut declared = adapter(Duration::from_secs(20)).with_features(vec![
        "read".into(),
        "edit".into(),
        "crlf".into(),
    ]);
    assert_eq!(declared.hello().unwrap().features, ["read", "edit", "crlf"]);
}

fn expect_failure(r: Result<Reply, AdapterError>) -> AdapterError {
    match r {
        Err(e) => e,
        Ok(reply) => panic!("expected a crash or timeout, got {reply:?}"),
    }
}

fn next_case_still_runs(a: &mut Mcp, dir: &Path) {
    a.case_start("x/next", dir).unwrap();
    assert_eq!(
        how(a, "Edit", "plain").unwrap(),
        Reply::Ok(json!({"content": "done: edit_file"}))
    );
    a.case_end().unwrap();
}

#[test]
fn a_server_that_exits_mid_case_crashes_that_case_only() {
    let mut a = adapter(Duration::from_secs(20));
    a.hello().unwrap();
    let (_keep, dir) = sandbox();
    a.case_start("x/exit", &dir).unwrap();
    match expect_failure(how(&mut a, "Edit", "exit")) {
        AdapterError::Crash(m) => assert!(m.contains("call 1 (Edit)"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(
        a.take_stderr().contains("exiting mid-call"),
        "the server's stderr goes into the case record"
    );
    next_case_still_runs(&mut a, &dir);
}

#[test]
fn a_server_that_does_not_answer_times_out_and_is_replaced() {
    // Starting a server gets the adapter's whole limit, which a busy machine never reaches;
    // the hanging call is held to the case's cap, far below the server's two-minute hang.
    let mut a = adapter(Duration::from_secs(60));
    a.hello().unwrap();
    let (_keep, dir) = sandbox();
    a.case_start("x/hang", &dir).unwrap();
    a.set_case_timeout(Some(Duration::from_secs(1)));
    assert!(matches!(
        expect_failure(how(&mut a, "Edit", "hang")),
        AdapterError::Timeout(_)
    ));
    a.set_case_timeout(None);
    next_case_still_runs(&mut a, &dir);
}

/// Writes a two-case corpus: the first case's server exits mid-call, the second passes.
fn corpus(root: &Path) -> PathBuf {
    let cases = root.join("conformance/cases/edit");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::write(root.join("conformance/VERSION"), "0.1.0\n").unwrap();
    let case = |id: &str, how: &str, expect: &str| {
        format!(
            "id: edit/{id}\ntitle: t\nspec: [EDIT-1]\nlevel: core\nrequires: [edit]\n\
             since: \"0.1.0\"\nfiles:\n  a.txt: {{text: \"one\\n\"}}\nsteps:\n  - call:\n      \
             tool: Edit\n      input: {{file_path: a.txt, how: {how}}}\n    expect: {expect}\n"
        )
    };
    let exits = case("a-exit", "exit", "{ok: true}");
    let passes = case(
        "b-next",
        "plain",
        "{ok: true, output: {content: \"done: edit_file\"}}",
    );
    std::fs::write(cases.join("a-exit.yaml"), exits).unwrap();
    std::fs::write(cases.join("b-next.yaml"), passes).unwrap();
    root.join("conformance")
}

#[test]
fn the_command_line_certifies_an_mcp_server() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let report = dir.path().join("out");
    let out = Command::new(BIN)
        .args(["--mcp", &server_command(), "--mcp-tools", "Edit=edit_file"])
        .args(["--quiet", "--corpus"])
        .arg(&corpus)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a core crash: {stderr}");
    let r: Value =
        serde_json::from_slice(&std::fs::read(report.join("report.json")).unwrap()).unwrap();
    assert_eq!(r["implementation"]["name"], "scripted");
    assert_eq!(r["implementation"]["features"], json!(["edit"]));
    let statuses: Vec<(&str, &str)> = r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [("edit/a-exit", "crash"), ("edit/b-next", "pass")]
    );

    for bad in [
        vec!["--mcp", "x", "--builtin"],
        vec!["--mcp", "x", "--impl", "y"],
        vec!["--builtin", "--mcp-tools", "Edit=e"],
        vec!["--mcp", "x", "--mcp-tools", "Bash=bash"],
    ] {
        let out = Command::new(BIN).args(&bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}
