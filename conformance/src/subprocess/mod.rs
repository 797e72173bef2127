//! A child process speaking adapter protocol v1 on stdin/stdout (`--impl "COMMAND"`).
//!
//! The command runs through `sh -c` in its own process group, and stays up across cases. Its
//! stdout is read on a thread that forwards each line over a channel, so every request can wait
//! with a timeout. A reply that is not the expected JSON, an exit, or silence past the timeout
//! ends the case as `crash` or `timeout`; the whole process group is then killed and a new
//! process (with a new `hello`) serves the next case. Its stderr is either passed through or
//! captured and handed to the case record.
//!
//! This file holds the adapter and the protocol's requests per case; `child.rs` the process,
//! its pipes and reader threads; `hello.rs` the handshake reply.

mod child;
mod hello;

use crate::adapter::{Adapter, AdapterError, Hello, Reply};
use child::{kill_group, Proc};
pub use child::{MAX_REPLY, MAX_STDERR};
use hello::parse_hello;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The `--impl` adapter.
pub struct Subprocess {
    command: String,
    timeout: Duration,
    /// The current case's cap on the per-call timeout (calls only; hello and case_start keep
    /// the run's timeout, since a fresh process may be starting).
    cap: Option<Duration>,
    /// What every limit is multiplied by ([`Adapter::set_patience`]); 1 normally.
    patience: u32,
    capture_stderr: bool,
    stderr: Arc<Mutex<Vec<u8>>>,
    proc: Option<Proc>,
    hello: Option<Hello>,
    in_case: bool,
}

impl Subprocess {
    /// An adapter for `command` (run with `sh -c`), with this per-request timeout. With
    /// `capture_stderr` the child's stderr goes into the case records instead of the terminal.
    pub fn new(command: &str, timeout: Duration, capture_stderr: bool) -> Subprocess {
        Subprocess {
            command: command.to_string(),
            timeout,
            cap: None,
            patience: 1,
            capture_stderr,
            stderr: Arc::new(Mutex::new(Vec::new())),
            proc: None,
            hello: None,
            in_case: false,
        }
    }

    /// Kills the process group and forgets the process; the next case starts a new one.
    fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            kill_group(&mut p.child);
        }
    }

    /// Sends one request and returns the reply object whose `type` is `want`. Any protocol
    /// fault kills the process.
    fn request(&mut self, msg: &Value, want: &str, what: &str) -> Result<Value, AdapterError> {
        self.request_within(
            msg,
            want,
            what,
            crate::adapter::limit(self.timeout, None, self.patience),
        )
    }

    /// [`Self::request`] with its own timeout.
    fn request_within(
        &mut self,
        msg: &Value,
        want: &str,
        what: &str,
        timeout: Duration,
    ) -> Result<Value, AdapterError> {
        let Some(p) = self.proc.as_mut() else {
            return Err(AdapterError::Crash("the adapter is not running".into()));
        };
        let result = p.exchange(msg, want, what, timeout);
        if result.is_err() {
            self.kill();
        }
        result
    }

    fn handshake(&mut self) -> Result<Hello, AdapterError> {
        self.proc = Some(Proc::spawn(
            &self.command,
            self.capture_stderr,
            &self.stderr,
        )?);
        let reply = self.request(&json!({"type": "hello", "protocol": 1}), "hello", "hello")?;
        let hello = parse_hello(&reply);
        if hello.is_err() {
            self.kill();
        }
        hello
    }
}

impl Adapter for Subprocess {
    fn process_group(&self) -> Option<u32> {
        self.proc.as_ref().map(|p| p.child.id())
    }

    fn hello(&mut self) -> Result<Hello, AdapterError> {
        if self.proc.is_none() {
            let h = self.handshake()?;
            self.hello = Some(h);
        }
        self.hello
            .clone()
            .ok_or_else(|| AdapterError::Crash("no hello".into()))
    }

    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        if self.proc.is_none() {
            // A fresh process after a crash or timeout: it must greet again.
            let h = self.handshake()?;
            self.hello.get_or_insert(h);
        }
        self.in_case = true;
        self.request(
            &json!({"type": "case_start", "id": id, "sandbox": sandbox.to_string_lossy()}),
            "ready",
            "case_start",
        )
        .map(|_| ())
    }

    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        let what = format!("call {seq} ({tool})");
        let reply = self.request_within(
            &json!({"type": "call", "seq": seq, "tool": tool, "input": input}),
            "result",
            &what,
            crate::adapter::limit(self.timeout, self.cap, self.patience),
        )?;
        let fault = |m: String| Err(AdapterError::Crash(format!("{what}: {m}")));
        if reply.get("seq").and_then(Value::as_u64) != Some(seq) {
            self.kill();
            return fault(format!(
                "answered seq {} (out of turn)",
                reply.get("seq").unwrap_or(&Value::Null)
            ));
        }
        match reply.get("ok") {
            Some(Value::Bool(true)) => Ok(Reply::Ok(
                reply.get("output").cloned().unwrap_or(Value::Null),
            )),
            Some(Value::Bool(false)) => match reply.get("error") {
                Some(e @ Value::Object(m)) if m.get("code").is_some_and(Value::is_string) => {
                    Ok(Reply::Err(e.clone()))
                }
                _ => {
                    self.kill();
                    fault("an error result without an error object carrying a `code`".into())
                }
            },
            _ => {
                self.kill();
                fault("a result without `ok: true|false`".into())
            }
        }
    }

    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.in_case = false;
        if self.proc.is_none() {
            return Ok(());
        }
        self.request(&json!({"type": "case_end"}), "done", "case_end")
            .map(|_| ())
    }

    fn set_case_timeout(&mut self, cap: Option<Duration>) {
        self.cap = cap;
    }

    fn set_patience(&mut self, factor: u32) {
        self.patience = factor.max(1);
    }

    fn take_stderr(&mut self) -> String {
        if !self.capture_stderr {
            return String::new();
        }
        // Give the stderr thread a moment to drain what was written just before the reply.
        std::thread::sleep(Duration::from_millis(1));
        let mut buf = match self.stderr.lock() {
            Ok(mut b) => std::mem::take(&mut *b),
            Err(_) => return String::new(),
        };
        if buf.len() > MAX_STDERR {
            buf.drain(..buf.len() - MAX_STDERR);
        }
        String::from_utf8_lossy(&buf).into_owned()
    }

    fn shutdown(&mut self) {
        if let Some(p) = self.proc.as_mut() {
            let _ = p
                .stdin
                .write_all(b"{\"type\":\"bye\"}\n")
                .and_then(|_| p.stdin.flush());
            // As long to exit as to answer a call: a busy machine slows an exit down too, and
            // an adapter killed before it exits may leave its last stderr lines uncollected.
            let deadline =
                Instant::now() + crate::adapter::limit(self.timeout, None, self.patience);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = p.child.try_wait() {
                    // The child is gone, so its stderr is at EOF: collect all of it.
                    if let Some(t) = p.stderr_thread.take() {
                        let _ = t.join();
                    }
                    self.proc = None;
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        self.kill();
    }
}

impl Drop for Subprocess {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests;
