//! The HTML report of one run (`report.html`): what ran, the totals, certification, and one
//! row per case, with filters — only the cases to look at, by area, by level, by status, by the
//! class of promise a case broke.
//!
//! The rows come in the order of what a failure costs: cases that lost data first, then those
//! that broke the reply's contract, then Read's text form (`Class`'s order), then the others
//! that did not pass with no class named (a crash, a time-out), then the rest; by id within
//! each. A reader opening the page for a tool that corrupts files sees that before the cases
//! where it only numbers lines its own way.
//!
//! It is for people who open a file rather than read a terminal, so it is one self-contained
//! page (inline CSS and a few lines of inline script, nothing fetched) that can be attached to
//! a CI run. Every row carries its area, level and status as data attributes and the script only
//! hides and shows rows, so the page reads fine with scripts off too. A case that did not pass
//! unfolds into its title, rules, starting files and the evidence, so the page alone explains
//! it.

use super::{counts_cell, Report};
use crate::case::{Class, Level};
use crate::run::{CaseRecord, Status};
use std::collections::BTreeSet;
use std::fmt::Write as _;

impl Report {
    /// The self-contained HTML report.
    pub fn html(&self) -> String {
        let attention = self.cases.iter().any(|c| c.status.needs_attention());
        let mut h =
            String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        let _ = writeln!(h, "<title>Conformance: {}</title>", esc(&self.label()));
        let _ = writeln!(h, "<style>\n{CSS}</style>\n</head>\n<body>");
        let _ = writeln!(h, "<h1>Conformance: {}</h1>", esc(&self.label()));
        let _ = writeln!(
            h,
            "<p class=\"meta\">Corpus {} ({} cases, manifest <code>{}</code>), {} {}, editref conform {}, protocol {}, {}-{}, started {}, {:.1} s. Implementation started with <code>{}</code>.</p>",
            esc(&self.corpus.version),
            self.corpus.cases,
            esc(self.corpus.manifest_sha256.get(..12).unwrap_or_default()),
            esc(&self.implementation.name),
            esc(&self.implementation.version),
            esc(&self.harness.version),
            self.harness.protocol,
            esc(&self.platform.os),
            esc(&self.platform.arch),
            esc(&self.started),
            self.duration_ms as f64 / 1000.0,
            esc(&self.implementation.command)
        );
        let class = if self.certification.highest.is_some() {
            "yes"
        } else {
            "no"
        };
        let cert = format!("{}.", self.headline());
        let _ = write!(
            h,
            "<p class=\"cert {class}\" id=\"certification\">{}",
            esc(&cert)
        );
        for note in [&self.certification.note, &self.stopped_early]
            .into_iter()
            .flatten()
        {
            let _ = write!(h, " {}", esc(note));
        }
        h.push_str("</p>\n");
        self.classes_table(&mut h);
        self.totals_table(&mut h);
        self.filters(&mut h, attention);
        h.push_str(
            "<table id=\"cases\">\n<thead><tr><th>case</th><th>level</th><th>status</th><th>classes</th><th>reason</th></tr></thead>\n<tbody>\n",
        );
        let mut cases: Vec<&CaseRecord> = self.cases.iter().collect();
        cases.sort_by(|a, b| gravity(a).cmp(&gravity(b)).then_with(|| a.id.cmp(&b.id)));
        for c in cases {
            row(&mut h, c);
        }
        h.push_str("</tbody>\n</table>\n");
        let _ = writeln!(h, "<script>\n{SCRIPT}</script>\n</body>\n</html>");
        h
    }

    /// Per class (data first): cases that held it per level, and the level certified for it;
    /// nothing for a report made before classes.
    fn classes_table(&self, h: &mut String) {
        if !self.has_classes() {
            return;
        }
        h.push_str("<table class=\"totals\" id=\"classes\">\n<thead><tr><th>class</th>");
        for l in Level::ALL {
            let _ = write!(h, "<th>{l}</th>");
        }
        h.push_str("<th>certified</th></tr></thead>\n<tbody>\n");
        for c in &self.classes {
            let _ = write!(h, "<tr><th>{}</th>", c.class);
            for l in Level::ALL {
                let _ = write!(h, "<td>{}</td>", esc(&counts_cell(c, l)));
            }
            let _ = writeln!(
                h,
                "<td>{}</td></tr>",
                esc(c.certified.highest.as_deref().unwrap_or("—"))
            );
        }
        h.push_str("</tbody>\n</table>\n");
    }

