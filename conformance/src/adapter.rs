//! The implementation under test, as the runner sees it: protocol v1 as a trait, plus the
//! in-process adapter for editref's own [`Session`].
//!
//! The runner only ever talks to an [`Adapter`], so a case is judged the same way whether the
//! implementation is a child process speaking JSON lines ([`crate::subprocess`]) or the
//! reference library called directly ([`Builtin`]).

pub use crate::check::ReadFormat;
use editref::session::{Config, Session};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// What the implementation said about itself in `hello`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    /// Implementation name.
    pub name: String,
    /// Implementation version.
    pub version: String,
    /// Declared features; cases requiring others are skipped.
    pub features: Vec<String>,
    /// How its Read numbers lines (`read_format`, `tab` when not said): Read content is
    /// compared in that form, so a tool is judged in its own terms where the spec allows more
    /// than one.
    pub read_format: ReadFormat,
}

/// A tool call's answer: the output, or the error object (`code`, `message`, fields).
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `ok: true` with its output.
    Ok(Value),
    /// `ok: false` with its error object.
    Err(Value),
}

impl Reply {
    /// The reply as it appears in reports.
    pub fn to_json(&self) -> Value {
        match self {
            Reply::Ok(o) => json!({"ok": true, "output": o}),
            Reply::Err(e) => json!({"ok": false, "error": e}),
        }
    }
}

/// The implementation misbehaved at the protocol level; the case ends with this status and the
/// adapter starts afresh for the next case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterError {
    /// Exited, wrote something that is not the expected reply, or answered out of turn.
    Crash(String),
    /// No reply within the per-call timeout.
    Timeout(String),
}

impl std::fmt::Display for AdapterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdapterError::Crash(m) => write!(f, "crash: {m}"),
            AdapterError::Timeout(m) => write!(f, "timeout: {m}"),
        }
    }
}

/// One implementation under test, driven through protocol v1.
///
/// Implementations recover by themselves: after a `Crash` or `Timeout` the next `case_start`
/// must work on a fresh instance (a restarted process, a new worker thread).
pub trait Adapter {
    /// Handshake: who are you, what can you do.
    fn hello(&mut self) -> Result<Hello, AdapterError>;
    /// Opens a fresh session whose working directory and root is `sandbox`.
    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError>;
    /// One tool call; `seq` counts from 1 within a case.
    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError>;
    /// Closes the session.
    fn case_end(&mut self) -> Result<(), AdapterError>;
    /// What the implementation wrote on stderr since the last call of this (when captured).
    fn take_stderr(&mut self) -> String {
        String::new()
    }
    /// Caps the per-call timeout for the calls of the coming case (`None` lifts the cap): the
    /// corpus gives cases meant to hang a short one of their own.
    fn set_case_timeout(&mut self, _cap: Option<Duration>) {}
    /// Multiplies every limit of the coming requests — the handshake, `case_start`, the calls
    /// and the case's cap — by `factor` (1 restores them). A case that timed out is run again
    /// alone with a patient limit ([`crate::run::RERUN_PATIENCE`]), so that a tool slowed down
    /// by a busy machine is judged on its answer instead of being reported as `timeout`.
    fn set_patience(&mut self, _factor: u32) {}
    /// Ends the implementation (`bye`).
    fn shutdown(&mut self) {}
    /// The process group the implementation runs in now, when it is a child process (the
    /// benchmark reads its peak memory from there); `None` in process.
    fn process_group(&self) -> Option<u32> {
        None
    }
}

type Job = (String, Value);
type Answer = Result<Result<Value, Value>, String>;

/// A session living on its own thread, so a call that hangs can be abandoned.
struct Worker {
    jobs: Sender<Job>,
    answers: Receiver<Answer>,
}

/// editref's own implementation, in process: a [`Session`] per case on a worker thread, with
/// the same per-call timeout as a child process. Declares [`editref::protocol::FEATURES`].
pub struct Builtin {
    timeout: Duration,
    cap: Option<Duration>,
    patience: u32,
    fsync: bool,
    worker: Option<Worker>,
}

