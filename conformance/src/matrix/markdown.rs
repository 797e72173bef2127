//! The matrix as Markdown: each tool's verdict first (overall, what it offers, each class, what
//! ran), then totals per level, per class and level (data first) and certification, then one
//! row per case with the classes each failure touched and its maintainers' notes.

use super::{Matrix, Note};
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
            "Corpus {}. Each tool is judged for the tools it offers: a case that needs a tool it does not offer counts against no level. Per class, `held/judged`: **data** (damage: bytes or metadata on disk neither as expected nor as before, files created or removed), **capability** (a refusal where the spec says to act, every file left as it was), **contract** (codes by family, result fields the tool declares), **presentation** (Read's text form); `?` for a report made before classes.\n",
            self.corpus_versions()
        );
        self.verdict_table(&mut m);
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
                    let mut s = match self.cell(col, id) {
                        Some(c) if matches!(c.status, Status::Pass | Status::Differs) => {
                            c.status.to_string()
                        }
                        Some(c) if c.failed_classes.is_empty() => format!("**{}**", c.status),
                        Some(c) => format!("**{}** ({})", c.status, Self::classes_of(c)),
                        None => "—".into(),
                    };
                    match self.note(col, id) {
                        Some(Note::Bug(url)) => s.push_str(&format!(" · [bug]({url})")),
                        Some(Note::NotApplicable(_)) => s.push_str(" · n/a"),
                        None => {}
                    }
                    let _ = write!(m, " {s} |");
                }
                m.push('\n');
            }
        }
        let notes = self.all_notes();
        if !notes.is_empty() {
            m.push_str("\n## Notes of the tools' maintainers\n\nShown beside the case; they change no verdict.\n\n");
            for (tool, id, note) in notes {
                let said = match note {
                    Note::Bug(url) => format!("the tool's bug report: <{url}>"),
                    Note::NotApplicable(why) => format!("not applicable: {}", md_cell(why)),
                };
                let _ = writeln!(m, "- **{}** — `{id}`: {said}", md_cell(tool));
            }
        }
        m
    }

    /// The verdict rows as a table of their own (see [`Matrix::verdict_rows`]).
    pub(super) fn verdict_table(&self, m: &mut String) {
        m.push_str("| |");
        for c in &self.columns {
            let _ = write!(m, " {} |", md_cell(c));
        }
        m.push_str("\n|---|");
        for _ in &self.columns {
            m.push_str("---|");
        }
        m.push('\n');
        for (label, cells) in self.verdict_rows() {
            let _ = write!(m, "| **{label}** |");
            for c in cells {
                let _ = write!(m, " {} |", md_cell(&c));
            }
            m.push('\n');
        }
        m.push('\n');
    }
}
