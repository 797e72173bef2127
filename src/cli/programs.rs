//! The subcommands for programs: `call` (one JSON call), `mcp` (the MCP server) and
//! `conform` (the conformance harness, another binary).

use super::{current_dir, one_shot_session, usage, UndoFlags};
use editref::{CallOutput, Config, Session, ToolError};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// `editref mcp`: the MCP server, on stdio or (loopback only) streamable HTTP.
#[cfg(feature = "mcp")]
pub fn mcp(
    roots: Vec<PathBuf>,
    tools: &str,
    http: Option<std::net::SocketAddr>,
    no_fsync: bool,
    undo: &UndoFlags,
) -> ExitCode {
    use editref::mcp;
    let mut options = mcp::Options::new(current_dir());
    options.roots = roots;
    options.fsync = !no_fsync;
    options.undo = undo.place();
    if let Err(e) = options.select_tools(tools) {
        return usage(&e);
    }
    let served = match http {
        Some(addr) if !mcp::http::allowed(&addr) => {
            return usage(&format!(
                "--http {addr}: only loopback addresses (127.0.0.1, [::1]) are served; the server has no authentication"
            ))
        }
        Some(addr) => mcp::run_http(options, addr),
        None => mcp::run_stdio(options),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("editref mcp: {e}");
            ExitCode::from(1)
        }
    }
}

/// `editref call`: one JSON call on stdin, the JSON result on stdout; optionally a persistent
/// read state so that shell-driven agents get read-before-write and staleness checks.
pub fn call(
    state: Option<PathBuf>,
    cwd: Option<PathBuf>,
    root: Option<PathBuf>,
    no_fsync: bool,
    undo: &UndoFlags,
) -> ExitCode {
    let reply = |v: Value, code: u8| answered(write_line(&v), code);
    // Parsed straight from stdin, never held as text: a string with escapes is built in the
    // parser's scratch buffer and then copied into the value, so holding the text as well
    // would make three copies of a many-megabyte call at once (PATH-4's memory bound).
    let stdin = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut request: Value = match serde_json::from_reader(stdin) {
        Ok(v) => v,
        Err(e) if e.is_io() => {
            return usage(&format!("could not read the call from stdin: {e}"));
        }
        Err(e) => {
            let err = ToolError::invalid_input(format!("the call is not valid JSON: {e}"));
            return reply(json!({"ok": false, "error": err.to_json()}), 1);
        }
    };
    // The input is taken out of the call, not copied: it may be many megabytes.
    let input = request.get_mut("input").map(Value::take);
    let (Some(tool), Some(input)) = (request.get("tool").and_then(Value::as_str), input) else {
        let err = ToolError::invalid_input("the call must be {\"tool\": NAME, \"input\": {...}}");
        return reply(json!({"ok": false, "error": err.to_json()}), 1);
    };
    let cwd = cwd.unwrap_or_else(current_dir);
    let session = match &state {
        None => one_shot_session(root, cwd, no_fsync, undo),
        Some(_) => {
            let mut config = Config::new(&cwd);
            config.undo = undo
                .place()
                .config_for(&super::journal_root(root.as_deref(), &cwd));
            config.root = root;
            config.fsync = !no_fsync;
            Session::new(config)
        }
    };
    let lock = match &state {
        Some(path) => match editref::session::file::open(path) {
            Ok(f) => {
                session.set_read_state(f.state.clone());
                Some(f)
            }
            Err(e) => {
                let err = ToolError::io(
                    &format!("Could not open the session file {}", path.display()),
                    &e,
                );
                return reply(json!({"ok": false, "error": err.to_json()}), 1);
            }
        },
        None => None,
    };
    let result = session.call_output(tool, input);
    if let Some(mut f) = lock {
        f.state = session.read_state();
        if let Err(e) = f.save() {
            eprintln!("editref: could not save the session file: {e}");
        }
    }
    match result {
        Ok(output) => answered(write_success(&output), 0),
        Err(e) => reply(json!({"ok": false, "error": e.to_json()}), 1),
    }
}

/// The exit code of a call whose answer was written with `written`: the call's own `code`, also
/// when the reader had already gone (a closed pipe — the caller no longer wants the answer, and
/// the code still says whether the call did its work), else 1 with a word on stderr.
fn answered(written: std::io::Result<()>, code: u8) -> ExitCode {
    match written {
        Ok(()) => ExitCode::from(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(code),
        Err(e) => {
            eprintln!("editref: could not write the result: {e}");
            ExitCode::from(1)
        }
    }
}

/// Writes one JSON value and a line break to stdout.
fn write_line(v: &Value) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{v}")?;
    out.flush()
}

/// `{"ok": true, "output": …}`, the line `editref call` answers a call that succeeded with.
#[derive(Serialize)]
struct Success<'a> {
    ok: bool,
    output: &'a CallOutput,
}

/// Writes the answer to a call that succeeded, straight from the typed output, through a large
/// buffer: a result of many megabytes leaves in a few large writes, without a JSON tree of it
/// built first (the same bytes as that tree printed).
fn write_success(output: &CallOutput) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    serde_json::to_writer(&mut out, &Success { ok: true, output })?;
    out.write_all(b"\n")?;
    out.flush()
}

/// `editref conform …` runs the conformance harness, `editref-conform`, with the same arguments.
///
/// The harness is its own crate (it depends on this library for `--builtin`, so this binary
/// cannot link it without a cycle); like `git` and `cargo` subcommands, it is looked up next to
/// this executable first — where `cargo build` and `cargo install` put it — then on `PATH`.
pub fn conform(args: &[String]) -> ExitCode {
    use std::os::unix::process::CommandExt;
    const NAME: &str = "editref-conform";
    let beside = std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name(NAME))
        .filter(|p| p.is_file());
    let program = beside.unwrap_or_else(|| PathBuf::from(NAME));
    let err = std::process::Command::new(&program).args(args).exec();
    if err.kind() == std::io::ErrorKind::NotFound {
        usage(&format!(
            "the conformance harness ({NAME}) is not installed next to this binary or on PATH. \
             Build it with `cargo build --release -p {NAME}` in a clone of editref, or install it \
             with `cargo install --locked --path conformance`."
        ))
    } else {
        usage(&format!("could not start {}: {err}", program.display()))
    }
}
