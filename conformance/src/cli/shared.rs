//! What every command of the harness shares: where the corpus comes from (`--corpus`, the
//! working tree, the copy built into the binary), how a usage error is reported, and the exit
//! status of a selection that matched nothing.

use crate::load::{self, Corpus};
use std::path::{Path, PathBuf};

/// The exit status of a run (or a `list`, or a `show`) that selected no case: a misspelt
/// `--only` must not look like a run that passed (pytest exits 5 here, cargo-nextest 4).
pub const EXIT_NO_CASES: u8 = 4;

/// The corpus of `--corpus`, else ./conformance/cases when present, else the embedded one.
pub(super) fn load_corpus(corpus: Option<PathBuf>) -> Result<Corpus, String> {
    let dir = match corpus {
        Some(d) => Some(cases_dir(&d)),
        None => {
            let d = PathBuf::from("conformance/cases");
            d.is_dir().then_some(d)
        }
    };
    match dir {
        Some(d) => {
            load::load_dir(&d).map_err(|e| format!("cannot read the corpus {}: {e}", d.display()))
        }
        None => Ok(load::load_embedded()),
    }
}

/// Reports a usage error; returns the exit code for one (2).
pub(super) fn usage(msg: &str) -> u8 {
    eprintln!("editref conform: {msg}");
    2
}

/// `--corpus DIR` accepts the cases directory or the directory above it.
pub(super) fn cases_dir(dir: &Path) -> PathBuf {
    let inner = dir.join("cases");
    if inner.is_dir() && !dir.ends_with("cases") {
        inner
    } else {
        dir.to_path_buf()
    }
}
