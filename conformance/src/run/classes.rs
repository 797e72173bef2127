//! Results per failure class: for data, capability, contract and presentation apart, how many
//! cases held at each level and which levels are certified — so "not certified" can say whether
//! a tool loses data, refuses what it should do, or only numbers Read's lines its own way.
//!
//! A case *holds* a class when it ran to a verdict and no check of that class failed. A case
//! that did not run to a verdict (skip, crash, timeout, harness error) holds no class and is
//! counted apart, as is a failure recorded by a harness older than classes (its classes are
//! unknown). A case that needs a tool the implementation does not offer counts for no class
//! (see [`crate::surface`]). The status of a case is not changed by any of this: a fail is a
//! fail.

use super::{CaseRecord, Status};
use crate::case::{Class, Level};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the cases of one level did for one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ClassCounts {
    /// Cases that ran to a verdict with no failing check of the class.
    pub pass: usize,
    /// Cases with a failing check of the class.
    pub fail: usize,
    /// Cases without a verdict on the class: skipped for a feature other than a tool,
    /// crashed, timed out, broken, or failed with classes unknown.
    pub unjudged: usize,
    /// Cases that need a tool the implementation does not offer: no verdict, and none needed.
    #[serde(default)]
    pub not_offered: usize,
}

/// Certification of one class, as for statuses: every case of the level and below holds it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ClassCertification {
    /// Every core case holds the class.
    pub core: bool,
    /// Every core and extended case holds the class.
    pub extended: bool,
    /// The highest level reached for the class.
    pub highest: Option<String>,
}

/// One class's results in a run (an entry of `report.json`'s `classes`, data first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassResult {
    /// The class.
    pub class: Class,
    /// Counts per level (`core`, `extended`, `implementation-defined`).
    pub levels: BTreeMap<String, ClassCounts>,
    /// Which levels the run certifies for this class.
    pub certified: ClassCertification,
}

/// Whether `rec` holds `class`: `Some(true)` held, `Some(false)` a check of it failed, `None`
/// no verdict (see the module documentation).
pub fn holds(rec: &CaseRecord, class: Class) -> Option<bool> {
    match rec.status {
        Status::Pass | Status::Xpass => Some(true),
        Status::Fail | Status::Xfail | Status::Differs if !rec.failed_classes.is_empty() => {
            Some(!rec.failed_classes.contains(&class))
        }
        _ => None,
    }
}

/// The results of every class, data first. `complete(level)` says whether the run covered every
/// case of that level and below, as for [`certification`](super::certification).
pub fn class_results(records: &[CaseRecord], complete: impl Fn(Level) -> bool) -> Vec<ClassResult> {
    Class::ALL
        .into_iter()
        .map(|class| {
            let mut levels = BTreeMap::new();
            for level in Level::ALL {
                let mut counts = ClassCounts::default();
                for r in records.iter().filter(|r| r.level() == Some(level)) {
                    if r.out_of_surface() {
                        counts.not_offered += 1;
                        continue;
                    }
                    match holds(r, class) {
                        Some(true) => counts.pass += 1,
                        Some(false) => counts.fail += 1,
                        None => counts.unjudged += 1,
                    }
                }
                levels.insert(level.as_str().to_string(), counts);
            }
            let reached = |level: Level| {
                let mut relevant = records.iter().filter(|r| r.counts_for(level)).peekable();
                complete(level)
                    && relevant.peek().is_some()
                    && relevant.all(|r| holds(r, class) == Some(true))
            };
            let (core, extended) = (reached(Level::Core), reached(Level::Extended));
            let highest = match (core, extended) {
                (true, true) => Some(Level::Extended),
                (true, false) => Some(Level::Core),
                _ => None,
            };
            ClassResult {
                class,
                levels,
                certified: ClassCertification {
                    core,
                    extended,
                    highest: highest.map(|l| l.as_str().to_string()),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::rec;
    use super::*;

    fn failing(id: &str, level: &str, classes: &[Class]) -> CaseRecord {
        let mut r = rec(id, level, Status::Fail);
        r.failed_classes = classes.to_vec();
        r
    }

    #[test]
    fn classes_are_certified_apart() {
        let records = vec![
            rec("a/pass", "core", Status::Pass),
            failing("a/shown", "core", &[Class::Presentation]),
            failing("a/code", "extended", &[Class::Contract]),
            rec("a/skip", "implementation-defined", Status::Skip),
        ];
        let r = class_results(&records, |_| true);
        assert_eq!(
            r.iter().map(|c| c.class).collect::<Vec<_>>(),
            Class::ALL.to_vec()
        );
        let (data, contract, shown) = (&r[0], &r[2], &r[3]);
        assert_eq!(r[1].class, Class::Capability);
        assert_eq!(r[1].certified.highest.as_deref(), Some("extended"));
        assert_eq!(data.certified.highest.as_deref(), Some("extended"));
        assert_eq!(contract.certified.highest.as_deref(), Some("core"));
        assert_eq!(shown.certified.highest, None);
        assert_eq!(
            shown.levels["core"],
            ClassCounts {
                pass: 1,
                fail: 1,
                unjudged: 0,
                not_offered: 0
            }
        );
        assert_eq!(data.levels["implementation-defined"].unjudged, 1);
        // A crash says nothing about any class, so it blocks every one.
        let crash = [rec("a/x", "core", Status::Crash)];
        assert!(class_results(&crash, |_| true)
            .iter()
            .all(|c| !c.certified.core));
        // A failure recorded without classes (an older report) is not judged.
        let old = [rec("a/x", "core", Status::Fail)];
        assert_eq!(holds(&old[0], Class::Data), None);
        // A partial run certifies nothing.
        assert!(!class_results(&records[..1], |_| false)[0].certified.core);
    }
}
