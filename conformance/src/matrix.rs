//! The cross-implementation matrix (`editref conform matrix`): several `report.json` files side
//! by side, rows = cases grouped by area, columns = implementations, plus per-level totals.
//!
//! Written as Markdown (for READMEs and job summaries) and as one self-contained HTML page
//! (inline CSS, no scripts or external files) that can be attached to a release or a CI run.

use crate::case::Level;
use crate::report::{html_escape as esc, md_cell, Report};
use crate::run::{CaseRecord, Status};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The reports lined up: one column per report, one row per case id found in any of them.
pub struct Matrix<'a> {
    /// Column headings, unique.
    pub columns: Vec<String>,
    reports: &'a [Report],
    /// Case id → (area, level).
    rows: BTreeMap<String, (String, Option<String>)>,
    cells: Vec<BTreeMap<&'a str, &'a CaseRecord>>,
}

impl<'a> Matrix<'a> {
    /// Lines the reports up.
    pub fn new(reports: &'a [Report]) -> Matrix<'a> {
        let mut columns: Vec<String> = Vec::new();
        for r in reports {
            let mut label = r.label();
            let mut n = 2;
            while columns.contains(&label) {
                label = format!("{} ({n})", r.label());
                n += 1;
            }
            columns.push(label);
        }
        let mut rows = BTreeMap::new();
        let mut cells = Vec::new();
        for r in reports {
            let mut col = BTreeMap::new();
            for c in &r.cases {
                rows.entry(c.id.clone())
                    .or_insert_with(|| (c.area.clone(), c.level.clone()));
                col.insert(c.id.as_str(), c);
            }
            cells.push(col);
        }
        Matrix {
            columns,
            reports,
            rows,
            cells,
        }
    }

    fn areas(&self) -> BTreeMap<&str, Vec<&str>> {
        let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (id, (area, _)) in &self.rows {
            out.entry(area.as_str()).or_default().push(id.as_str());
        }
        out
    }

    fn cell(&self, col: usize, id: &str) -> Option<&'a CaseRecord> {
        self.cells.get(col).and_then(|c| c.get(id)).copied()
    }

