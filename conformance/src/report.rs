//! Reports: the canonical `report.json` and the formats derived from it — JUnit XML for CI
//! dashboards, TAP 14 for streaming consumers, and a Markdown summary for people.
//!
//! Everything is written from a [`Report`] value, so the derived files can never say something
//! the JSON does not.

use crate::case::Level;
use crate::run::{CaseRecord, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The report format version; bumped when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// The harness that produced a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HarnessInfo {
    /// Always `editref conform`.
    pub name: String,
    /// editref's version.
    pub version: String,
    /// Adapter protocol version.
    pub protocol: u64,
}

/// The corpus a report was made against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusInfo {
    /// `VERSION`.
    pub version: String,
    /// sha256 of the manifest generated from the corpus that ran.
    pub manifest_sha256: String,
    /// The directory, or `embedded`.
    pub origin: String,
    /// Cases in the corpus (selected or not).
    pub cases: usize,
}

/// The implementation under test, as its `hello` described it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImplInfo {
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
    /// Declared features.
    pub features: Vec<String>,
    /// The `--impl` command, or `builtin`.
    pub command: String,
}

/// Where the run happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// `std::env::consts::OS`.
    pub os: String,
    /// `std::env::consts::ARCH`.
    pub arch: String,
    /// `std::env::consts::FAMILY`.
    pub family: String,
}

impl Platform {
    /// The platform this binary runs on.
    pub fn current() -> Platform {
        Platform {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            family: std::env::consts::FAMILY.into(),
        }
    }
}

/// What part of the corpus ran.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Selection {
    /// `--only` patterns.
    #[serde(default)]
    pub only: Vec<String>,
    /// `--level`.
    #[serde(default)]
    pub level: Option<String>,
    /// `--expectations` file.
    #[serde(default)]
    pub expectations: Option<String>,
    /// Per-call timeout in seconds.
    #[serde(default)]
    pub timeout_s: f64,
}

/// Certification reached by the run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Certification {
    /// Every core case passed.
    pub core: bool,
    /// Every core and extended case passed.
    pub extended: bool,
    /// The highest level reached.
    pub highest: Option<String>,
    /// Why a level could not be claimed, when the run was partial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The canonical record of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The harness.
    pub harness: HarnessInfo,
    /// The corpus.
    pub corpus: CorpusInfo,
    /// The implementation.
    pub implementation: ImplInfo,
    /// The platform.
    pub platform: Platform,
    /// Start, RFC 3339 UTC.
    pub started: String,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// Selection options.
    pub selection: Selection,
    /// Counts per status.
    pub totals: BTreeMap<Status, usize>,
    /// Certification.
    pub certification: Certification,
    /// One record per case, by id.
    pub cases: Vec<CaseRecord>,
}

impl Report {
    /// `name version` of the implementation, for headings and matrix columns.
    pub fn label(&self) -> String {
        format!(
            "{} {}",
            self.implementation.name, self.implementation.version
        )
    }

    /// Writes report.json, junit.xml, report.tap and summary.md into `dir` (created if needed).
    pub fn write_all(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        json.push('\n');
        std::fs::write(dir.join("report.json"), json)?;
        std::fs::write(dir.join("junit.xml"), self.junit())?;
        std::fs::write(dir.join("report.tap"), self.tap())?;
        std::fs::write(dir.join("summary.md"), self.summary_md())?;
        Ok(())
    }

