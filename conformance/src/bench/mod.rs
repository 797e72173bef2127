//! `editref conform --bench`: how fast any edit tool is, on a fixed, versioned workload set,
//! with every result checked before it is timed.
//!
//! The flow: `workloads` builds each workload's file and expected result → `measure` runs one
//! workload once in a fresh sandbox (untimed preparation, the timed call, the byte check, the
//! peak memory of the tool's processes) → [`run`] repeats every workload, interleaved (one
//! warm-up round that also decides correctness, then N timed rounds, each round visiting every
//! workload once, so that a slow minute of the machine spreads over all of them) → `report`
//! turns the samples into medians, p90 and extremes, JSON and Markdown, and compares a run
//! with a baseline.

pub mod measure;
pub mod report;
pub mod workloads;

use crate::adapter::{Adapter, ReadFormat};
use measure::{run_once, Sample};
use report::{stats, WorkloadResult};
use std::path::Path;

/// Where a run stands, for a progress display.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Runs done (warm-up included).
    pub done: usize,
    /// Runs in all.
    pub total: usize,
}

/// Runs every workload of `set` that `declared` allows: one warm-up round, then `reps` timed
/// rounds. A workload answered wrongly or failing in any round is reported so and no longer
/// timed.
pub fn run(
    adapter: &mut dyn Adapter,
    declared: &[String],
    format: ReadFormat,
    set: &[workloads::Workload],
    reps: usize,
    tmp: Option<&Path>,
    on_progress: &mut dyn FnMut(Progress),
) -> Vec<WorkloadResult> {
    let mut results: Vec<WorkloadResult> = set
        .iter()
        .map(|w| {
            let missing: Vec<&str> = w
                .requires
                .iter()
                .copied()
                .filter(|f| !declared.iter().any(|d| d == f))
                .collect();
            WorkloadResult {
                workload: w.name.to_string(),
                status: if missing.is_empty() { "ok" } else { "skipped" }.into(),
                detail: if missing.is_empty() {
                    String::new()
                } else {
                    format!("requires {} (not declared)", missing.join(", "))
                },
                samples_ms: Vec::new(),
                median_ms: None,
                p90_ms: None,
                min_ms: None,
                max_ms: None,
                peak_rss_kib: None,
                patient_runs: 0,
            }
        })
        .collect();
    let runnable = results.iter().filter(|r| r.status == "ok").count();
    let total = runnable * (reps + 1);
    let mut done = 0;
    for round in 0..=reps {
        for (w, r) in set.iter().zip(results.iter_mut()) {
            if r.status != "ok" {
                continue;
            }
            let mut sample = run_once(adapter, w, format, tmp);
            if matches!(sample, Sample::TimedOut(_)) {
                // Not answered in time: perhaps only because the machine is busy. Once more
                // with patient limits; only a second timeout fails the workload.
                adapter.set_patience(crate::run::RERUN_PATIENCE);
                sample = run_once(adapter, w, format, tmp);
                adapter.set_patience(1);
                r.patient_runs += 1;
            }
            match sample {
                Sample::Ok { ms, peak_rss_kib } => {
                    if round > 0 {
                        r.samples_ms.push(ms);
                    }
                    if let Some(k) = peak_rss_kib {
                        r.peak_rss_kib = Some(r.peak_rss_kib.map_or(k, |p| p.max(k)));
                    }
                }
                Sample::Wrong(why) => {
                    r.status = "wrong".into();
                    r.detail = why;
                    r.samples_ms.clear();
                }
                Sample::Failed(why) | Sample::TimedOut(why) => {
                    r.status = "failed".into();
                    r.detail = why;
                    r.samples_ms.clear();
                }
            }
            done += 1;
            on_progress(Progress { done, total });
        }
    }
    for r in &mut results {
        if let Some((median, p90, min, max)) = stats(&r.samples_ms) {
            r.median_ms = Some(median);
            r.p90_ms = Some(p90);
            r.min_ms = Some(min);
            r.max_ms = Some(max);
        }
    }
    results
}
