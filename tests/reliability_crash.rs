//! DISK-5: a process killed at any instant leaves the old or the new content at the path; an
//! orphaned temp file of the documented name is the only possible residue, it is never read
//! back, and the next edit in the directory removes it (D24).
//!
//! The editing process (`editref edit`, and `editref call` running MultiEdit and Write) works
//! on a large file and is killed with SIGKILL at instants drawn from a seeded RNG, uniformly over
//! the duration of one such edit as measured first on this machine. After every kill the file
//! must be byte-for-byte the old or the new content, and every other entry of the directory must
//! be a temp file named after the target and a killed process; the temp files each kill leaves
//! are counted. Orphans stay in place for the following edits, and every so often (and at the
//! end) an edit runs to completion among them: it must produce exactly the expected bytes and
//! leave no temp file of a dead process behind.
//!
//! `editref` writes into an unnamed file (`O_TMPFILE`) where the file system makes one, so its
//! kills leave hardly any orphan and the clean-up is barely exercised. The same run is therefore
//! made a second time with writers that use the named temp file (D10's fallback) — this test
//! binary started again as a writer ([`named_writer`]) that runs the same calls through the
//! library behind a seam refusing unnamed files, as on a file system without them — so that
//! kills leave real orphans and the next edit must remove them.
//!
//! Counts: `EDITREF_RELIABILITY_KILLS` (smoke 20, CI 150) and
//! `EDITREF_RELIABILITY_NAMED_KILLS` (smoke 20, CI 60), file size
//! `EDITREF_RELIABILITY_CRASH_FILE_MB` (smoke 1, CI 1), seed `EDITREF_RELIABILITY_SEED`.

mod reliability_support;

use editref::disk::{Fault, FaultFs, Op, RealFs};
use editref::{Config, Session};
use reliability_support as rs;
use serde_json::{json, Value};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const NAME: &str = "big.txt";

/// The file's content: a fixed pseudo-random body with two marker slots, at about 30 % and
/// 70 % of the file, holding the current tokens.
struct Body {
    head: String,
    middle: String,
    tail: String,
}

impl Body {
    fn new(size: usize, rng: &mut fastrand::Rng) -> Body {
        let mut text = String::with_capacity(size + 200);
        let mut n = 0u64;
        while text.len() < size {
            let len = rng.usize(8..90);
            let word: String = (0..len).map(|_| rng.alphanumeric()).collect();
            text.push_str(&format!("{n:08} {word}\n"));
            n += 1;
        }
        let a = text[..size * 3 / 10].rfind('\n').map_or(0, |i| i + 1);
        let b = text[..size * 7 / 10].rfind('\n').map_or(0, |i| i + 1);
        Body {
            head: text[..a].to_string(),
            middle: text[a..b].to_string(),
            tail: text[b..].to_string(),
        }
    }

    fn render(&self, s: &State) -> Vec<u8> {
        format!(
            "{}{}{}{}{}",
            self.head,
            slot1(&s.t1),
            self.middle,
            slot2(&s.t2),
            self.tail
        )
        .into_bytes()
    }
}

fn slot1(t: &str) -> String {
    format!("[[slot-one:{t}]]\n")
}

fn slot2(t: &str) -> String {
    format!("[[slot-two:{t}]]\n")
}

#[derive(Clone, Debug, PartialEq)]
struct State {
    t1: String,
    t2: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tool {
    /// `editref edit FILE --old-string A --new-string B` (one slot).
    Edit,
    /// `editref call` MultiEdit (both slots, one write).
    MultiEdit,
    /// `editref call` Write (the whole content on stdin).
    Write,
}

const TOOLS: [Tool; 3] = [Tool::Edit, Tool::MultiEdit, Tool::Write];

/// Which program makes the edits that are killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Writer {
    /// The `editref` binary, as users run it: an unnamed temp file where the file system
    /// makes one.
    Binary,
    /// This test binary started again as [`named_writer`]: the same calls through the library,
    /// on a seam whose unnamed create answers EOPNOTSUPP, so that the named temp file is used.
    Named,
}

/// Set in the environment of this test binary when it is started as [`named_writer`].
const NAMED_WRITER_ENV: &str = "EDITREF_RELIABILITY_NAMED_WRITER";

