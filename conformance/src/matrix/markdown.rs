//! The matrix as Markdown: totals per level, per class and level (data first) and
//! certification, then one row per case with the classes each failure touched.

use super::Matrix;
use crate::case::{Class, Level};
use crate::report::md_cell;
use crate::run::Status;
use std::fmt::Write as _;

impl Matrix<'_> {
    /// The Markdown tables: totals (overall and per class), then the cases.
    pub fn markdown(&self) -> String {
        let mut m = String::from("# Conformance matrix\n\n");
        let _ = writeln!(
            m,
            "Corpus {}. Per class, `held/judged`: **data** (bytes and metadata on disk), **contract** (codes and result fields), **presentation** (Read's text form); `?` for a report made before classes.\n",
            self.corpus_versions()
        );
        m.push_str("| level |");
        for c in &self.columns {
            let _ = write!(m, " {} |", md_cell(c));
        }
        m.push_str("\n|---|");
        for _ in &self.columns {
            m.push_str("---:|");
        }
        m.push('\n');
        let totals = self.level_totals();
        for (i, l) in Level::ALL.iter().enumerate() {
            let _ = write!(m, "| {l} |");
            for t in &totals {
                let _ = write!(m, " {}/{} |", t[i].0, t[i].1);
            }
            m.push('\n');
        }
        for class in Class::ALL {
            for l in Level::ALL {
                let _ = write!(m, "| {class} · {l} |");
                for col in 0..self.columns.len() {
                    match self.class_totals(col, class, l) {
                        Some((held, judged)) => {
                            let _ = write!(m, " {held}/{judged} |");
                        }
                        None => m.push_str(" ? |"),
                    }
                }
                m.push('\n');
            }
        }
        for class in Class::ALL {
            let _ = write!(m, "| certified ({class}) |");
            for col in 0..self.columns.len() {
                let _ = write!(m, " {} |", self.class_certified(col, class));
            }
            m.push('\n');
        }
        m.push_str("| certified |");
        for r in self.reports {
            let _ = write!(
                m,
                " {} |",
                r.certification.highest.as_deref().unwrap_or("—")
            );
        }
        m.push('\n');
        for (label, cells) in self.latency_rows() {
            let _ = write!(m, "| {label} |");
            for c in cells {
                let _ = write!(m, " {c} |");
            }
            m.push('\n');
        }
        m.push('\n');
        for (name, why) in &self.not_run {
            let _ = writeln!(m, "Not run: **{}** — {}\n", md_cell(name), md_cell(why));
        }
        m.push_str("| case | level |");
        for c in &self.columns {
            let _ = write!(m, " {} |", md_cell(c));
        }
        m.push_str("\n|---|---|");
        for _ in &self.columns {
            m.push_str("---|");
        }
        m.push('\n');
        for (area, ids) in self.areas() {
            let _ = write!(m, "| **{area}** | |");
            for _ in &self.columns {
                m.push_str(" |");
            }
            m.push('\n');
            for id in ids {
                let level = self.rows[id].1.as_deref().unwrap_or("?");
                let _ = write!(m, "| `{id}` | {level} |");
                for col in 0..self.columns.len() {
                    let s = match self.cell(col, id) {
                        Some(c) if matches!(c.status, Status::Pass | Status::Differs) => {
                            c.status.to_string()
                        }
                        Some(c) if c.failed_classes.is_empty() => format!("**{}**", c.status),
                        Some(c) => format!("**{}** ({})", c.status, Self::classes_of(c)),
                        None => "—".into(),
                    };
                    let _ = write!(m, " {s} |");
                }
                m.push('\n');
            }
        }
        m
    }
}
