//! Judging an earlier report again under today's rules (`editref conform rejudge`), without
//! running the tool again: the verdicts of the committed peer reports move with the rules, and
//! say where the evidence they kept was too short to move them.
//!
//! Each record's problems — the first with its whole evidence, the others by their reason —
//! are judged again one by one: replies by `calls.rs` (capability for a refusal, codes by
//! family, fields only where declared), the final tree by `tree.rs` (damage, or an entry left as
//! it was, which is capability after a refusal and contract after a success). A skip records
//! the features it lacked, so a case that needs a tool not offered counts for nothing. Then the
//! totals, certification and classes of the report are computed afresh, the surface and the
//! verdict line written, and `rejudged` says by which harness, under which corpus's rules, how
//! many verdicts changed and what stayed unsettled. The cases are those of the run; the corpus
//! given here supplies their steps and files, by id.

mod calls;
mod tree;

use crate::case::{Case, Class, Level};
use crate::check::ReadFormat;
use crate::load::Corpus;
use crate::report::{Rejudged, Report};
use crate::run::{self, CaseRecord, Status};
use crate::surface::Surface;
use calls::Call;
use std::collections::BTreeMap;
use tree::{Before, Entry};

/// `report` judged again by `by` (the harness) under the rules of `corpus`.
pub fn rejudge(report: &Report, corpus: &Corpus, by: &str) -> Report {
    let cases: BTreeMap<&str, &Case> = corpus.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let features = &report.implementation.features;
    let read_format =
        ReadFormat::parse(&report.implementation.read_format).unwrap_or(ReadFormat::Tab);
    let mut out = report.clone();
    let mut changed = 0;
    let mut unsettled = Vec::new();
    for rec in &mut out.cases {
        let before = (rec.status, rec.failed_classes.clone());
        let case = cases.get(rec.id.as_str()).copied();
        if let Some(u) = one(rec, case, features, read_format) {
            unsettled.push(format!("{}: {u}", rec.id));
        }
        if (rec.status, rec.failed_classes.clone()) != before {
            changed += 1;
        }
    }
    let sel = &report.selection;
    let max_level = sel.level.as_deref().and_then(Level::parse);
    let complete = |level: Level| {
        sel.only.is_empty()
            && sel.rerun_failed.is_none()
            && report.stopped_early.is_none()
            && max_level.is_none_or(|m| m >= level)
    };
    let cert = run::certification(&out.cases, complete);
    out.certification.core = cert.iter().any(|(l, ok)| *l == Level::Core && *ok);
    out.certification.extended = cert.iter().any(|(l, ok)| *l == Level::Extended && *ok);
    out.certification.highest = run::highest(&cert).map(|l| l.as_str().to_string());
    out.totals = run::totals(&out.cases);
    out.classes = run::class_results(&out.cases, complete);
    out.surface = Some(Surface::of(features));
    out.rejudged = Some(Rejudged {
        by: by.to_string(),
        rules: corpus.version.clone(),
        changed,
        unsettled,
    });
    out.verdict = out.headline();
    out
}

/// One problem of a record: its reason, and for the first the evidence kept in full.
struct Problem {
    reason: String,
    first: bool,
}

