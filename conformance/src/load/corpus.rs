//! Corpus loading: every case file of a `cases/` directory on disk, or of the copy compiled into
//! the binary, loaded into one sorted [`Corpus`] with its version.
//!
//! A file that does not load is kept as a [`BrokenCase`] rather than dropped or made fatal: the
//! run reports it as a harness error under its id, so a typo in one case can neither hide that
//! case nor stop the others. Both sources go through the same per-file path and the same sort,
//! so a run over the embedded corpus and one over the directory it came from agree.

use super::error::LoadError;
use super::parse::{id_from_path, parse_case};
use crate::case::Case;
use std::path::{Path, PathBuf};

/// A case file that could not be loaded: it still has an id (from its path) so the run can
/// report it as `harness_error` instead of silently dropping it.
#[derive(Debug, Clone)]
pub struct BrokenCase {
    /// The id derived from the path (or the path itself when none can be derived).
    pub id: String,
    /// Every problem found.
    pub errors: Vec<LoadError>,
}

/// A loaded corpus: the cases, the ones that failed to load, and the corpus version.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Where it came from: a directory path, or `embedded`.
    pub origin: String,
    /// The directory holding `cases/`, `VERSION` and `manifest.json` (none when embedded).
    pub base: Option<PathBuf>,
    /// The corpus version (`VERSION`), `unversioned` when the file is missing.
    pub version: String,
    /// Valid cases, sorted by id.
    pub cases: Vec<Case>,
    /// Case files with errors, sorted by id.
    pub broken: Vec<BrokenCase>,
}

/// The corpus compiled into the binary (`cases/` of this crate), so that `editref conform` works
/// from any directory.
static EMBEDDED: include_dir::Dir<'static> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/cases");

/// The corpus version compiled in with it.
const EMBEDDED_VERSION: &str = include_str!("../../VERSION");

/// The version of the corpus compiled into the binary, without loading its cases.
pub fn embedded_version() -> &'static str {
    EMBEDDED_VERSION.trim()
}

/// Parses one case file into the corpus: a case, or a broken case under the id its path gives.
fn add(corpus: &mut Corpus, source: String, rel: &str, bytes: &[u8]) {
    match parse_case(&source, rel, bytes) {
        Ok(case) => corpus.cases.push(case),
        Err(errors) => corpus.broken.push(BrokenCase {
            id: id_from_path(rel).unwrap_or_else(|| rel.to_string()),
            errors,
        }),
    }
}

/// Sorts cases and broken cases by id, so every run lists them in the same order.
fn finish(mut corpus: Corpus) -> Corpus {
    corpus.cases.sort_by(|a, b| a.id.cmp(&b.id));
    corpus.broken.sort_by(|a, b| a.id.cmp(&b.id));
    corpus
}

/// Loads every `*.yaml` below `cases_dir` (which is `<base>/cases`).
///
/// I/O errors on the directory itself are returned; a bad case file becomes a [`BrokenCase`].
pub fn load_dir(cases_dir: &Path) -> std::io::Result<Corpus> {
    let base = cases_dir.parent().map(Path::to_path_buf);
    let version = base
        .as_ref()
        .and_then(|b| std::fs::read_to_string(b.join("VERSION")).ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "unversioned".into());
    let mut corpus = Corpus {
        origin: cases_dir.display().to_string(),
        base,
        version,
        cases: Vec::new(),
        broken: Vec::new(),
    };
    let mut files = Vec::new();
    walk(cases_dir, cases_dir, &mut files)?;
    for (rel, path) in files {
        let source = path.display().to_string();
        match std::fs::read(&path) {
            Ok(bytes) => add(&mut corpus, source, &rel, &bytes),
            Err(e) => corpus.broken.push(BrokenCase {
                id: id_from_path(&rel).unwrap_or(rel),
                errors: vec![LoadError {
                    file: source,
                    line: 0,
                    column: 0,
                    field: String::new(),
                    message: format!("cannot read: {e}"),
                }],
            }),
        }
    }
    Ok(finish(corpus))
}

/// Case files below `dir`: every `*.yaml` and `*.yml` (the latter to report it), skipping
/// hidden entries such as `.gitkeep`.
fn walk(top: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        if std::fs::metadata(&path)?.is_dir() {
            walk(top, &path, out)?;
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            let rel = path
                .strip_prefix(top)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, path));
        }
    }
    Ok(())
}

impl Corpus {
    /// The bytes of the case file of `id`, as this corpus holds it (read from its directory,
    /// or from the copy compiled into the binary); `None` when no such file exists. A case file
    /// that does not load still has its bytes, so `editref conform show` can show it.
    pub fn case_file(&self, id: &str) -> Option<Vec<u8>> {
        // Only ids of this corpus: an id naming `../x` must not reach outside it.
        let known = self.cases.iter().any(|c| c.id == id) || self.broken.iter().any(|b| b.id == id);
        if !known {
            return None;
        }
        if self.origin == "embedded" {
            EMBEDDED
                .get_file(format!("{id}.yaml"))
                .map(|f| f.contents().to_vec())
        } else {
            std::fs::read(Path::new(&self.origin).join(format!("{id}.yaml"))).ok()
        }
    }
}

/// Loads the corpus compiled into the binary.
pub fn load_embedded() -> Corpus {
    let version = Some(EMBEDDED_VERSION.trim())
        .filter(|v| !v.is_empty())
        .unwrap_or("unversioned")
        .to_string();
    let mut corpus = Corpus {
        origin: "embedded".into(),
        base: None,
        version,
        cases: Vec::new(),
        broken: Vec::new(),
    };
    let mut files = Vec::new();
    embedded_files(&EMBEDDED, &mut files);
    for file in files {
        let rel = file.path().to_string_lossy().replace('\\', "/");
        let rel = rel.as_str();
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name.starts_with('.') || !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        add(
            &mut corpus,
            format!("embedded:conformance/cases/{rel}"),
            rel,
            file.contents(),
        );
    }
    finish(corpus)
}

/// Every file of the embedded tree, depth first.
fn embedded_files(
    dir: &'static include_dir::Dir<'static>,
    out: &mut Vec<&'static include_dir::File<'static>>,
) {
    for f in dir.files() {
        out.push(f);
    }
    for d in dir.dirs() {
        embedded_files(d, out);
    }
}
