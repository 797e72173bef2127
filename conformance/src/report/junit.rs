//! JUnit XML, for CI dashboards: one `<testsuite>` per area, one `<testcase>` per case.
//!
//! JUnit knows only pass, failure, error and skipped, so this is where the harness's nine
//! statuses are mapped onto those four, and where text is escaped for XML — including the
//! control characters a case about odd bytes easily puts into a reason. The mapping depends on
//! the status alone, so JUnit's counts add up to the same numbers as the summary's: fail,
//! crash, timeout and xpass are failures, harness_error is an error, skip and xfail are skipped,
//! and pass and differs pass. A `differs` case is a passed test case that says so, in a
//! property (`editref.status` = `differs`) and in its `<system-out>`: dashboards show it green,
//! as certification treats it, and a reader still finds the difference. A failure names the
//! classes that failed in its `type`, `fail: data, contract`, and in the property
//! `editref.classes`. The first suite, `verdict`, holds no test: its properties state the
//! verdict (overall and per class), the surface, and the corpus, manifest, implementation and
//! date of the run.

use super::Report;
use crate::run::{CaseRecord, Status};
use std::collections::BTreeMap;
use std::fmt::Write as _;

impl Report {
    /// JUnit XML: one `<testsuite>` per area, one `<testcase>` per case. fail, crash, timeout
    /// and xpass are `<failure>`s, harness errors `<error>`s, skip and xfail `<skipped>`; pass
    /// and differs pass, a difference marked by a property and `<system-out>`.
    pub fn junit(&self) -> String {
        let mut by_area: BTreeMap<&str, Vec<&CaseRecord>> = BTreeMap::new();
        for c in &self.cases {
            by_area.entry(c.area.as_str()).or_default().push(c);
        }
        let kind = |c: &CaseRecord| -> &'static str {
            match c.status {
                Status::Pass => "pass",
                Status::Differs => "differs",
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
        // The verdict leads: a suite of no tests whose properties state it, per class, and
        // what ran (corpus, manifest, implementation, date).
        x.push_str("  <testsuite name=\"verdict\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n    <properties>\n");
        let mut props = vec![("editref.verdict".to_string(), self.headline())];
        for c in &self.classes {
            let v = c
                .certified
                .highest
                .as_ref()
                .map_or("not certified".to_string(), |l| format!("certified {l}"));
            props.push((format!("editref.class.{}", c.class), v));
        }
        props.extend([
            ("editref.surface".to_string(), self.surface().describe()),
            ("editref.corpus".to_string(), self.corpus.version.clone()),
            (
                "editref.manifest_sha256".to_string(),
                self.corpus.manifest_sha256.clone(),
            ),
            (
                "editref.implementation".to_string(),
                format!(
                    "{} {}",
                    self.implementation.name, self.implementation.version
                ),
            ),
            ("editref.started".to_string(), self.started.clone()),
        ]);
        for (name, value) in props {
            let _ = writeln!(
                x,
                "      <property name=\"{}\" value=\"{}\"/>",
                xml(&name),
                xml(&value)
            );
        }
        x.push_str("    </properties>\n  </testsuite>\n");
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
                    "differs" => {
                        let _ = writeln!(
                            x,
                            ">\n      <properties><property name=\"editref.status\" value=\"differs\"/></properties>\n      <system-out>{}</system-out>\n    </testcase>",
                            xml(&format!(
                                "implementation-defined, differs from the corpus's answer (never a failure): {}",
                                details(c)
                            ))
                        );
                    }
                    "skipped" => {
                        let _ = writeln!(
                            x,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            xml(&message)
                        );
                    }
                    k => {
                        // The classes that failed go into the type (what a dashboard shows
                        // next to the failure) and into a property (what a tool can filter on).
                        let (props, kind) = if c.failed_classes.is_empty() {
                            (String::new(), c.status.to_string())
                        } else {
                            let names: Vec<&str> =
                                c.failed_classes.iter().map(|k| k.as_str()).collect();
                            (
                                format!(
                                    "\n      <properties><property name=\"editref.classes\" value=\"{}\"/></properties>",
                                    names.join(",")
                                ),
                                format!("{}: {}", c.status, names.join(", ")),
                            )
                        };
                        let _ = writeln!(
                            x,
                            ">{props}\n      <{k} message=\"{}\" type=\"{}\">{}</{k}>\n    </testcase>",
                            xml(&message),
                            xml(&kind),
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
}

/// The reason of a case with all its evidence, as the text of a `<failure>` or `<error>`.
fn details(c: &CaseRecord) -> String {
    let mut d = c.reason.clone();
    if let Some(a) = &c.about {
        let _ = write!(
            d,
            "\ncase: {} ({}; {})",
            a.title,
            a.spec.join(", "),
            a.source
        );
    }
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
