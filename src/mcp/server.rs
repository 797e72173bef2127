//! The MCP handler of one connection: lists the tools, runs calls, and keeps the connection's
//! editref sessions and roots.
//!
//! Tool calls are blocking file I/O, so each runs on tokio's blocking pool and never stalls
//! the protocol loop. A call cancelled (`notifications/cancelled`) before it starts is
//! abandoned; once started it runs to the end, so a write in progress still completes
//! atomically (the disk layer leaves the old or the new bytes and no temp file).

use super::result::{refusal, to_result};
use super::roots::{path_of_uri, Roots};
use super::{paths, tools, Options};
use crate::{Code, ToolError};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{Peer, RoleServer, ServerHandler};
use serde_json::Value;
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// How long a call waits for the client to answer `roots/list` before it is refused.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(30);

/// One MCP connection: its options and, once known, its roots with a session per root.
pub struct EditrefServer {
    options: Arc<Options>,
    roots: Arc<Mutex<RootState>>,
    with_sessions_only: bool,
}

/// The connection's roots: fixed by `--root`, or the client's, fetched on first use and
/// again after `notifications/roots/list_changed`.
struct RootState {
    current: Option<Roots>,
    changed: bool,
}

impl EditrefServer {
    /// A handler for a new connection, with fresh sessions (no file counts as read yet).
    pub fn new(options: Options) -> EditrefServer {
        let current = (!options.roots.is_empty())
            .then(|| Roots::new(&options.roots, &options.cwd, options.fsync, &options.undo));
        EditrefServer {
            options: Arc::new(options),
            roots: Arc::new(Mutex::new(RootState {
                current,
                changed: false,
            })),
            with_sessions_only: false,
        }
    }

    /// A handler that offers only the protocol revisions with sessions (up to 2025-11-25).
    ///
    /// Over HTTP, the 2026-07-28 revision has no session: every request would meet a fresh
    /// handler, so no Read would ever count for a later Edit. Offering only the revisions that
    /// keep an MCP session id makes a client negotiate one of them (clients fall back from
    /// `server/discover` to `initialize`). Over stdio the connection is the session, and every
    /// revision is offered.
    pub fn with_sessions_only(mut self) -> EditrefServer {
        self.with_sessions_only = true;
        self
    }

    /// The session that serves a call of `tool` with `args` on this connection, asking the
    /// client for its roots first when they are not known yet or have changed. The call's
    /// paths are looked for only when there are several roots to choose from.
    async fn session_for(
        &self,
        tool: &str,
        args: &Value,
        peer: &Peer<RoleServer>,
    ) -> Result<Arc<crate::Session>, ToolError> {
        let mut state = self.roots.lock().await;
        if state.current.is_none() || state.changed {
            self.refresh(&mut state, peer).await?;
        }
        match &state.current {
            Some(roots) if roots.several() => roots.route(&paths::named(tool, args)),
            Some(roots) => roots.route(&[]),
            None => Err(ToolError::new(Code::OutsideRoot, "No root is configured.")),
        }
    }

    /// Fetches the client's roots into `state` (nothing to do for roots fixed by `--root`).
    async fn refresh(
        &self,
        state: &mut RootState,
        peer: &Peer<RoleServer>,
    ) -> Result<(), ToolError> {
        if !self.options.roots.is_empty() {
            state.changed = false;
            return Ok(());
        }
        let dirs = self.client_roots(peer).await?;
        let next = match &state.current {
            Some(old) => old.rebuilt(&dirs),
            None => Roots::new(
                &dirs,
                &self.options.cwd,
                self.options.fsync,
                &self.options.undo,
            ),
        };
        state.current = Some(next);
        state.changed = false;
        Ok(())
    }

    /// The client's roots as directories; empty (meaning the working directory) when the
    /// client does not offer roots or offers none that is a local directory.
    ///
    /// Roots are deprecated in the newest protocol revision, but clients on the revisions that
    /// have them (most clients today) use them to say which directories a server may touch.
    #[allow(deprecated)]
    async fn client_roots(&self, peer: &Peer<RoleServer>) -> Result<Vec<PathBuf>, ToolError> {
        let offers_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !offers_roots {
            return Ok(Vec::new());
        }
        let unknown = |why: String| {
            ToolError::new(
                Code::Io,
                format!("The client's roots could not be fetched ({why}), so no path can be checked against them. Nothing was done; try the call again."),
            )
        };
        let listed = tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots())
            .await
            .map_err(|_| unknown(format!("no answer within {} s", ROOTS_TIMEOUT.as_secs())))?
            .map_err(|e| unknown(e.to_string()))?;
        Ok(listed
            .roots
            .iter()
            .filter_map(|r| path_of_uri(&r.uri))
            .collect())
    }
}

impl ServerHandler for EditrefServer {
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.with_sessions_only {
            Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("editref", crate::VERSION))
            .with_instructions(
                "File tools that never corrupt a file. Read a file in full before changing it; \
                 Edit needs an old_string that matches exactly once. A refusal changes nothing \
                 and its message says how to succeed.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .options
            .tools
            .iter()
            .filter_map(|name| tools::tool(name))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self
            .options
            .tools
            .iter()
            .copied()
            .find(|t| *t == request.name)
        else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool '{}'; this server offers {}",
                    request.name,
                    self.options.tools.join(", ")
                ),
                None,
            ));
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        let session = match self.session_for(tool, &args, &context.peer).await {
            Ok(s) => s,
            Err(e) => return Ok(refusal(&e).into()),
        };
        if context.ct.is_cancelled() {
            return Err(ErrorData::internal_error(
                "the call was cancelled before it started; nothing was done",
                None,
            ));
        }
        let outcome = tokio::task::spawn_blocking(move || session.call_value(tool, args))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))?;
        Ok(to_result(tool, outcome).into())
    }

    /// Fetches the new roots at once, holding the connection's roots meanwhile: a call that
    /// arrives after the change waits for them. Should the fetch fail, the next call retries.
    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        let mut state = self.roots.lock().await;
        state.changed = true;
        let _ = self.refresh(&mut state, &context.peer).await;
    }
}
