//! The adapter's process: started in a process group of its own, its stdout read on a thread
//! that forwards each line over a channel (so every request can wait with a timeout), its
//! stderr copied into a buffer when captured, and the whole group killed when it misbehaves.

use crate::adapter::AdapterError;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest reply line accepted (a longer one is a crash).
pub const MAX_REPLY: usize = 64 * 1024 * 1024;
/// Stderr kept per case when captured (the tail is kept).
pub const MAX_STDERR: usize = 64 * 1024;

/// What the reader thread forwards: one reply line, or why there is none.
enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
    Error(String),
}

/// A running adapter: the child, the pipe to its stdin, the lines read from its stdout.
pub(super) struct Proc {
    pub(super) child: Child,
    pub(super) stdin: ChildStdin,
    lines: Receiver<Line>,
    /// The thread copying the child's stderr; it ends at EOF, once the child has exited.
    pub(super) stderr_thread: Option<std::thread::JoinHandle<()>>,
}

impl Proc {
    /// Starts `command` with `sh -c` in a process group of its own; with `capture_stderr` its
    /// stderr is copied into `sink` (the tail kept), else passed through.
    pub(super) fn spawn(
        command: &str,
        capture_stderr: bool,
        sink: &Arc<Mutex<Vec<u8>>>,
    ) -> Result<Proc, AdapterError> {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if capture_stderr {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .process_group(0);
        // SAFETY: the hook only calls umask, which is async-signal-safe and cannot fail.
        unsafe {
            cmd.pre_exec(|| {
                libc::umask(crate::sandbox::UMASK as libc::mode_t);
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| AdapterError::Crash(format!("cannot start `{command}`: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(&mut child);
            return Err(AdapterError::Crash("no pipes to the adapter".into()));
        };
        let mut stderr_thread = None;
        if let Some(mut err) = child.stderr.take() {
            let sink = Arc::clone(sink);
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
        Ok(Proc {
            child,
            stdin,
            lines,
            stderr_thread,
        })
    }

    /// Why the child is gone, for a crash message.
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("the adapter exited ({status})"),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => return "the adapter closed its stdout".into(),
            }
        }
    }

    /// Writes one request line and waits up to `timeout` for the reply whose `type` is `want`;
    /// `what` names the request in the messages.
    pub(super) fn exchange(
        &mut self,
        msg: &Value,
        want: &str,
        what: &str,
        timeout: Duration,
    ) -> Result<Value, AdapterError> {
        let mut line = msg.to_string();
        line.push('\n');
        if let Err(e) = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush())
        {
            let status = self.exit_status();
            return Err(AdapterError::Crash(format!(
                "cannot send {what} ({e}); {status}"
            )));
        }
        let reply = match self.lines.recv_timeout(timeout) {
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
}

/// Kills the process group the child leads, then the child itself, and reaps it.
pub(super) fn kill_group(child: &mut Child) {
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
