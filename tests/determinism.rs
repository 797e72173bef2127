//! MATCH-6 and D33: the `not_found` hint, MultiEdit and replace_all answer byte for byte the
//! same with the machine idle, with every core kept busy by threads this test starts, and with
//! the calling thread pinned to one CPU that busy threads share with it.
//!
//! The inputs are the ones a wall-clock budget got wrong: old strings of several kilobytes
//! against many candidate regions, each region costing a real comparison. Under such a budget
//! the comparison of a late candidate settled for a coarser diff as soon as the machine was
//! slow, and the region named or its similarity changed. Here the first region and its
//! similarity are also checked against a plain dynamic program written below, so a coarser
//! answer fails even when it is the same under every load.

use editref::matching::{closest_regions, Hint};
use editref::{Config, Session};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The file of the first failure seen: 120 lines in a function; the old string is the same
/// lines with every `;` turned into `,`.
fn few_kilobytes() -> (String, String) {
    let body: String = (0..120)
        .map(|i| format!("let value_{i:03} = compute({i:03});\n"))
        .collect();
    (format!("fn main() {{\n{body}}}\n"), body.replace(';', ","))
}

/// One line of copy `k` of a 120-line block.
fn line(i: usize, k: usize) -> String {
    format!("    let value_{i:03} = compute_{k:02}({i:03}, alpha, beta);")
}

/// Twenty copies of a 120-line block that differ only in a number, after a first line; the
/// old string (about 6 KiB) is copy 7 with every `;` turned into `,`. Every window near copy 7
/// shares most character pairs with the old string, so the pre-pass keeps 32 of them, and the
/// windows a few lines off it differ from it by thousands of characters.
fn many_windows() -> (String, String) {
    let mut file = String::from("fn main() {\n");
    for k in 0..20 {
        for i in 0..120 {
            file.push_str(&line(i, k));
            file.push('\n');
        }
    }
    file.push_str("}\n");
    let needle: String = (0..120)
        .map(|i| line(i, 7).replace(';', ",") + "\n")
        .collect();
    (file, needle)
}

/// 400 lines, each of which the old string changes in three places: too far apart for the
/// character search's work, so the region is scored from its lines (D33).
fn past_the_work() -> (String, String) {
    let file: String = (0..400)
        .map(|i| format!("let value_{i:03} = compute({i:03});\n"))
        .collect();
    let needle = file
        .replace("let ", "var ")
        .replace(" = ", " := ")
        .replace(';', ",");
    (file, needle)
}

/// `s` as the hint compares it: each line's whitespace runs made one space, its ends trimmed
/// (the inputs here hold no curly quotes).
fn normalised(s: &str) -> Vec<char> {
    let s = s.strip_suffix('\n').unwrap_or(s);
    let lines: Vec<String> = s
        .split('\n')
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    lines.join("\n").chars().collect()
}

/// The longest common subsequence by the textbook table, two rows at a time.
fn lcs(a: &[char], b: &[char]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            row[j + 1] = if x == y {
                prev[j] + 1
            } else {
                row[j].max(prev[j + 1])
            };
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

/// What MATCH-6 makes of a region: the characters it has in common with the old string, the
/// characters of the normalised region, and the similarity — twice the common characters over
/// the characters of both, in percent, rounded half up (D33).
fn model(region: &str, needle: &str) -> (usize, usize, u8) {
    let (a, b) = (normalised(region), normalised(needle));
    let common = lcs(&a, &b);
    let total = (a.len() + b.len()) as u64;
    let similarity = ((400 * common as u64 + total) / (2 * total)) as u8;
    (common, a.len(), similarity)
}

fn session(dir: &std::path::Path) -> Session {
    let mut config = Config::new(dir).with_root(dir);
    config.fsync = false;
    config.undo = None;
    Session::new(config)
}

/// A tool's answer as text: its JSON, or its refusal's code, message and fields.
fn answer(result: editref::ToolResult<Value>) -> String {
    match result {
        Ok(v) => v.to_string(),
        Err(e) => format!("{:?}\n{}\n{}", e.code, e.message, Value::Object(e.fields)),
    }
}

/// Everything compared between conditions: the hints of the three inputs, and what Edit and
/// MultiEdit answer and write on the many-windows file — a `not_found` with its hints (Edit and
/// MultiEdit), a replace_all Edit and a MultiEdit with a replace_all edit.
fn answers() -> Vec<String> {
    let mut out = Vec::new();
    for (file, needle) in [few_kilobytes(), many_windows(), past_the_work()] {
        out.push(format!("{:?}", closest_regions(&file, &needle, 3)));
    }
    let (file, needle) = many_windows();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, &file).unwrap();
    let s = session(dir.path());
    s.call("Read", &json!({"file_path": "f.txt"})).unwrap();
    let edit = |old: &str, new: &str, all: bool| json!({"file_path": "f.txt", "old_string": old, "new_string": new, "replace_all": all});
    out.push(answer(s.call("Edit", &edit(&needle, "x", false))));
    out.push(answer(s.call(
        "MultiEdit",
        &json!({"file_path": "f.txt", "edits": [
            {"old_string": "value_000 = compute_00", "new_string": "first"},
            {"old_string": needle, "new_string": "x"},
        ]}),
    )));
    out.push(answer(s.call("Edit", &edit("alpha", "ALPHA", true))));
    out.push(String::from_utf8(std::fs::read(&path).unwrap()).unwrap());
    out.push(answer(s.call(
        "MultiEdit",
        &json!({"file_path": "f.txt", "edits": [
            {"old_string": "beta", "new_string": "BETA", "replace_all": true},
            {"old_string": "value_119 = compute_19", "new_string": "last"},
        ]}),
    )));
    out.push(String::from_utf8(std::fs::read(&path).unwrap()).unwrap());
    out
}

