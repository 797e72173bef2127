//! Shared support code of the reliability suite (`tests/reliability_*`).
//!
//! - **Counts and sizes** come from the environment so that `cargo test` runs a quick smoke
//!   version of every suite while `scripts/reliability` runs the CI counts (and larger ones on
//!   request). `EDITREF_RELIABILITY=ci` selects the CI defaults; `EDITREF_RELIABILITY_<NAME>`
//!   overrides one figure.
//! - **Figures** are written as one JSON line per test into `target/reliability/` (or
//!   `EDITREF_RELIABILITY_DIR`), *before* the test asserts, so that a failing run still reports
//!   what it lost; `scripts/reliability` renders them into RELIABILITY.md.
//! - **Child processes** run with a watchdog (a hang is a failure, never a wait forever) and
//!   their peak RSS is taken from `wait4`'s rusage, which is how memory bounds are checked
//!   without timing assertions.
//! - **Snapshots** of a directory tree back the "nothing else changed, no residue" checks.

#![allow(dead_code)]

pub mod file_system;

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_editref");

/// Whether the CI counts were asked for (`EDITREF_RELIABILITY=ci`, set by the script).
pub fn ci() -> bool {
    std::env::var("EDITREF_RELIABILITY").is_ok_and(|v| v == "ci")
}

/// A count: `EDITREF_RELIABILITY_<name>` if set, else the CI or the smoke default.
pub fn count(name: &str, smoke: u64, ci_default: u64) -> u64 {
    std::env::var(format!("EDITREF_RELIABILITY_{name}"))
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(if ci() { ci_default } else { smoke })
}

/// A size in bytes given in MiB, like [`count`].
pub fn mib(name: &str, smoke: u64, ci_default: u64) -> usize {
    (count(name, smoke, ci_default) as usize) << 20
}

/// The seed of every random choice (`EDITREF_RELIABILITY_SEED`), so that a failing run can be
/// replayed exactly.
pub fn seed() -> u64 {
    count("SEED", 0x5eed_2024, 0x5eed_2024)
}

/// The directory the figures go to.
pub fn figures_dir() -> PathBuf {
    match std::env::var_os("EDITREF_RELIABILITY_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_TARGET_TMPDIR"))
            .parent()
            .map(|p| p.join("reliability"))
            .unwrap_or_else(|| PathBuf::from("target/reliability")),
    }
}

/// A scratch directory on the same file system as the build (not a tmpfs, so that fsync and
/// rename behave as they do for users), removed when dropped.
pub fn sandbox() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("reliability-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("create a scratch directory")
}

/// One test's figures, written as a JSON line.
pub struct Record {
    suite: &'static str,
    test: &'static str,
    started: Instant,
    figures: Map<String, Value>,
}

impl Record {
    /// Starts the record of `suite`/`test`; `lost` and `corrupted` start at 0 and every test
    /// sets them from what it checked.
    pub fn new(suite: &'static str, test: &'static str) -> Record {
        let mut figures = Map::new();
        figures.insert("lost".into(), json!(0));
        figures.insert("corrupted".into(), json!(0));
        Record {
            suite,
            test,
            started: Instant::now(),
            figures,
        }
    }

    /// Sets one figure.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) -> &mut Record {
        self.figures.insert(key.into(), value.into());
        self
    }

    /// Adds to a numeric figure.
    pub fn add(&mut self, key: &str, n: u64) -> &mut Record {
        let now = self.figures.get(key).and_then(Value::as_u64).unwrap_or(0);
        self.figures.insert(key.into(), json!(now + n));
        self
    }

    /// Reads a numeric figure.
    pub fn get(&self, key: &str) -> u64 {
        self.figures.get(key).and_then(Value::as_u64).unwrap_or(0)
    }

    /// Writes the record (replacing the one of an earlier run of the same test).
    pub fn write(&self) {
        let dir = figures_dir();
        std::fs::create_dir_all(&dir).expect("create the figures directory");
        let line = json!({
            "suite": self.suite,
            "test": self.test,
            "level": if ci() { "ci" } else { "smoke" },
            "seed": seed(),
            "elapsed_ms": self.started.elapsed().as_millis() as u64,
            "figures": self.figures,
        });
        let path = dir.join(format!("{}.{}.json", self.suite, self.test));
        std::fs::write(&path, format!("{line}\n")).expect("write the figures");
    }
}