    /// JUnit XML: one `<testsuite>` per area, one `<testcase>` per case. fail, crash, timeout
    /// and xpass are `<failure>`s, harness errors `<error>`s, skip and xfail `<skipped>`; a
    /// non-passing implementation-defined case is `<skipped>` too (it never counts).
    pub fn junit(&self) -> String {
        let mut by_area: BTreeMap<&str, Vec<&CaseRecord>> = BTreeMap::new();
        for c in &self.cases {
            by_area.entry(c.area.as_str()).or_default().push(c);
        }
        let kind = |c: &CaseRecord| -> &'static str {
            let idef = c.level() == Some(Level::ImplementationDefined);
            match c.status {
                Status::Pass => "pass",
                _ if idef => "skipped",
                Status::Fail | Status::Crash | Status::Timeout | Status::Xpass => "failure",
                Status::HarnessError => "error",
                Status::Skip | Status::Xfail => "skipped",
            }
        };
        let count = |cs: &[&CaseRecord], k: &str| cs.iter().filter(|c| kind(c) == k).count();
        let secs = |ms: u64| format!("{:.3}", ms as f64 / 1000.0);
        let all: Vec<&CaseRecord> = self.cases.iter().collect();
        let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            x,
            "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\" timestamp=\"{}\">",
            xml(&format!("editref conform: {}", self.label())),
            all.len(),
            count(&all, "failure"),
            count(&all, "error"),
            count(&all, "skipped"),
            secs(self.duration_ms),
            xml(&self.started),
        );
        for (area, cases) in &by_area {
            let _ = writeln!(
                x,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
                xml(area),
                cases.len(),
                count(cases, "failure"),
                count(cases, "error"),
                count(cases, "skipped"),
                secs(cases.iter().map(|c| c.duration_ms).sum()),
            );
            for c in cases {
                let _ = write!(
                    x,
                    "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
                    xml(&c.id),
                    xml(area),
                    secs(c.duration_ms)
                );
                let message = format!("{}: {}", c.status, c.reason);
                match kind(c) {
                    "pass" => x.push_str("/>\n"),
                    "skipped" => {
                        let m = if c.level() == Some(Level::ImplementationDefined)
                            && c.status != Status::Skip
                        {
                            format!("implementation-defined, differs: {message}")
                        } else {
                            message
                        };
                        let _ = writeln!(
                            x,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            xml(&m)
                        );
                    }
                    k => {
                        let _ = writeln!(
                            x,
                            ">\n      <{k} message=\"{}\" type=\"{}\">{}</{k}>\n    </testcase>",
                            xml(&message),
                            c.status,
                            xml(&details(c))
                        );
                    }
                }
            }
            x.push_str("  </testsuite>\n");
        }
        x.push_str("</testsuites>\n");
        x
    }

    /// TAP 14. xfail and non-passing implementation-defined cases are `not ok … # TODO`, skips
    /// `ok … # SKIP`; failures carry a YAML diagnostics block (written as JSON scalars, which
    /// are valid YAML).
    pub fn tap(&self) -> String {
        let mut t = String::from("TAP version 14\n");
        let _ = writeln!(t, "1..{}", self.cases.len());
        let _ = writeln!(
            t,
            "# editref conform {} — {} — corpus {}",
            self.harness.version,
            self.label(),
            self.corpus.version
        );
        for (i, c) in self.cases.iter().enumerate() {
            let n = i + 1;
            let desc = c.id.replace('#', "\\#");
            let idef = c.level() == Some(Level::ImplementationDefined);
            let one_line = |s: &str| s.replace(['\n', '\r'], " ").replace('#', "\\#");
            match c.status {
                Status::Pass => {
                    let _ = writeln!(t, "ok {n} - {desc}");
                }
                Status::Skip => {
                    let _ = writeln!(t, "ok {n} - {desc} # SKIP {}", one_line(&c.reason));
                }
                Status::Xfail => {
                    let _ = writeln!(t, "not ok {n} - {desc} # TODO {}", one_line(&c.reason));
                }
                _ if idef => {
                    let _ = writeln!(
                        t,
                        "not ok {n} - {desc} # TODO implementation-defined: {}",
                        one_line(&c.reason)
                    );
                }
                _ => {
                    let _ = writeln!(t, "not ok {n} - {desc}");
                    let js = |v: &str| serde_json::to_string(v).unwrap_or_default();
                    t.push_str("  ---\n");
                    let _ = writeln!(t, "  message: {}", js(&c.reason));
                    let _ = writeln!(t, "  severity: {}", c.status);
                    if let Some(l) = &c.level {
                        let _ = writeln!(t, "  level: {l}");
                    }
                    if let Some(s) = c.step {
                        let _ = writeln!(t, "  step: {s}");
                    }
                    for (k, v) in [("expected", &c.expected), ("actual", &c.actual)] {
                        if let Some(v) = v {
                            let _ = writeln!(t, "  {k}: {v}");
                        }
                    }
                    if let Some(d) = &c.diff {
                        let _ = writeln!(t, "  diff: {}", js(d));
                    }
                    t.push_str("  ...\n");
                }
            }
        }
        t
    }

    /// The Markdown summary: what ran, totals per status and level, certification, and the
    /// cases that did not pass.
    pub fn summary_md(&self) -> String {
        let mut m = String::new();
        let _ = writeln!(m, "# Conformance: {}\n", self.label());
        let _ = writeln!(
            m,
            "Corpus {} ({} cases, manifest `{}`), editref conform {}, protocol {}, {}-{}, started {}, {:.1} s.\n",
            self.corpus.version,
            self.corpus.cases,
            short_hash(&self.corpus.manifest_sha256),
            self.harness.version,
            self.harness.protocol,
            self.platform.os,
            self.platform.arch,
            self.started,
            self.duration_ms as f64 / 1000.0
        );
        let cert = match &self.certification.highest {
            Some(l) => format!("**Certified: {l}.**"),
            None => "**Not certified.**".to_string(),
        };
        let _ = writeln!(m, "{cert}");
        if let Some(note) = &self.certification.note {
            let _ = writeln!(m, " {note}");
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
        let bad: Vec<&CaseRecord> = self
            .cases
            .iter()
            .filter(|c| !matches!(c.status, Status::Pass | Status::Skip))
            .collect();
        if !bad.is_empty() {
            let _ = writeln!(m, "\n## Cases that did not pass\n");
            m.push_str("| case | level | status | reason |\n|---|---|---|---|\n");
            for c in bad {
                let _ = writeln!(
                    m,
                    "| `{}` | {} | {} | {} |",
                    c.id,
                    c.level.as_deref().unwrap_or("?"),
                    c.status,
                    md_cell(&c.reason)
                );
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

fn short_hash(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}

fn details(c: &CaseRecord) -> String {
    let mut d = c.reason.clone();
    if let Some(s) = c.step {
        let _ = write!(d, "\nstep: {s}");
    }
    if let Some(e) = &c.expected {
        let _ = write!(d, "\nexpected: {e}");
    }
    if let Some(a) = &c.actual {
        let _ = write!(d, "\nactual: {a}");
    }
    if let Some(diff) = &c.diff {
        let _ = write!(d, "\n{diff}");
    }
    for more in &c.more {
        let _ = write!(d, "\nalso: {more}");
    }
    if let Some(e) = &c.stderr {
        let _ = write!(d, "\nstderr:\n{e}");
    }
    d
}

/// Escapes text for XML attributes and content; characters XML 1.0 cannot carry (most C0
/// controls) are written as `\u{…}` text instead.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:04x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
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

/// A time as RFC 3339 UTC with milliseconds (`2025-01-31T12:00:00.000Z`).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// A small report with one case of most statuses.
    pub(crate) fn sample() -> Report {
        let rec = |id: &str, level: &str, status: Status, reason: &str| CaseRecord {
            id: id.into(),
            area: id.split('/').next().unwrap_or("").into(),
            level: Some(level.into()),
            status,
            reason: reason.into(),
            duration_ms: 3,
            step: (status == Status::Fail).then_some(2),
            expected: (status == Status::Fail).then(|| serde_json::json!({"ok": true})),
            actual: None,
            diff: None,
            more: vec![],
            stderr: None,
        };
        let cases = vec![
            rec("edit/a", "core", Status::Pass, ""),
            rec(
                "edit/b<&>",
                "core",
                Status::Fail,
                "a.txt: bytes \"x\u{1}\" | differ # here",
            ),
            rec(
                "eol/c",
                "extended",
                Status::Skip,
                "requires crlf (not declared)",
            ),
            rec(
                "eol/d",
                "extended",
                Status::Xfail,
                "expected failure (fail): x",
            ),
            rec("path/e", "implementation-defined", Status::Fail, "differs"),
        ];
        Report {
            schema_version: SCHEMA_VERSION,
            harness: HarnessInfo {
                name: "editref conform".into(),
                version: "0.1.0".into(),
                protocol: 1,
            },
            corpus: CorpusInfo {
                version: "0.1.0".into(),
                manifest_sha256: "ab".repeat(32),
                origin: "x".into(),
                cases: 5,
            },
            implementation: ImplInfo {
                name: "t".into(),
                version: "1".into(),
                features: vec![],
                command: "builtin".into(),
            },
            platform: Platform::current(),
            started: rfc3339(UNIX_EPOCH),
            duration_ms: 10,
            selection: Selection::default(),
            totals: crate::run::totals(&cases),
            certification: Certification::default(),
            cases,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::sample;
    use super::*;
    use std::time::Duration;

    #[test]
    fn derived_formats() {
        let r = sample();
        let j = r.junit();
        assert!(
            j.contains("<testsuite name=\"edit\" tests=\"2\" failures=\"1\""),
            "{j}"
        );
        assert!(j.contains("name=\"edit/b&lt;&amp;&gt;\""));
        assert!(j.contains("\\u{0001}"));
        assert!(j.contains("<skipped message=\"implementation-defined, differs"));
        assert!(!j.contains('\u{1}'));
        let t = r.tap();
        assert!(t.starts_with("TAP version 14\n1..5\n"));
        assert!(t.contains("ok 1 - edit/a\n"));
        assert!(t.contains("not ok 2 - edit/b<&>\n  ---\n  message: \"a.txt: bytes"));
        assert!(t.contains("ok 3 - eol/c # SKIP requires crlf"));
        assert!(t.contains("not ok 4 - eol/d # TODO"));
        assert!(t.contains("not ok 5 - path/e # TODO implementation-defined"));
        let m = r.summary_md();
        assert!(m.contains("| fail | 1 | 0 | 1 | 2 |"), "{m}");
        assert!(m.contains("\\| differ"));
        let back: Report = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_millis(1_709_210_096_789)),
            "2024-02-29T12:34:56.789Z"
        );
    }
}
