//! What a run will do before it starts: the expectations file, the cases of an earlier run to
//! rerun, and the selection — checked against the corpus, so a typo is reported before any
//! adapter starts.
//!
//! Selection is where a run can silently do nothing (a misspelt `--only`, a stale expectations
//! list), and a run that checks nothing must not look like a run that passed. So the checks
//! live together here, as plain functions of the arguments and the corpus, and each refusal
//! says how to find the right name.

use crate::case::{Case, Level};
use crate::load::{BrokenCase, Corpus};
use crate::report::Report;
use crate::run::{self, Expectations, Status};
use std::collections::BTreeSet;
use std::path::Path;

/// The statuses `--rerun-failed` runs again: everything that is not a pass, a skip or a
/// difference.
pub(super) const RERUN: [Status; 6] = [
    Status::Fail,
    Status::Crash,
    Status::Timeout,
    Status::Xfail,
    Status::Xpass,
    Status::HarnessError,
];

/// Every id of the corpus, loadable or not.
fn known_ids(corpus: &Corpus) -> BTreeSet<&str> {
    corpus
        .cases
        .iter()
        .map(|c| c.id.as_str())
        .chain(corpus.broken.iter().map(|b| b.id.as_str()))
        .collect()
}

/// Reads the expectations file and checks that every id it lists is in the corpus; the error
/// lists every problem, one per line, prefixed with the file's name.
pub(super) fn expectations(path: &Path, corpus: &Corpus) -> Result<Expectations, Vec<String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![format!("cannot read {}: {e}", path.display())])?;
    let e = Expectations::parse(&text).map_err(|errors| {
        errors
            .into_iter()
            .map(|m| format!("{}: {m}", path.display()))
            .collect::<Vec<_>>()
    })?;
    let unknown: Vec<String> = e
        .unknown(&known_ids(corpus))
        .into_iter()
        .map(|id| {
            format!(
                "{}: {id} is not a case of corpus {} (misspelt, or retired? `editref conform list` shows the ids)",
                path.display(),
                corpus.version
            )
        })
        .collect();
    if unknown.is_empty() {
        Ok(e)
    } else {
        Err(unknown)
    }
}

/// The ids of the cases that did not pass in the report at `path` (see [`RERUN`]), and how
/// many of them the corpus no longer has.
pub(super) fn rerun_ids(path: &Path, corpus: &Corpus) -> Result<(BTreeSet<String>, usize), String> {
    let report = Report::read(path)?;
    let known = known_ids(corpus);
    let failed: BTreeSet<String> = report
        .cases
        .into_iter()
        .filter(|c| RERUN.contains(&c.status))
        .map(|c| c.id)
        .collect();
    let gone = failed
        .iter()
        .filter(|id| !known.contains(id.as_str()))
        .count();
    Ok((failed, gone))
}

/// The cases a run includes: by `--only`, `--level` and, when given, the ids to rerun.
pub(super) struct Selection<'c> {
    /// Loadable cases, in id order.
    pub(super) cases: Vec<&'c Case>,
    /// Case files that do not load (each becomes a harness error), in id order.
    pub(super) broken: Vec<&'c BrokenCase>,
}

impl Selection<'_> {
    /// Whether nothing at all was selected.
    pub(super) fn is_empty(&self) -> bool {
        self.cases.is_empty() && self.broken.is_empty()
    }
}

/// Selects the cases of `corpus`.
pub(super) fn select<'c>(
    corpus: &'c Corpus,
    only: &[String],
    max_level: Option<Level>,
    rerun: Option<&BTreeSet<String>>,
) -> Selection<'c> {
    let wanted = |id: &str| rerun.is_none_or(|ids| ids.contains(id));
    Selection {
        cases: corpus
            .cases
            .iter()
            .filter(|c| run::selected(&c.id, Some(c.level), only, max_level) && wanted(&c.id))
            .collect(),
        broken: corpus
            .broken
            .iter()
            .filter(|b| run::selected(&b.id, None, only, max_level) && wanted(&b.id))
            .collect(),
    }
}

/// Why nothing was selected, naming what selected it and where to look.
pub(super) fn nothing_selected(
    corpus: &Corpus,
    only: &[String],
    max_level: Option<Level>,
    rerun: Option<&Path>,
) -> String {
    let mut by = Vec::new();
    if !only.is_empty() {
        let globs: Vec<String> = only.iter().map(|g| format!("'{g}'")).collect();
        by.push(format!("--only {}", globs.join(" ")));
    }
    if let Some(l) = max_level {
        by.push(format!("--level {l}"));
    }
    if let Some(r) = rerun {
        by.push(format!("--rerun-failed {}", r.display()));
    }
    format!(
        "no case matches {} among the {} cases of corpus {}; `editref conform list` shows the ids \
         (a pattern matches whole ids: 'eol/*' or 'eol', not 'eol/')",
        by.join(" with "),
        corpus.cases.len() + corpus.broken.len(),
        corpus.version
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load;

    fn corpus() -> Corpus {
        load::load_embedded()
    }

    #[test]
    fn unknown_ids_in_the_expectations_are_errors() {
        let c = corpus();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("known.txt");
        std::fs::write(&p, "eol/crlf-single-line-edit\n# gone\neol/no-such-case\n").unwrap();
        let errors = expectations(&p, &c).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("eol/no-such-case is not a case"),
            "{errors:?}"
        );
        std::fs::write(&p, "eol/crlf-single-line-edit\n").unwrap();
        assert_eq!(expectations(&p, &c).unwrap().ids.len(), 1);
        std::fs::write(&p, "not an id\n").unwrap();
        assert!(expectations(&p, &c).unwrap_err()[0].contains("line 1"));
    }

    #[test]
    fn selection_by_glob_level_and_rerun() {
        let c = corpus();
        assert!(select(&c, &["nosuch/*".into()], None, None).is_empty());
        let eol = select(&c, &["eol".into()], None, None);
        assert!(!eol.is_empty() && eol.cases.iter().all(|c| c.id.starts_with("eol/")));
        let core = select(&c, &["eol".into()], Some(Level::Core), None);
        assert!(core.cases.len() < eol.cases.len());
        let ids: BTreeSet<String> = ["eol/crlf-single-line-edit".to_string()].into();
        assert_eq!(select(&c, &[], None, Some(&ids)).cases.len(), 1);
        let m = nothing_selected(&c, &["nosuch/*".into()], Some(Level::Core), None);
        assert!(
            m.starts_with("no case matches --only 'nosuch/*' with --level core among the "),
            "{m}"
        );
    }
}
