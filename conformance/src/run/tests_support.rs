//! Test fixtures shared by the run modules' tests: a case record with a given id, level and
//! status, and nothing else.
//!
//! The expectations and the verdicts are both rules over lists of records, and their tests
//! build such lists the same way.

use super::{CaseRecord, Status};

/// A record of `id` at `level` with `status` and a placeholder reason.
pub(super) fn rec(id: &str, level: &str, status: Status) -> CaseRecord {
    CaseRecord {
        id: id.into(),
        area: id.split('/').next().unwrap().into(),
        level: Some(level.into()),
        status,
        reason: "r".into(),
        duration_ms: 0,
        step: None,
        expected: None,
        actual: None,
        diff: None,
        more: vec![],
        stderr: None,
    }
}