/// The named-temp-file writer. Runs before `main` in this test binary (from `.init_array`) and
/// does nothing unless [`NAMED_WRITER_ENV`] is set: then it reads one call `{"tool", "input"}`
/// on stdin, runs it like a one-shot `editref call --no-undo` (fsync on) in its working
/// directory — but through a [`FaultFs`] whose `O_TMPFILE` create fails with EOPNOTSUPP, as on
/// a file system without unnamed files — prints the reply and exits with `editref call`'s code
/// (0 done, 1 refused, 2 unusable input), never starting the test harness.
///
/// The variable's value `k`, when not 0, is where the writer dies: it sends itself SIGKILL just
/// before the `k`-th file-system call after its named temp file was created, so that the kill
/// falls while that file has its name — the window in which a kill leaves an orphan. With 0 it
/// runs to the end and prints on stderr how many calls that window holds (the last one is the
/// rename that takes the name away), for the test to draw `k` from.
extern "C" fn named_writer() {
    if std::env::var_os(NAMED_WRITER_ENV).is_none() {
        return;
    }
    let code = named_writer_call();
    // SAFETY: ends this writer process at once, as intended; nothing else runs in it.
    unsafe { libc::_exit(code) };
}

#[used]
#[link_section = ".init_array"]
static NAMED_WRITER: extern "C" fn() = named_writer;

