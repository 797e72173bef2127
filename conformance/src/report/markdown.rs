//! The Markdown summary, for people: what ran, the totals per status and level, certification
//! (as a whole and per class), and the cases that did not pass with the classes that failed.
//!
//! It is the one format meant to be read rather than parsed, so it chooses what to show
//! (non-empty rows, shortened hashes, reasons cut to one table cell) instead of showing
//! everything; [`md_cell`] is shared with the matrix, whose tables follow the same rules.

use super::{counts_cell, Report};
use crate::case::Level;
use crate::run::{CaseRecord, Status};
use std::collections::BTreeMap;
use std::fmt::Write as _;

impl Report {
    /// The Markdown summary: what ran, totals per status and level, certification, and the
    /// cases that did not pass.
    pub fn summary_md(&self) -> String {
        let mut m = String::new();
        let _ = writeln!(m, "# Conformance: {}\n", self.label());
        // The verdict first: overall, for the surface, then each class.
        let surface = self.surface().describe();
        let cert = match &self.certification.highest {
            Some(l) => format!("**Certified {l}** for {surface}."),
            None => format!("**Not certified** for {surface}."),
        };
        let _ = writeln!(m, "{cert}");
        if self.safe_not_capable() {
            let _ = writeln!(
                m,
                "**Safe, not capable:** it damaged no file, and refused what the spec says to do."
            );
        }
        if let Some(note) = &self.certification.note {
            let _ = writeln!(m, "{note}");
        }
        if self.has_classes() {
            m.push('\n');
            for c in &self.classes {
                let verdict = match &c.certified.highest {
                    Some(l) => format!("certified {l}"),
                    None => "not certified".into(),
                };
                let _ = writeln!(
                    m,
                    "- **{}: {verdict}** ({} core)",
                    c.class,
                    counts_cell(c, Level::Core)
                );
            }
        }
        let _ = writeln!(
            m,
            "\nCorpus {} ({} cases, manifest `{}`), {} {}, editref conform {}, protocol {}, {}-{}, started {}, {:.1} s.",
            self.corpus.version,
            self.corpus.cases,
            short_hash(&self.corpus.manifest_sha256),
            self.implementation.name,
            self.implementation.version,
            self.harness.version,
            self.harness.protocol,
            self.platform.os,
            self.platform.arch,
            self.started,
            self.duration_ms as f64 / 1000.0
        );
        if let Some(r) = &self.rejudged {
            let _ = writeln!(
                m,
                "\nJudged again by {} under the rules of corpus {}: {} cases changed verdict{}.",
                r.by,
                r.rules,
                r.changed,
                if r.unsettled.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} kept their earlier class, the evidence kept being too short to judge them again",
                        r.unsettled.len()
                    )
                }
            );
        }
        m.push('\n');
        let levels: Vec<Option<Level>> = Level::ALL
            .iter()
            .map(|l| Some(*l))
            .chain(
                self.cases
                    .iter()
                    .any(|c| c.level().is_none())
                    .then_some(None),
            )
            .collect();
        m.push_str("| status |");
        for l in &levels {
            let _ = write!(m, " {} |", l.map_or("unloadable", |l| l.as_str()));
        }
        m.push_str(" total |\n|---|");
        for _ in &levels {
            m.push_str("---:|");
        }
        m.push_str("---:|\n");
        for s in Status::ALL {
            let row: Vec<usize> = levels
                .iter()
                .map(|l| {
                    self.cases
                        .iter()
                        .filter(|c| c.status == s && c.level() == *l)
                        .count()
                })
                .collect();
            let total: usize = row.iter().sum();
            if total == 0 && !matches!(s, Status::Pass | Status::Fail) {
                continue;
            }
            let _ = write!(m, "| {s} |");
            for n in row {
                let _ = write!(m, " {n} |");
            }
            let _ = writeln!(m, " {total} |");
        }
        if self.has_classes() {
            m.push_str("\n## By class\n\nEvery check has a class: **data** (damage: bytes or metadata on disk neither as expected nor as before, files created or removed), **capability** (a refusal where the spec says to act, every file left as it was), **contract** (codes by family, `ok`, result fields the tool declares), **presentation** (Read's text form). A case holds a class when no check of it failed; `held/judged` per level; cases that need a tool not offered count for none.\n\n| class | core | extended | implementation-defined | certified |\n|---|---:|---:|---:|---|\n");
            for c in &self.classes {
                let _ = write!(m, "| {} |", c.class);
                for l in Level::ALL {
                    let _ = write!(m, " {} |", counts_cell(c, l));
                }
                let _ = writeln!(m, " {} |", c.certified.highest.as_deref().unwrap_or("—"));
            }
        }
        let bad: Vec<&CaseRecord> = self
            .cases
            .iter()
            .filter(|c| c.status.needs_attention() && c.status != Status::Differs)
            .collect();
        if !bad.is_empty() {
            let _ = writeln!(m, "\n## Cases that did not pass\n");
            m.push_str(
                "| case | level | status | classes | rules | reason |\n|---|---|---|---|---|---|\n",
            );
            for c in bad {
                let _ = writeln!(
                    m,
                    "| `{}` | {} | {} | {} | {} | {} |",
                    c.id,
                    c.level.as_deref().unwrap_or("?"),
                    c.status,
                    classes_of(c),
                    c.about
                        .as_ref()
                        .map(|a| a.spec.join(", "))
                        .unwrap_or_default(),
                    md_cell(&c.reason)
                );
            }
        }
        let differs: Vec<&CaseRecord> = self
            .cases
            .iter()
            .filter(|c| c.status == Status::Differs)
            .collect();
        if !differs.is_empty() {
            let _ = writeln!(
                m,
                "\n## Implementation-defined differences ({})\n\nQuestions the spec leaves open, answered otherwise than the corpus does; never a failure.\n",
                differs.len()
            );
            m.push_str("| case | answer |\n|---|---|\n");
            for c in differs {
                let _ = writeln!(m, "| `{}` | {} |", c.id, md_cell(&c.reason));
            }
        }
        let slow: Vec<&CaseRecord> = self
            .cases
            .iter()
            .filter(|c| c.rerun.is_some() && c.status != Status::Timeout)
            .collect();
        if !slow.is_empty() {
            let _ = writeln!(
                m,
                "\n## Answered only when run again ({})\n\nThese cases timed out beside the others and were run again alone, with every limit {}× longer; their status is the second attempt's. A busy machine or a slow tool.\n",
                slow.len(),
                crate::run::RERUN_PATIENCE
            );
            m.push_str("| case | status | the first attempt |\n|---|---|---|\n");
            for c in slow {
                let first = c.rerun.as_deref().unwrap_or_default();
                let _ = writeln!(m, "| `{}` | {} | {} |", c.id, c.status, md_cell(first));
            }
        }
        let skipped = self
            .cases
            .iter()
            .filter(|c| c.status == Status::Skip)
            .count();
        if skipped > 0 {
            let mut why: BTreeMap<&str, usize> = BTreeMap::new();
            for c in self.cases.iter().filter(|c| c.status == Status::Skip) {
                *why.entry(c.reason.as_str()).or_default() += 1;
            }
            let _ = writeln!(m, "\n## Skipped ({skipped})\n");
            for (reason, n) in why {
                let _ = writeln!(m, "- {n} × {}", md_cell(reason));
            }
        }
        m
    }
}

/// The failed classes of a case, data first ("data, contract"), or `—`.
pub(super) fn classes_of(c: &CaseRecord) -> String {
    if c.failed_classes.is_empty() {
        return "—".into();
    }
    c.failed_classes
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first 12 hex digits of a hash, enough to tell manifests apart in a summary.
fn short_hash(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}

/// Text for one Markdown table cell: one line, pipes escaped.
pub fn md_cell(s: &str) -> String {
    let one: String = s.replace(['\n', '\r'], " ").replace('|', "\\|");
    if one.chars().count() > 200 {
        format!("{}…", one.chars().take(200).collect::<String>())
    } else {
        one
    }
}
