//! Statuses and case records: the outcome of one case and everything a report keeps about it.
//!
//! These are the values every other part of a run passes around — the runner makes them, the
//! expectations rewrite them, the verdicts count them, the reports serialise them — so they are
//! defined once, apart from all of those, with the serde shape `report.json` uses.

use crate::case::{Case, Level};
use crate::check::Failure;
use crate::load::BrokenCase;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The outcome of one case (conformance spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every expectation held.
    Pass,
    /// A reply or the final tree differed from the expectation.
    Fail,
    /// A required feature was not declared.
    Skip,
    /// Failed, and listed in the expectations file.
    Xfail,
    /// Listed in the expectations file, but passed (an error, so the list stays honest).
    Xpass,
    /// The adapter exited, wrote garbage, or answered out of turn.
    Crash,
    /// No reply within the per-call timeout.
    Timeout,
    /// The harness could not run the case (malformed case, platform limits).
    HarnessError,
}

impl Status {
    /// Every status, in report order.
    pub const ALL: [Status; 8] = [
        Status::Pass,
        Status::Fail,
        Status::Skip,
        Status::Xfail,
        Status::Xpass,
        Status::Crash,
        Status::Timeout,
        Status::HarnessError,
    ];

    /// The spelling used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Xfail => "xfail",
            Status::Xpass => "xpass",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::HarnessError => "harness_error",
        }
    }

    /// Whether the implementation did not do what the case requires (fail, crash, timeout).
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Crash | Status::Timeout)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The record of one case in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRecord {
    /// Case id.
    pub id: String,
    /// Area (the id's first part).
    pub area: String,
    /// Level; `None` for a case file that could not be loaded.
    #[serde(default)]
    pub level: Option<String>,
    /// Outcome.
    pub status: Status,
    /// One line: why it is not a pass (empty for a pass).
    #[serde(default)]
    pub reason: String,
    /// Wall time.
    #[serde(default)]
    pub duration_ms: u64,
    /// The 1-based step where it went wrong, when it was a step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// What the case required there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// What happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// A short diff of expected and actual bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Further problems found after the first one (final-tree checks report them all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<String>,
    /// The adapter's stderr during the case, when captured and not empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
}

impl CaseRecord {
    /// A record of `case` with this status and reason, and nothing else yet.
    pub(super) fn new(case: &Case, status: Status, reason: impl Into<String>) -> CaseRecord {
        CaseRecord {
            id: case.id.clone(),
            area: case.area.clone(),
            level: Some(case.level.as_str().to_string()),
            status,
            reason: reason.into(),
            duration_ms: 0,
            step: None,
            expected: None,
            actual: None,
            diff: None,
            more: Vec::new(),
            stderr: None,
        }
    }

    /// The record of a case file that could not be loaded.
    pub fn broken(b: &BrokenCase) -> CaseRecord {
        CaseRecord {
            id: b.id.clone(),
            area: b.id.split('/').next().unwrap_or_default().to_string(),
            level: None,
            status: Status::HarnessError,
            reason: match b.errors.len() {
                0 => "malformed case".into(),
                1 => format!("malformed case: {}", b.errors[0]),
                n => format!(
                    "malformed case: {} (and {} more problems)",
                    b.errors[0],
                    n - 1
                ),
            },
            duration_ms: 0,
            step: None,
            expected: None,
            actual: None,
            diff: None,
            more: b.errors.iter().skip(1).map(|e| e.to_string()).collect(),
            stderr: None,
        }
    }

    /// The level, parsed.
    pub fn level(&self) -> Option<Level> {
        self.level.as_deref().and_then(Level::parse)
    }

    /// The record with the evidence of `f`, at `step` when the failure is a step's.
    pub(super) fn failed(mut self, step: Option<usize>, f: Failure) -> CaseRecord {
        self.step = step;
        self.reason = f.reason;
        self.expected = f.expected;
        self.actual = f.actual;
        self.diff = f.diff;
        self
    }
}