/// How a child process ended.
#[derive(Debug)]
pub struct Run {
    /// Exit code, when it exited.
    pub code: Option<i32>,
    /// Signal, when it was killed.
    pub signal: Option<i32>,
    /// Everything it printed on stdout.
    pub stdout: Vec<u8>,
    /// Everything it printed on stderr.
    pub stderr: Vec<u8>,
    /// Peak resident set size in bytes (`ru_maxrss`).
    pub max_rss: u64,
    /// Wall time from spawn to exit.
    pub elapsed: Duration,
    /// Whether the watchdog had to kill it.
    pub hung: bool,
}

impl Run {
    /// stdout parsed as one JSON value (the reply of `editref call`).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {:?} / stderr {:?}",
                String::from_utf8_lossy(&self.stdout[..self.stdout.len().min(500)]),
                String::from_utf8_lossy(&self.stderr[..self.stderr.len().min(2000)])
            )
        })
    }

    /// Asserts the child ended on its own with a normal exit code (0 or 1: done or refused),
    /// never by a signal, a panic (101) or the watchdog.
    pub fn assert_answered(&self, what: &str) {
        assert!(!self.hung, "{what}: hung and was killed by the watchdog");
        assert!(
            matches!(self.code, Some(0) | Some(1)),
            "{what}: ended with code {:?} signal {:?}; stderr: {}",
            self.code,
            self.signal,
            String::from_utf8_lossy(&self.stderr[..self.stderr.len().min(2000)])
        );
    }
}

/// What a child reads on stdin.
pub enum Stdin {
    /// Nothing (`/dev/null`).
    Null,
    /// These bytes, fed from a thread (a child that dies early just closes the pipe).
    Bytes(Vec<u8>),
    /// This file (large requests: the test process need not hold them while the child runs).
    File(PathBuf),
}

impl From<Option<Vec<u8>>> for Stdin {
    fn from(b: Option<Vec<u8>>) -> Stdin {
        b.map_or(Stdin::Null, Stdin::Bytes)
    }
}

/// A started child whose pipes are served by threads.
pub struct Spawned {
    child: Child,
    started: Instant,
    /// The child leads its own process group (the measuring launcher and its child).
    group: bool,
    feeder: Option<JoinHandle<()>>,
    out: Option<JoinHandle<Vec<u8>>>,
    err: Option<JoinHandle<Vec<u8>>>,
}

fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// Starts `cmd`.
pub fn spawn(cmd: &mut Command, stdin: impl Into<Stdin>) -> Spawned {
    let stdin = stdin.into();
    cmd.stdin(match &stdin {
        Stdin::Null => Stdio::null(),
        Stdin::Bytes(_) => Stdio::piped(),
        Stdin::File(p) => Stdio::from(std::fs::File::open(p).expect("open the stdin file")),
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn the child");
    let feeder = match (stdin, child.stdin.take()) {
        (Stdin::Bytes(bytes), Some(mut pipe)) => Some(std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })),
        _ => None,
    };
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    Spawned {
        child,
        started,
        group: false,
        feeder,
        out,
        err,
    }
}

