//! A child process speaking adapter protocol v1 on stdin/stdout (`--impl "COMMAND"`).
//!
//! The command runs through `sh -c` in its own process group, and stays up across cases. Its
//! stdout is read on a thread that forwards each line over a channel, so every request can wait
//! with a timeout. A reply that is not the expected JSON, an exit, or silence past the timeout
//! ends the case as `crash` or `timeout`; the whole process group is then killed and a new
//! process (with a new `hello`) serves the next case. Its stderr is either passed through or
//! captured and handed to the case record.

use crate::adapter::{Adapter, AdapterError, Hello, ReadFormat, Reply};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest reply line accepted (a longer one is a crash).
pub const MAX_REPLY: usize = 64 * 1024 * 1024;
/// Stderr kept per case when captured (the tail is kept).
pub const MAX_STDERR: usize = 64 * 1024;

enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
    Error(String),
}

struct Proc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    /// The thread copying the child's stderr; it ends at EOF, once the child has exited.
    stderr_thread: Option<std::thread::JoinHandle<()>>,
}

/// The `--impl` adapter.
pub struct Subprocess {
    command: String,
    timeout: Duration,
    /// The current case's cap on the per-call timeout (calls only; hello and case_start keep
    /// the run's timeout, since a fresh process may be starting).
    cap: Option<Duration>,
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
            capture_stderr,
            stderr: Arc::new(Mutex::new(Vec::new())),
            proc: None,
            hello: None,
            in_case: false,
        }
    }

    fn spawn(&mut self) -> Result<(), AdapterError> {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if self.capture_stderr {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| AdapterError::Crash(format!("cannot start `{}`: {e}", self.command)))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(&mut child);
            return Err(AdapterError::Crash("no pipes to the adapter".into()));
        };
        let mut stderr_thread = None;
        if let Some(mut err) = child.stderr.take() {
            let sink = Arc::clone(&self.stderr);
            stderr_thread = std::thread::Builder::new()
                .name("editref-adapter-stderr".into())
                .spawn(move || {
                    let mut buf = [0u8; 8192];
                    while let Ok(n) = err.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        if let Ok(mut s) = sink.lock() {
                            s.extend_from_slice(&buf[..n]);
                            if s.len() > 2 * MAX_STDERR {
                                let cut = s.len() - MAX_STDERR;
                                s.drain(..cut);
                            }
                        }
                    }
                })
                .ok();
        }
        let (tx, lines) = mpsc::channel();
        let reader = std::thread::Builder::new()
            .name("editref-adapter-stdout".into())
            .spawn(move || {
                let mut out = BufReader::new(stdout);
                loop {
                    let mut line = Vec::new();
                    let read = (&mut out)
                        .take(MAX_REPLY as u64 + 1)
                        .read_until(b'\n', &mut line);
                    let msg = match read {
                        Ok(0) => Line::Eof,
                        Ok(_) if line.len() > MAX_REPLY => Line::TooLong,
                        Ok(_) => Line::Text(line),
                        Err(e) => Line::Error(e.to_string()),
                    };
                    let stop = !matches!(msg, Line::Text(_));
                    if tx.send(msg).is_err() || stop {
                        break;
                    }
                }
            });
        if let Err(e) = reader {
            kill_group(&mut child);
            return Err(AdapterError::Crash(format!(
                "cannot start a reader thread: {e}"
            )));
        }
        self.proc = Some(Proc {
            child,
            stdin,
            lines,
            stderr_thread,
        });
        Ok(())
    }

    /// Kills the process group and forgets the process; the next case starts a new one.
    fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            kill_group(&mut p.child);
        }
    }

    /// Why the child is gone, for a crash message.
    fn exit_status(&mut self) -> String {
        let Some(p) = self.proc.as_mut() else {
            return "the adapter is not running".into();
        };
        let deadline = Instant::now() + Duration::from_millis(500);
        loop {
            match p.child.try_wait() {
                Ok(Some(status)) => return format!("the adapter exited ({status})"),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => return "the adapter closed its stdout".into(),
            }
        }
    }

    /// Sends one request and returns the reply object whose `type` is `want`. Any protocol
    /// fault kills the process.
    fn request(&mut self, msg: &Value, want: &str, what: &str) -> Result<Value, AdapterError> {
        self.request_within(msg, want, what, self.timeout)
    }

    /// [`Self::request`] with its own timeout.
    fn request_within(
        &mut self,
        msg: &Value,
        want: &str,
        what: &str,
        timeout: Duration,
    ) -> Result<Value, AdapterError> {
        let result = self.exchange(msg, want, what, timeout);
        if result.is_err() {
            self.kill();
        }
        result
    }

    fn exchange(
        &mut self,
        msg: &Value,
        want: &str,
        what: &str,
        timeout: Duration,
    ) -> Result<Value, AdapterError> {
        let Some(p) = self.proc.as_mut() else {
            return Err(AdapterError::Crash("the adapter is not running".into()));
        };
        let mut line = msg.to_string();
        line.push('\n');
        if let Err(e) = p
            .stdin
            .write_all(line.as_bytes())
            .and_then(|_| p.stdin.flush())
        {
            let status = self.exit_status();
            return Err(AdapterError::Crash(format!(
                "cannot send {what} ({e}); {status}"
            )));
        }
        let reply = match p.lines.recv_timeout(timeout) {
            Ok(Line::Text(bytes)) => bytes,
            Ok(Line::TooLong) => {
                return Err(AdapterError::Crash(format!(
                    "the reply to {what} is longer than {MAX_REPLY} bytes"
                )))
            }
            Ok(Line::Error(e)) => {
                return Err(AdapterError::Crash(format!(
                    "reading the reply to {what}: {e}"
                )))
            }
            Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                let status = self.exit_status();
                return Err(AdapterError::Crash(format!("no reply to {what}: {status}")));
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(AdapterError::Timeout(format!(
                    "no reply to {what} within {:.1} s",
                    timeout.as_secs_f64()
                )))
            }
        };
        let text = String::from_utf8_lossy(&reply);
        let shown = || {
            let t = text.trim_end();
            if t.chars().count() > 200 {
                format!("{}…", t.chars().take(200).collect::<String>())
            } else {
                t.to_string()
            }
        };
        let value: Value = crate::surrogates::parse_line(text.trim_end_matches(['\n', '\r']))
            .map_err(|e| {
                AdapterError::Crash(format!(
                    "the reply to {what} is not JSON ({e}): {:?}",
                    shown()
                ))
            })?;
        match value.get("type").and_then(Value::as_str) {
            Some(t) if t == want => Ok(value),
            _ => Err(AdapterError::Crash(format!(
                "expected a `{want}` reply to {what}, got {}",
                shown()
            ))),
        }
    }

    fn handshake(&mut self) -> Result<Hello, AdapterError> {
        self.spawn()?;
        let reply = self.request(&json!({"type": "hello", "protocol": 1}), "hello", "hello")?;
        let hello = parse_hello(&reply);
        if hello.is_err() {
            self.kill();
        }
        hello
    }
}

