//! `editref mcp`: the five tools as a Model Context Protocol server, so that any MCP client —
//! an agent, an IDE — gets editref's edits instead of its own.
//!
//! A front end like `serve`: it owns connections and framing and calls
//! [`Session::call`](crate::Session::call), never the tools directly. The pieces, one job each:
//! [`tools`] describes the tools (schemas, descriptions, annotations), [`result`] turns a
//! tool's result or refusal into an MCP tool result, [`summary`] words a result for the model,
//! [`roots`] decides which directories a connection may touch and routes each call to the
//! session of its root, [`paths`] finds the paths a call names (those of a patch or a reply
//! with blocks included), [`server`] is the protocol handler of one connection, [`http`] the
//! streamable HTTP transport, and [`wire`] the stdio writer's correction of id-less error
//! responses.
//!
//! One editref session per MCP connection (per MCP session id over HTTP): read-before-write
//! and staleness hold across the calls of one client, and one client's reads never let
//! another write.

pub mod http;
pub mod paths;
pub mod result;
pub mod roots;
pub mod server;
pub mod summary;
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
    /// error that lists the known ones. [`TEXT_EDITOR_ALIAS`] offers the text editor under
    /// that name instead of `str_replace_based_edit_tool` (also when `all` is given): the
    /// name the agent's model was trained on, for one tool.
    pub fn select_tools(&mut self, list: &str) -> Result<(), String> {
        const EDITOR: &str = "str_replace_based_edit_tool";
        let mut chosen: Vec<&'static str> = Vec::new();
        let mut alias = false;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let name = if name == TEXT_EDITOR_ALIAS {
                alias = true;
                EDITOR
            } else {
                name
            };
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
                        "unknown tool '{name}' in --tools; the tools are {}, {TEXT_EDITOR_ALIAS} (the text editor under its older name), or all",
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
        if alias {
            for t in &mut chosen {
                if *t == EDITOR {
                    *t = TEXT_EDITOR_ALIAS;
                }
            }
        }
        self.tools = chosen;
        Ok(())
    }
}

/// The text editor's older name (Anthropic's `str_replace_editor`, EDITOR-1), accepted by
/// `--tools`: the tool is then offered under this name, with the same schema and behaviour.
pub const TEXT_EDITOR_ALIAS: &str = "str_replace_editor";

/// The largest request served, on either transport: 1 GiB, editref's size limit for a file,
/// so that any file editref handles fits in one Write. Over stdio it is the longest line read
/// (the transport's default, 16 MiB, drops a longer line without answering it, which leaves
/// the client waiting forever for that call); over HTTP the largest POST body (the default,
/// 4 MiB, answers a larger one with `413 Payload Too Large` instead of the tool's result).
pub const MAX_REQUEST: usize = 1 << 30;

/// Serves one MCP client on stdin/stdout until it disconnects.
pub fn run_stdio(options: Options) -> std::io::Result<()> {
    runtime()?.block_on(async move {
        use rmcp::transport::async_rw::AsyncRwTransport;
        use rmcp::ServiceExt;
        let handler = server::EditrefServer::new(options);
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = AsyncRwTransport::new_server(stdin, wire::NullIdWriter::new(stdout))
            .with_max_line_length(MAX_REQUEST);
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

    #[test]
    fn the_text_editor_can_be_offered_under_its_older_name() {
        let mut o = Options::new("/");
        o.select_tools("str_replace_editor,Read")
            .map_err(|e| e.to_string())
            .unwrap();
        assert_eq!(o.tools, ["Read", "str_replace_editor"]);
        o.select_tools("all,str_replace_editor")
            .map_err(|e| e.to_string())
            .unwrap();
        assert_eq!(o.tools.len(), crate::ALL_TOOLS.len());
        assert!(o.tools.contains(&"str_replace_editor"));
        assert!(!o.tools.contains(&"str_replace_based_edit_tool"));
        o.select_tools("str_replace_based_edit_tool,str_replace_editor")
            .map_err(|e| e.to_string())
            .unwrap();
        assert_eq!(o.tools, ["str_replace_editor"]);
    }
}
