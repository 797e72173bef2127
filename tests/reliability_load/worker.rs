//! One MCP session of the load run, and the files it works on.
//!
//! Session `w` owns the lines `w<w>a N` and `w<w>b N` (N a six-digit counter) in shared file
//! `shared<w % SHARED>.txt` and in its own file `own<w>.txt`. It increments them with Edit (one
//! line) and MultiEdit (both), reading first and again after every `stale`, and counts what
//! landed, so that [`check_files`] can say what every file must hold.

use crate::http::Client;
use crate::SHARED;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The point halfway through the run, where the server's peak RSS is taken a first time: the
/// operation of all sessions together that completes half of an operation-bounded run, or the
/// first to complete after the middle of a time-bounded one.
pub struct Halfway {
    /// The server's pid.
    server: u32,
    /// Operations of all sessions together that make half of the run, when it is bounded so.
    ops: Option<u64>,
    /// The middle of the run, when it is bounded by time.
    at: Option<Instant>,
    done: AtomicU64,
    taken: AtomicBool,
    peak_kib: AtomicU64,
}

impl Halfway {
    /// The halfway point of a run of `total_ops` operations, or of one ending at `deadline`.
    pub fn new(
        server: u32,
        total_ops: Option<u64>,
        started: Instant,
        deadline: Option<Instant>,
    ) -> Halfway {
        Halfway {
            server,
            ops: total_ops.map(|n| n.div_ceil(2)),
            at: deadline.map(|d| started + (d - started) / 2),
            done: AtomicU64::new(0),
            taken: AtomicBool::new(false),
            peak_kib: AtomicU64::new(0),
        }
    }

    /// Counts one completed operation; the one that reaches the halfway point reads the
    /// server's peak RSS.
    fn op_done(&self) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let half = self.ops.is_some_and(|h| n >= h) || self.at.is_some_and(|t| Instant::now() >= t);
        if half && !self.taken.swap(true, Ordering::Relaxed) {
            self.peak_kib
                .store(crate::rss_kib(self.server).0, Ordering::Relaxed);
        }
    }

    /// The server's peak RSS (KiB) at the halfway point, if the run got there.
    pub fn peak_kib(&self) -> Option<u64> {
        self.taken
            .load(Ordering::Relaxed)
            .then(|| self.peak_kib.load(Ordering::Relaxed))
    }
}

/// How long every session runs.
#[derive(Clone)]
pub struct Plan {
    /// Operations per session (an operation is a Read, or an edit with its retries).
    pub ops: u64,
    /// No operation starts after this instant.
    pub deadline: Option<Instant>,
    /// Seed of the choice of operations.
    pub seed: u64,
    /// How many sessions there are (and so how many shared files).
    pub sessions: usize,
    /// Where the server's memory is measured halfway.
    pub halfway: Arc<Halfway>,
}

/// What the sessions did.
#[derive(Default)]
pub struct Tally {
    /// Operations done: a Read, or an edit with its retries.
    pub ops: u64,
    /// Tool calls made (every Read and every edit attempt).
    pub calls: u64,
    /// Read calls.
    pub reads: u64,
    /// Edit operations (each retried until it landed or failed otherwise).
    pub edits: u64,
    /// MultiEdit operations, likewise.
    pub multi_edits: u64,
    /// Edit and MultiEdit calls that succeeded.
    pub landed: u64,
    /// Edit and MultiEdit calls refused as `stale` on a shared file (then retried).
    pub stale: u64,
    /// Everything else that went wrong: transport errors, other refusals, `stale` on a file
    /// only one session edits.
    pub other_errors: Vec<String>,
    /// The round trip of every call, in microseconds.
    pub latencies_us: Vec<u64>,
    /// Increments landed per (file, line): `("shared3.txt", "w08a")` → n.
    pub counts: HashMap<(String, String), u64>,
}

impl Tally {
    /// Adds another session's tally to this one.
    pub fn merge(&mut self, o: Tally) {
        self.ops += o.ops;
        self.calls += o.calls;
        self.reads += o.reads;
        self.edits += o.edits;
        self.multi_edits += o.multi_edits;
        self.landed += o.landed;
        self.stale += o.stale;
        self.other_errors.extend(o.other_errors);
        self.latencies_us.extend(o.latencies_us);
        for (k, v) in o.counts {
            *self.counts.entry(k).or_insert(0) += v;
        }
    }
}

