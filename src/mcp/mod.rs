//! `editref mcp`: the five tools as a Model Context Protocol server, so that any MCP client —
//! an agent, an IDE — gets editref's edits instead of its own.
//!
//! A front end like `serve`: it owns connections and framing and calls
//! [`Session::call`](crate::Session::call), never the tools directly. The pieces, one job each:
//! [`tools`] describes the tools (schemas, descriptions, annotations), [`result`] turns a
//! tool's result or refusal into an MCP tool result, [`roots`] decides which directories a
//! connection may touch and routes each path to the session of its root, [`server`] is the
//! protocol handler of one connection, [`http`] the streamable HTTP transport, and [`wire`]
//! the stdio writer's correction of id-less error responses.
//!
//! One editref session per MCP connection (per MCP session id over HTTP): read-before-write
//! and staleness hold across the calls of one client, and one client's reads never let
//! another write.

pub mod http;
pub mod result;
pub mod roots;
pub mod server;
pub mod tools;
pub mod wire;

use std::net::SocketAddr;
use std::path::PathBuf;

/// What `editref mcp` was asked to serve.
#[derive(Debug, Clone)]
pub struct Options {
    /// Directories every path must resolve into. Empty: the client's roots (MCP `roots/list`)
    /// if it offers them, else the working directory.
    pub roots: Vec<PathBuf>,
    /// The tools offered, by name, in the order of [`crate::ALL_TOOLS`].
    pub tools: Vec<&'static str>,
    /// The working directory: relative paths are resolved against it when it lies under a
    /// root, else against the first root.
    pub cwd: PathBuf,
    /// Write with fsync (DISK-6). Off only for tests and benchmarks.
    pub fsync: bool,
    /// Where each root's undo journal lives (UNDO-7).
    pub undo: crate::undo::UndoPlace,
}

/// The tools offered unless `--tools` says otherwise: the five of Claude Code's format and
/// Undo. The dialects are offered on request (`--tools apply_patch,Read`, or `all`): an agent
/// wants the format its model knows, not every format at once.
pub const DEFAULT_TOOLS: [&str; 6] = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Undo"];

impl Options {
    /// The default tools, no fixed roots, fsync on, one undo journal per root in the user's
    /// state directory.
    pub fn new(cwd: impl Into<PathBuf>) -> Options {
        Options {
            roots: Vec::new(),
            tools: DEFAULT_TOOLS.to_vec(),
            cwd: cwd.into(),
            fsync: true,
            undo: crate::undo::UndoPlace::user_state(),
        }
    }

    /// Selects the tools from a comma-separated list such as `Read,Edit`. Unknown names are an
    /// error that lists the known ones.
    pub fn select_tools(&mut self, list: &str) -> Result<(), String> {
        let mut chosen: Vec<&'static str> = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "all" {
                for t in crate::ALL_TOOLS {
                    if !chosen.contains(&t) {
                        chosen.push(t);
                    }
                }
                continue;
            }
            match crate::ALL_TOOLS.iter().find(|t| **t == name) {
                Some(t) if !chosen.contains(t) => chosen.push(*t),
                Some(_) => {}
                None => {
                    return Err(format!(
                        "unknown tool '{name}' in --tools; the tools are {} (or all)",
                        crate::ALL_TOOLS.join(", ")
                    ))
                }
            }
        }
        if chosen.is_empty() {
            return Err("--tools names no tool".into());
        }
        // Listed in the spec's order, whatever order they were given in.
        chosen.sort_by_key(|t| crate::ALL_TOOLS.iter().position(|x| x == t));
        self.tools = chosen;
        Ok(())
    }
}

/// The longest request line read over stdio: 1 GiB, editref's size limit for a file, so that
/// any file editref handles fits in one Write. The transport's default (16 MiB) drops a longer
/// line without answering it, which leaves the client waiting forever for that call.
pub const MAX_STDIO_LINE: usize = 1 << 30;

/// Serves one MCP client on stdin/stdout until it disconnects.
pub fn run_stdio(options: Options) -> std::io::Result<()> {
    runtime()?.block_on(async move {
        use rmcp::transport::async_rw::AsyncRwTransport;
        use rmcp::ServiceExt;
        let handler = server::EditrefServer::new(options);
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = AsyncRwTransport::new_server(stdin, wire::NullIdWriter::new(stdout))
            .with_max_line_length(MAX_STDIO_LINE);
        let running = handler
            .serve(transport)
            .await
            .map_err(std::io::Error::other)?;
        running.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    })
}

/// Serves MCP clients over streamable HTTP on `addr` (loopback only) until interrupted.
pub fn run_http(options: Options, addr: SocketAddr) -> std::io::Result<()> {
    runtime()?.block_on(http::serve(options, addr))
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_selected_by_name_in_the_spec_order() {
        let mut o = Options::new("/");
        assert_eq!(o.tools, DEFAULT_TOOLS);
        o.select_tools("all").map_err(|e| e.to_string()).unwrap();
        assert_eq!(o.tools, crate::ALL_TOOLS);
        o.select_tools("Edit, Read,Edit")
            .map_err(|e| e.to_string())
            .unwrap();
        assert_eq!(o.tools, ["Read", "Edit"]);
        assert!(o.select_tools("Read,Bash").unwrap_err().contains("'Bash'"));
        assert!(o.select_tools(" , ").is_err());
    }
}
