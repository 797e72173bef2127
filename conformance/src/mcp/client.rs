//! One MCP connection to a server under test: the server started with `sh -c COMMAND` in a
//! directory, initialized by the official Rust SDK (`rmcp`) as a client whose only root is that
//! directory, then asked for its tools and sent tool calls, each bounded by a timeout. The
//! server's stdout reaches the SDK through a filter that mends lone surrogate escapes, which the
//! SDK's JSON decoder would otherwise refuse.
//!
//! The SDK is async; the harness is not. The adapter owns a small tokio runtime and blocks on
//! each step here. The server runs in its own process group, so a server that hangs or leaves
//! helpers behind is killed whole; its stderr is copied by a plain thread into a shared buffer
//! (the last [`MAX_STDERR`] bytes are kept), so nothing depends on the runtime being polled.

// Roots are deprecated in the newest protocol revision, but the revisions with `initialize`
// have them, and they are how a client tells a file server which directory it may touch.
#![allow(deprecated)]

use crate::subprocess::MAX_STDERR;
use rmcp_client::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    JsonObject, ListRootsResult, ProtocolVersion, Root, RootsCapabilities,
};
use rmcp_client::service::{RequestContext, RunningService, ServiceError};
use rmcp_client::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::runtime::Runtime;

/// How long a closed server's stderr may take to reach its end.
const STDERR_DRAIN: Duration = Duration::from_secs(2);

/// The client side of one connection: it names the harness and answers `roots/list` with the
/// one directory the server works in.
pub struct SandboxClient {
    root: String,
}

impl ClientHandler for SandboxClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.roots = Some(RootsCapabilities::default());
        // The newest revision drops roots; the latest one with `initialize` still has them.
        ClientConfig::new(
            capabilities,
            Implementation::new("editref conform", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new(self.root.clone())]))
    }
}

/// How a step with the server went wrong, before the adapter turns it into a case status.
#[derive(Debug)]
pub enum Failure {
    /// The server closed the connection, could not be started or broke the protocol.
    Crash(String),
    /// No answer within the timeout.
    Timeout,
    /// The server answered the call with a JSON-RPC error.
    Protocol(String),
}

impl Connection {
    /// The server's process id, which leads its process group.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }
}

/// A running server and the client connected to it.
pub struct Connection {
    service: RunningService<RoleClient, SandboxClient>,
    pid: Option<u32>,
    /// Closed by the stderr thread once it has copied everything (EOF).
    stderr_done: Option<Receiver<()>>,
    /// The server process, held so it is reaped (and killed, should it outlive the
    /// connection).
    _child: tokio::process::Child,
}

/// The `file://` URI of an absolute directory, percent-encoding every byte but the unreserved
/// ones and `/`.
pub fn file_uri(dir: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file://");
    for &b in dir.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Copies `from` into `into` until EOF, keeping the tail; `_done` is dropped at the end.
fn copy_stderr(mut from: impl Read, into: Arc<Mutex<Vec<u8>>>, _done: Sender<()>) {
    let mut buf = [0u8; 8192];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let Ok(mut kept) = into.lock() else { return };
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > MAX_STDERR {
                    let excess = kept.len() - MAX_STDERR;
                    kept.drain(..excess);
                }
            }
        }
    }
}