fn shared_name(w: usize) -> String {
    format!("shared{}.txt", w % SHARED)
}

fn own_name(w: usize) -> String {
    format!("own{w:02}.txt")
}

fn line(w: usize, which: char, n: u64) -> String {
    format!("w{w:02}{which} {n:06}\n")
}

/// What a file must hold: its header, then every owner's two lines at their counts.
fn content(
    header: &str,
    owners: &[usize],
    name: &str,
    counts: &HashMap<(String, String), u64>,
) -> String {
    let mut s = format!("{header}\n");
    for &w in owners {
        for which in ['a', 'b'] {
            let n = counts
                .get(&(name.to_string(), format!("w{w:02}{which}")))
                .copied()
                .unwrap_or(0);
            s.push_str(&line(w, which, n));
        }
    }
    s
}

fn owners_of_shared(k: usize, sessions: usize) -> Vec<usize> {
    (0..sessions).filter(|w| w % SHARED == k).collect()
}

/// Writes every file with all counters at 0.
pub fn lay_out(root: &Path, sessions: usize) {
    let none = HashMap::new();
    for k in 0..SHARED.min(sessions) {
        let name = format!("shared{k}.txt");
        let text = content(
            &format!("shared {k}"),
            &owners_of_shared(k, sessions),
            &name,
            &none,
        );
        std::fs::write(root.join(&name), text).expect("write a shared file");
    }
    for w in 0..sessions {
        let name = own_name(w);
        let text = content(&format!("own {w}"), &[w], &name, &none);
        std::fs::write(root.join(&name), text).expect("write an own file");
    }
}

/// What the files on disk hold against what landed.
#[derive(Default, Debug)]
pub struct Check {
    /// Increments reported as landed that the file does not hold.
    pub lost: u64,
    /// Increments the file holds beyond those reported as landed.
    pub duplicated: u64,
    /// Files or lines that are not what any sequence of edits could have made.
    pub corrupted: u64,
    /// What differed, for the failure message.
    pub problems: Vec<String>,
}

/// Compares every file with what the landed increments make of it.
pub fn check_files(root: &Path, sessions: usize, t: &Tally) -> Check {
    let mut c = Check::default();
    let mut files: Vec<(String, String, Vec<usize>)> = (0..SHARED.min(sessions))
        .map(|k| {
            (
                format!("shared{k}.txt"),
                format!("shared {k}"),
                owners_of_shared(k, sessions),
            )
        })
        .collect();
    files.extend((0..sessions).map(|w| (own_name(w), format!("own {w}"), vec![w])));
    for (name, header, owners) in files {
        let want = content(&header, &owners, &name, &t.counts);
        let got = std::fs::read(root.join(&name)).unwrap_or_default();
        if got == want.as_bytes() {
            continue;
        }
        let got = String::from_utf8_lossy(&got).into_owned();
        let (wl, gl): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
        if wl.len() != gl.len() || wl.first() != gl.first() {
            c.corrupted += 1;
            c.problems.push(format!("{name}: not the expected lines"));
            continue;
        }
        for (w, g) in wl.iter().zip(&gl) {
            let count = |l: &str| l.split_once(' ').and_then(|(_, n)| n.parse::<u64>().ok());
            let same_owner = w.split_once(' ').map(|p| p.0) == g.split_once(' ').map(|p| p.0);
            match (same_owner, count(w), count(g)) {
                (true, Some(a), Some(b)) if b < a => {
                    c.lost += a - b;
                    c.problems.push(format!("{name}: {g} where {w} landed"));
                }
                (true, Some(a), Some(b)) if b > a => {
                    c.duplicated += b - a;
                    c.problems.push(format!("{name}: {g} where {w} landed"));
                }
                (true, Some(_), Some(_)) => {}
                _ => {
                    c.corrupted += 1;
                    c.problems.push(format!("{name}: {g:?} instead of {w:?}"));
                }
            }
        }
    }
    c
}

/// A session's client and what it knows.
struct Session {
    id: usize,
    client: Client,
    /// Whether the session's last Read of a file is still what the server holds for it.
    read: HashMap<String, bool>,
    /// The counters as this session last set them, per (file, line).
    mine: HashMap<(String, char), u64>,
    tally: Tally,
}