impl Spawned {
    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// When it was started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// SIGKILL (harmless when it already exited: it stays a zombie until reaped).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
    }

    /// Reaps the child, killing it first if it is still running after `watchdog`.
    pub fn wait(mut self, watchdog: Duration) -> Run {
        let pid = self.child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: rusage is plain data; zeroed is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let mut hung = false;
        loop {
            // SAFETY: valid pointers to locals; pid is our own unreaped child.
            let rc = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
            if rc == pid {
                break;
            }
            assert!(rc == 0, "wait4 failed: {}", std::io::Error::last_os_error());
            if self.started.elapsed() > watchdog && !hung {
                hung = true;
                if self.group {
                    // SAFETY: signals the process group `run_measured` created for its launcher.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                } else {
                    let _ = self.child.kill();
                }
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let elapsed = self.started.elapsed();
        if let Some(f) = self.feeder.take() {
            let _ = f.join();
        }
        let stdout = self
            .out
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default();
        let stderr = self
            .err
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default();
        let (code, signal) = if libc::WIFEXITED(status) {
            (Some(libc::WEXITSTATUS(status)), None)
        } else if libc::WIFSIGNALED(status) {
            (None, Some(libc::WTERMSIG(status)))
        } else {
            (None, None)
        };
        Run {
            code,
            signal,
            stdout,
            stderr,
            max_rss: usage.ru_maxrss as u64 * 1024,
            elapsed,
            hung,
        }
    }
}

/// The watchdog for one child: far above any honest run, it only turns a hang into a failure.
pub const WATCHDOG: Duration = Duration::from_secs(300);

/// Runs `cmd` to the end (watchdog [`WATCHDOG`]).
pub fn run(cmd: &mut Command, stdin: impl Into<Stdin>) -> Run {
    spawn(cmd, stdin).wait(WATCHDOG)
}

/// Set (to a result file) in the environment of a test binary started as the measuring
/// launcher of [`run_measured`].
const MEASURE_ENV: &str = "EDITREF_RELIABILITY_MEASURE";

/// Runs `editref args` in `cwd` and reports *its own* peak RSS.
///
/// A child's `ru_maxrss` includes the memory of the process that started it: `exec` records
/// the peak of the address space it replaces, and a `vfork`ed (or `fork`ed) child's address
/// space is its parent's. A test process that has handled a 100 MB input would make every later
/// child look 100 MB big. So the child is started by a fresh, small process — this test binary
/// started again as the launcher (see [`measure_launcher`]) — which reaps it with `wait4` and
/// writes the exit status and `ru_maxrss` to a file.
pub fn run_measured(cwd: &Path, args: &[&str], stdin: impl Into<Stdin>) -> Run {
    let result = tempfile::NamedTempFile::new_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("create the result file");
    let mut launcher = Command::new(std::env::current_exe().expect("the test binary"));
    launcher
        .arg(BIN)
        .args(args)
        .current_dir(cwd)
        .env(MEASURE_ENV, result.path());
    {
        use std::os::unix::process::CommandExt;
        launcher.process_group(0);
    }
    let mut spawned = spawn(&mut launcher, stdin);
    spawned.group = true;
    let mut run = spawned.wait(WATCHDOG);
    let report = std::fs::read_to_string(result.path()).unwrap_or_default();
    let fields: Vec<i64> = report
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    match fields.as_slice() {
        [code, signal, maxrss_kb] => {
            run.code = (*code >= 0).then_some(*code as i32);
            run.signal = (*signal > 0).then_some(*signal as i32);
            run.max_rss = *maxrss_kb as u64 * 1024;
        }
        _ => {
            run.code = None;
            run.signal = run.signal.or(Some(libc::SIGKILL));
        }
    }
    run
}

/// The measuring launcher. Runs before `main` in every test binary that includes this module
/// (from `.init_array`) and does nothing unless [`MEASURE_ENV`] is set: then this process was
/// started by [`run_measured`] as `test-binary PROGRAM ARGS...`; it runs the program with the
/// same stdin, stdout, stderr and directory, reaps it, writes `code signal maxrss_kb` to the
/// result file and exits without ever starting the test harness.
extern "C" fn measure_launcher() {
    use std::os::unix::ffi::OsStrExt;
    let Some(result) = std::env::var_os(MEASURE_ENV) else {
        return;
    };
    // Before main, std's argument list may not be set up yet: read it from /proc.
    let cmdline = std::fs::read("/proc/self/cmdline").unwrap_or_default();
    let mut argv: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    argv.pop(); // after the final NUL
    let report = if argv.len() < 2 {
        "-1 0 0\n".to_string()
    } else {
        let mut cmd = Command::new(std::ffi::OsStr::from_bytes(argv[1]));
        cmd.args(argv[2..].iter().map(|a| std::ffi::OsStr::from_bytes(a)))
            .env_remove(MEASURE_ENV);
        match cmd.spawn() {
            Err(_) => "127 0 0\n".to_string(),
            Ok(child) => {
                let mut status = 0;
                // SAFETY: rusage is plain data; zeroed is a valid value.
                let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
                // SAFETY: valid pointers; the pid is this process's own child.
                unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
                let (code, signal) = if libc::WIFEXITED(status) {
                    (libc::WEXITSTATUS(status), 0)
                } else {
                    (-1, libc::WTERMSIG(status))
                };
                format!("{code} {signal} {}\n", usage.ru_maxrss)
            }
        }
    };
    let _ = std::fs::write(result, report);
    // SAFETY: ends this launcher process at once, as intended; nothing else runs in it.
    unsafe { libc::_exit(0) };
}

#[used]
#[link_section = ".init_array"]
static MEASURE_LAUNCHER: extern "C" fn() = measure_launcher;

/// `editref call [args]` with `request` on stdin; returns the parsed reply and the run.
pub fn call(cwd: &Path, args: &[&str], request: &Value) -> (Value, Run) {
    let mut cmd = Command::new(BIN);
    cmd.arg("call").args(args).current_dir(cwd);
    let run = run(&mut cmd, Some(request.to_string().into_bytes()));
    run.assert_answered(&format!("editref call {args:?}"));
    (run.json(), run)
}

/// The error code of a reply (`None` when it succeeded).
pub fn code_of(reply: &Value) -> Option<String> {
    if reply["ok"] == json!(true) {
        None
    } else {
        Some(reply["error"]["code"].as_str().unwrap_or("?").to_string())
    }
}

/// What a directory entry is, with content for files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A regular file: its bytes (or, above 1 MiB, their length and xxh3 hash) and mode.
    File {
        /// The bytes, or empty when hashed.
        bytes: Vec<u8>,
        /// Length.
        len: u64,
        /// xxh3 of the bytes.
        hash: u64,
        /// Permission bits.
        mode: u32,
        /// Inode (a replaced file is a change even with equal bytes).
        ino: u64,
    },
    /// A symbolic link and its target text.
    Symlink(PathBuf),
    /// A directory.
    Dir,
    /// FIFO, socket or device.
    Special,
}

