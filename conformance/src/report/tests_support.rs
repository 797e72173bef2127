//! Test fixtures shared by the report's tests and the matrix's: a small [`Report`] with one
//! case of most statuses.
//!
//! Every derived format, and the matrix built from reports, is checked against this same run,
//! so they are tested on identical input.

use super::{
    rfc3339, Certification, CorpusInfo, HarnessInfo, ImplInfo, Platform, Report, Selection,
    SCHEMA_VERSION,
};
use crate::run::{CaseRecord, Status};
use std::time::UNIX_EPOCH;

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
        failed_classes: match status {
            Status::Fail => vec![crate::case::Class::Data, crate::case::Class::Contract],
            Status::Xfail | Status::Differs => vec![crate::case::Class::Presentation],
            _ => vec![],
        },
        not_declared: vec![],
        tool_not_offered: None,
        rejudged: vec![],
        stderr: None,
        about: (status == Status::Fail).then(|| crate::run::About {
            title: "A <sample> case".into(),
            spec: vec!["EDIT-1".into(), "MATCH-3".into()],
            source: format!("cases/{id}.yaml"),
            files: [("a.txt".to_string(), "text \"x\"".to_string())].into(),
        }),
        rerun: None,
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
        rec(
            "path/e",
            "implementation-defined",
            Status::Differs,
            "step 1 (Read): expected error encoding, got success",
        ),
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
            read_format: "tab".into(),
            label: None,
        },
        verdict: String::new(),
        surface: None,
        rejudged: None,
        platform: Platform::current(),
        started: rfc3339(UNIX_EPOCH),
        duration_ms: 10,
        selection: Selection::default(),
        totals: crate::run::totals(&cases),
        certification: Certification::default(),
        stopped_early: None,
        classes: crate::run::class_results(&cases, |_| true),
        cases,
    }
}