impl Session {
    fn timed(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let t0 = Instant::now();
        let r = self.client.call_tool(tool, args);
        self.tally
            .latencies_us
            .push(t0.elapsed().as_micros() as u64);
        self.tally.calls += 1;
        r
    }

    fn read(&mut self, file: &str) {
        self.tally.reads += 1;
        match self.timed("Read", json!({"file_path": file})) {
            Ok(r) if r["isError"] != json!(true) => {
                self.read.insert(file.to_string(), true);
            }
            Ok(r) => self.other(format!("Read {file}: {}", r["content"])),
            Err(e) => self.other(format!("Read {file}: {e}")),
        }
    }

    fn other(&mut self, what: String) {
        self.tally
            .other_errors
            .push(format!("session {}: {what}", self.id));
    }

    /// Increments `lines` of `file` with Edit (one line) or MultiEdit (two), retrying after
    /// `stale` with a new Read.
    fn increment(&mut self, file: &str, lines: &[char], shared: bool) {
        let w = self.id;
        let edits: Vec<(String, String)> = lines
            .iter()
            .map(|&which| {
                let n = self
                    .mine
                    .get(&(file.to_string(), which))
                    .copied()
                    .unwrap_or(0);
                (line(w, which, n), line(w, which, n + 1))
            })
            .collect();
        let (tool, args) = if edits.len() == 1 {
            self.tally.edits += 1;
            let (old, new) = &edits[0];
            (
                "Edit",
                json!({"file_path": file, "old_string": old, "new_string": new}),
            )
        } else {
            self.tally.multi_edits += 1;
            let list: Vec<Value> = edits
                .iter()
                .map(|(o, n)| json!({"old_string": o, "new_string": n}))
                .collect();
            ("MultiEdit", json!({"file_path": file, "edits": list}))
        };
        for _ in 0..10_000 {
            if !self.read.get(file).copied().unwrap_or(false) {
                self.read(file);
            }
            let r = match self.timed(tool, args.clone()) {
                Ok(r) => r,
                Err(e) => return self.other(format!("{tool} {file}: {e}")),
            };
            if r["isError"] != json!(true) {
                self.tally.landed += 1;
                for &which in lines {
                    *self.mine.entry((file.to_string(), which)).or_insert(0) += 1;
                    *self
                        .tally
                        .counts
                        .entry((file.to_string(), format!("w{w:02}{which}")))
                        .or_insert(0) += 1;
                }
                return;
            }
            let code = r["structuredContent"]["error"]["code"]
                .as_str()
                .unwrap_or("");
            if code == "stale" && shared {
                self.tally.stale += 1;
                self.read.insert(file.to_string(), false);
                continue;
            }
            return self.other(format!("{tool} {file}: refused ({code}): {}", r["content"]));
        }
        self.other(format!("{tool} {file}: still stale after 10,000 tries"));
    }
}

/// One session's run: connect, then operations until the plan says stop.
pub fn run(id: usize, addr: SocketAddr, plan: &Plan) -> Tally {
    let client = match Client::connect(addr) {
        Ok(c) => c,
        Err(e) => {
            let mut t = Tally::default();
            t.other_errors.push(format!("session {id}: {e}"));
            return t;
        }
    };
    let mut s = Session {
        id,
        client,
        read: HashMap::new(),
        mine: HashMap::new(),
        tally: Tally::default(),
    };
    let mut rng = plan.seed ^ (id as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let shared = shared_name(id);
    let own = own_name(id);
    let mut done = 0;
    while done < plan.ops && plan.deadline.is_none_or(|d| Instant::now() < d) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        match rng % 20 {
            0..=3 => {
                // A Read of any shared file, while other sessions write it.
                let k = (rng >> 8) as usize % SHARED.min(plan.sessions);
                s.read(&format!("shared{k}.txt"));
            }
            4..=9 => s.increment(&shared, &['a'], true),
            10..=13 => s.increment(&shared, &['a', 'b'], true),
            14..=16 => s.increment(&own, &['a'], false),
            _ => s.increment(&own, &['a', 'b'], false),
        }
        done += 1;
        plan.halfway.op_done();
    }
    s.client.close();
    s.tally.ops = done;
    s.tally
}