/// Judges one record again in place; what stayed unsettled, if anything.
fn one(
    rec: &mut CaseRecord,
    case: Option<&Case>,
    features: &[String],
    read_format: ReadFormat,
) -> Option<String> {
    if rec.status == Status::Skip {
        rec.not_declared = rec.missing_features();
        return None;
    }
    if !matches!(rec.status, Status::Fail | Status::Xfail | Status::Differs)
        || rec.failed_classes.is_empty()
    {
        return None;
    }
    let first_reason = match rec.status {
        Status::Xfail => rec
            .reason
            .split_once("): ")
            .map_or(rec.reason.clone(), |(_, r)| r.to_string()),
        _ => rec.reason.clone(),
    };
    let mut problems = vec![Problem {
        reason: first_reason,
        first: true,
    }];
    problems.extend(rec.more.iter().map(|m| Problem {
        reason: m.clone(),
        first: false,
    }));
    // Replies first: whether the tool refused decides what an untouched file is.
    let mut judged: Vec<(usize, Option<Vec<Class>>)> = Vec::new();
    let mut unsettled = Vec::new();
    let mut notes = Vec::new();
    let mut refused = false;
    let mut tree_problems = Vec::new();
    for (i, p) in problems.iter().enumerate() {
        if calls::step_of(&p.reason).is_none() {
            tree_problems.push(i);
            continue;
        }
        let verdict = match (p.first, case, rec.actual.as_ref()) {
            (true, Some(c), Some(a)) => {
                calls::judge_with_reply(c, &p.reason, a, features, read_format)
            }
            _ => None,
        }
        .unwrap_or_else(|| calls::judge_from_reason(case, &p.reason, features));
        match verdict {
            Call::Fails(classes) => {
                if classes.contains(&Class::Capability) {
                    refused = true;
                    notes.push(format!(
                        "capability: {} — a refusal where the case expects success",
                        p.reason
                    ));
                }
                judged.push((i, Some(classes)));
            }
            Call::Holds(why) => {
                notes.push(format!("holds now: {} — {why}", p.reason));
                judged.push((i, None));
            }
            Call::Unknown(class, why) => {
                notes.push(format!("unsettled, kept as {class}: {}: {why}", p.reason));
                unsettled.push(why);
                judged.push((i, Some(vec![class])));
            }
            Call::Note => judged.push((i, Some(Vec::new()))),
        }
    }
    let before = case.map(Before::of);
    for i in tree_problems {
        let p = &problems[i];
        let entry = match (case, &before) {
            (Some(c), Some(Ok(b))) => {
                let actual = if p.first { rec.actual.as_ref() } else { None };
                tree::judge(c, b, &p.reason, actual)
            }
            (Some(_), Some(Err(e))) => {
                Entry::Unknown(format!("its files cannot be made again: {e}"))
            }
            _ => Entry::Unknown("the case is not in the corpus".into()),
        };
        let classes = match entry {
            Entry::Changed => vec![Class::Data],
            Entry::AsBefore => {
                let class = if refused {
                    Class::Capability
                } else {
                    Class::Contract
                };
                notes.push(format!(
                    "{class}, not data: {} — the entry is as it was before the calls",
                    p.reason
                ));
                vec![class]
            }
            Entry::Unknown(why) => {
                notes.push(format!("unsettled, kept as data: {why}"));
                unsettled.push(why);
                vec![Class::Data]
            }
        };
        judged.push((i, Some(classes)));
    }
    judged.sort_by_key(|(i, _)| *i);
    let kept: Vec<(usize, Vec<Class>)> = judged
        .into_iter()
        .filter_map(|(i, c)| c.map(|c| (i, c)))
        .collect();
    let mut classes: Vec<Class> = kept.iter().flat_map(|(_, c)| c.clone()).collect();
    classes.sort();
    classes.dedup();
    let first_kept = kept.iter().find(|(_, c)| !c.is_empty()).map(|(i, _)| *i);
    let (status_was, classes_was) = (rec.status, rec.failed_classes.clone());
    let was = format!(
        "was {} ({})",
        rec.status,
        rec.failed_classes
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    match first_kept {
        None => {
            // Nothing fails under today's rules.
            rec.status = match rec.status {
                Status::Xfail => Status::Xpass,
                _ => Status::Pass,
            };
            rec.reason = String::new();
            rec.step = None;
            rec.expected = None;
            rec.actual = None;
            rec.diff = None;
            rec.more.clear();
            rec.failed_classes.clear();
        }
        Some(i) => {
            if i != 0 {
                // The first problem holds now: its evidence goes with it.
                rec.reason = problems[i].reason.clone();
                rec.step = calls::step_of(&rec.reason).map(|(n, _, _)| n);
                rec.expected = None;
                rec.actual = None;
                rec.diff = None;
            }
            rec.more = kept
                .iter()
                .filter(|(k, _)| *k != i)
                .map(|(k, _)| problems[*k].reason.clone())
                .collect();
            rec.failed_classes = classes;
        }
    }
    if !notes.is_empty() || (rec.status, &rec.failed_classes) != (status_was, &classes_was) {
        rec.rejudged.push(was);
        rec.rejudged.extend(notes);
    }
    (!unsettled.is_empty()).then(|| unsettled.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests_support::sample;

    fn corpus() -> Corpus {
        let case = |id: &str, tail: &str| {
            let text = format!(
                "id: {id}\ntitle: t\nspec: [X-1]\nlevel: core\nrequires: [read, edit]\nsince: \"0.1.0\"\n{tail}"
            );
            crate::load::parse_case("t", &format!("{id}.yaml"), text.as_bytes()).unwrap()
        };
        let edit = "files:\n  a.txt: {text: \"one\\n\"}\nsteps:\n  - call: {tool: Read, input: {file_path: a.txt}}\n  - call: {tool: Edit, input: {file_path: a.txt, old_string: one, new_string: two}}\nexpect_files:\n  a.txt: {text: \"two\\n\"}\n";
        let path = "files:\n  a.txt: {text: \"x\"}\nsteps:\n  - call: {tool: Read, input: {file_path: /dev/zero}}\n    expect: {error: blocked_path}\n";
        Corpus {
            origin: "t".into(),
            base: None,
            version: "9.9.9".into(),
            cases: vec![
                case("edit/refused", edit),
                case("edit/crlf", edit),
                case("path/zero", path),
            ],
            broken: vec![],
        }
    }

    fn failing(id: &str, reason: &str, more: &[&str], classes: &[Class]) -> CaseRecord {
        let mut r = sample().cases[1].clone();
        r.id = id.into();
        r.area = id.split('/').next().unwrap().into();
        r.reason = reason.into();
        r.more = more.iter().map(|m| m.to_string()).collect();
        r.failed_classes = classes.to_vec();
        r.expected = None;
        r.actual = None;
        r
    }

    #[test]
    fn a_report_is_judged_again_from_the_evidence_it_kept() {
        let mut report = sample();
        report.implementation.features = vec!["read".into(), "edit".into()];
        let refused = failing(
            "edit/refused",
            "step 2 (Edit): expected success, got error encoding",
            &["a.txt: content differs at byte 0 (expected \"two\\n\", got \"one\\n\"; 4 vs 4 bytes)"],
            &[Class::Data, Class::Contract],
        );
        let crlf = failing(
            "edit/crlf",
            "a.txt: content differs at byte 3 (expected \"two\\n\", got \"two\\r\\n\"; 4 vs 5 bytes)",
            &[],
            &[Class::Data],
        );
        let zero = failing(
            "path/zero",
            "step 1 (Read): expected error blocked_path, got error outside_root",
            &[],
            &[Class::Contract],
        );
        let mut skip = report.cases[2].clone();
        skip.reason = "requires undo (not declared)".into();
        report.cases = vec![refused, crlf, zero, skip];
        let again = rejudge(&report, &corpus(), "editref conform test");
        let by_id = |id: &str| again.cases.iter().find(|c| c.id == id).unwrap();
        // A refusal that left the file as it was: capability, not data.
        let r = by_id("edit/refused");
        assert_eq!(r.status, Status::Fail);
        assert_eq!(r.failed_classes, vec![Class::Capability]);
        assert_eq!(r.rejudged[0], "was fail (data, contract)");
        // Damage stays damage.
        assert_eq!(by_id("edit/crlf").failed_classes, vec![Class::Data]);
        // Codes of one family: a pass now, and it says why.
        let z = by_id("path/zero");
        assert_eq!((z.status, z.reason.as_str()), (Status::Pass, ""));
        assert!(
            z.rejudged[1].contains("of one family (path refusal)"),
            "{:?}",
            z.rejudged
        );
        // A skip for a tool not offered counts for nothing.
        assert_eq!(by_id("eol/c").not_declared, ["undo"]);
        assert!(by_id("eol/c").out_of_surface());
        let j = again.rejudged.as_ref().unwrap();
        assert_eq!((j.rules.as_str(), j.changed), ("9.9.9", 2));
        assert!(j.unsettled.is_empty(), "{:?}", j.unsettled);
        assert_eq!(again.verdict, again.headline());
        assert_eq!(again.totals[&Status::Pass], 1);
    }
}