    /// Counts per status and level, the rows that are not all zero.
    fn totals_table(&self, h: &mut String) {
        h.push_str("<table class=\"totals\">\n<thead><tr><th>status</th>");
        for l in Level::ALL {
            let _ = write!(h, "<th>{l}</th>");
        }
        h.push_str("<th>total</th></tr></thead>\n<tbody>\n");
        for s in Status::ALL {
            let row: Vec<usize> = Level::ALL
                .iter()
                .map(|l| {
                    self.cases
                        .iter()
                        .filter(|c| c.status == s && c.level() == Some(*l))
                        .count()
                })
                .collect();
            let total = self.cases.iter().filter(|c| c.status == s).count();
            if total == 0 && s != Status::Pass {
                continue;
            }
            let _ = write!(h, "<tr><th class=\"s {s}\">{s}</th>");
            for n in row {
                let _ = write!(h, "<td>{n}</td>");
            }
            let _ = writeln!(h, "<td>{total}</td></tr>");
        }
        h.push_str("</tbody>\n</table>\n");
    }

    /// The filter controls; "only failing or differing" starts ticked when there is anything
    /// to look at.
    fn filters(&self, h: &mut String, attention: bool) {
        let areas: BTreeSet<&str> = self.cases.iter().map(|c| c.area.as_str()).collect();
        let statuses: BTreeSet<Status> = self.cases.iter().map(|c| c.status).collect();
        h.push_str("<form id=\"filters\">\n");
        let _ = writeln!(
            h,
            "<label><input type=\"checkbox\" name=\"attention\"{}> only failing or differing</label>",
            if attention { " checked" } else { "" }
        );
        let select = |h: &mut String, name: &str, values: &mut dyn Iterator<Item = String>| {
            let _ = write!(
                h,
                "<label>{name} <select name=\"{name}\"><option value=\"\">all</option>"
            );
            for v in values {
                let _ = write!(h, "<option>{}</option>", esc(&v));
            }
            h.push_str("</select></label>\n");
        };
        select(h, "area", &mut areas.iter().map(|a| a.to_string()));
        select(h, "level", &mut Level::ALL.iter().map(|l| l.to_string()));
        select(h, "status", &mut statuses.iter().map(|s| s.to_string()));
        select(h, "class", &mut Class::ALL.iter().map(|c| c.to_string()));
        let _ = writeln!(
            h,
            "<span class=\"count\"><span id=\"shown\">{n}</span> of {n} cases shown</span>\n</form>",
            n = self.cases.len()
        );
    }
}

/// Where a case's row goes: by the gravest class it failed (data, capability, contract, presentation),
/// then the cases to look at that name no class, then the rest.
fn gravity(c: &CaseRecord) -> usize {
    if !c.status.needs_attention() {
        return Class::ALL.len() + 1;
    }
    c.failed_classes
        .iter()
        .filter_map(|k| Class::ALL.iter().position(|a| a == k))
        .min()
        .unwrap_or(Class::ALL.len())
}

/// One case's row: id, level, status, the classes that failed and the reason; a case that did not pass unfolds into its
/// details.
fn row(h: &mut String, c: &CaseRecord) {
    let level = c.level.as_deref().unwrap_or("unloadable");
    let classes: Vec<&str> = c.failed_classes.iter().map(|k| k.as_str()).collect();
    let _ = write!(
        h,
        "<tr data-area=\"{}\" data-level=\"{}\" data-status=\"{}\" data-attention=\"{}\" data-classes=\"{}\"><td class=\"id\">{}</td><td class=\"lv\">{}</td><td class=\"s {}\">{}</td><td class=\"cls\">{}</td><td class=\"why\">{}",
        esc(&c.area),
        esc(level),
        c.status,
        u8::from(c.status.needs_attention()),
        classes.join(" "),
        esc(&c.id),
        esc(level),
        c.status,
        c.status,
        if classes.is_empty() { String::new() } else { classes.join(", ") },
        esc(&c.reason)
    );
    if c.status.needs_attention() {
        details(h, c);
    }
    h.push_str("</td></tr>\n");
}

