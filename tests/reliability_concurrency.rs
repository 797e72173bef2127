//! SESSION-4: concurrent editors of one file lose no update. Each edit either lands or fails
//! with `stale`; the final file holds exactly the edits reported as successful — each once —
//! and every other byte as it was.
//!
//! Three set-ups share one checker: N `editref call --session` processes (each with its own
//! session file, Read then Edit, retrying after `stale`), N one-shot `editref edit` processes,
//! and threads of one process, sharing one library `Session` or each with its own.
//!
//! Counts: `EDITREF_RELIABILITY_PROCS` (smoke 4, CI 8) workers × `EDITREF_RELIABILITY_EDITS`
//! (smoke 5, CI 10) edits each (threads: twice as many).

mod reliability_support;

use editref::{Config, Session};
use reliability_support as rs;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

const NAME: &str = "shared.txt";
/// Attempts per edit before a worker gives up (a give-up is reported, not hidden).
const ATTEMPTS: u32 = 200;

fn slot(p: u64, j: u64) -> String {
    format!("slot {p:02}-{j:03}: original value\n")
}

fn edited(p: u64, j: u64) -> String {
    format!("slot {p:02}-{j:03}: EDITED by worker {p} (edit {j})\n")
}

/// The shared file: every worker's slots in a seeded random order between filler lines.
fn initial(workers: u64, edits: u64) -> String {
    let mut slots: Vec<(u64, u64)> = (0..workers)
        .flat_map(|p| (0..edits).map(move |j| (p, j)))
        .collect();
    fastrand::Rng::with_seed(rs::seed()).shuffle(&mut slots);
    let mut text = String::new();
    for (k, (p, j)) in slots.iter().enumerate() {
        text.push_str(&format!("filler line {k} keeps edits apart\n"));
        text.push_str(&slot(*p, *j));
    }
    text
}

/// What one attempt came back with.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Landed,
    Stale,
    Other(String),
}

#[derive(Default)]
struct Tally {
    attempts: u64,
    landed: Vec<(u64, u64)>,
    stale: u64,
    other: Vec<String>,
    gave_up: u64,
}

