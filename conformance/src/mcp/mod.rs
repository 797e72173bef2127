//! The MCP client adapter (`--mcp "COMMAND"`): certifies any MCP server that offers
//! Claude-Code-shaped file tools, with no adapter program in between.
//!
//! Protocol v1 assumes one long-lived adapter that opens a session per case; an MCP server's
//! session is its connection. So every case gets a server of its own, started with
//! `sh -c COMMAND` in the case's sandbox and told (through `roots/list`) that the sandbox is
//! its only root; `case_end` closes it. The handshake (`hello`) starts one more, in an empty
//! directory, to learn the server's name and tools. Calls go out as `tools/call` with the
//! case's input as arguments. [`client`] holds the connection, [`mapping`] the translation:
//! tool names, features, and results to replies; [`inputs`] the argument templates
//! (`--mcp-input`) and error codes by text (`--mcp-error`) for servers with tools of their own
//! shape.
//!
//! A server that exits, breaks the protocol or does not answer within the per-call timeout ends
//! the case as `crash` or `timeout`, exactly as an adapter process would; it is killed, and the
//! next case starts a new one.

pub mod client;
pub mod inputs;
pub mod mapping;

use crate::adapter::{Adapter, AdapterError, Hello, ReadFormat, Reply};
use crate::sandbox::Sandbox;
use client::{Connection, Failure};
use inputs::{ErrorRules, InputMap};
use mapping::{derive_features, protocol_error, to_reply, ToolMap};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::runtime::Runtime;

/// The `--mcp` adapter.
pub struct Mcp {
    command: String,
    timeout: Duration,
    /// The current case's cap on the per-call timeout (tool calls only).
    cap: Option<Duration>,
    /// What every limit is multiplied by ([`Adapter::set_patience`]); 1 normally.
    patience: u32,
    tools: ToolMap,
    inputs: InputMap,
    errors: ErrorRules,
    features: Option<Vec<String>>,
    /// How the server's Read numbers lines (`--mcp-read-format`).
    read_format: ReadFormat,
    /// The server's stderr, collected for [`Adapter::take_stderr`]; `None` lets it through.
    stderr: Option<Arc<Mutex<Vec<u8>>>>,
    runtime: Runtime,
    conn: Option<Connection>,
    hello: Option<Hello>,
    /// The tools the server listed in the handshake.
    listed: Vec<String>,
}

impl Mcp {
    /// An adapter for the server started by `command` (with `sh -c`), with this per-call
    /// timeout. With `capture_stderr` the server's stderr goes into the case records instead
    /// of the terminal.
    pub fn new(command: &str, timeout: Duration, capture_stderr: bool) -> Result<Mcp, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("editref-mcp-client")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the MCP client runtime: {e}"))?;
        Ok(Mcp {
            command: command.to_string(),
            timeout,
            cap: None,
            patience: 1,
            tools: ToolMap::default(),
            inputs: InputMap::default(),
            errors: ErrorRules::default(),
            features: None,
            read_format: ReadFormat::Tab,
            stderr: capture_stderr.then(Arc::default),
            runtime,
            conn: None,
            hello: None,
            listed: Vec::new(),
        })
    }

    /// Maps corpus tool names to the server's (`--mcp-tools`).
    pub fn with_tools(mut self, tools: ToolMap) -> Mcp {
        self.tools = tools;
        self
    }

    /// Sends the arguments of these templates instead of the corpus input (`--mcp-input`).
    pub fn with_inputs(mut self, inputs: InputMap) -> Mcp {
        self.inputs = inputs;
        self
    }

    /// Gives error results that carry only text the code their text names (`--mcp-error`).
    pub fn with_errors(mut self, errors: ErrorRules) -> Mcp {
        self.errors = errors;
        self
    }

    /// Declares these features instead of the ones the tool list implies (`--mcp-features`).
    pub fn with_features(mut self, features: Vec<String>) -> Mcp {
        self.features = Some(features);
        self
    }

    /// Declares how the server's Read numbers lines (`--mcp-read-format`): MCP has no `hello`
    /// to say it in.
    pub fn with_read_format(mut self, format: ReadFormat) -> Mcp {
        self.read_format = format;
        self
    }

    /// The limit of a request that is not a tool call (starting the server, listing tools).
    fn start_limit(&self) -> Duration {
        crate::adapter::limit(self.timeout, None, self.patience)
    }

    fn open(&self, dir: &Path) -> Result<Connection, AdapterError> {
        let limit = self.start_limit();
        Connection::open(
            &self.runtime,
            &self.command,
            dir,
            limit,
            self.stderr.clone(),
        )
        .map_err(|f| adapter_error(f, "starting the server", limit))
    }

    /// An error the server gave only as text (code `error`), with the code an `--mcp-error`
    /// rule finds in its message.
    fn relabel(&self, reply: Reply) -> Reply {
        match reply {
            Reply::Err(mut e) => {
                let generic = e.get("code").and_then(Value::as_str) == Some("error");
                let found = e
                    .get("message")
                    .and_then(Value::as_str)
                    .and_then(|m| self.errors.code_for(m))
                    .map(str::to_string);
                if let (true, Some(code), Some(obj)) = (generic, found, e.as_object_mut()) {
                    obj.insert("code".into(), Value::String(code));
                }
                Reply::Err(e)
            }
            ok => ok,
        }
    }

    /// Kills the current server, if any.
    fn kill(&mut self) {
        if let Some(conn) = self.conn.take() {
            conn.kill(&self.runtime);
        }
    }

    fn handshake(&mut self) -> Result<Hello, AdapterError> {
        let dir = Sandbox::new(None).map_err(|e| {
            AdapterError::Crash(format!("cannot make a directory for the handshake: {e}"))
        })?;
        let conn = self.open(dir.dir())?;
        let (name, version) = conn.server_info();
        let limit = self.start_limit();
        let listed = conn.tool_names(&self.runtime, limit);
        let listed = match listed {
            Ok(l) => {
                conn.close(&self.runtime, self.timeout);
                l
            }
            Err(f) => {
                conn.kill(&self.runtime);
                return Err(adapter_error(f, "tools/list", limit));
            }
        };
        let features = match &self.features {
            Some(f) => f.clone(),
            None => derive_features(&self.tools, &listed),
        };
        self.listed = listed;
        Ok(Hello {
            name,
            version,
            features,
            read_format: self.read_format,
        })
    }
}