fn parse_hello(reply: &Value) -> Result<Hello, AdapterError> {
    if reply.get("protocol").and_then(Value::as_u64) != Some(1) {
        return Err(AdapterError::Crash(format!(
            "the adapter speaks protocol {}, not 1",
            reply.get("protocol").unwrap_or(&Value::Null)
        )));
    }
    let imp = reply.get("implementation");
    let field = |k: &str| {
        imp.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string()
    };
    let features = match reply.get("features") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => {
            return Err(AdapterError::Crash(
                "the hello reply has no `features` list".into(),
            ))
        }
    };
    let read_format = match reply.get("read_format") {
        None | Some(Value::Null) => ReadFormat::Tab,
        Some(v) => v.as_str().and_then(ReadFormat::parse).ok_or_else(|| {
            AdapterError::Crash(format!(
                "the hello reply's `read_format` is {v}; it is one of \"tab\", \"arrow\", \"plain\""
            ))
        })?,
    };
    Ok(Hello {
        name: field("name"),
        version: field("version"),
        features,
        read_format,
    })
}

fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads (it was
        // spawned with process_group(0)); no memory is involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
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
            crate::adapter::capped(self.timeout, self.cap),
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
            let deadline = Instant::now() + Duration::from_secs(2);
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
mod tests {
    use super::*;

    /// A tiny Python adapter that misbehaves on request: the `old_string` of an Edit says how.
    const SCRIPT: &str = r#"
import json, sys, time, os
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        out = {"type": "hello", "protocol": 1, "implementation": {"name": "t", "version": "0"}, "features": ["edit"]}
    elif t == "case_start":
        out = {"type": "ready"}
    elif t == "case_end":
        out = {"type": "done"}
    elif t == "bye":
        sys.exit(0)
    else:
        how = m["input"].get("how")
        sys.stderr.write("doing " + str(how) + "\n"); sys.stderr.flush()
        if how == "hang":
            time.sleep(30)
        if how == "exit":
            os._exit(3)
        if how == "garbage":
            print("oops, a debug print", flush=True)
            continue
        if how == "wrong_seq":
            out = {"type": "result", "seq": m["seq"] + 7, "ok": True, "output": {}}
        elif how == "error":
            out = {"type": "result", "seq": m["seq"], "ok": False, "error": {"code": "not_found", "message": "x"}}
        else:
            out = {"type": "result", "seq": m["seq"], "ok": True, "output": {"how": how}}
    print(json.dumps(out), flush=True)
"#;

    fn adapter(dir: &Path) -> Subprocess {
        let script = dir.join("adapter.py");
        std::fs::write(&script, SCRIPT).unwrap();
        Subprocess::new(
            &format!("python3 {}", script.display()),
            Duration::from_millis(1500),
            true,
        )
    }

    fn call(a: &mut Subprocess, how: &str) -> Result<Reply, AdapterError> {
        a.case_start("x/y", Path::new("/tmp"))?;
        let r = a.call(1, "Edit", &json!({"how": how}));
        let _ = a.case_end();
        r
    }

    #[test]
    fn crash_timeout_and_recovery() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = adapter(dir.path());
        let hello = a.hello().unwrap();
        assert_eq!(hello.features, vec!["edit"]);
        assert_eq!(
            call(&mut a, "fine").unwrap(),
            Reply::Ok(json!({"how": "fine"}))
        );
        // After a graceful shutdown every byte the adapter wrote to stderr has been collected.
        a.shutdown();
        assert!(a.take_stderr().contains("doing fine"));
        assert_eq!(
            call(&mut a, "error").unwrap(),
            Reply::Err(json!({"code": "not_found", "message": "x"}))
        );

        let started = Instant::now();
        match call(&mut a, "hang") {
            Err(AdapterError::Timeout(m)) => assert!(m.contains("call 1 (Edit)"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(10));
        // The next case gets a new process.
        assert_eq!(
            call(&mut a, "again").unwrap(),
            Reply::Ok(json!({"how": "again"}))
        );

        match call(&mut a, "exit") {
            Err(AdapterError::Crash(m)) => assert!(m.contains("exited"), "{m}"),
            other => panic!("{other:?}"),
        }
        match call(&mut a, "garbage") {
            Err(AdapterError::Crash(m)) => assert!(m.contains("not JSON"), "{m}"),
            other => panic!("{other:?}"),
        }
        match call(&mut a, "wrong_seq") {
            Err(AdapterError::Crash(m)) => assert!(m.contains("out of turn"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            call(&mut a, "last").unwrap(),
            Reply::Ok(json!({"how": "last"}))
        );
        a.shutdown();
        assert!(a.proc.is_none());
    }

    #[test]
    fn hello_may_declare_its_read_format() {
        let hello = |extra: Value| {
            let mut h = json!({"type": "hello", "protocol": 1, "features": []});
            if let (Value::Object(h), Value::Object(e)) = (&mut h, extra) {
                h.extend(e);
            }
            parse_hello(&h)
        };
        assert_eq!(hello(json!({})).unwrap().read_format, ReadFormat::Tab);
        assert_eq!(
            hello(json!({"read_format": "arrow"})).unwrap().read_format,
            ReadFormat::Arrow
        );
        match hello(json!({"read_format": "numbered"})) {
            Err(AdapterError::Crash(m)) => assert!(m.contains("read_format"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_command_that_is_no_adapter() {
        for cmd in [
            "printf 'hello\\n'; sleep 5",
            "exit 4",
            "true",
            "no-such-command-xyz",
        ] {
            let mut a = Subprocess::new(cmd, Duration::from_secs(3), true);
            match a.hello() {
                Err(AdapterError::Crash(_)) => {}
                other => panic!("{cmd}: {other:?}"),
            }
        }
        let mut a = Subprocess::new("sleep 30", Duration::from_millis(300), true);
        assert!(matches!(a.hello(), Err(AdapterError::Timeout(_))));
        let mut a = Subprocess::new(
            r#"read l; echo '{"type":"hello","protocol":2,"features":[]}'"#,
            Duration::from_secs(3),
            true,
        );
        match a.hello() {
            Err(AdapterError::Crash(m)) => assert!(m.contains("protocol 2"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}
