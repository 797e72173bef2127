//! `editref mcp --http ADDR`: the streamable HTTP transport on a loopback address, one
//! connection handler (and so one set of editref sessions) per MCP session id. Only the
//! protocol revisions that have session ids are offered (see
//! [`EditrefServer::with_sessions_only`]).
//!
//! A request body may be as large as a stdio line ([`MAX_REQUEST`], 1 GiB), so a Write of any
//! file editref handles is answered over HTTP as over stdio.
//!
//! Only loopback addresses are served: the server reads and writes files with the rights of
//! whoever runs it, and it has no authentication of its own. rmcp's host check (loopback names
//! only) guards against DNS rebinding from a browser.

use super::server::EditrefServer;
use super::{Options, MAX_REQUEST};
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use std::net::SocketAddr;
use std::sync::Arc;

/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

/// Whether `addr` may be served: loopback only.
pub fn allowed(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

/// Serves until the process is interrupted. Prints the endpoint URL on stderr once listening
/// (with the port the system chose when `addr` asks for port 0).
pub async fn serve(options: Options, addr: SocketAddr) -> std::io::Result<()> {
    if !allowed(&addr) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{addr} is not a loopback address"),
        ));
    }
    let options = Arc::new(options);
    let service = StreamableHttpService::new(
        move || Ok(EditrefServer::new(options.as_ref().clone()).with_sessions_only()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_max_request_body_bytes(MAX_REQUEST),
    );
    let router = axum::Router::new().nest_service(ENDPOINT, service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    eprintln!("editref mcp: listening on http://{local}{ENDPOINT}");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_served() {
        let ok = |s: &str| {
            s.parse::<SocketAddr>()
                .map(|a| allowed(&a))
                .unwrap_or(false)
        };
        assert!(ok("127.0.0.1:8080"));
        assert!(ok("[::1]:8080"));
        assert!(!ok("0.0.0.0:8080"));
        assert!(!ok("192.168.1.2:8080"));
    }
}