/// Threads that spin until dropped: stopped by a flag once the comparison is done, never by
/// time. Each is pinned to `cpu` when one is given.
struct Busy {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<u64>>,
}

impl Busy {
    fn start(count: usize, cpu: Option<usize>) -> Busy {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..count)
            .map(|seed| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    #[cfg(target_os = "linux")]
                    if let Some(cpu) = cpu {
                        pin::to(cpu);
                    }
                    #[cfg(not(target_os = "linux"))]
                    let _ = cpu;
                    let mut x = seed as u64 + 1;
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..1000 {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                        }
                        std::hint::black_box(x);
                    }
                    x
                })
            })
            .collect();
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The calling thread's CPU affinity (Linux).
#[cfg(target_os = "linux")]
mod pin {
    /// The CPUs the calling thread may run on.
    pub fn current() -> libc::cpu_set_t {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; the call fills it for this thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let r = libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
            assert_eq!(r, 0, "sched_getaffinity");
            set
        }
    }

    /// The first CPU of a set.
    pub fn first(set: &libc::cpu_set_t) -> usize {
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `i` is within the set's size.
            .find(|&i| unsafe { libc::CPU_ISSET(i, set) })
            .expect("a thread runs on some CPU")
    }

    /// Restricts the calling thread to `set`.
    pub fn set(set: &libc::cpu_set_t) {
        // SAFETY: `set` is a valid cpu_set_t of the size given.
        let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
        assert_eq!(r, 0, "sched_setaffinity");
    }

    /// Restricts the calling thread to the one CPU `cpu`.
    pub fn to(cpu: usize) {
        // SAFETY: a zeroed cpu_set_t is a valid empty set, and `cpu` comes from `first`.
        let one = unsafe {
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut one);
            one
        };
        set(&one);
    }
}

/// How many busy threads saturate the machine: two per core the test may use.
fn saturating() -> usize {
    2 * std::thread::available_parallelism().map_or(2, |n| n.get())
}

#[test]
fn match_6_d33_answers_are_the_same_idle_loaded_and_on_one_cpu() {
    let idle = answers();

    // The first region of each input against the plain dynamic program: the region named and
    // its similarity are the exact ones, not a coarser diff's.
    let (file, needle) = few_kilobytes();
    let best = &closest_regions(&file, &needle, 3)[0];
    assert_eq!(
        (best.start_line, best.end_line, best.similarity),
        (2, 121, 97)
    );
    assert_eq!(best.similarity, model(&best.text, &needle).2);
    let (file, needle) = many_windows();
    let best: &Hint = &closest_regions(&file, &needle, 3)[0];
    // The region is copy 7 (lines 842 to 961); its text is cut at 4,000 bytes, after line 921.
    assert_eq!((best.start_line, best.end_line), (842, 921), "{best:?}");
    let region: String = file
        .lines()
        .skip(841)
        .take(120)
        .collect::<Vec<_>>()
        .join("\n");
    // The 120 `;` of the region are in no line of the old string: exactly 120 characters
    // fewer than the region's are common.
    let (common, chars, similarity) = model(&region, &needle);
    assert_eq!(common, chars - 120);
    assert_eq!(best.similarity, similarity);
    assert!(idle[1].starts_with(&format!("[{best:?}")), "{}", idle[1]);
    // Past the character search's work, the region is scored line by line: the common
    // characters of each pair of lines, and the 399 line breaks between them (D33).
    let (file, needle) = past_the_work();
    let best = &closest_regions(&file, &needle, 3)[0];
    // The whole file (its text cut at 4,000 bytes, after line 133).
    assert_eq!((best.start_line, best.end_line), (1, 133), "{best:?}");
    let (a, b) = (normalised(&file), normalised(&needle));
    let by_lines: usize = file
        .lines()
        .zip(needle.lines())
        .map(|(x, y)| model(x, y).0)
        .sum::<usize>()
        + 399;
    let total = (a.len() + b.len()) as u64;
    let bound = ((400 * by_lines as u64 + total) / (2 * total)) as u8;
    assert_eq!(best.similarity, bound, "{best:?}");
    assert!(idle[2].starts_with(&format!("[{best:?}")), "{}", idle[2]);

    let loaded = {
        let _busy = Busy::start(saturating(), None);
        answers()
    };
    assert_eq!(idle, loaded, "every core busy");

    #[cfg(target_os = "linux")]
    {
        let before = pin::current();
        let cpu = pin::first(&before);
        pin::to(cpu);
        let pinned = {
            let _busy = Busy::start(saturating(), Some(cpu));
            answers()
        };
        pin::set(&before);
        assert_eq!(idle, pinned, "one CPU shared with busy threads");
    }

    // Repeated with a different number of busy threads, the answers do not move either.
    let again = {
        let _busy = Busy::start(1, None);
        answers()
    };
    assert_eq!(idle, again, "one busy thread");
}
