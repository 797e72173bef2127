//! Adapter protocol v1 (conformance spec §2): JSON lines over stdin/stdout.
//!
//! `editref serve` answers it with the reference implementation; the conformance harness speaks
//! the other side. Each request gets exactly one reply line; input that is not a valid request
//! gets an error reply, never a crash.

use crate::call::CallOutput;
use crate::error::ToolError;
use crate::session::{Config, Session};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;

/// The protocol version spoken.
pub const PROTOCOL: u64 = editref_protocol::PROTOCOL;

/// Features the reference declares: the whole vocabulary of conformance spec §3, since it
/// implements every one.
pub const FEATURES: [&str; 34] = editref_protocol::FEATURES;

/// Longest request line accepted (a longer one is answered with an error and skipped).
pub const MAX_LINE: usize = editref_protocol::MAX_LINE;

/// Server state: the session of the current case.
#[derive(Default)]
pub struct Server {
    session: Option<Session>,
    /// The current case's undo journal, outside its sandbox (UNDO-7); removed with the case.
    journal: Option<crate::undo::TempJournal>,
    /// Build sessions with fsync off (tests and benchmarks only, DISK-6).
    pub no_fsync: bool,
}

/// What the caller should do after a reply.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// Keep reading requests.
    Continue,
    /// `bye` was received: exit 0.
    Exit,
}

fn error_reply(seq: Value, e: &ToolError) -> Value {
    json!({"type": "result", "seq": seq, "ok": false, "error": e.to_json()})
}

/// A reply before it is written: a JSON value, or a tool's result, whose typed output is
/// written into the reply line straight from the typed value (for a replace_all of 100,000
/// hits, a [`Value`] tree of the output would cost more than the edit).
#[derive(Debug)]
pub enum Reply {
    /// Any reply, as a value.
    Value(Value),
    /// `{"type": "result", "seq": …, "ok": true, "output": …}`.
    Output {
        /// The request's `seq`.
        seq: Value,
        /// What the tool returned.
        output: CallOutput,
    },
}

/// The fields of a successful result, in the order of the reply line.
#[derive(Serialize)]
struct Success<'a> {
    r#type: &'static str,
    seq: &'a Value,
    ok: bool,
    output: &'a CallOutput,
}

impl Reply {
    /// The reply as a value: what [`Reply::write_to`] writes, parsed.
    pub fn into_value(self) -> Value {
        match self {
            Reply::Value(v) => v,
            Reply::Output { seq, output } => match crate::call::json(output) {
                Ok(output) => json!({"type": "result", "seq": seq, "ok": true, "output": output}),
                Err(e) => error_reply(seq, &e),
            },
        }
    }

    /// Writes the reply as one line of JSON, without the line break.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        match self {
            Reply::Value(v) => serde_json::to_writer(out, v)?,
            Reply::Output { seq, output } => serde_json::to_writer(
                out,
                &Success {
                    r#type: "result",
                    seq,
                    ok: true,
                    output,
                },
            )?,
        }
        Ok(())
    }
}

impl Server {
    /// Handles one request line and returns the reply.
    pub fn handle(&mut self, line: &str) -> (Value, Next) {
        let (reply, next) = self.respond(line);
        (reply.into_value(), next)
    }

    /// [`Server::handle`], with a tool's output kept typed until it is written.
    pub fn respond(&mut self, line: &str) -> (Reply, Next) {
        let value = |v: Value| (Reply::Value(v), Next::Continue);
        let mut req: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                let err = ToolError::invalid_input(format!("the request is not valid JSON: {e}"));
                return value(json!({"type": "error", "error": err.to_json()}));
            }
        };
        let kind = req
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match kind.as_str() {
            "hello" => value(json!({
                "type": "hello",
                "protocol": PROTOCOL,
                "implementation": {"name": "editref", "version": crate::VERSION},
                "features": FEATURES.as_slice(),
            })),
            "case_start" => {
                let Some(dir) = req.get("sandbox").and_then(Value::as_str) else {
                    let err = ToolError::invalid_input("case_start needs a `sandbox` directory");
                    return value(json!({"type": "error", "error": err.to_json()}));
                };
                let dir = PathBuf::from(dir);
                let mut config = Config::new(&dir).with_root(&dir);
                config.fsync = !self.no_fsync;
                self.session = None;
                self.journal = crate::undo::TempJournal::new().ok();
                config.undo = self.journal.as_ref().map(crate::undo::TempJournal::config);
                self.session = Some(Session::new(config));
                value(json!({"type": "ready"}))
            }
            "call" => {
                let seq = req.get("seq").cloned().unwrap_or(Value::Null);
                // Taken out of the request, not copied: the input may be many megabytes.
                let input = req.get_mut("input").map(Value::take).unwrap_or(Value::Null);
                let tool = req.get("tool").and_then(Value::as_str).unwrap_or("");
                let Some(session) = &self.session else {
                    let err =
                        ToolError::invalid_input("call before case_start: no session is open");
                    return value(error_reply(seq, &err));
                };
                match session.call_output(tool, input) {
                    Ok(output) => (Reply::Output { seq, output }, Next::Continue),
                    Err(e) => value(error_reply(seq, &e)),
                }
            }
            "case_end" => {
                self.session = None;
                self.journal = None;
                value(json!({"type": "done"}))
            }
            "bye" => (Reply::Value(json!({"type": "bye"})), Next::Exit),
            other => {
                let err = ToolError::invalid_input(format!("unknown request type '{other}'"));
                value(json!({"type": "error", "error": err.to_json()}))
            }
        }
    }
}

/// Room for a reply line before it goes out: a result of many megabytes leaves in large
/// writes, not in one small write per JSON token.
const OUT_BUFFER: usize = 1 << 20;

/// Serves the protocol until `bye` or end of input. Each reply line is flushed as soon as it
/// is written.
pub fn serve(input: impl BufRead, output: impl Write, no_fsync: bool) -> std::io::Result<()> {
    let mut server = Server {
        no_fsync,
        ..Server::default()
    };
    let mut output = BufWriter::with_capacity(OUT_BUFFER, output);
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = editref_protocol::read_line_bounded(&mut input, &mut buf)?;
        if n == 0 {
            return Ok(());
        }
        let reply = match std::str::from_utf8(&buf) {
            _ if buf.len() > MAX_LINE => {
                let err =
                    ToolError::invalid_input(format!("request line longer than {MAX_LINE} bytes"));
                (
                    Reply::Value(json!({"type": "error", "error": err.to_json()})),
                    Next::Continue,
                )
            }
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => server.respond(line.trim_end_matches(['\n', '\r'])),
            Err(_) => {
                let err = ToolError::invalid_input("request line is not UTF-8");
                (
                    Reply::Value(json!({"type": "error", "error": err.to_json()})),
                    Next::Continue,
                )
            }
        };
        if reply.1 == Next::Exit {
            return Ok(());
        }
        reply.0.write_to(&mut output)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_gets_an_error_reply_not_a_crash() {
        let mut s = Server::default();
        for line in [
            "{",
            "[]",
            "{\"type\":\"call\"}",
            "{\"type\":\"nope\"}",
            "\"x\"",
        ] {
            let (reply, next) = s.handle(line);
            assert_eq!(next, Next::Continue);
            assert!(reply.get("error").is_some(), "{line}: {reply}");
        }
    }

    #[test]
    fn hello_declares_protocol_and_features() {
        let (reply, _) = Server::default().handle("{\"type\":\"hello\",\"protocol\":1}");
        assert_eq!(reply["protocol"], 1);
        assert!(reply["features"]
            .as_array()
            .unwrap()
            .contains(&json!("edit")));
    }
}
