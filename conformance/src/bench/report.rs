//! The benchmark's results as JSON (`bench.json`, also the `--baseline` format) and Markdown
//! (`bench.md`), and the comparison of a run with a baseline.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The figures of one workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadResult {
    /// The workload's name.
    pub workload: String,
    /// `ok`, `wrong` (answered, but the result is not right: never timed), `failed` (a call
    /// failed or the tool broke) or `skipped` (a feature not declared).
    pub status: String,
    /// Why, when not `ok`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// Every timed sample in milliseconds, in the order taken (warm-up excluded).
    #[serde(default)]
    pub samples_ms: Vec<f64>,
    /// Median of the samples.
    #[serde(default)]
    pub median_ms: Option<f64>,
    /// 90th percentile (nearest rank).
    #[serde(default)]
    pub p90_ms: Option<f64>,
    /// Fastest sample.
    #[serde(default)]
    pub min_ms: Option<f64>,
    /// Slowest sample.
    #[serde(default)]
    pub max_ms: Option<f64>,
    /// Peak resident memory of the implementation's processes, KiB (child processes only).
    #[serde(default)]
    pub peak_rss_kib: Option<u64>,
    /// Runs that were not answered within the limit and were run again with patient limits
    /// (a busy machine, or a slow tool); their second sample is the one kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub patient_runs: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A whole benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Version of this file's shape.
    pub schema: u32,
    /// The workload set's version ([`super::workloads::SET`]).
    pub set: String,
    /// Name and version the implementation gave in `hello`, or `--label`.
    pub implementation: String,
    /// How it was started.
    pub command: String,
    /// When the run started (RFC 3339).
    pub started: String,
    /// Logical CPUs of the machine.
    pub cpus: usize,
    /// Timed repetitions per workload (after one warm-up).
    pub repetitions: usize,
    /// One entry per workload, in the set's order.
    pub results: Vec<WorkloadResult>,
}

/// `samples` sorted, then the median, the nearest-rank p90, the min and the max.
pub fn stats(samples: &[f64]) -> Option<(f64, f64, f64, f64)> {
    if samples.is_empty() {
        return None;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    };
    let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
    Some((median, s[rank - 1], s[0], s[n - 1]))
}

/// Milliseconds as a table shows them.
fn ms(v: Option<f64>) -> String {
    match v {
        Some(v) if v < 10.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.1}"),
        None => "–".into(),
    }
}

impl BenchReport {
    /// The report as a Markdown table.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Benchmark of {} ({}, {} repetitions, {} CPUs)\n",
            self.implementation, self.set, self.repetitions, self.cpus
        );
        let _ = writeln!(s, "Started {}; command `{}`.\n", self.started, self.command);
        s.push_str("| workload | median ms | p90 | min | max | peak RSS | status |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---|\n");
        for r in &self.results {
            let rss = r
                .peak_rss_kib
                .map_or("–".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
            let mut status = if r.detail.is_empty() {
                r.status.clone()
            } else {
                format!("{}: {}", r.status, r.detail.replace('|', "\\|"))
            };
            if r.patient_runs > 0 {
                let _ = write!(
                    status,
                    " ({} {} not answered in time, run again with patient limits)",
                    r.patient_runs,
                    if r.patient_runs == 1 { "run" } else { "runs" }
                );
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.workload,
                ms(r.median_ms),
                ms(r.p90_ms),
                ms(r.min_ms),
                ms(r.max_ms),
                rss,
                status
            );
        }
        s
    }
}

/// A run compared with a baseline: a table and the workloads slower than allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Markdown table: workload, baseline median, this median, ratio, verdict.
    pub table: String,
    /// Workloads whose median grew by more than the allowed percentage.
    pub regressions: Vec<String>,
}

/// Compares `run` with `base`: a workload regresses when its median exceeds the baseline's by
/// more than `max_pct` percent. Workloads missing on either side, or not `ok`, are listed and
/// never count as a regression; a different workload set is an error.
pub fn compare(run: &BenchReport, base: &BenchReport, max_pct: f64) -> Result<Comparison, String> {
    if run.set != base.set {
        return Err(format!(
            "the baseline measures workload set {}, this run {}: the figures do not compare",
            base.set, run.set
        ));
    }
    let mut table =
        String::from("| workload | baseline ms | now ms | ratio | |\n|---|---:|---:|---:|---|\n");
    let mut regressions = Vec::new();
    for r in &run.results {
        let b = base.results.iter().find(|b| b.workload == r.workload);
        let (verdict, ratio) = match (b.and_then(|b| b.median_ms), r.median_ms) {
            (Some(old), Some(new)) if old > 0.0 => {
                let ratio = new / old;
                if ratio > 1.0 + max_pct / 100.0 {
                    regressions.push(r.workload.clone());
                    (format!("❌ slower than +{max_pct}%"), Some(ratio))
                } else {
                    ("✅".to_string(), Some(ratio))
                }
            }
            _ => ("not compared".to_string(), None),
        };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {verdict} |",
            r.workload,
            ms(b.and_then(|b| b.median_ms)),
            ms(r.median_ms),
            ratio.map_or("–".into(), |x| format!("{x:.2}×"))
        );
    }
    Ok(Comparison { table, regressions })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, median: Option<f64>) -> WorkloadResult {
        WorkloadResult {
            workload: name.into(),
            status: if median.is_some() { "ok" } else { "wrong" }.into(),
            detail: String::new(),
            samples_ms: median.into_iter().collect(),
            median_ms: median,
            p90_ms: median,
            min_ms: median,
            max_ms: median,
            peak_rss_kib: None,
            patient_runs: 0,
        }
    }

    fn report(results: Vec<WorkloadResult>) -> BenchReport {
        BenchReport {
            schema: 1,
            set: "bench-1".into(),
            implementation: "x 1".into(),
            command: "x".into(),
            started: "2026-11-25T00:00:00Z".into(),
            cpus: 2,
            repetitions: 1,
            results,
        }
    }

    #[test]
    fn stats_are_the_median_nearest_rank_p90_and_the_extremes() {
        assert_eq!(stats(&[]), None);
        assert_eq!(stats(&[3.0]), Some((3.0, 3.0, 3.0, 3.0)));
        assert_eq!(stats(&[4.0, 1.0, 3.0, 2.0]), Some((2.5, 4.0, 1.0, 4.0)));
        let ten: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        assert_eq!(stats(&ten), Some((5.5, 9.0, 1.0, 10.0)));
    }

    #[test]
    fn a_median_above_the_allowed_growth_is_a_regression() {
        let base = report(vec![
            result("a", Some(10.0)),
            result("b", Some(10.0)),
            result("c", Some(1.0)),
        ]);
        let run = report(vec![
            result("a", Some(10.9)),
            result("b", Some(11.1)),
            result("c", None),
        ]);
        let c = compare(&run, &base, 10.0).unwrap();
        assert_eq!(c.regressions, ["b"]);
        assert!(
            c.table.contains("| a | 10.0 | 10.9 | 1.09× | ✅ |"),
            "{}",
            c.table
        );
        assert!(
            c.table.contains("| c | 1.00 | – | – | not compared |"),
            "{}",
            c.table
        );
        let mut other = base.clone();
        other.set = "bench-0".into();
        assert!(compare(&run, &other, 10.0).is_err());
        let json = serde_json::to_string(&run).unwrap();
        assert_eq!(serde_json::from_str::<BenchReport>(&json).unwrap(), run);
    }
}