impl Adapter for Mcp {
    fn process_group(&self) -> Option<u32> {
        self.conn.as_ref().and_then(|c| c.pid())
    }

    fn hello(&mut self) -> Result<Hello, AdapterError> {
        if self.hello.is_none() {
            self.hello = Some(self.handshake()?);
        }
        self.hello
            .clone()
            .ok_or_else(|| AdapterError::Crash("no hello".into()))
    }

    fn case_start(&mut self, _id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.kill();
        self.conn = Some(self.open(sandbox)?);
        Ok(())
    }

    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        let what = format!("call {seq} ({tool})");
        let Some(conn) = &self.conn else {
            return Err(AdapterError::Crash(format!(
                "{what}: the server is not running"
            )));
        };
        let Value::Object(arguments) = input else {
            return Ok(protocol_error(
                "the input is not a JSON object, so it cannot be sent as MCP tool arguments",
            ));
        };
        let name = self.tools.call_name(tool, &self.listed);
        let timeout = crate::adapter::limit(self.timeout, self.cap, self.patience);
        let arguments = self.inputs.arguments(tool, arguments);
        match conn.call(&self.runtime, timeout, name, arguments) {
            Ok(result) => Ok(self.relabel(to_reply(&result))),
            Err(Failure::Protocol(m)) => Ok(protocol_error(m)),
            Err(f) => {
                let e = adapter_error(f, &what, timeout);
                self.kill();
                Err(e)
            }
        }
    }

    fn case_end(&mut self) -> Result<(), AdapterError> {
        if let Some(conn) = self.conn.take() {
            conn.close(&self.runtime, self.timeout);
        }
        Ok(())
    }

    fn set_case_timeout(&mut self, cap: Option<Duration>) {
        self.cap = cap;
    }

    fn set_patience(&mut self, factor: u32) {
        self.patience = factor.max(1);
    }

    fn take_stderr(&mut self) -> String {
        let Some(buf) = &self.stderr else {
            return String::new();
        };
        match buf.lock() {
            Ok(mut b) => String::from_utf8_lossy(&std::mem::take(&mut *b)).into_owned(),
            Err(_) => String::new(),
        }
    }

    fn shutdown(&mut self) {
        self.kill();
    }
}

/// A failed step with the server as the case status it ends in; `timeout` is the limit that ran
/// out, for the message.
fn adapter_error(f: Failure, what: &str, timeout: Duration) -> AdapterError {
    match f {
        Failure::Crash(m) | Failure::Protocol(m) => AdapterError::Crash(format!("{what}: {m}")),
        Failure::Timeout => AdapterError::Timeout(format!(
            "{what}: no answer within {:.1} s",
            timeout.as_secs_f64()
        )),
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        self.kill();
    }
}