/// Runs `workers` threads, each trying its `edits` edits through `attempt` until they land
/// (or [`ATTEMPTS`] run out), then checks the final file and writes the figures.
fn exercise(
    test: &'static str,
    workers: u64,
    edits: u64,
    dir: &Path,
    attempt: impl Fn(u64, u64) -> Outcome + Send + Sync + 'static,
) {
    let text = initial(workers, edits);
    std::fs::write(dir.join(NAME), &text).expect("write the shared file");
    let mut rec = rs::Record::new("concurrency", test);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let attempt = Arc::new(attempt);
    let handles: Vec<_> = (0..workers)
        .map(|p| {
            let tally = tally.clone();
            let attempt = attempt.clone();
            std::thread::spawn(move || {
                for j in 0..edits {
                    let mut done = false;
                    for _ in 0..ATTEMPTS {
                        let o = attempt(p, j);
                        let mut t = tally.lock().expect("tally");
                        t.attempts += 1;
                        match o {
                            Outcome::Landed => {
                                t.landed.push((p, j));
                                done = true;
                            }
                            Outcome::Stale => t.stale += 1,
                            Outcome::Other(e) => {
                                t.other.push(format!("worker {p} edit {j}: {e}"));
                                done = true;
                            }
                        }
                        if done {
                            break;
                        }
                    }
                    if !done {
                        tally.lock().expect("tally").gave_up += 1;
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("worker panicked");
    }
    let t = tally.lock().expect("tally");

    // The file must be the original with exactly the landed edits applied.
    let now = std::fs::read_to_string(dir.join(NAME)).expect("read the shared file");
    let mut want = text.clone();
    for (p, j) in &t.landed {
        want = want.replacen(&slot(*p, *j), &edited(*p, *j), 1);
    }
    let mut lost = 0u64;
    let mut duplicated = 0u64;
    let mut unreported = 0u64;
    for p in 0..workers {
        for j in 0..edits {
            let n = now.matches(edited(p, j).as_str()).count() as u64;
            let reported = t.landed.contains(&(p, j));
            match (reported, n) {
                (true, 0) => lost += 1,
                (false, n) if n > 0 => unreported += 1,
                (_, n) if n > 1 => duplicated += 1,
                _ => {}
            }
        }
    }
    let corrupted = u64::from(now != want);
    // Every refusal removed its temp file.
    let residue = rs::residue(dir);
    rec.set("workers", workers)
        .set("edits_per_worker", edits)
        .set("attempts", t.attempts)
        .set("landed", t.landed.len() as u64)
        .set("stale", t.stale)
        .set("other_errors", t.other.len() as u64)
        .set("gave_up", t.gave_up)
        .set("lost", lost)
        .set("duplicated", duplicated)
        .set("landed_but_reported_failed", unreported)
        .set("temp_residue", residue.len() as u64)
        .set("corrupted", corrupted);
    rec.write();
    assert!(t.other.is_empty(), "errors other than stale: {:?}", t.other);
    assert!(residue.is_empty(), "temp files left: {residue:?}");
    assert_eq!(lost, 0, "edits reported successful but missing");
    assert_eq!(duplicated, 0, "edits present more than once");
    assert_eq!(unreported, 0, "edits present but reported as failed");
    assert_eq!(
        corrupted, 0,
        "the file is not the original plus the landed edits"
    );
    assert_eq!(
        t.gave_up, 0,
        "edits that never landed in {ATTEMPTS} attempts"
    );
    assert_eq!(t.landed.len() as u64, workers * edits);
}

fn classify(reply: &Value) -> Outcome {
    match rs::code_of(reply).as_deref() {
        None => Outcome::Landed,
        Some("stale") => Outcome::Stale,
        Some(other) => Outcome::Other(format!("{other}: {}", reply["error"]["message"])),
    }
}

#[test]
fn session_4_processes_with_their_own_session_files() {
    let workers = rs::count("PROCS", 4, 8);
    let edits = rs::count("EDITS", 5, 10);
    let sandbox = rs::sandbox();
    let dir: PathBuf = sandbox.path().to_path_buf();
    let d = dir.clone();
    exercise(
        "processes_call_session",
        workers,
        edits,
        &dir,
        move |p, j| {
            let session = d.join(format!("session-{p}.json"));
            let session = session.to_str().expect("UTF-8 path");
            let args = ["--session", session, "--no-fsync"];
            let (read, _) = rs::call(
                &d,
                &args,
                &json!({"tool": "Read", "input": {"file_path": NAME}}),
            );
            if read["ok"] != json!(true) {
                return Outcome::Other(format!("Read: {read}"));
            }
            let (reply, _) = rs::call(
                &d,
                &args,
                &json!({"tool": "Edit", "input": {"file_path": NAME,
                "old_string": slot(p, j), "new_string": edited(p, j)}}),
            );
            classify(&reply)
        },
    );
}

#[test]
fn session_4_one_shot_edit_processes() {
    let workers = rs::count("PROCS", 4, 8);
    let edits = rs::count("EDITS", 5, 10);
    let sandbox = rs::sandbox();
    let dir: PathBuf = sandbox.path().to_path_buf();
    let d = dir.clone();
    exercise(
        "processes_one_shot_edit",
        workers,
        edits,
        &dir,
        move |p, j| {
            let mut cmd = Command::new(rs::BIN);
            cmd.current_dir(&d)
                .args(["edit", NAME, "--json", "--old-string"])
                .arg(slot(p, j))
                .arg("--new-string")
                .arg(edited(p, j));
            let run = rs::run(&mut cmd, None);
            run.assert_answered("editref edit");
            // `edit --json` prints the bare result on success, {"ok": false, ...} on refusal.
            if run.code == Some(0) {
                Outcome::Landed
            } else {
                classify(&run.json())
            }
        },
    );
}

fn thread_attempt(session: &Session, p: u64, j: u64) -> Outcome {
    if let Err(e) = session.call("Read", &json!({"file_path": NAME})) {
        return Outcome::Other(format!("Read: {e}"));
    }
    match session.call(
        "Edit",
        &json!({"file_path": NAME, "old_string": slot(p, j), "new_string": edited(p, j)}),
    ) {
        Ok(_) => Outcome::Landed,
        Err(e) if e.code.as_str() == "stale" => Outcome::Stale,
        Err(e) => Outcome::Other(e.to_string()),
    }
}

fn config(dir: &Path) -> Config {
    let mut c = Config::new(dir).with_root(dir);
    c.fsync = false;
    c
}

#[test]
fn session_4_threads_sharing_one_session() {
    let workers = rs::count("PROCS", 4, 8);
    let edits = rs::count("EDITS", 5, 10) * 2;
    let sandbox = rs::sandbox();
    let dir = sandbox.path().to_path_buf();
    let session = Arc::new(Session::new(config(&dir)));
    exercise(
        "threads_shared_session",
        workers,
        edits,
        &dir,
        move |p, j| thread_attempt(&session, p, j),
    );
}

#[test]
fn session_4_threads_with_a_session_each() {
    let workers = rs::count("PROCS", 4, 8);
    let edits = rs::count("EDITS", 5, 10) * 2;
    let sandbox = rs::sandbox();
    let dir = sandbox.path().to_path_buf();
    let sessions: Arc<Vec<Session>> =
        Arc::new((0..workers).map(|_| Session::new(config(&dir))).collect());
    exercise("threads_own_sessions", workers, edits, &dir, move |p, j| {
        thread_attempt(&sessions[p as usize], p, j)
    });
}
