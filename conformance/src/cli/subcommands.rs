//! The subcommands: `manifest`, which writes or checks the corpus manifest, `matrix`, which
//! combines the reports of several implementations into one table, and `rejudge`, which states
//! earlier reports under today's rules.
//!
//! Neither runs a case or talks to an adapter; they work on files a maintainer commits or
//! collects. Keeping them apart from the run command keeps that path free of their options and
//! their messages.

use super::shared::{cases_dir, load_corpus, usage};
use crate::load;
use crate::manifest;
use crate::matrix::{Matrix, Notes};
use crate::report::Report;
use std::path::{Path, PathBuf};

/// `manifest`: writes `manifest.json` beside the corpus, or with `check` compares it with the
/// corpus and exits 1 when it is stale.
pub(super) fn manifest_cmd(corpus: Option<PathBuf>, check: bool) -> u8 {
    let dir = cases_dir(&corpus.unwrap_or_else(|| PathBuf::from("conformance/cases")));
    if !dir.is_dir() {
        return usage(&format!("{} is not a corpus directory", dir.display()));
    }
    let corpus = match load::load_dir(&dir) {
        Ok(c) => c,
        Err(e) => return usage(&format!("cannot read {}: {e}", dir.display())),
    };
    if !corpus.broken.is_empty() {
        for b in &corpus.broken {
            for e in &b.errors {
                eprintln!("{e}");
            }
        }
        eprintln!(
            "editref conform manifest: {} case files have errors",
            corpus.broken.len()
        );
        return 1;
    }
    let Some(base) = corpus.base.clone() else {
        return usage("the corpus directory has no parent to hold manifest.json");
    };
    if corpus.version == "unversioned" {
        return usage(&format!(
            "{} is missing: the manifest records the corpus version",
            base.join("VERSION").display()
        ));
    }
    let path = base.join("manifest.json");
    if check {
        let on_disk = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!(
                    "editref conform manifest: cannot read {}: {e}",
                    path.display()
                );
                return 1;
            }
        };
        let diff = manifest::differences(&on_disk, &corpus);
        if diff.is_empty() {
            say!(
                "{} is up to date ({} cases)",
                path.display(),
                corpus.cases.len()
            );
            0
        } else {
            for d in &diff {
                eprintln!("{d}");
            }
            eprintln!(
                "{} is stale; run `editref conform manifest` and commit it",
                path.display()
            );
            1
        }
    } else {
        match std::fs::write(&path, manifest::render(&corpus)) {
            Ok(()) => {
                say!(
                    "wrote {} ({} cases, corpus {})",
                    path.display(),
                    corpus.cases.len(),
                    corpus.version
                );
                0
            }
            Err(e) => usage(&format!("cannot write {}: {e}", path.display())),
        }
    }
}

/// `matrix`: reads report.json files (and the `bench.json` and `notes.txt` beside each, when
/// there) and writes matrix.md, matrix.html, matrix.svg (the data-class pass rate per area and
/// tool) and readme-section.md into `out`. `not_run` lists
/// implementations that could not be run (`"NAME: reason"`); the README section links the
/// chart and tables by `out` as given, so run it from the directory the README is in.
pub(super) fn matrix_cmd(paths: &[PathBuf], not_run: &[String], out: &Path) -> u8 {
    if paths.is_empty() && not_run.is_empty() {
        return usage("matrix needs at least one report.json (or --not-run entry)");
    }
    let mut reports = Vec::new();
    for p in paths {
        match Report::read(p) {
            Ok(r) => reports.push(r),
            Err(e) => return usage(&e),
        }
    }
    // A benchmark run kept beside a report (`bench.json` in the same folder) gives the
    // matrix its latency rows.
    let bench = paths
        .iter()
        .map(|p| {
            let b = p.parent()?.join("bench.json");
            serde_json::from_str(&std::fs::read_to_string(b).ok()?).ok()
        })
        .collect();
    // A peer's notes kept beside its report (`notes.txt`): bug links and cases not applicable.
    let mut notes = Vec::new();
    for p in paths {
        let file = p.parent().map(|d| d.join("notes.txt"));
        match file.and_then(|f| std::fs::read_to_string(&f).ok().map(|t| (f, t))) {
            None => notes.push(Notes::default()),
            Some((f, text)) => match Notes::parse(&text) {
                Ok(n) => notes.push(n),
                Err(errors) => {
                    for e in errors {
                        eprintln!("editref conform matrix: {}: {e}", f.display());
                    }
                    return 2;
                }
            },
        }
    }
    let m = Matrix::new(&reports)
        .with_not_run(not_run)
        .with_bench(bench)
        .with_notes(notes);
    let base = out.to_string_lossy().trim_end_matches('/').to_string();
    let written = std::fs::create_dir_all(out)
        .and_then(|_| std::fs::write(out.join("matrix.md"), m.markdown()))
        .and_then(|_| std::fs::write(out.join("matrix.html"), m.html()))
        .and_then(|_| std::fs::write(out.join("matrix.svg"), m.svg()))
        .and_then(|_| std::fs::write(out.join("readme-section.md"), m.readme_section(&base)));
    match written {
        Ok(()) => {
            say!(
                "wrote matrix.md, matrix.html, matrix.svg and readme-section.md into {} ({} implementations, {} not run)",
                out.display(),
                reports.len(),
                m.not_run.len()
            );
            0
        }
        Err(e) => usage(&format!("cannot write to {}: {e}", out.display())),
    }
}

/// `rejudge`: each report judged again under the rules of this harness and of `corpus` (see
/// [`crate::rejudge`]) and written back in place, with the formats derived from it that are
/// kept beside it (`summary.md`, `junit.xml`, …); one line per report says how its classes at
/// core moved.
pub(super) fn rejudge_cmd(paths: &[PathBuf], corpus: Option<PathBuf>) -> u8 {
    let corpus = match load_corpus(corpus) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let by = format!("editref conform {}", editref::VERSION);
    for p in paths {
        let report = match Report::read(p) {
            Ok(r) => r,
            Err(e) => return usage(&e),
        };
        let again = crate::rejudge::rejudge(&report, &corpus, &by);
        // The report, and each format derived from it that is kept beside it.
        let dir = p.parent().unwrap_or(Path::new("."));
        let mut files = vec![(p.clone(), "report.json")];
        for f in Report::FILES.into_iter().filter(|f| *f != "report.json") {
            if dir.join(f).is_file() {
                files.push((dir.join(f), f));
            }
        }
        for (path, kind) in files {
            let text = again.render(kind).unwrap_or_default();
            if let Err(e) = std::fs::write(&path, text) {
                return usage(&format!("cannot write {}: {e}", path.display()));
            }
        }
        let rejudged = again.rejudged.as_ref();
        println!(
            "{}: {} — {} cases changed, {} unsettled; {}",
            p.display(),
            again.label(),
            rejudged.map_or(0, |r| r.changed),
            rejudged.map_or(0, |r| r.unsettled.len()),
            moved(&report, &again)
        );
    }
    0
}

/// How each class at core moved: `data 67/72 → 70/72` (held/judged), `capability –→ 40/44`.
fn moved(before: &Report, after: &Report) -> String {
    let cell = |r: &Report, class: crate::case::Class| {
        r.class(class)
            .and_then(|c| c.levels.get("core"))
            .map_or("–".to_string(), |n| {
                format!("{}/{}", n.pass, n.pass + n.fail)
            })
    };
    crate::case::Class::ALL
        .into_iter()
        .map(|c| format!("{c} {} → {}", cell(before, c), cell(after, c)))
        .collect::<Vec<_>>()
        .join(", ")
}
