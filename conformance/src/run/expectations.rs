//! The expectations file: an implementation's list of known failures, which turns listed
//! failures into `xfail` and listed passes into `xpass`.
//!
//! The list lets an implementation track its gaps without failing every run, while an `xpass`
//! (an error) keeps the list honest once a gap is closed. It only rewrites statuses the runner
//! produced, after the run, so a case is judged the same whether or not it is listed.

use super::{CaseRecord, Status};
use std::collections::BTreeSet;

/// The implementation's list of known failures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    /// Listed case ids.
    pub ids: BTreeSet<String>,
}

impl Expectations {
    /// Parses the file format: one case id per line, `#` starts a comment, blank lines ignored.
    /// Returns the problems (`line N: ...`) when a line is not a case id.
    pub fn parse(text: &str) -> Result<Expectations, Vec<String>> {
        let mut ids = BTreeSet::new();
        let mut errors = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let ok = line.split('/').count() == 2
                && !line.contains(char::is_whitespace)
                && line.split('/').all(|p| !p.is_empty());
            if ok {
                ids.insert(line.to_string());
            } else {
                errors.push(format!(
                    "line {}: '{line}' is not a case id (<area>/<name>)",
                    i + 1
                ));
            }
        }
        if errors.is_empty() {
            Ok(Expectations { ids })
        } else {
            Err(errors)
        }
    }

    /// Turns listed failures into `xfail` and listed passes into `xpass`; skips and harness
    /// errors stay what they are.
    pub fn apply(&self, records: &mut [CaseRecord]) {
        for r in records {
            if !self.ids.contains(&r.id) {
                continue;
            }
            if r.status.is_failure() {
                r.reason = format!("expected failure ({}): {}", r.status, r.reason);
                r.status = Status::Xfail;
            } else if r.status == Status::Pass {
                r.status = Status::Xpass;
                r.reason =
                    "listed in the expectations file but passed: remove it from the list".into();
            }
        }
    }

    /// Listed ids that are not in the corpus (probably typos or retired cases).
    pub fn unknown<'a>(&'a self, known: &BTreeSet<&str>) -> Vec<&'a str> {
        self.ids
            .iter()
            .map(String::as_str)
            .filter(|id| !known.contains(id))
            .collect()
    }
}

/// The statuses a known-failures file lists: the case did not do what it requires (fail,
/// crash, timeout), or it already was a listed failure (xfail).
pub const LISTED: [Status; 4] = [Status::Fail, Status::Crash, Status::Timeout, Status::Xfail];

/// A known-failures file for `records` (as `toml-test -print-skip` writes one): `header` as
/// comment lines, then one id per case whose status is in `LISTED`, with its status, the
/// classes that failed and the reason, cut to one line, as a comment. [`Expectations::parse`]
/// reads it back as exactly those ids.
pub fn known_failures(records: &[CaseRecord], header: &[String]) -> String {
    let mut out = String::new();
    for h in header {
        out.push_str("# ");
        out.push_str(h);
        out.push('\n');
    }
    let listed: Vec<&CaseRecord> = records
        .iter()
        .filter(|r| LISTED.contains(&r.status))
        .collect();
    let width = listed.iter().map(|r| r.id.len()).max().unwrap_or(0);
    for r in listed {
        let status = match r.status {
            // A listed failure stays listed: say what it was.
            Status::Xfail => "xfail".to_string(),
            s => s.to_string(),
        };
        let classes: Vec<&str> = r.failed_classes.iter().map(|c| c.as_str()).collect();
        let why = if classes.is_empty() {
            status
        } else {
            format!("{status} ({})", classes.join(", "))
        };
        let reason: String = r
            .reason
            .replace(['\n', '\r', '#'], " ")
            .chars()
            .take(120)
            .collect();
        out.push_str(&format!("{:<width$}  # {why}: {reason}\n", r.id));
    }
    out
}

/// Applies an expectations list (convenience for callers holding an `Option`).
pub fn apply_expectations(records: &mut [CaseRecord], e: Option<&Expectations>) {
    if let Some(e) = e {
        e.apply(records);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::rec;
    use super::super::{certification, exit_code};
    use super::*;
    use crate::case::Level;

    #[test]
    fn expectations_make_xfail_and_xpass() {
        let e = Expectations::parse(
            "# known\n\nedit/a   # we normalise\nedit/b\nedit/c\nedit/d\nedit/e\n",
        )
        .unwrap();
        let mut rs = vec![
            rec("edit/a", "core", Status::Fail),
            rec("edit/b", "core", Status::Pass),
            rec("edit/c", "core", Status::Crash),
            rec("edit/d", "core", Status::Skip),
            rec("edit/e", "core", Status::Timeout),
            rec("edit/f", "core", Status::Pass),
        ];
        e.apply(&mut rs);
        let st: Vec<Status> = rs.iter().map(|r| r.status).collect();
        assert_eq!(
            st,
            [
                Status::Xfail,
                Status::Xpass,
                Status::Xfail,
                Status::Skip,
                Status::Xfail,
                Status::Pass
            ]
        );
        assert!(rs[0].reason.starts_with("expected failure (fail)"));
        // An xpass fails the run; xfails alone do not.
        assert_eq!(exit_code(&rs), 1);
        assert_eq!(exit_code(&[rs[0].clone(), rs[2].clone(), rs[5].clone()]), 0);
        // ...but an xfail blocks certification.
        let cert = certification(&[rs[0].clone(), rs[5].clone()], |_| true);
        assert_eq!(cert[0], (Level::Core, false));

        let errs = Expectations::parse("edit/a\nnot an id\nx/y/z\n").unwrap_err();
        assert_eq!(errs.len(), 2);
        assert!(errs[0].starts_with("line 2"));
        let known: BTreeSet<&str> = ["edit/a"].into_iter().collect();
        assert_eq!(
            e.unknown(&known),
            vec!["edit/b", "edit/c", "edit/d", "edit/e"]
        );
    }

    #[test]
    fn a_report_becomes_a_known_failures_file_that_reads_back() {
        let mut data = rec("eol/a", "core", Status::Fail);
        data.failed_classes = vec![crate::case::Class::Data];
        data.reason = "a.txt: content differs # at byte 3\nmore".into();
        let rs = vec![
            data,
            rec("edit/b", "core", Status::Pass),
            rec("edit/c", "extended", Status::Crash),
            rec("undo/d", "core", Status::Skip),
            rec("path/e", "extended", Status::Xfail),
            rec("read/f", "implementation-defined", Status::Differs),
        ];
        let text = known_failures(&rs, &["known failures of t 1".to_string()]);
        assert!(text.starts_with("# known failures of t 1\n"), "{text}");
        assert!(
            text.contains("eol/a   # fail (data): a.txt: content differs   at byte 3 more\n"),
            "{text}"
        );
        let back = Expectations::parse(&text).unwrap();
        let ids: Vec<&str> = back.ids.iter().map(String::as_str).collect();
        assert_eq!(ids, ["edit/c", "eol/a", "path/e"]);
    }
}