impl Connection {
    /// Starts `command` in `dir`, initializes within `timeout`. `stderr` receives what the
    /// server writes there (`None`: it goes to the harness's own stderr).
    pub fn open(
        rt: &Runtime,
        command: &str,
        dir: &Path,
        timeout: Duration,
        stderr: Option<Arc<Mutex<Vec<u8>>>>,
    ) -> Result<Connection, Failure> {
        let _entered = rt.enter();
        let mut cmd = tokio::process::Command::new("sh");
        cmd.arg("-c")
            .arg(command)
            .current_dir(dir)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if stderr.is_some() {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .kill_on_drop(true);
        // SAFETY: the hook only calls umask, which is async-signal-safe and cannot fail.
        unsafe {
            cmd.pre_exec(|| {
                libc::umask(crate::sandbox::UMASK as libc::mode_t);
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| Failure::Crash(format!("cannot start `sh -c {command}`: {e}")))?;
        let pid = child.id();
        let (Some(to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(pid);
            return Err(Failure::Crash(
                "cannot reach the server's stdin and stdout".into(),
            ));
        };
        let err_pipe = child.stderr.take();
        let transport = (mended(rt, from_server), to_server);
        let mut stderr_done = None;
        if let (Some(pipe), Some(buf)) = (err_pipe, stderr) {
            match pipe.into_owned_fd() {
                Ok(fd) => {
                    let file = std::fs::File::from(fd);
                    let (done, done_rx) = mpsc::channel();
                    stderr_done = Some(done_rx);
                    let spawned = std::thread::Builder::new()
                        .name("editref-mcp-stderr".into())
                        .spawn(move || copy_stderr(file, buf, done));
                    if let Err(e) = spawned {
                        kill_group(pid);
                        return Err(Failure::Crash(format!("cannot start a stderr thread: {e}")));
                    }
                }
                Err(e) => {
                    kill_group(pid);
                    return Err(Failure::Crash(format!("cannot read its stderr: {e}")));
                }
            }
        }
        let client = SandboxClient {
            root: file_uri(dir),
        };
        match bounded(rt, timeout, client.serve(transport)) {
            Some(Ok(service)) => Ok(Connection {
                service,
                pid,
                stderr_done,
                _child: child,
            }),
            Some(Err(e)) => {
                kill_group(pid);
                Err(Failure::Crash(format!("the MCP handshake failed: {e}")))
            }
            None => {
                kill_group(pid);
                Err(Failure::Timeout)
            }
        }
    }

    /// The server's name and version, as it gave them in `initialize`.
    pub fn server_info(&self) -> (String, String) {
        match self
            .service
            .peer()
            .peer_info()
            .and_then(|i| i.server_info.clone())
        {
            Some(imp) => (imp.name, imp.version),
            None => ("unknown".into(), "unknown".into()),
        }
    }

    /// The names of the tools the server lists (every page).
    pub fn tool_names(&self, rt: &Runtime, timeout: Duration) -> Result<Vec<String>, Failure> {
        match bounded(rt, timeout, self.service.peer().list_all_tools()) {
            Some(Ok(tools)) => Ok(tools.into_iter().map(|t| t.name.to_string()).collect()),
            Some(Err(e)) => Err(failure(e, "tools/list")),
            None => Err(Failure::Timeout),
        }
    }

    /// One `tools/call`.
    pub fn call(
        &self,
        rt: &Runtime,
        timeout: Duration,
        name: &str,
        arguments: JsonObject,
    ) -> Result<CallToolResult, Failure> {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        match bounded(rt, timeout, self.service.peer().call_tool(params)) {
            Some(Ok(result)) => Ok(result),
            Some(Err(e)) => Err(failure(e, "tools/call")),
            None => Err(Failure::Timeout),
        }
    }

    /// Ends the connection: closes the server's stdin and gives it `grace` to exit, then kills
    /// whatever is left of its process group.
    pub fn close(mut self, rt: &Runtime, grace: Duration) {
        let _ = rt.block_on(self.service.close_with_timeout(grace));
        kill_group(self.pid);
        self.drain_stderr();
    }

    /// Kills the server at once (after a timeout or a crash), then lets the client wind down.
    pub fn kill(mut self, rt: &Runtime) {
        kill_group(self.pid);
        let _ = rt.block_on(self.service.close_with_timeout(STDERR_DRAIN));
        self.drain_stderr();
    }

    /// Waits (briefly) until the server's stderr has been copied to its end, so what a server
    /// said before it exited is in the case record.
    fn drain_stderr(&mut self) {
        if let Some(done) = self.stderr_done.take() {
            let _ = done.recv_timeout(STDERR_DRAIN);
        }
    }
}

/// The server's stdout as the client reads it: line by line, each line's lone surrogate escapes
/// mended ([`crate::surrogates`]), so a result carrying one is decoded and judged instead of
/// being dropped by the SDK as a message it cannot parse (which would leave the call
/// unanswered). Everything else passes through byte for byte.
fn mended(rt: &Runtime, from_server: tokio::process::ChildStdout) -> tokio::io::DuplexStream {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (reader, mut writer) = tokio::io::duplex(1 << 16);
    rt.spawn(async move {
        let mut lines = tokio::io::BufReader::new(from_server);
        let mut line = Vec::new();
        loop {
            line.clear();
            match lines.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let out = crate::surrogates::mend_lone_surrogates(&line);
                    if writer.write_all(&out).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    reader
}

/// Runs `fut` on `rt` for at most `timeout`; `None` when the time ran out.
fn bounded<F: std::future::Future>(rt: &Runtime, timeout: Duration, fut: F) -> Option<F::Output> {
    rt.block_on(async { tokio::time::timeout(timeout, fut).await.ok() })
}

/// A failed request as a [`Failure`]: a JSON-RPC error is the server's answer; a closed
/// transport or an answer of the wrong kind is a crash.
fn failure(e: ServiceError, what: &str) -> Failure {
    match e {
        ServiceError::McpError(data) => Failure::Protocol(format!(
            "{what}: JSON-RPC error {}: {}",
            data.code.0, data.message
        )),
        ServiceError::Timeout { .. } => Failure::Timeout,
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            Failure::Crash(format!("the server closed the connection during {what}"))
        }
        other => Failure::Crash(format!("{what}: {other}")),
    }
}

/// Kills the process group the server leads.
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill(2) with a negative pid signals the process group the server leads (it
        // was started with process_group(0)); no memory is involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_become_file_uris() {
        assert_eq!(file_uri(Path::new("/tmp/a b/c%")), "file:///tmp/a%20b/c%25");
        assert_eq!(file_uri(Path::new("/x/y-z_1.~")), "file:///x/y-z_1.~");
    }
}