    /// Per column and level: (passed, cases).
    fn level_totals(&self) -> Vec<Vec<(usize, usize)>> {
        (0..self.columns.len())
            .map(|col| {
                Level::ALL
                    .iter()
                    .map(|l| {
                        let cases: Vec<&CaseRecord> = self.cells[col]
                            .values()
                            .copied()
                            .filter(|c| c.level() == Some(*l))
                            .collect();
                        (
                            cases.iter().filter(|c| c.status == Status::Pass).count(),
                            cases.len(),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    fn corpus_versions(&self) -> String {
        let v: BTreeSet<&str> = self
            .reports
            .iter()
            .map(|r| r.corpus.version.as_str())
            .collect();
        v.into_iter().collect::<Vec<_>>().join(", ")
    }

    /// The Markdown table.
    pub fn markdown(&self) -> String {
        let mut m = String::from("# Conformance matrix\n\n");
        let _ = writeln!(m, "Corpus {}.\n", self.corpus_versions());
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
        m.push_str("| certified |");
        for r in self.reports {
            let _ = write!(
                m,
                " {} |",
                r.certification.highest.as_deref().unwrap_or("—")
            );
        }
        m.push_str("\n\n| case | level |");
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
                        Some(c) => format!("**{}**", c.status),
                        None => "—".into(),
                    };
                    let _ = write!(m, " {s} |");
                }
                m.push('\n');
            }
        }
        m
    }

    /// The self-contained HTML page.
    pub fn html(&self) -> String {
        let mut h = String::from(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>editref conformance matrix</title>\n<style>\n",
        );
        h.push_str(crate::report::HTML_CSS);
        h.push_str(CSS);
        h.push_str("</style>\n</head>\n<body>\n<h1>Conformance matrix</h1>\n");
        let _ = writeln!(
            h,
            "<p>Corpus {}. Rows are corpus cases grouped by area; columns are implementations. Hover a cell for the reason.</p>",
            esc(&self.corpus_versions())
        );
        h.push_str("<p class=\"legend\">");
        for s in Status::ALL {
            let _ = write!(h, "<span class=\"s {}\">{}</span> ", s.as_str(), s.as_str());
        }
        h.push_str("<span class=\"s none\">not run</span></p>\n");

        h.push_str("<h2>Totals</h2>\n<table class=\"totals\">\n<thead><tr><th>level</th>");
        for c in &self.columns {
            let _ = write!(h, "<th>{}</th>", esc(c));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        let totals = self.level_totals();
        for (i, l) in Level::ALL.iter().enumerate() {
            let _ = write!(h, "<tr><th>{l}</th>");
            for t in &totals {
                let (pass, all) = t[i];
                let pct = (pass * 100).checked_div(all).unwrap_or(0);
                let _ = write!(
                    h,
                    "<td><div class=\"bar\"><div style=\"width:{pct}%\"></div></div>{pass}/{all}</td>"
                );
            }
            h.push_str("</tr>\n");
        }
        h.push_str("<tr><th>certified</th>");
        for r in self.reports {
            let _ = write!(
                h,
                "<td>{}</td>",
                esc(r.certification.highest.as_deref().unwrap_or("—"))
            );
        }
        h.push_str("</tr>\n</tbody>\n</table>\n");

        h.push_str(
            "<h2>Cases</h2>\n<table class=\"grid\">\n<thead><tr><th>case</th><th>level</th>",
        );
        for c in &self.columns {
            let _ = write!(h, "<th>{}</th>", esc(c));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for (area, ids) in self.areas() {
            let _ = writeln!(
                h,
                "<tr class=\"area\"><th colspan=\"{}\">{}</th></tr>",
                self.columns.len() + 2,
                esc(area)
            );
            for id in ids {
                let level = self.rows[id].1.as_deref().unwrap_or("?");
                let _ = write!(
                    h,
                    "<tr><td class=\"id\">{}</td><td class=\"lv\">{}</td>",
                    esc(id),
                    esc(level)
                );
                for col in 0..self.columns.len() {
                    match self.cell(col, id) {
                        Some(c) => {
                            let _ = write!(
                                h,
                                "<td class=\"s {}\" title=\"{}\">{}</td>",
                                c.status.as_str(),
                                esc(&c.reason),
                                c.status.as_str()
                            );
                        }
                        None => h.push_str("<td class=\"s none\">—</td>"),
                    }
                }
                h.push_str("</tr>\n");
            }
        }
        h.push_str("</tbody>\n</table>\n</body>\n</html>\n");
        h
    }
}

/// The matrix's own rules; the status colours come from the run report's style.
const CSS: &str = "tr.area th{background:#e8eef7;font-size:15px}
.legend .s{display:inline-block;border-radius:3px;margin-right:4px}
.bar{display:inline-block;width:80px;height:8px;background:#eee;margin-right:6px;vertical-align:middle}
.bar div{height:8px;background:#4caf50}
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests_support::sample;

    #[test]
    fn matrix_lines_reports_up() {
        let a = sample();
        let mut b = sample();
        b.cases.truncate(2);
        b.cases[0].status = Status::Fail;
        let reports = [a, b];
        let m = Matrix::new(&reports);
        assert_eq!(m.columns, vec!["t 1", "t 1 (2)"]);
        let md = m.markdown();
        assert!(md.contains("| core | 1/2 | 0/2 |"), "{md}");
        assert!(md.contains("| **edit** |"));
        assert!(md.contains("| `eol/c` | extended | **skip** | — |"), "{md}");
        let html = m.html();
        assert!(html.contains("<style>") && !html.contains("<script"));
        assert!(html.contains("class=\"s fail\""));
        assert!(html.contains("edit/b&lt;&amp;&gt;"));
    }
}
