//! Statuses and case records: the outcome of one case and everything a report keeps about it.
//!
//! These are the values every other part of a run passes around — the runner makes them, the
//! expectations rewrite them, the verdicts count them, the reports serialise them — so they are
//! defined once, apart from all of those, with the serde shape `report.json` uses.

use crate::case::{Case, Class, Content, FileForm, Level};
use crate::check::Failure;
use crate::load::BrokenCase;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
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
    /// An implementation-defined case whose answer is not the corpus's: reported, never a
    /// failure (the question is one on which reasonable tools differ).
    Differs,
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
    pub const ALL: [Status; 9] = [
        Status::Pass,
        Status::Fail,
        Status::Skip,
        Status::Differs,
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
            Status::Differs => "differs",
            Status::Xfail => "xfail",
            Status::Xpass => "xpass",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::HarnessError => "harness_error",
        }
    }

    /// Whether the implementation did not do what the case requires (fail, crash, timeout).
    /// `differs` is not a failure: the case asks a question the spec leaves open.
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Crash | Status::Timeout)
    }

    /// Whether a report should show the case as one to look at: anything but pass and skip.
    pub fn needs_attention(self) -> bool {
        !matches!(self, Status::Pass | Status::Skip)
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
    /// Further problems found after the first one: the steps go on after a reply that does
    /// not hold, and the final-tree checks report every problem.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<String>,
    /// The classes of the checks that failed, data first (see [`crate::class`]): whether the
    /// case lost data, broke a caller's contract, or only showed text otherwise. Empty for a
    /// case that passed, did not run to a verdict (skip, crash, timeout, harness error), or was
    /// recorded by a harness older than classes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_classes: Vec<Class>,
    /// For a skip: the features the case requires and the implementation did not declare. A
    /// skip for a tool not offered (see [`crate::surface`]) does not count against any level;
    /// a skip for any other feature does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_declared: Vec<String>,
    /// The tool the implementation declared but answered it does not have ("unknown tool"): a
    /// harness error, and no verdict for the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_not_offered: Option<String>,
    /// What re-judging an earlier report under newer rules changed in this record, one line
    /// each (see [`crate::rejudge`]); empty for a record judged when it ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejudged: Vec<String>,
    /// The adapter's stderr during the case, when captured and not empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// What the case is about, so a report that shows a case that did not pass needs no
    /// checkout of the corpus to explain it (only on such records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<About>,
    /// Why the case was run a second time: its first attempt timed out (this is that
    /// attempt's reason), so it ran again alone, with every limit
    /// [`RERUN_PATIENCE`](super::RERUN_PATIENCE) times longer, and the status and evidence are
    /// the second attempt's. A tool slowed down by a busy machine is thus judged on its answer
    /// and only a tool that does not answer either time is `timeout`; reports list such cases
    /// apart, since a tool that needs the second chance is slow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun: Option<String>,
}

/// The parts of a case a reader needs next to a result that is not a pass: its title, the
/// SPEC.md rules it checks and the files it starts from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct About {
    /// The case's title.
    pub title: String,
    /// The SPEC.md rule IDs it checks.
    pub spec: Vec<String>,
    /// The case file, relative to the corpus (`cases/<id>.yaml`).
    pub source: String,
    /// The files of the sandbox before the first step: path → a short description of the
    /// entry (its text, its bytes in hex, a link target, …).
    pub files: BTreeMap<String, String>,
}

impl About {
    /// The details of `case`.
    pub fn of(case: &Case) -> About {
        About {
            title: case.title.clone(),
            spec: case.spec.clone(),
            source: format!("cases/{}.yaml", case.id),
            files: case
                .files
                .iter()
                .map(|(path, form)| (path.clone(), describe(form)))
                .collect(),
        }
    }
}

/// Longest shown part of a file's content, in characters (text) or bytes (hex).
const SHOWN: usize = 160;

/// One line saying what a file form is: `text "…"` (JSON-escaped), `bytes 6f 6b …`, a link,
/// a directory or a FIFO, with its size when cut short and its mode when given.
fn describe(form: &FileForm) -> String {
    let mut d = match &form.content {
        Content::Bytes(b) => match std::str::from_utf8(b) {
            Ok(t) => {
                let shown: String = t.chars().take(SHOWN).collect();
                let json = serde_json::to_string(&shown).unwrap_or_default();
                if shown.len() < t.len() {
                    format!("text {json}… ({} bytes)", b.len())
                } else {
                    format!("text {json}")
                }
            }
            Err(_) => {
                let hex: Vec<String> = b
                    .iter()
                    .take(SHOWN / 2)
                    .map(|x| format!("{x:02x}"))
                    .collect();
                if b.len() > SHOWN / 2 {
                    format!("bytes {} … ({} bytes)", hex.join(" "), b.len())
                } else {
                    format!("bytes {}", hex.join(" "))
                }
            }
        },
        Content::Symlink(t) => format!("symlink to {t}"),
        Content::Hardlink(t) => format!("hard link to {t}"),
        Content::Dir => "directory".into(),
        Content::Fifo => "FIFO (named pipe)".into(),
    };
    if let Some(m) = form.mode {
        d.push_str(&format!(", mode {m:04o}"));
    }
    d
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
            failed_classes: Vec::new(),
            not_declared: Vec::new(),
            tool_not_offered: None,
            rejudged: Vec::new(),
            stderr: None,
            about: None,
            rerun: None,
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
            failed_classes: Vec::new(),
            not_declared: Vec::new(),
            tool_not_offered: None,
            rejudged: Vec::new(),
            stderr: None,
            about: None,
            rerun: None,
        }
    }

    /// The level, parsed.
    pub fn level(&self) -> Option<Level> {
        self.level.as_deref().and_then(Level::parse)
    }

    /// For a skip, the features the implementation did not declare: [`Self::not_declared`], or
    /// for a record made before the field, what its reason names (`requires a, b (not
    /// declared)`). Empty for any other status.
    pub fn missing_features(&self) -> Vec<String> {
        if self.status != Status::Skip {
            return Vec::new();
        }
        if !self.not_declared.is_empty() {
            return self.not_declared.clone();
        }
        self.reason
            .strip_prefix("requires ")
            .and_then(|r| r.strip_suffix(" (not declared)"))
            .map(|list| list.split(", ").map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// Whether the record counts toward the certification of `level`: a case of that level or
    /// below (or one that could not be loaded) that does not need a tool the implementation
    /// does not offer.
    pub fn counts_for(&self, level: Level) -> bool {
        self.level().is_none_or(|l| l <= level) && !self.out_of_surface()
    }

    /// Whether the case needs a tool the implementation does not offer: a skip for a surface
    /// feature ([`crate::surface::is_surface`]). Such a case counts against no level.
    pub fn out_of_surface(&self) -> bool {
        self.missing_features()
            .iter()
            .any(|f| crate::surface::is_surface(f))
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
