//! A minimal MCP client over streamable HTTP, blocking, one keep-alive connection per MCP
//! session: enough to drive `editref mcp --http` from many threads without an async runtime.
//!
//! Each JSON-RPC request is one `POST /mcp`; the answer is either a JSON body or an SSE stream
//! (`text/event-stream`, usually chunked) whose `data:` lines carry the response. The session
//! id the server gives on `initialize` goes with every later request.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One MCP session over one connection.
pub struct Client {
    addr: SocketAddr,
    conn: BufReader<TcpStream>,
    session: Option<String>,
    protocol: String,
    next_id: u64,
}

/// An HTTP response: status, the headers that matter, the body.
struct Response {
    status: u16,
    session: Option<String>,
    body: Vec<u8>,
    event_stream: bool,
}

impl Client {
    /// Connects and runs the MCP handshake (`initialize`, then `notifications/initialized`).
    pub fn connect(addr: SocketAddr) -> Result<Client, String> {
        let stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .map_err(|e| e.to_string())?;
        let _ = stream.set_nodelay(true);
        let mut c = Client {
            addr,
            conn: BufReader::new(stream),
            session: None,
            protocol: "2025-06-18".into(),
            next_id: 1,
        };
        let init = c.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "editref-load", "version": "1"}
            }),
        )?;
        if let Some(v) = init["protocolVersion"].as_str() {
            c.protocol = v.to_string();
        }
        if c.session.is_none() {
            return Err("the server gave no session id".into());
        }
        c.notify("notifications/initialized")?;
        Ok(c)
    }

    /// Calls a tool; `Ok` holds the tool result (`isError` may be true: a refusal).
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, String> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// Ends the session (`DELETE /mcp`).
    pub fn close(mut self) {
        let _ = self.send("DELETE", None);
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        let body = json!({"jsonrpc": "2.0", "method": method});
        let r = self.send("POST", Some(&body))?;
        if r.status / 100 != 2 {
            return Err(format!("{method}: HTTP {}", r.status));
        }
        Ok(())
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let r = self.send("POST", Some(&body))?;
        if r.status != 200 {
            return Err(format!(
                "{method}: HTTP {}: {}",
                r.status,
                String::from_utf8_lossy(&r.body)
            ));
        }
        if let Some(s) = r.session {
            self.session = Some(s);
        }
        let messages: Vec<Value> = if r.event_stream {
            sse_data(&r.body)
        } else {
            serde_json::from_slice(&r.body).into_iter().collect()
        };
        let reply = messages
            .into_iter()
            .find(|m| m["id"] == json!(id))
            .ok_or_else(|| format!("{method}: no response with id {id}"))?;
        if let Some(e) = reply.get("error") {
            return Err(format!("{method}: JSON-RPC error {e}"));
        }
        Ok(reply["result"].clone())
    }

    fn send(&mut self, verb: &str, body: Option<&Value>) -> Result<Response, String> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut head = format!(
            "{verb} /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(s) = &self.session {
            head.push_str(&format!(
                "Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: {}\r\n",
                self.protocol
            ));
        }
        head.push_str("\r\n");
        let stream = self.conn.get_mut();
        stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(body.as_bytes()))
            .map_err(|e| format!("send: {e}"))?;
        read_response(&mut self.conn).map_err(|e| format!("receive: {e}"))
    }
}

fn read_response(conn: &mut BufReader<TcpStream>) -> std::io::Result<Response> {
    let mut line = String::new();
    conn.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let (mut len, mut chunked, mut session, mut event_stream) = (None, false, None, false);
    loop {
        line.clear();
        conn.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        match k.as_str() {
            "content-length" => len = v.parse::<usize>().ok(),
            "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
            "mcp-session-id" => session = Some(v.to_string()),
            "content-type" => event_stream = v.starts_with("text/event-stream"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            conn.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| std::io::Error::other(format!("bad chunk size {line:?}")))?;
            if size == 0 {
                // Trailers, up to the empty line.
                loop {
                    line.clear();
                    conn.read_line(&mut line)?;
                    if line.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            conn.read_exact(&mut body[start..])?;
            let mut crlf = [0u8; 2];
            conn.read_exact(&mut crlf)?;
        }
    } else if let Some(n) = len {
        body.resize(n, 0);
        conn.read_exact(&mut body)?;
    }
    Ok(Response {
        status,
        session,
        body,
        event_stream,
    })
}

/// The JSON messages of an SSE body: the `data:` lines of each event, joined.
fn sse_data(body: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(body);
    let mut out = Vec::new();
    for event in text.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim_start)
            .collect();
        if let Ok(v) = serde_json::from_str::<Value>(&data.join("\n")) {
            out.push(v);
        }
    }
    out
}