fn named_writer_call() -> i32 {
    let mut raw = String::new();
    if std::io::stdin().read_to_string(&mut raw).is_err() {
        return 2;
    }
    let Ok(mut request) = serde_json::from_str::<Value>(&raw) else {
        return 2;
    };
    let (Some(tool), Ok(cwd)) = (
        request["tool"].as_str().map(str::to_string),
        std::env::current_dir(),
    ) else {
        return 2;
    };
    let kill_at: u64 = std::env::var(NAMED_WRITER_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // Calls since the named temp file was created (0: not created yet), and the number of the
    // rename that takes its name away.
    let since = Arc::new(AtomicU64::new(0));
    let window = Arc::new(AtomicU64::new(0));
    let mut fs = FaultFs::new(Arc::new(RealFs));
    for n in 1..=8 {
        fs = fs.fail(Op::CreateUnnamed, n, Fault::Errno(libc::EOPNOTSUPP));
    }
    let (s, w) = (since.clone(), window.clone());
    let fs = fs.with_hook(move |op, _| {
        // The hook runs before each call: the create is done once the next call comes.
        let n = s.load(Ordering::Relaxed);
        if n == 0 {
            if op == Op::CreateExclusive {
                s.store(1, Ordering::Relaxed);
            }
            return;
        }
        if op == Op::Rename && w.load(Ordering::Relaxed) == 0 {
            w.store(n, Ordering::Relaxed);
        }
        if n == kill_at {
            // SAFETY: SIGKILL to this very process, which is the point.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
        s.store(n + 1, Ordering::Relaxed);
    });
    let session = Session::with_fs(Config::new(cwd).one_shot(), Arc::new(fs));
    let (reply, code) = match session.call_value(&tool, request["input"].take()) {
        Ok(output) => (json!({"ok": true, "output": output}), 0),
        Err(e) => (json!({"ok": false, "error": e.to_json()}), 1),
    };
    println!("{reply}");
    eprintln!("named window: {}", window.load(Ordering::Relaxed));
    code
}

/// The number of calls in the named temp file's window, as a complete run of [`named_writer`]
/// reported it.
fn named_window(run: &rs::Run) -> u64 {
    String::from_utf8_lossy(&run.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("named window: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Edit => "edit",
            Tool::MultiEdit => "multi_edit",
            Tool::Write => "write",
        }
    }

    /// The state after this tool's operation number `i` (tokens of varying length, so that a
    /// torn write could never look like a valid state).
    fn next(self, s: &State, i: u64) -> State {
        let pad = "x".repeat((i % 7) as usize);
        match self {
            Tool::Edit => State {
                t1: format!("edit-{i}{pad}"),
                t2: s.t2.clone(),
            },
            Tool::MultiEdit => State {
                t1: format!("multi-{i}"),
                t2: format!("multi-{i}{pad}"),
            },
            Tool::Write => State {
                t1: format!("write-{i}{pad}"),
                t2: format!("write-{i}"),
            },
        }
    }

    /// The call as `editref call` takes it.
    fn request(self, body: &Body, from: &State, to: &State) -> Value {
        match self {
            Tool::Edit => json!({"tool": "Edit", "input": {"file_path": NAME,
                "old_string": slot1(&from.t1), "new_string": slot1(&to.t1)}}),
            Tool::MultiEdit => json!({"tool": "MultiEdit", "input": {"file_path": NAME, "edits": [
                {"old_string": slot1(&from.t1), "new_string": slot1(&to.t1)},
                {"old_string": slot2(&from.t2), "new_string": slot2(&to.t2)},
            ]}}),
            Tool::Write => {
                let content = String::from_utf8(body.render(to)).expect("ASCII body");
                json!({"tool": "Write", "input": {"file_path": NAME, "content": content}})
            }
        }
    }

    fn command(
        self,
        writer: Writer,
        dir: &Path,
        body: &Body,
        from: &State,
        to: &State,
    ) -> (Command, Vec<u8>) {
        if writer == Writer::Named {
            let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
            cmd.current_dir(dir).env(NAMED_WRITER_ENV, "0");
            return (cmd, self.request(body, from, to).to_string().into_bytes());
        }
        let mut cmd = Command::new(rs::BIN);
        cmd.current_dir(dir);
        // The directory's entries are checked after each kill: no undo journal in it.
        match self {
            Tool::Edit => {
                cmd.args(["edit", NAME, "--json", "--no-undo", "--old-string"])
                    .arg(slot1(&from.t1))
                    .arg("--new-string")
                    .arg(slot1(&to.t1));
                (cmd, Vec::new())
            }
            Tool::MultiEdit | Tool::Write => {
                cmd.args(["call", "--no-undo"]);
                (cmd, self.request(body, from, to).to_string().into_bytes())
            }
        }
    }
}

/// Entries of `dir` other than the target; each must be a temp file of the documented name.
fn others(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("list the directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != NAME)
        .collect();
    v.sort();
    v
}

fn orphan_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(&format!(".{NAME}.editref-"))?;
    let rest = rest.strip_suffix(".tmp")?;
    let (pid, hex) = rest.split_once('-')?;
    if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    pid.parse().ok()
}

/// Runs one operation to completion and checks its exact result.
fn complete(
    writer: Writer,
    dir: &Path,
    body: &Body,
    tool: Tool,
    from: &State,
    to: &State,
) -> rs::Run {
    let (mut cmd, stdin) = tool.command(writer, dir, body, from, to);
    let run = rs::run(&mut cmd, (!stdin.is_empty()).then_some(stdin));
    assert_eq!(
        run.code,
        Some(0),
        "{} did not succeed: {}",
        tool.name(),
        String::from_utf8_lossy(&run.stdout)
    );
    let now = std::fs::read(dir.join(NAME)).expect("read the file");
    assert!(
        now == body.render(to),
        "{} wrote other bytes than expected",
        tool.name()
    );
    run
}

#[test]
fn disk_5_sigkill_at_random_instants_leaves_the_old_or_the_new_bytes() {
    kill_run(
        Writer::Binary,
        "sigkill_during_edit",
        rs::count("KILLS", 20, 150),
    );
}

/// D24 against real orphans: the writers use the named temp file, so a kill while the content
/// is written leaves one, and the next edit in the directory must remove every orphan of a
/// dead writer.
#[test]
fn d24_sigkill_on_the_named_temp_file_leaves_orphans_the_next_edit_removes() {
    kill_run(
        Writer::Named,
        "sigkill_named_temp_file",
        rs::count("NAMED_KILLS", 20, 60),
    );
}

/// `kills` edits by `writer`, each killed at a random instant, with the checks of the module
/// documentation; the figures go to the record `crash`/`test`.
fn kill_run(writer: Writer, test: &'static str, kills: u64) {
    let size = rs::mib("CRASH_FILE_MB", 1, 1);
    let mut rng = fastrand::Rng::with_seed(rs::seed());
    let body = Body::new(size, &mut rng);
    let sandbox = rs::sandbox();
    let dir = sandbox.path();
    let path: PathBuf = dir.join(NAME);
    let mut state = State {
        t1: "initial".into(),
        t2: "initial".into(),
    };
    std::fs::write(&path, body.render(&state)).expect("write the initial file");

    // The duration of each kind of edit on this machine, measured before any kill (and for
    // the named writer, the calls its temp file's window holds).
    let mut op = 0u64;
    let mut duration = [Duration::ZERO; 3];
    let mut window = [0u64; 3];
    for (k, tool) in TOOLS.iter().enumerate() {
        for _ in 0..3 {
            op += 1;
            let next = tool.next(&state, op);
            let run = complete(writer, dir, &body, *tool, &state, &next);
            duration[k] = duration[k].max(run.elapsed);
            window[k] = window[k].max(named_window(&run));
            state = next;
        }
    }
    if writer == Writer::Named {
        assert!(
            window.iter().all(|&n| n > 0),
            "the named writer made no named temp file ({window:?} calls in its window)"
        );
    }

    let mut rec = rs::Record::new("crash", test);
    let (mut old, mut new, mut completed, mut with_orphan, mut orphans) = (0, 0, 0, 0, 0u64);
    let (mut corrupted, mut unexpected, mut checkpoints) = (0u64, Vec::<String>::new(), 0u64);
    let (mut before_next, mut left_after, mut kept_reused) = (0u64, 0u64, 0u64);
    // Temp files seen so far and still there (a later edit may have removed some).
    let mut present: Vec<String> = Vec::new();
    for i in 0..kills {
        let k = (i % 3) as usize;
        let tool = TOOLS[k];
        op += 1;
        let next = tool.next(&state, op);
        let (mut cmd, stdin) = tool.command(writer, dir, &body, &state, &next);
        let at = duration[k].mul_f64(rng.f64());
        if writer == Writer::Named {
            // Killed by itself, inside the window where its temp file has a name.
            cmd.env(NAMED_WRITER_ENV, rng.u64(1..=window[k]).to_string());
        }
        let mut child = rs::spawn(&mut cmd, (!stdin.is_empty()).then_some(stdin));
        let pid = child.pid();
        if writer == Writer::Binary {
            // Not a synchronisation: this only chooses the instant of the kill.
            if let Some(rest) = at.checked_sub(child.started().elapsed()) {
                std::thread::sleep(rest);
            }
            child.kill();
        }
        let run = child.wait(rs::WATCHDOG);
        assert!(!run.hung, "an edit hung");
        if run.code == Some(0) {
            completed += 1;
        }

        let now = std::fs::read(&path).expect("the file must still exist");
        if now == body.render(&state) {
            old += 1;
        } else if now == body.render(&next) {
            new += 1;
            state = next;
        } else {
            corrupted += 1;
            let keep = dir.join(format!("corrupted-{i}.bin"));
            let _ = std::fs::rename(&path, &keep);
            std::fs::write(&path, body.render(&state)).expect("restore");
        }

        let names = others(dir);
        let mut fresh = Vec::new();
        for n in &names {
            if present.contains(n) {
                continue;
            }
            match orphan_pid(n) {
                Some(p) if p == pid => fresh.push(n.clone()),
                _ if n.starts_with("corrupted-") => {}
                _ => unexpected.push(n.clone()),
            }
        }
        if !fresh.is_empty() {
            with_orphan += 1;
            orphans += fresh.len() as u64;
        }
        // Orphans stay for the following edits; those an edit that finished removed are gone.
        present = names
            .into_iter()
            .filter(|n| orphan_pid(n).is_some())
            .collect();

        // Every 50 kills and at the end: an edit among the orphans runs to completion, gives
        // exactly the expected bytes and removes every temp file of a dead process.
        if (i + 1) % 50 == 0 || i + 1 == kills {
            checkpoints += 1;
            before_next += present.len() as u64;
            op += 1;
            let tool = TOOLS[(op % 3) as usize];
            let next = tool.next(&state, op);
            complete(writer, dir, &body, tool, &state, &next);
            state = next;
            let extra: Vec<String> = others(dir)
                .into_iter()
                .filter(|n| !present.contains(n) && !n.starts_with("corrupted-"))
                .collect();
            assert!(extra.is_empty(), "a completed edit left {extra:?}");
            present.retain(|n| dir.join(n).exists());
            left_after += present.len() as u64;
            // A PID of a killed edit that another process has taken since is a live writer's
            // as far as anyone can tell, so its temp file stays (D24): counted, not failed.
            kept_reused += present
                .iter()
                .filter(|n| orphan_pid(n).is_some_and(alive))
                .count() as u64;
        }
    }

    rec.set("kills", kills)
        .set("file_bytes", size as u64)
        .set("file_system", rs::file_system::name_of(dir))
        .set("left_old", old)
        .set("left_new", new)
        .set("finished_before_kill", completed)
        .set("kills_leaving_orphans", with_orphan)
        .set("orphans", orphans)
        .set("completed_edits_among_orphans", checkpoints)
        .set("orphans_before_next_edit", before_next)
        .set("orphans_left_after_next_edit", left_after)
        .set("orphans_kept_pid_reused", kept_reused)
        .set(
            "named_window_calls",
            json!({"edit": window[0], "multi_edit": window[1], "write": window[2]}),
        )
        .set(
            "measured_edit_ms",
            json!({
                "edit": duration[0].as_millis() as u64,
                "multi_edit": duration[1].as_millis() as u64,
                "write": duration[2].as_millis() as u64,
            }),
        )
        .set("unexpected_entries", unexpected.len() as u64)
        .set("corrupted", corrupted);
    rec.write();
    assert_eq!(corrupted, 0, "files held neither the old nor the new bytes");
    assert!(
        unexpected.is_empty(),
        "entries that are not orphan temp files: {unexpected:?}"
    );
    assert_eq!(
        left_after, kept_reused,
        "the next edit left temp files of dead processes"
    );
}

/// Whether a process with this PID exists now.
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH))
}
