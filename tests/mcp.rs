//! `editref mcp` against the official MCP SDKs: the Python client checks in
//! `tests/mcp/client_test.py` (and the `checks_*.py` beside it) and the TypeScript client
//! checks in `tests/mcp/ts_client_test.mjs` run over stdio and streamable HTTP against the
//! built binary.
//!
//! Each SDK is installed, pinned, under the target directory the first time — the Python one
//! into a virtual environment (`target/mcp-venv`), the TypeScript one with npm
//! (`target/mcp-node`) — never into the system. If one cannot be installed its test fails and
//! says why: a server nobody tested against a real client is not a passing test.

#![cfg(feature = "mcp")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Python MCP SDK the server is tested with.
const MCP_SDK: &str = "2.3.0";
/// The TypeScript MCP SDK (npm `@modelcontextprotocol/sdk`) the server is tested with.
const TS_SDK: &str = "1.32.2";
/// Upper bound for creating the environment and installing an SDK, in seconds.
const INSTALL_TIMEOUT: &str = "600";

/// `<target>/NAME`: CARGO_TARGET_TMPDIR is `<target>/tmp`; the SDKs live beside it, reused
/// across runs.
fn in_target(name: &str) -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join(name)
}

fn venv_dir() -> PathBuf {
    in_target("mcp-venv")
}

fn shown(out: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs a set-up step under `timeout`, failing the test with its output if it fails; `needs`
/// says what the step needs from the machine.
fn step(what: &str, needs: &str, args: &[&str]) {
    let out = Command::new("timeout")
        .arg(INSTALL_TIMEOUT)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not run {}: {e}", args[0]));
    assert!(
        out.status.success(),
        "{what} failed ({}); {needs}.\n{}",
        out.status,
        shown(&out)
    );
}

const PYTHON_NEEDS: &str = "the MCP client tests need Python 3 with venv and pip (Debian: \
                            python3-venv), and the package index reachable";
const NODE_NEEDS: &str = "the TypeScript client test needs Node.js 18 or later and npm (Debian: \
                          nodejs, npm), and the npm registry reachable";

/// The environment's Python, with the pinned SDK installed.
fn python_with_sdk() -> PathBuf {
    let venv = venv_dir();
    let python = venv.join("bin").join("python");
    let installed = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == MCP_SDK)
        .unwrap_or(false);
    if installed {
        return python;
    }
    let venv_str = venv.to_string_lossy().into_owned();
    step(
        "creating the virtual environment",
        PYTHON_NEEDS,
        &["python3", "-m", "venv", &venv_str],
    );
    let python_str = python.to_string_lossy().into_owned();
    let pinned = format!("mcp=={MCP_SDK}");
    step(
        &format!("installing the Python MCP SDK ({pinned})"),
        PYTHON_NEEDS,
        &[
            &python_str,
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            "--timeout",
            "60",
            "--retries",
            "2",
            &pinned,
        ],
    );
    python
}

/// `node`, checked to be there, and the `node_modules` directory holding the pinned
/// TypeScript SDK.
fn node_with_sdk() -> PathBuf {
    let version = Command::new("node").arg("--version").output();
    let Ok(version) = version.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()) else {
        panic!("node was not found; {NODE_NEEDS}");
    };
    let prefix = in_target("mcp-node");
    let modules = prefix.join("node_modules");
    let package = modules.join("@modelcontextprotocol/sdk/package.json");
    let installed = std::fs::read_to_string(&package)
        .ok()
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .is_some_and(|p| p["version"] == TS_SDK);
    if !installed {
        let prefix_str = prefix.to_string_lossy().into_owned();
        let pinned = format!("@modelcontextprotocol/sdk@{TS_SDK}");
        step(
            &format!("installing the TypeScript MCP SDK ({pinned}) with node {version}"),
            NODE_NEEDS,
            &[
                "npm",
                "install",
                "--prefix",
                &prefix_str,
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--fetch-timeout",
                "60000",
                &pinned,
            ],
        );
    }
    modules
}

/// Runs a client script's checks and asserts its closing `N passed, 0 failed` line.
fn assert_checks_pass(what: &str, out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{what} failed ({})\n{}",
        out.status,
        shown(out)
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.ends_with(" 0 failed") && !last.starts_with("0 passed"),
        "unexpected summary: {last}"
    );
}

/// The TypeScript SDK's Client checks each `structuredContent` against the tool's
/// `outputSchema` and throws when it does not match: its checks show that results match their
/// schemas and that refusals reach it as results (MCP-3), over stdio and HTTP.
#[test]
fn the_typescript_sdk_client_checks_pass() {
    let modules = node_with_sdk();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/ts_client_test.mjs");
    // Every server the script starts keeps its undo journals here (UNDO-7).
    let state = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ts-state");
    let out = Command::new("node")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_editref"))
        .arg(&modules)
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap_or_else(|e| panic!("could not run {}: {e}", script.display()));
    assert_checks_pass("TypeScript MCP client checks", &out);
}

#[test]
fn the_python_sdk_client_checks_pass() {
    let python = python_with_sdk();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client_test.py");
    // The script gives every server it starts a state directory of its own (UNDO-7); this one
    // covers anything else it runs.
    let state = Path::new(env!("CARGO_TARGET_TMPDIR")).join("state");
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_editref"))
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap_or_else(|e| panic!("could not run {}: {e}", script.display()));
    assert_checks_pass("Python MCP client checks", &out);
}

/// The server acts with the rights of whoever runs it and has no authentication: it serves
/// loopback addresses only, and says so with a usage error (exit 2) before binding anything.
#[test]
fn http_refuses_non_loopback_addresses() {
    for addr in ["0.0.0.0:8765", "[::]:8765", "192.0.2.1:8765"] {
        let out = Command::new(env!("CARGO_BIN_EXE_editref"))
            .args(["mcp", "--http", addr])
            .output()
            .expect("run editref");
        assert_eq!(out.status.code(), Some(2), "{addr}: {}", shown(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("only loopback addresses"),
            "{addr}: {stderr}"
        );
    }
}

#[test]
fn unknown_tools_are_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_editref"))
        .args(["mcp", "--tools", "Read,Bash"])
        .output()
        .expect("run editref");
    assert_eq!(out.status.code(), Some(2), "{}", shown(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown tool 'Bash'"), "{stderr}");
    // The text editor's older name is a known one.
    assert!(stderr.contains("str_replace_editor"), "{stderr}");
}
