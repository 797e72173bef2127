//! The cross-implementation matrix (`editref conform matrix`): several `report.json` files side
//! by side, rows = cases grouped by area, columns = implementations. Each column's verdict leads
//! (overall and per failure class, data first, for the tools it offers, with the corpus, the
//! manifest, the tool's version and the date of its run), then per-level totals, then the
//! cases, with what the tool's maintainers noted on them (`notes.rs`: a bug report, or why a
//! case does not apply).
//!
//! Written as Markdown (`markdown.rs`, for READMEs and job summaries), as one self-contained HTML
//! page (`html.rs`, inline CSS, no scripts or external files) that can be attached to a release
//! or a CI run, as an SVG chart of the data-class pass rate per area and tool (`svg.rs`), which
//! the page also shows inline, and as a README section (`readme.rs`) with the most telling
//! failures (`telling.rs`: data damage named from the bytes). Implementations that could not be
//! run are listed with the reason. This file lines the reports up and computes what all three
//! show. Reports made before classes are read too; their class figures show as unknown.

mod html;
mod markdown;
mod notes;
mod readme;
mod svg;
mod telling;

pub use notes::{Note, Notes};
pub use readme::TELLING;
pub use telling::Telling;

use crate::case::{Class, Level};
use crate::report::Report;
use crate::run::{holds, CaseRecord, Status};
use std::collections::{BTreeMap, BTreeSet};

/// The reports lined up: one column per report, one row per case id found in any of them.
pub struct Matrix<'a> {
    /// Column headings, unique.
    pub columns: Vec<String>,
    reports: &'a [Report],
    /// Case id → (area, level).
    rows: BTreeMap<String, (String, Option<String>)>,
    cells: Vec<BTreeMap<&'a str, &'a CaseRecord>>,
    /// Implementations that could not be run, with the reason (shown, never counted).
    pub not_run: Vec<(String, String)>,
    /// Per column, the benchmark run beside its report (`bench.json`), if any: the latency
    /// rows come from it.
    bench: Vec<Option<crate::bench::report::BenchReport>>,
    /// Per column, the notes of its maintainers (`notes.txt` beside its report).
    notes: Vec<Notes>,
}

