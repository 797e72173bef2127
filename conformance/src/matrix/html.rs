//! The matrix as one self-contained HTML page: each tool's verdict first, then totals per level,
//! per class and level (data first) with bars, the SVG chart of data-class pass rates inline,
//! and the grid of cases with each failure's classes and its maintainers' notes in its cell.

use super::{Matrix, Note};
use crate::case::{Class, Level};
use crate::report::html_escape as esc;
use crate::run::Status;
use std::fmt::Write as _;

/// A cell with a bar filled to `held` of `all`.
fn bar(held: usize, all: usize) -> String {
    let pct = (held * 100).checked_div(all).unwrap_or(0);
    format!("<td><div class=\"bar\"><div style=\"width:{pct}%\"></div></div>{held}/{all}</td>")
}

impl Matrix<'_> {
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
            "<p>Corpus {}. Rows are corpus cases grouped by area; columns are implementations. Hover a cell for the reason; a failure names the classes it touched: data (bytes and metadata on disk), contract (codes and result fields), presentation (Read's text form).</p>",
            esc(&self.corpus_versions())
        );
        h.push_str("<p class=\"legend\">");
        for s in Status::ALL {
            let _ = write!(h, "<span class=\"s {}\">{}</span> ", s.as_str(), s.as_str());
        }
        h.push_str("<span class=\"s none\">not run</span></p>\n");

        h.push_str(
            "<h2>Verdicts</h2>\n<table class=\"totals\" id=\"verdicts\">\n<thead><tr><th></th>",
        );
        for c in &self.columns {
            let _ = write!(h, "<th>{}</th>", esc(c));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for (label, cells) in self.verdict_rows() {
            let _ = write!(h, "<tr><th>{}</th>", esc(&label));
            for c in cells {
                let _ = write!(h, "<td>{}</td>", esc(&c));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table>\n");
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
                h.push_str(&bar(pass, all));
            }
            h.push_str("</tr>\n");
        }
        for class in Class::ALL {
            for l in Level::ALL {
                let _ = write!(h, "<tr><th>{class} · {l}</th>");
                for col in 0..self.columns.len() {
                    match self.class_totals(col, class, l) {
                        Some((held, judged)) => h.push_str(&bar(held, judged)),
                        None => h.push_str("<td>?</td>"),
                    }
                }
                h.push_str("</tr>\n");
            }
        }
        for class in Class::ALL {
            let _ = write!(h, "<tr><th>certified ({class})</th>");
            for col in 0..self.columns.len() {
                let _ = write!(h, "<td>{}</td>", esc(&self.class_certified(col, class)));
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

        if !self.not_run.is_empty() {
            h.push_str("<h2>Not run</h2>\n<ul class=\"not-run\">\n");
            for (name, why) in &self.not_run {
                let _ = writeln!(h, "<li><b>{}</b> — {}</li>", esc(name), esc(why));
            }
            h.push_str("</ul>\n");
        }
        h.push_str("<h2>Data kept, per area</h2>\n<figure class=\"chart\">\n");
        h.push_str(&self.svg());
        h.push_str("</figure>\n");
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
                            let classes = Self::classes_of(c);
                            let mut shown = if classes.is_empty() {
                                String::new()
                            } else {
                                format!("<br><small>{}</small>", esc(&classes))
                            };
                            let mut title = c.reason.clone();
                            match self.note(col, id) {
                                Some(Note::Bug(url)) => shown.push_str(&format!(
                                    "<br><small><a href=\"{}\">bug</a></small>",
                                    esc(url)
                                )),
                                Some(Note::NotApplicable(why)) => {
                                    shown.push_str("<br><small>n/a</small>");
                                    title = format!("not applicable: {why} — {title}");
                                }
                                None => {}
                            }
                            let _ = write!(
                                h,
                                "<td class=\"s {}\" title=\"{}\">{}{shown}</td>",
                                c.status.as_str(),
                                esc(&title),
                                c.status.as_str()
                            );
                        }
                        None => h.push_str("<td class=\"s none\">—</td>"),
                    }
                }
                h.push_str("</tr>\n");
            }
        }
        h.push_str("</tbody>\n</table>\n");
        let notes = self.all_notes();
        if !notes.is_empty() {
            h.push_str("<h2>Notes of the tools' maintainers</h2>\n<p>Shown beside the case; they change no verdict.</p>\n<ul class=\"notes\">\n");
            for (tool, id, note) in notes {
                let said = match note {
                    Note::Bug(url) => format!(
                        "the tool's bug report: <a href=\"{}\">{}</a>",
                        esc(url),
                        esc(url)
                    ),
                    Note::NotApplicable(why) => format!("not applicable: {}", esc(why)),
                };
                let _ = writeln!(
                    h,
                    "<li><b>{}</b> — <code>{}</code>: {said}</li>",
                    esc(tool),
                    esc(id)
                );
            }
            h.push_str("</ul>\n");
        }
        h.push_str("</body>\n</html>\n");
        h
    }
}

/// The matrix's own rules; the status colours come from the run report's style.
const CSS: &str = "tr.area th{background:#e8eef7;font-size:15px}
.legend .s{display:inline-block;border-radius:3px;margin-right:4px}
.bar{display:inline-block;width:80px;height:8px;background:#eee;margin-right:6px;vertical-align:middle}
.bar div{height:8px;background:#4caf50}
figure.chart{margin:0 0 16px 0;overflow-x:auto}
";
