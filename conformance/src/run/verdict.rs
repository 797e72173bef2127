//! Verdicts: what a set of case records adds up to — counts per status, the exit code of the
//! run, and which levels it certifies.
//!
//! These are the rules a user of the harness acts on (CI goes red on the exit code; a claim of
//! conformance rests on certification), so they are written down in one place, as plain
//! functions of the records, apart from how the records were made.

use super::{CaseRecord, Status};
use crate::case::Level;
use std::collections::BTreeMap;

/// Counts per status.
pub fn totals(records: &[CaseRecord]) -> BTreeMap<Status, usize> {
    let mut t = BTreeMap::new();
    for s in Status::ALL {
        t.insert(s, 0);
    }
    for r in records {
        *t.entry(r.status).or_insert(0) += 1;
    }
    t
}

/// The exit code of a run: 1 when a core case fails, crashes or times out, or anything is an
/// xpass or a harness error; else 0.
pub fn exit_code(records: &[CaseRecord]) -> u8 {
    exit_code_for(records, None)
}

/// The exit code under a gate. Without one (`require: None`), as [`exit_code`]. With
/// `--require LEVEL`, 1 unless every case of that level and below that ran passed — a skip or
/// an xfail there fails the gate too, as it blocks certification — and, as always, when
/// anything is an xpass or a harness error. `differs` never counts.
pub fn exit_code_for(records: &[CaseRecord], require: Option<Level>) -> u8 {
    u8::from(records.iter().any(|r| fails_gate(r, require)))
}

/// Whether this one record makes the run exit 1 under the gate (see [`exit_code_for`]); a
/// run with `--fail-fast` stops at the first such record.
pub fn fails_gate(r: &CaseRecord, require: Option<Level>) -> bool {
    if matches!(r.status, Status::Xpass | Status::HarnessError) {
        return true;
    }
    match require {
        None => r.status.is_failure() && r.level() == Some(Level::Core),
        Some(gate) => r.level().is_some_and(|l| l <= gate) && r.status != Status::Pass,
    }
}

/// For each certifying level (core, extended): whether it is reached. A level is reached when
/// the run covered every case of that level and below (`complete`) and all of them passed — no
/// skip, no xfail, no failure, no broken case.
pub fn certification(
    records: &[CaseRecord],
    complete: impl Fn(Level) -> bool,
) -> Vec<(Level, bool)> {
    [Level::Core, Level::Extended]
        .into_iter()
        .map(|level| {
            let relevant = records
                .iter()
                .filter(|r| r.level().is_none_or(|l| l <= level));
            let all_pass = relevant.clone().all(|r| r.status == Status::Pass);
            (level, complete(level) && all_pass && relevant.count() > 0)
        })
        .collect()
}

/// The highest certified level, if any (levels build on each other).
pub fn highest(cert: &[(Level, bool)]) -> Option<Level> {
    let mut best = None;
    for (l, ok) in cert {
        if *ok {
            best = Some(*l);
        } else {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::rec;
    use super::*;

    #[test]
    fn exit_codes_and_certification() {
        let ok = vec![
            rec("a/x", "core", Status::Pass),
            rec("a/y", "extended", Status::Pass),
        ];
        assert_eq!(exit_code(&ok), 0);
        assert_eq!(
            highest(&certification(&ok, |_| true)),
            Some(Level::Extended)
        );
        assert_eq!(
            highest(&certification(&ok, |l| l == Level::Core)),
            Some(Level::Core)
        );

        let ext_fail = vec![
            rec("a/x", "core", Status::Pass),
            rec("a/y", "extended", Status::Fail),
        ];
        assert_eq!(exit_code(&ext_fail), 0, "only core failures fail the run");
        assert_eq!(
            highest(&certification(&ext_fail, |_| true)),
            Some(Level::Core)
        );

        let idef = vec![
            rec("a/x", "core", Status::Pass),
            rec("a/z", "implementation-defined", Status::Fail),
        ];
        assert_eq!(exit_code(&idef), 0);
        assert_eq!(
            highest(&certification(&idef, |_| true)),
            Some(Level::Extended)
        );

        let skip = vec![rec("a/x", "core", Status::Skip)];
        assert_eq!(exit_code(&skip), 0);
        assert_eq!(highest(&certification(&skip, |_| true)), None);
        // --require: the gate is certification of that level over the cases that ran.
        assert_eq!(exit_code_for(&skip, Some(Level::Core)), 1);
        assert_eq!(exit_code_for(&ext_fail, Some(Level::Core)), 0);
        assert_eq!(exit_code_for(&ext_fail, Some(Level::Extended)), 1);
        assert_eq!(exit_code_for(&ok, Some(Level::Extended)), 0);
        let xfail = [rec("a/x", "core", Status::Xfail)];
        assert_eq!(exit_code_for(&xfail, None), 0);
        assert_eq!(exit_code_for(&xfail, Some(Level::Core)), 1);

        assert_eq!(exit_code(&[rec("a/x", "core", Status::Crash)]), 1);
        let differs = [rec("a/z", "implementation-defined", Status::Differs)];
        assert_eq!(exit_code(&differs), 0);
        assert_eq!(exit_code_for(&differs, Some(Level::Extended)), 0);
        assert_eq!(
            highest(&certification(&[ok[0].clone(), differs[0].clone()], |_| {
                true
            })),
            Some(Level::Extended),
            "a difference never blocks certification"
        );
        assert_eq!(
            exit_code(&[rec("a/x", "extended", Status::HarnessError)]),
            1
        );
    }
}
