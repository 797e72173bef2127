//! `editref mcp` against the official Python MCP SDK: the client checks in
//! `tests/mcp/client_test.py` run over stdio and streamable HTTP against the built binary.
//!
//! The SDK is installed, pinned, into a virtual environment under the target directory the
//! first time (never into the system's Python). If it cannot be installed the test fails and
//! says why: a server nobody tested against a real client is not a passing test.

#![cfg(feature = "mcp")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Python MCP SDK the server is tested with.
const MCP_SDK: &str = "2.3.0";
/// Upper bound for creating the environment and installing the SDK, in seconds.
const INSTALL_TIMEOUT: &str = "600";

fn venv_dir() -> PathBuf {
    // CARGO_TARGET_TMPDIR is <target>/tmp; the environment lives beside it, reused across runs.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join("mcp-venv")
}

fn shown(out: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs a set-up step under `timeout`, failing the test with its output if it fails.
fn step(what: &str, args: &[&str]) {
    let out = Command::new("timeout")
        .arg(INSTALL_TIMEOUT)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not run {}: {e}", args[0]));
    assert!(
        out.status.success(),
        "{what} failed ({}); the MCP client tests need Python 3 with venv and pip, and the \
         package index reachable.\n{}",
        out.status,
        shown(&out)
    );
}

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
        &["python3", "-m", "venv", &venv_str],
    );
    let python_str = python.to_string_lossy().into_owned();
    let pinned = format!("mcp=={MCP_SDK}");
    step(
        &format!("installing the Python MCP SDK ({pinned})"),
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "MCP client checks failed ({})\n{}",
        out.status,
        shown(&out)
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.ends_with(" 0 failed") && !last.starts_with("0 passed"),
        "unexpected summary: {last}"
    );
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tool 'Bash'"));
}