/// The workloads whose median latency the matrix shows, with their row labels.
pub const LATENCY_ROWS: [(&str, &str); 2] = [
    ("edit-1k", "Edit 1 KB, median ms"),
    ("edit-1m", "Edit 1 MB, median ms"),
];

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
            not_run: Vec::new(),
            bench: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds the notes of each column (in column order; empty where there are none).
    pub fn with_notes(mut self, notes: Vec<Notes>) -> Self {
        self.notes = notes;
        self
    }

    /// The note on case `id` of column `col`, if its maintainers wrote one.
    fn note(&self, col: usize, id: &str) -> Option<&Note> {
        self.notes.get(col).and_then(|n| n.get(id))
    }

    /// Every note of every column, as (column, case, note), column by column.
    fn all_notes(&self) -> Vec<(&str, &str, &Note)> {
        self.notes
            .iter()
            .enumerate()
            .flat_map(|(col, n)| {
                n.iter()
                    .map(move |(id, note)| (self.columns[col].as_str(), id.as_str(), note))
            })
            .collect()
    }

    /// The rows that lead every form of the matrix, one cell per column: the verdict, the tools
    /// offered and not, each class at core (data first), and what ran — corpus and manifest,
    /// the tool's name and version as it reported them (the column's label may be a package's
    /// pinned version), the date, and a re-judging when there was one.
    fn verdict_rows(&self) -> Vec<(String, Vec<String>)> {
        let cells = |f: &dyn Fn(usize, &Report) -> String| -> Vec<String> {
            self.reports
                .iter()
                .enumerate()
                .map(|(c, r)| f(c, r))
                .collect()
        };
        let mut rows = vec![
            (
                "verdict".to_string(),
                cells(&|_, r| {
                    let base = match &r.certification.highest {
                        Some(l) => format!("certified {l}"),
                        None => "not certified".to_string(),
                    };
                    if r.safe_not_capable() {
                        format!("{base}: safe, not capable")
                    } else {
                        base
                    }
                }),
            ),
            (
                "offers".to_string(),
                cells(&|_, r| {
                    let s = r.surface();
                    if s.offered.is_empty() {
                        "—".into()
                    } else {
                        s.offered.join(", ")
                    }
                }),
            ),
            (
                "not offered".to_string(),
                cells(&|_, r| {
                    let s = r.surface();
                    if s.not_offered.is_empty() {
                        "—".into()
                    } else {
                        s.not_offered.join(", ")
                    }
                }),
            ),
        ];
        for class in Class::ALL {
            rows.push((
                format!("{class} (core)"),
                cells(&|col, _| match self.class_totals(col, class, Level::Core) {
                    None => "?".into(),
                    Some((held, judged)) => match self.class_certified(col, class).as_str() {
                        "—" => format!("not certified ({held}/{judged})"),
                        "?" => format!("? ({held}/{judged})"),
                        l => format!("certified {l} ({held}/{judged})"),
                    },
                }),
            ));
        }
        rows.push((
            "corpus (manifest)".to_string(),
            cells(&|_, r| {
                format!(
                    "{} ({})",
                    r.corpus.version,
                    r.corpus.manifest_sha256.get(..12).unwrap_or_default()
                )
            }),
        ));
        rows.push((
            "as it names itself".to_string(),
            cells(&|_, r| format!("{} {}", r.implementation.name, r.implementation.version)),
        ));
        rows.push((
            "run".to_string(),
            cells(&|_, r| {
                let day = r.started.get(..10).unwrap_or(&r.started).to_string();
                match &r.rejudged {
                    Some(j) => format!("{day}, judged again by corpus {} rules", j.rules),
                    None => day,
                }
            }),
        ));
        rows
    }

    /// Adds the benchmark run of each column (in column order; `None` where there is none).
    pub fn with_bench(mut self, bench: Vec<Option<crate::bench::report::BenchReport>>) -> Self {
        self.bench = bench;
        self
    }

    /// The latency rows: (label, one cell per column), empty when no column has a benchmark.
    fn latency_rows(&self) -> Vec<(&'static str, Vec<String>)> {
        if self.bench.iter().all(Option::is_none) {
            return Vec::new();
        }
        LATENCY_ROWS
            .iter()
            .map(|(workload, label)| {
                let cells = (0..self.columns.len())
                    .map(|col| {
                        let r = self
                            .bench
                            .get(col)
                            .and_then(Option::as_ref)
                            .and_then(|b| b.results.iter().find(|r| r.workload == *workload));
                        match r {
                            Some(r) => match r.median_ms {
                                Some(m) if m < 10.0 => format!("{m:.2}"),
                                Some(m) => format!("{m:.0}"),
                                None => r.status.clone(),
                            },
                            None => "–".into(),
                        }
                    })
                    .collect();
                (*label, cells)
            })
            .collect()
    }

    /// Adds the implementations that could not be run, each `"NAME: reason"`.
    pub fn with_not_run(mut self, entries: &[String]) -> Self {
        self.not_run = entries
            .iter()
            .map(|e| match e.split_once(':') {
                Some((name, why)) => (name.trim().to_string(), why.trim().to_string()),
                None => (e.trim().to_string(), "not run".to_string()),
            })
            .collect();
        self
    }

    /// Per column, class and level: (held, judged), `None` for a report without classes.
    fn class_totals(&self, col: usize, class: Class, level: Level) -> Option<(usize, usize)> {
        let report = self.reports.get(col)?;
        if !report.has_classes() {
            return None;
        }
        let verdicts = self.cells[col]
            .values()
            .filter(|c| c.level() == Some(level))
            .filter_map(|c| holds(c, class));
        let (mut held, mut judged) = (0, 0);
        for v in verdicts {
            judged += 1;
            held += usize::from(v);
        }
        Some((held, judged))
    }

    /// The data-class pass rate of one column in one area: cases that held the data class over
    /// the cases of the area that ran (skips aside; a crash holds nothing). `None` when the
    /// report has no classes or ran no case of the area.
    fn data_rate(&self, col: usize, area: &str) -> Option<(usize, usize)> {
        if !self.reports.get(col)?.has_classes() {
            return None;
        }
        let ran: Vec<&CaseRecord> = self.cells[col]
            .values()
            .copied()
            .filter(|c| c.area == area && c.status != Status::Skip)
            .collect();
        let held = ran
            .iter()
            .filter(|c| holds(c, Class::Data) == Some(true))
            .count();
        (!ran.is_empty()).then_some((held, ran.len()))
    }

    /// The level a report certifies for `class`, `—` when none, `?` when it has no classes.
    fn class_certified(&self, col: usize, class: Class) -> String {
        let Some(r) = self.reports.get(col) else {
            return "?".into();
        };
        match r.classes.iter().find(|c| c.class == class) {
            None => "?".into(),
            Some(c) => c.certified.highest.clone().unwrap_or_else(|| "—".into()),
        }
    }

    /// The failed classes of a record, "data, contract", empty when none are recorded.
    fn classes_of(c: &CaseRecord) -> String {
        c.failed_classes
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join(", ")
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
}

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
        b.cases[0].failed_classes = vec![Class::Presentation];
        let reports = [a, b];
        let m = Matrix::new(&reports);
        assert_eq!(m.columns, vec!["t 1", "t 1 (2)"]);
        let md = m.markdown();
        assert!(md.contains("| core | 1/2 | 0/2 |"), "{md}");
        assert!(md.contains("| **edit** |"));
        assert!(md.contains("| `eol/c` | extended | **skip** | — |"), "{md}");
        assert!(md.contains("| certified (data) | — | — |"), "{md}");
        assert!(md.contains("| presentation · core | 2/2 | 1/2 |"), "{md}");
        assert!(md.contains("**fail** (data, contract)"), "{md}");
        let html = m.html();
        assert!(html.contains("<style>") && !html.contains("<script"));
        assert!(html.contains("<svg"), "the chart is inline");
        assert!(html.contains("class=\"s fail\""));
        assert!(html.contains("edit/b&lt;&amp;&gt;"));
    }

    #[test]
    fn a_tool_not_run_is_shown_with_its_reason_and_the_readme_section_has_it_all() {
        let a = sample();
        let reports = [a];
        let m = Matrix::new(&reports)
            .with_not_run(&["Broken Tool: install failed: npm ERR! 404".to_string()]);
        assert!(m
            .markdown()
            .contains("Not run: **Broken Tool** — install failed: npm ERR! 404"));
        assert!(m
            .html()
            .contains("<li><b>Broken Tool</b> — install failed: npm ERR! 404</li>"));
        let section = m.readme_section("docs/matrix");
        assert!(
            section.starts_with("## How shipping edit tools fare\n"),
            "{section}"
        );
        assert!(section.contains("| area | t 1 |"), "{section}");
        assert!(section.contains("| edit |"), "{section}");
        // The verdict leads, data first, before the areas.
        assert!(
            section.contains("| **verdict** | not certified |\n| **offers** | — |"),
            "{section}"
        );
        assert!(
            section.contains("| **data (core)** | not certified (1/2) |\n| **capability (core)** | certified core (2/2) |"),
            "{section}"
        );
        assert!(
            section.find("**verdict**") < section.find("| area |"),
            "{section}"
        );
        assert!(
            section.contains("| **corpus (manifest)** | 0.1.0 (abababababab) |"),
            "{section}"
        );
        assert!(
            section.contains("| **as it names itself** | t 1 |\n| **run** | 1970-01-01 |"),
            "{section}"
        );
        assert!(
            section.contains("- **Broken Tool** — install failed"),
            "{section}"
        );
        assert!(section.contains("![Data kept per area and tool](docs/matrix/matrix.svg)"));
        assert!(section.contains("### The most telling failures"));
    }

    #[test]
    fn a_peers_notes_are_shown_beside_the_case_and_change_no_verdict() {
        let reports = [sample()];
        let notes = Notes::parse(
            "edit/b<&> bug https://example.org/issues/7\neol/c n/a the tool has no CRLF files to meet\n",
        )
        .unwrap();
        let plain = Matrix::new(&reports).markdown();
        let m = Matrix::new(&reports).with_notes(vec![notes]);
        let md = m.markdown();
        assert!(
            md.contains("| `edit/b<&>` | core | **fail** (data, contract) · [bug](https://example.org/issues/7) |"),
            "{md}"
        );
        assert!(
            md.contains("| `eol/c` | extended | **skip** · n/a |"),
            "{md}"
        );
        assert!(
            md.contains("- **t 1** — `eol/c`: not applicable: the tool has no CRLF files to meet"),
            "{md}"
        );
        let verdicts = |t: &str| t[..t.find("| level |").unwrap()].to_string();
        assert_eq!(verdicts(&md), verdicts(&plain), "no verdict changes");
        let html = m.html();
        assert!(
            html.contains("<a href=\"https://example.org/issues/7\">bug</a>"),
            "{html}"
        );
        assert!(html.contains("title=\"not applicable: the tool has no CRLF files to meet"));
        assert!(m
            .readme_section("d")
            .contains("[the tool's bug report](https://example.org/issues/7)"));
    }

    #[test]
    fn a_benchmark_beside_a_report_gives_latency_rows() {
        use crate::bench::report::{BenchReport, WorkloadResult};
        let reports = [sample(), sample()];
        let row = |name: &str, median: Option<f64>, status: &str| WorkloadResult {
            workload: name.into(),
            status: status.into(),
            detail: String::new(),
            samples_ms: Vec::new(),
            median_ms: median,
            p90_ms: None,
            min_ms: None,
            max_ms: None,
            peak_rss_kib: None,
            patient_runs: 0,
        };
        let bench = BenchReport {
            schema: 1,
            set: "bench-1".into(),
            implementation: "t 1".into(),
            command: "t".into(),
            started: "2026-11-25T00:00:00Z".into(),
            cpus: 2,
            repetitions: 5,
            results: vec![
                row("edit-1k", Some(1.234), "ok"),
                row("edit-1m", None, "wrong"),
            ],
        };
        let plain = Matrix::new(&reports).markdown();
        assert!(!plain.contains("median ms"), "no benchmark, no rows");
        let m = Matrix::new(&reports).with_bench(vec![Some(bench), None]);
        let md = m.markdown();
        assert!(md.contains("| Edit 1 KB, median ms | 1.23 | – |"), "{md}");
        assert!(md.contains("| Edit 1 MB, median ms | wrong | – |"), "{md}");
        let section = m.readme_section("docs/matrix");
        assert!(
            section.contains("| Edit 1 KB, median ms | 1.23 | – |"),
            "{section}"
        );
    }
}