/// Every entry under `dir` (not following links), by path relative to `dir`.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Node> {
    use std::os::unix::fs::MetadataExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap_or(&p).to_path_buf();
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let ft = m.file_type();
            let node = if ft.is_symlink() {
                Node::Symlink(std::fs::read_link(&p).unwrap_or_default())
            } else if ft.is_dir() {
                stack.push(p.clone());
                Node::Dir
            } else if ft.is_file() {
                let len = m.len();
                let (bytes, hash) = if len <= 1 << 20 {
                    let b = std::fs::read(&p).unwrap_or_default();
                    let h = xxhash_rust::xxh3::xxh3_64(&b);
                    (b, h)
                } else {
                    (Vec::new(), hash_file(&p))
                };
                Node::File {
                    bytes,
                    len,
                    hash,
                    mode: m.mode() & 0o7777,
                    ino: m.ino(),
                }
            } else {
                // FIFO, socket or device.
                Node::Special
            };
            out.insert(rel, node);
        }
    }
    out
}

/// xxh3 of a file, streamed (for large and sparse files).
pub fn hash_file(p: &Path) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut f = std::fs::File::open(p).expect("open for hashing");
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).expect("read for hashing");
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    h.digest()
}

/// The differences between two snapshots, as readable lines (empty when equal).
pub fn diff(before: &BTreeMap<PathBuf, Node>, after: &BTreeMap<PathBuf, Node>) -> Vec<String> {
    let mut out = Vec::new();
    for (p, n) in before {
        match after.get(p) {
            None => out.push(format!("removed: {}", p.display())),
            Some(m) if m != n => out.push(format!("changed: {}", p.display())),
            _ => {}
        }
    }
    for p in after.keys() {
        if !before.contains_key(p) {
            out.push(format!("added: {}", p.display()));
        }
    }
    out
}

/// Temp files (by the documented name) anywhere under `dir` (names only: nothing is read).
pub fn residue(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            if editref::disk::is_temp_name(&e.file_name().to_string_lossy()) {
                out.push(p.strip_prefix(dir).unwrap_or(&p).to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// A JSON string literal of `s` (for hand-built request lines).
pub fn json_str(s: &str) -> String {
    Value::from(s).to_string()
}
