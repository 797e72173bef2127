//! One timed run of one workload: a fresh sandbox with the workload's file, the untimed
//! preparation calls, the timed call, then the check of its result — byte for byte for an
//! edit, line for line for a Read — and the peak memory of the implementation's processes.
//!
//! The clock measures only the timed call as the harness sees it (request written to reply
//! read), which is what an agent waits for; building the file and checking the result are
//! outside it. A run whose call was not answered in time says so apart ([`Sample::TimedOut`]),
//! so the caller can give it a second, patient chance before calling the workload failed.

use super::workloads::{Expected, Workload};
use crate::adapter::{Adapter, AdapterError, Reply};
use crate::check::{comparable, ReadFormat};
use crate::run::absolutize;
use crate::sandbox::Sandbox;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// What one run of a workload gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Sample {
    /// The result was right; the timed call took this long.
    Ok {
        /// Milliseconds of the timed call.
        ms: f64,
        /// Peak resident memory of the implementation's processes so far, in KiB (`None` in
        /// process).
        peak_rss_kib: Option<u64>,
    },
    /// The call succeeded but its result is wrong; never timed.
    Wrong(String),
    /// A call failed or crashed.
    Failed(String),
    /// A call was not answered within its limit; the run may be repeated with patience.
    TimedOut(String),
}

/// The sample of a run that broke off with `e`, named by `what`.
fn broken(what: &str, e: &AdapterError) -> Sample {
    let why = format!("{what}{e}");
    match e {
        AdapterError::Timeout(_) => Sample::TimedOut(why),
        AdapterError::Crash(_) => Sample::Failed(why),
    }
}

/// Runs `w` once on `adapter` in a fresh sandbox under `tmp`.
pub fn run_once(
    adapter: &mut dyn Adapter,
    w: &Workload,
    format: ReadFormat,
    tmp: Option<&Path>,
) -> Sample {
    let mut sb = match Sandbox::new(tmp) {
        Ok(sb) => sb,
        Err(e) => return Sample::Failed(e),
    };
    if let Err(e) = sb.build(&w.files) {
        return Sample::Failed(format!("cannot build the file: {e}"));
    }
    let dir = sb.dir().to_path_buf();
    if let Err(e) = adapter.case_start(w.name, &dir) {
        return broken("", &e);
    }
    let sample = timed(adapter, w, format, &dir);
    let _ = adapter.case_end();
    sample
}

/// The preparation, the timed call and the check (inside a started case).
fn timed(adapter: &mut dyn Adapter, w: &Workload, format: ReadFormat, dir: &Path) -> Sample {
    let mut seq = 0;
    for (tool, input) in &w.setup {
        seq += 1;
        match adapter.call(seq, tool, &absolutize(input, dir)) {
            Ok(Reply::Ok(_)) => {}
            Ok(Reply::Err(e)) => {
                return Sample::Failed(format!("{tool} before the timed call: {e}"))
            }
            Err(e) => return broken(&format!("{tool} before the timed call: "), &e),
        }
    }
    let (tool, input) = &w.timed;
    let input = absolutize(input, dir);
    let started = Instant::now();
    let reply = adapter.call(seq + 1, tool, &input);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let peak_rss_kib = adapter.process_group().and_then(group_peak_rss_kib);
    let output = match reply {
        Ok(Reply::Ok(out)) => out,
        Ok(Reply::Err(e)) => return Sample::Failed(format!("{tool}: {e}")),
        Err(e) => return broken(&format!("{tool}: "), &e),
    };
    match &w.expected {
        Expected::Bytes(want) => match std::fs::read(dir.join("a.txt")) {
            Ok(got) if got == *want => Sample::Ok { ms, peak_rss_kib },
            Ok(got) => Sample::Wrong(first_difference(want, &got)),
            Err(e) => Sample::Wrong(format!("the file cannot be read afterwards: {e}")),
        },
        Expected::ReadContent(want) => {
            let want = json!({"file": {"content": want}});
            let (a, b) = comparable(&want, &output, Some("file"), format);
            if a.pointer("/file/content") == b.pointer("/file/content") {
                Sample::Ok { ms, peak_rss_kib }
            } else {
                let shown = b
                    .pointer("/file/content")
                    .and_then(Value::as_str)
                    .map(|s| s.chars().take(80).collect::<String>());
                Sample::Wrong(format!("Read showed other content: {shown:?}"))
            }
        }
    }
}

/// Where `got` first departs from `want`, shortly (a diff of megabytes would cost more than
/// the benchmark).
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let at = want.iter().zip(got).take_while(|(a, b)| a == b).count();
    let show = |b: &[u8]| crate::check::escape_bytes(&b[at..b.len().min(at + 24)]);
    format!(
        "the file differs from the expected bytes at byte {at} (expected {}, found {}; {} bytes \
         expected, {} found)",
        show(want),
        show(got),
        want.len(),
        got.len()
    )
}

/// The largest peak resident set (VmHWM) among the processes of process group `group`, in
/// KiB: the adapter and the tool it runs, whichever of them holds the file.
pub fn group_peak_rss_kib(group: u32) -> Option<u64> {
    let mut best: Option<u64> = None;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The fields after the command name (which may hold spaces) start after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let pgrp = rest
            .split_whitespace()
            .nth(2)
            .and_then(|f| f.parse::<u32>().ok());
        if pgrp != Some(group) {
            continue;
        }
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let hwm = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
        if let Some(kib) = hwm {
            best = Some(best.map_or(kib, |b| b.max(kib)));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_memory_of_a_process_group_is_read_from_proc() {
        use std::os::unix::process::CommandExt;
        // `cat` reading a pipe this test holds open lives until it is killed: no clock decides
        // whether it is still there when its memory is read.
        let mut child = std::process::Command::new("cat")
            .stdin(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let kib = group_peak_rss_kib(child.id());
        let _ = child.kill();
        let _ = child.wait();
        assert!(kib.is_some_and(|k| k > 0), "{kib:?}");
        assert_eq!(group_peak_rss_kib(u32::MAX), None);
    }
}