/// The unfolding part of a row: the case's title, rules, files, then the evidence.
fn details(h: &mut String, c: &CaseRecord) {
    let title = c.about.as_ref().map_or("details", |a| a.title.as_str());
    let _ = write!(h, "<details><summary>{}</summary><dl>", esc(title));
    let item = |h: &mut String, k: &str, v: &str| {
        let _ = write!(h, "<dt>{k}</dt><dd><pre>{}</pre></dd>", esc(v));
    };
    if let Some(a) = &c.about {
        item(h, "rules", &a.spec.join(", "));
        item(h, "case file", &a.source);
        let files: Vec<String> = a.files.iter().map(|(p, d)| format!("{p}: {d}")).collect();
        if !files.is_empty() {
            item(h, "files", &files.join("\n"));
        }
    }
    if let Some(s) = c.step {
        item(h, "step", &s.to_string());
    }
    if let Some(e) = &c.expected {
        item(h, "expected", &e.to_string());
    }
    if let Some(a) = &c.actual {
        item(h, "actual", &a.to_string());
    }
    if let Some(d) = &c.diff {
        item(h, "diff", d);
    }
    if !c.more.is_empty() {
        item(h, "also", &c.more.join("\n"));
    }
    if let Some(e) = &c.stderr {
        item(h, "stderr", e);
    }
    h.push_str("</dl></details>");
}

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page's style: status colours shared with the matrix, compact tables.
pub(crate) const CSS: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin-bottom:1.5em}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
thead th{position:sticky;top:0;background:#f4f4f4}
td.id{font-family:ui-monospace,monospace;font-size:12px;white-space:nowrap}
td.lv{color:#666;font-size:12px}
td.why{font-size:13px;overflow-wrap:anywhere}
#cases{width:100%}
.s{text-align:center;font-size:12px;padding:2px 6px}
.pass{background:#c8f0c8}.fail{background:#f7b0b0}.skip{background:#e6e6e6;color:#555}
.differs{background:#cfe0f7}.xfail{background:#f6e7a8}.xpass{background:#f0a0e6}
.crash{background:#b00020;color:#fff}.timeout{background:#f5a623}
.harness_error{background:#444;color:#fff}.none{background:#fff;color:#aaa}
.cert{font-weight:bold;padding:6px 10px;display:inline-block;border-radius:4px}
.cert.yes{background:#c8f0c8}.cert.no{background:#f7b0b0}
.meta{color:#555}
#filters{margin:1em 0;display:flex;gap:1.2em;align-items:center;flex-wrap:wrap}
#filters .count{color:#555}
details summary{cursor:pointer;color:#1a4f9c}
dl{margin:.4em 0}dt{font-weight:bold;font-size:12px}dd{margin:0 0 .4em 1em}
pre{margin:0;white-space:pre-wrap;word-break:break-all;font-size:12px}
tr[hidden]{display:none}
";

/// The filters: show a row when it passes every chosen filter (a class: the case failed a check
/// of it); count what is shown.
const SCRIPT: &str = "(function () {
  var form = document.getElementById('filters'), f = form.elements;
  var rows = document.querySelectorAll('#cases tbody tr');
  function apply() {
    var only = f.attention.checked, area = f.area.value;
    var level = f.level.value, status = f.status.value, cls = f['class'].value, shown = 0;
    rows.forEach(function (r) {
      var d = r.dataset;
      var show = (!only || d.attention === '1') && (!area || d.area === area) &&
        (!level || d.level === level) && (!status || d.status === status) &&
        (!cls || (' ' + d.classes + ' ').indexOf(' ' + cls + ' ') >= 0);
      r.hidden = !show;
      if (show) shown++;
    });
    document.getElementById('shown').textContent = shown;
  }
  form.addEventListener('change', apply);
  apply();
})();
";

#[cfg(test)]
mod tests {
    use super::super::tests_support::sample;

    #[test]
    fn one_self_contained_page_with_a_row_per_case() {
        let h = sample().html();
        assert!(h.starts_with("<!DOCTYPE html>"));
        assert!(
            !h.contains("src=") && !h.contains("href="),
            "nothing fetched"
        );
        assert_eq!(h.matches("<tr data-area=").count(), 5);
        assert!(h.contains("data-status=\"differs\" data-attention=\"1\""));
        assert!(h.contains("data-status=\"pass\" data-attention=\"0\""));
        assert!(h.contains("<td class=\"id\">edit/b&lt;&amp;&gt;</td>"));
        assert!(h.contains("<summary>A &lt;sample&gt; case</summary>"));
        assert!(h.contains("<dt>rules</dt><dd><pre>EDIT-1, MATCH-3</pre>"));
        assert!(
            h.contains("name=\"attention\" checked"),
            "failures: start filtered"
        );
        assert!(h.contains("<option>edit</option><option>eol</option><option>path</option>"));
        assert!(h.contains(
            "<select name=\"class\"><option value=\"\">all</option><option>data</option><option>capability</option><option>contract</option><option>presentation</option></select>"
        ));
    }

    /// Data failures first, then contract, then presentation, then the rest, by id within each:
    /// not the alphabetical order that put a tool's lost bytes among its line numbering.
    #[test]
    fn cases_come_gravest_class_first() {
        let mut r = sample();
        let mut only_contract = r.cases[1].clone();
        only_contract.id = "a/contract".into();
        only_contract.failed_classes = vec![crate::case::Class::Contract];
        let mut crash = r.cases[0].clone();
        crash.id = "a/crash".into();
        crash.status = crate::run::Status::Crash;
        r.cases.push(only_contract);
        r.cases.push(crash);
        let h = r.html();
        let ids: Vec<&str> = h
            .split("<td class=\"id\">")
            .skip(1)
            .map(|s| &s[..s.find("</td>").unwrap()])
            .collect();
        assert_eq!(
            ids,
            [
                "edit/b&lt;&amp;&gt;",
                "a/contract",
                "eol/d",
                "path/e",
                "a/crash",
                "edit/a",
                "eol/c"
            ]
        );
    }
}
