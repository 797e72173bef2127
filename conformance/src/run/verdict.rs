//! Verdicts: what a set of case records adds up to — counts per status, the exit code of the
//! run, and which levels it certifies.
//!
//! These are the rules a user of the harness acts on (CI goes red on the exit code; a claim of
//! conformance rests on certification), so they are written down in one place, as plain
//! functions of the records, apart from how the records were made.

use super::classes::holds;
use super::{CaseRecord, Status};
use crate::case::{Class, Level};
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

/// What `--require` demands: a level, for every class (`core`) or for one (`data:core`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// The class the gate is about; `None` for every class at once (the overall certification).
    pub class: Option<Class>,
    /// The level that must be certified.
    pub level: Level,
}

impl Gate {
    /// Parses `LEVEL` or `CLASS:LEVEL` (`core`, `extended`; `data:core`, …). An unknown class
    /// or level, or `implementation-defined` (which certifies nothing), is an error that names
    /// the choices.
    pub fn parse(s: &str) -> Result<Gate, String> {
        let (class, level) = match s.split_once(':') {
            Some((c, l)) => (Some(c), l),
            None => (None, s),
        };
        let class = match class {
            None => None,
            Some(c) => Some(Class::parse(c).ok_or_else(|| {
                format!(
                    "unknown class '{c}' (the classes are {})",
                    Class::ALL.map(Class::as_str).join(", ")
                )
            })?),
        };
        let level = match Level::parse(level) {
            Some(l @ (Level::Core | Level::Extended)) => l,
            _ => {
                return Err(format!(
                    "unknown level '{level}' (a gate is core or extended, or CLASS:LEVEL such as data:core)"
                ))
            }
        };
        Ok(Gate { class, level })
    }

    /// `core`, `data:core`.
    pub fn as_string(&self) -> String {
        match self.class {
            Some(c) => format!("{c}:{}", self.level),
            None => self.level.to_string(),
        }
    }
}

/// The exit code of a run: 1 when a core case fails, crashes or times out, or anything is an
/// xpass or a harness error; else 0.
pub fn exit_code(records: &[CaseRecord]) -> u8 {
    exit_code_for(records, &[])
}

/// The exit code under gates. Without any, as [`exit_code`]. With `--require` gates, 1 unless
/// each is met by the cases that ran — a level for every class: every case of that level and
/// below passed (a skip or an xfail there fails the gate too, as it blocks certification); a
/// level for one class: every such case holds that class — and, as always, when anything is an
/// xpass or a harness error. A case that needs a tool the implementation does not offer counts
/// for no gate; `differs` never counts.
pub fn exit_code_for(records: &[CaseRecord], gates: &[Gate]) -> u8 {
    u8::from(records.iter().any(|r| fails_gate(r, gates)))
}

/// Whether this one record makes the run exit 1 under the gates (see [`exit_code_for`]); a run
/// with `--fail-fast` stops at the first such record.
pub fn fails_gate(r: &CaseRecord, gates: &[Gate]) -> bool {
    if matches!(r.status, Status::Xpass | Status::HarnessError) {
        return true;
    }
    if gates.is_empty() {
        return r.status.is_failure() && r.level() == Some(Level::Core);
    }
    let counts = |gate: &Gate| r.level().is_some_and(|l| l <= gate.level) && !r.out_of_surface();
    gates.iter().any(|g| {
        counts(g)
            && match g.class {
                None => r.status != Status::Pass,
                Some(c) => holds(r, c) != Some(true),
            }
    })
}

