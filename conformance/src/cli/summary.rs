//! The terminal summary of a run: the cases that did not pass, the totals, what the run
//! certifies, and where the reports are.
//!
//! It is written for a person at a terminal, from the finished [`Report`], so it can never
//! disagree with the files a run writes; the formats meant for tools (JSON, JUnit, TAP) are the
//! report module's.

use crate::case::Level;
use crate::report::Report;
use crate::run::{CaseRecord, Status};
use std::path::Path;

/// One line for a case that did not pass: `FAIL  id (level): reason`.
pub(super) fn case_line(c: &CaseRecord) -> String {
    format!(
        "{:<13} {} ({}): {}",
        c.status.as_str().to_uppercase(),
        c.id,
        c.level.as_deref().unwrap_or("unloadable"),
        c.reason.replace('\n', " ")
    )
}

/// `n thing` or `n things`.
pub(super) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Prints the summary of `report`. The cases that did not pass are listed unless `quiet`, or
/// unless they were already shown as they finished (`listed_live`).
pub(super) fn print_summary(report: &Report, quiet: bool, listed_live: bool) {
    if !quiet && !listed_live {
        for c in report.cases.iter().filter(|c| c.status.needs_attention()) {
            say!("{}", case_line(c));
        }
    }
    let counts: Vec<String> = report
        .totals
        .iter()
        .filter(|(s, n)| **n > 0 || **s == Status::Pass)
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    say!(
        "{}: {}, {} (corpus {}, {:.1} s)",
        report.label(),
        count(report.cases.len(), "case", "cases"),
        counts.join(", "),
        report.corpus.version,
        report.duration_ms as f64 / 1000.0
    );
    // The verdict: overall for the surface, why not when not, then each class.
    let surface = report.surface().describe();
    match &report.certification.highest {
        Some(l) => say!("certified {l} for {surface}"),
        None => {
            let not_passed: Vec<&CaseRecord> = report
                .cases
                .iter()
                .filter(|c| c.level() == Some(Level::Core) && c.status != Status::Pass)
                .filter(|c| !c.out_of_surface())
                .collect();
            let skipped = not_passed
                .iter()
                .filter(|c| c.status == Status::Skip)
                .count();
            let why = match (not_passed.len(), skipped) {
                (0, _) => String::new(),
                (n, 0) => format!(": {} did not pass", count(n, "core case", "core cases")),
                (n, s) => format!(
                    ": {} did not pass ({s} skipped for want of a feature other than a tool)",
                    count(n, "core case", "core cases")
                ),
            };
            say!("not certified for {surface}{why}");
        }
    }
    if report.safe_not_capable() {
        say!("safe, not capable: it damaged no file, and refused what the spec says to do");
    }
    if let Some(line) = report.classes_line() {
        say!("by class: {line}");
    }
    if let Some(line) = slow_line(report) {
        println!("{line}");
    }
    for note in [&report.certification.note, &report.stopped_early]
        .into_iter()
        .flatten()
    {
        say!("{note}");
    }
}

/// The cases that timed out at first and answered when run again alone, with patience: not
/// failures, but a sign the tool (or the machine) is slow. `None` when there were none.
pub(super) fn slow_line(report: &Report) -> Option<String> {
    let slow: Vec<&str> = report
        .cases
        .iter()
        .filter(|c| c.rerun.is_some() && c.status != Status::Timeout)
        .map(|c| c.id.as_str())
        .collect();
    (!slow.is_empty()).then(|| {
        format!(
            "answered only when run again alone with {}× the limits (a busy machine or a slow tool): {}",
            crate::run::RERUN_PATIENCE,
            slow.join(", ")
        )
    })
}

/// The last line of a run: where its reports are, people's first.
pub(super) fn print_where(dir: &Path) {
    let shown = dir.display().to_string();
    let sep = if shown.ends_with('/') { "" } else { "/" };
    say!("reports in {shown}{sep}: {}", Report::FILES.join(", "));
}