impl Builtin {
    /// A builtin adapter with this per-call timeout (fsync on, as `editref serve` does).
    pub fn new(timeout: Duration) -> Builtin {
        Builtin {
            timeout,
            cap: None,
            patience: 1,
            fsync: true,
            worker: None,
        }
    }

    /// Turns fsync off (faster; results then carry `durable: false`, DISK-6).
    pub fn without_fsync(mut self) -> Builtin {
        self.fsync = false;
        self
    }
}

fn spawn_worker(dir: PathBuf, fsync: bool) -> Result<Worker, AdapterError> {
    let (jobs, job_rx) = mpsc::channel::<Job>();
    let (answer_tx, answers) = mpsc::channel::<Answer>();
    std::thread::Builder::new()
        .name("editref-builtin-case".into())
        .spawn(move || {
            let mut config = Config::new(&dir).with_root(&dir);
            config.fsync = fsync;
            // The case's undo journal lives outside its sandbox, and goes with the case.
            let journal = editref::undo::TempJournal::new().ok();
            config.undo = journal.as_ref().map(editref::undo::TempJournal::config);
            let session = Session::new(config);
            for (tool, input) in job_rx {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    session.call(&tool, &input)
                }));
                let answer = match result {
                    Ok(Ok(output)) => Ok(Ok(output)),
                    Ok(Err(e)) => Ok(Err(e.to_json())),
                    Err(payload) => Err(payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "panic".into())),
                };
                if answer_tx.send(answer).is_err() {
                    break;
                }
            }
        })
        .map_err(|e| AdapterError::Crash(format!("cannot start a worker thread: {e}")))?;
    Ok(Worker { jobs, answers })
}

impl Adapter for Builtin {
    fn hello(&mut self) -> Result<Hello, AdapterError> {
        Ok(Hello {
            name: "editref".into(),
            version: editref::VERSION.into(),
            features: editref::protocol::FEATURES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            read_format: ReadFormat::Tab,
        })
    }

    fn case_start(&mut self, _id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.worker = Some(spawn_worker(sandbox.to_path_buf(), self.fsync)?);
        Ok(())
    }

    fn call(&mut self, _seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        let Some(worker) = &self.worker else {
            return Err(AdapterError::Crash("call before case_start".into()));
        };
        if worker.jobs.send((tool.to_string(), input.clone())).is_err() {
            self.worker = None;
            return Err(AdapterError::Crash("the session thread is gone".into()));
        }
        let timeout = limit(self.timeout, self.cap, self.patience);
        match worker.answers.recv_timeout(timeout) {
            Ok(Ok(Ok(output))) => Ok(Reply::Ok(output)),
            Ok(Ok(Err(error))) => Ok(Reply::Err(error)),
            Ok(Err(panic)) => {
                self.worker = None;
                Err(AdapterError::Crash(format!(
                    "the reference panicked: {panic}"
                )))
            }
            Err(RecvTimeoutError::Timeout) => {
                // The thread is abandoned; it ends when its call returns.
                self.worker = None;
                Err(AdapterError::Timeout(format!(
                    "no reply within {:.1} s",
                    timeout.as_secs_f64()
                )))
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.worker = None;
                Err(AdapterError::Crash("the session thread died".into()))
            }
        }
    }

    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.worker = None;
        Ok(())
    }

    fn set_case_timeout(&mut self, cap: Option<Duration>) {
        self.cap = cap;
    }

    fn set_patience(&mut self, factor: u32) {
        self.patience = factor.max(1);
    }
}

/// The timeout of one call: the run's, or the case's cap when that is shorter.
pub fn capped(timeout: Duration, cap: Option<Duration>) -> Duration {
    cap.map_or(timeout, |c| c.min(timeout))
}

/// The timeout of one call with patience: [`capped`], times `patience` (at least 1). Every
/// adapter computes its limits here, so a patient re-run stretches them all alike.
pub fn limit(timeout: Duration, cap: Option<Duration>, patience: u32) -> Duration {
    capped(timeout, cap).saturating_mul(patience.max(1))
}