/// For each certifying level (core, extended): whether it is reached for the tool surface the
/// implementation declares. A level is reached when the run covered every case of that level
/// and below (`complete`) and every one that counts ([`CaseRecord::counts_for`]: a case needing a tool not
/// offered does not) passed — no skip for any other feature, no xfail, no failure, no broken
/// case.
pub fn certification(
    records: &[CaseRecord],
    complete: impl Fn(Level) -> bool,
) -> Vec<(Level, bool)> {
    [Level::Core, Level::Extended]
        .into_iter()
        .map(|level| {
            let relevant = records.iter().filter(|r| r.counts_for(level));
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
        let core = Gate::parse("core").unwrap();
        let extended = Gate::parse("extended").unwrap();
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
        assert_eq!(exit_code_for(&skip, &[core]), 1);
        assert_eq!(exit_code_for(&ext_fail, &[core]), 0);
        assert_eq!(exit_code_for(&ext_fail, &[extended]), 1);
        assert_eq!(exit_code_for(&ok, &[extended]), 0);
        let xfail = [rec("a/x", "core", Status::Xfail)];
        assert_eq!(exit_code_for(&xfail, &[]), 0);
        assert_eq!(exit_code_for(&xfail, &[core]), 1);

        assert_eq!(exit_code(&[rec("a/x", "core", Status::Crash)]), 1);
        let differs = [rec("a/z", "implementation-defined", Status::Differs)];
        assert_eq!(exit_code(&differs), 0);
        assert_eq!(exit_code_for(&differs, &[extended]), 0);
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

    /// A skip with the features it lacked.
    fn skipped(id: &str, level: &str, missing: &[&str]) -> CaseRecord {
        let mut r = rec(id, level, Status::Skip);
        r.not_declared = missing.iter().map(|m| m.to_string()).collect();
        r
    }

    #[test]
    fn a_case_needing_a_tool_not_offered_counts_against_no_level() {
        let records = vec![
            rec("edit/x", "core", Status::Pass),
            skipped("apply_patch/y", "core", &["apply_patch"]),
            skipped("multi_edit/z", "core", &["multi_edit", "crlf"]),
        ];
        assert_eq!(
            highest(&certification(&records, |_| true)),
            Some(Level::Extended)
        );
        assert_eq!(exit_code_for(&records, &[Gate::parse("core").unwrap()]), 0);
        // A skip for a behaviour the tool does not declare still counts: no tool gets out of
        // staleness by not declaring it.
        let mut guard = records.clone();
        guard.push(skipped("stale/w", "core", &["stale_detection"]));
        assert_eq!(highest(&certification(&guard, |_| true)), None);
        assert_eq!(exit_code_for(&guard, &[Gate::parse("core").unwrap()]), 1);
        // A report made before the field: the reason names what was missing.
        let mut old = rec("undo/v", "core", Status::Skip);
        old.reason = "requires read, undo (not declared)".into();
        assert!(old.out_of_surface());
        old.reason = "requires crlf (not declared)".into();
        assert!(!old.out_of_surface());
        // Nothing that counts, nothing certified.
        assert_eq!(
            highest(&certification(&records[1..], |_| true)),
            None,
            "only cases out of the surface"
        );
    }

    #[test]
    fn a_gate_takes_a_class_and_a_level() {
        let data = Gate::parse("data:core").unwrap();
        assert_eq!((data.class, data.level), (Some(Class::Data), Level::Core));
        assert_eq!(data.as_string(), "data:core");
        assert_eq!(Gate::parse("extended").unwrap().class, None);
        assert!(Gate::parse("bytes:core")
            .unwrap_err()
            .contains("unknown class 'bytes'"));
        assert!(Gate::parse("data:full")
            .unwrap_err()
            .contains("unknown level 'full'"));
        assert!(Gate::parse("implementation-defined").is_err());
        assert!(Gate::parse("").is_err());
        // A refusal where success was expected: the data gate holds, capability does not.
        let mut refused = rec("edit/x", "core", Status::Fail);
        refused.failed_classes = vec![Class::Capability];
        let records = [rec("edit/y", "core", Status::Pass), refused];
        assert_eq!(exit_code_for(&records, &[data]), 0);
        let capability = Gate::parse("capability:core").unwrap();
        assert_eq!(exit_code_for(&records, &[data, capability]), 1);
        assert_eq!(exit_code_for(&records, &[Gate::parse("core").unwrap()]), 1);
        // A data failure in an extended case fails data:extended only.
        let mut damaged = rec("eol/z", "extended", Status::Fail);
        damaged.failed_classes = vec![Class::Data];
        let records = [rec("edit/y", "core", Status::Pass), damaged];
        assert_eq!(exit_code_for(&records, &[data]), 0);
        assert_eq!(
            exit_code_for(&records, &[Gate::parse("data:extended").unwrap()]),
            1
        );
    }
}
