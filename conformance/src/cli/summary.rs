//! The terminal summary of a run: the cases that did not pass, the totals, and what the run
//! certifies.
//!
//! It is written for a person at a terminal, from the finished [`Report`], so it can never
//! disagree with the files a run writes; the formats meant for tools (JSON, JUnit, TAP) are the
//! report module's.

use crate::case::Level;
use crate::report::Report;
use crate::run::Status;

/// Prints the summary of `report`; with `quiet`, only the totals and the certification.
pub(super) fn print_summary(report: &Report, quiet: bool) {
    if !quiet {
        for c in &report.cases {
            if matches!(c.status, Status::Pass | Status::Skip) {
                continue;
            }
            let level = c.level.as_deref().unwrap_or("?");
            // Implementation-defined cases never fail: a different answer is a difference.
            let label = if level == "implementation-defined" && c.status == Status::Fail {
                "DIFFERS".to_string()
            } else {
                c.status.as_str().to_uppercase()
            };
            println!(
                "{:<13} {} ({level}): {}",
                label,
                c.id,
                c.reason.replace('\n', " ")
            );
        }
    }
    let counts: Vec<String> = report
        .totals
        .iter()
        .filter(|(s, n)| **n > 0 || **s == Status::Pass)
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    println!(
        "{}: {} cases, {} (corpus {}, {:.1} s)",
        report.label(),
        report.cases.len(),
        counts.join(", "),
        report.corpus.version,
        report.duration_ms as f64 / 1000.0
    );
    match &report.certification.highest {
        Some(l) => println!("certified: {l}"),
        None => {
            let core_bad = report
                .cases
                .iter()
                .filter(|c| c.level() == Some(Level::Core) && c.status != Status::Pass)
                .count();
            if core_bad > 0 {
                println!("not certified: {core_bad} core cases did not pass");
            } else {
                println!("not certified");
            }
        }
    }
    if let Some(note) = &report.certification.note {
        println!("{note}");
    }
}
