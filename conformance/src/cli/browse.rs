//! Finding one's way in the corpus with only the installed binary: `list` prints the cases
//! (id, level, rules, title), `show` prints one case file as the corpus holds it.
//!
//! A failing run names case ids; these two let a user read what a case does without a checkout
//! of the repository. Both read the same corpus a run would (`--corpus`, else
//! ./conformance/cases when present, else the copy built into the binary), and a selection
//! that matches nothing is the same error, with the same exit status, as in a run.

use super::plan;
use super::shared::{load_corpus, usage, EXIT_NO_CASES};
use crate::case::Level;
use std::io::Write as _;
use std::path::PathBuf;

/// `list`: one line per selected case, columns aligned: id, level, rules, title.
pub(super) fn list_cmd(only: &[String], level: Option<Level>, corpus: Option<PathBuf>) -> u8 {
    let corpus = match load_corpus(corpus) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let selection = plan::select(&corpus, only, level, None);
    if selection.is_empty() {
        eprintln!(
            "editref conform list: {}",
            plan::nothing_selected(&corpus, only, level, None)
        );
        return EXIT_NO_CASES;
    }
    let rows: Vec<[String; 4]> = selection
        .cases
        .iter()
        .map(|c| {
            [
                c.id.clone(),
                c.level.to_string(),
                c.spec.join(","),
                c.title.clone(),
            ]
        })
        .chain(selection.broken.iter().map(|b| {
            [
                b.id.clone(),
                "?".into(),
                String::new(),
                "(the case file does not load: `editref conform show` prints it)".into(),
            ]
        }))
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut out = std::io::stdout().lock();
    for r in &rows {
        let line = format!("{:<w0$}  {:<w1$}  {:<w2$}  {}", r[0], r[1], r[2], r[3]);
        // A closed pipe (`| head`) ends the listing quietly.
        if writeln!(out, "{}", line.trim_end()).is_err() {
            return 0;
        }
    }
    0
}

/// `show`: the case file of `id`, byte for byte.
pub(super) fn show_cmd(id: &str, corpus: Option<PathBuf>) -> u8 {
    let corpus = match load_corpus(corpus) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let id = id.trim_end_matches(".yaml").trim_start_matches("cases/");
    match corpus.case_file(id) {
        Some(bytes) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(&bytes).and_then(|_| out.flush());
            0
        }
        None => {
            let near: Vec<&str> = corpus
                .cases
                .iter()
                .map(|c| c.id.as_str())
                .filter(|c| {
                    let name = id.rsplit('/').next().unwrap_or(id);
                    !name.is_empty() && c.contains(name)
                })
                .take(5)
                .collect();
            let hint = if near.is_empty() {
                "`editref conform list` shows the ids".to_string()
            } else {
                format!("did you mean {}?", near.join(", "))
            };
            eprintln!(
                "editref conform show: no case {id} in corpus {}; {hint}",
                corpus.version
            );
            EXIT_NO_CASES
        }
    }
}
