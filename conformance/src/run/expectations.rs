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
}
