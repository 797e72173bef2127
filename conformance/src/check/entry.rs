//! Judging one entry of the final tree: against its `expect_files` entry, or against what the
//! harness last knew it to be.
//!
//! An entry can be checked two ways — by what the case expects of it, or by "nothing may have
//! changed it" — and both end in the same comparisons of kinds, bytes, link targets, inodes and
//! modes. Keeping them together keeps those comparisons consistent; deciding which entries get
//! which check is the tree walk's job.

use super::evidence::{actual_json, bytes_failure, bytes_json, kind, known_json};
use super::Failure;
use crate::case::{Content, ExpectFile};
use crate::class::Class;
use crate::sandbox::{self, Actual, Known, Sandbox};
use serde_json::{json, Value};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Compares an entry with what the harness last knew of it.
pub(super) fn compare_known(path: &str, known: &Known, actual: &Actual) -> Option<Failure> {
    let problem = |what: String| Failure {
        reason: format!("{path}: {what}"),
        expected: Some(known_json(known)),
        actual: Some(actual_json(actual)),
        diff: None,
        classes: vec![Class::Data],
        untouched: false,
    };
    match (known, actual) {
        (
            Known::File { bytes, mode },
            Actual::File {
                bytes: got,
                mode: got_mode,
            },
        ) => {
            if bytes != got {
                return Some(bytes_failure(
                    path,
                    "changed although the case did not expect it to",
                    bytes,
                    got,
                ));
            }
            match mode {
                Some(m) if m & 0o7777 != *got_mode => Some(problem(format!(
                    "mode changed from {m:04o} to {got_mode:04o}"
                ))),
                _ => None,
            }
        }
        (Known::Symlink(t), Actual::Symlink(got)) if t == got => None,
        (Known::Symlink(t), Actual::Symlink(got)) => Some(problem(format!(
            "symlink now points to {} instead of {}",
            got.display(),
            t.display()
        ))),
        (Known::Dir(mode), Actual::Dir(got)) => match mode {
            Some(m) if m & 0o7777 != *got => {
                Some(problem(format!("mode changed from {m:04o} to {got:04o}")))
            }
            _ => None,
        },
        (Known::Fifo, Actual::Fifo) | (Known::Absent, Actual::Absent) => None,
        (Known::Absent, a) => Some(problem(format!(
            "was removed by the case but is now {}",
            kind(a)
        ))),
        (k, Actual::Absent) => Some(problem(format!(
            "{} was removed although the case did not expect it to",
            match k {
                Known::Dir(_) => "the directory",
                Known::Symlink(_) => "the symlink",
                _ => "the file",
            }
        ))),
        (k, a) => Some(problem(format!(
            "was {} and is now {}",
            match k {
                Known::File { .. } => "a regular file",
                Known::Symlink(_) => "a symlink",
                Known::Dir(_) => "a directory",
                Known::Fifo => "a FIFO",
                Known::Absent => "absent",
            },
            kind(a)
        ))),
    }
}

/// Whether the entry at `key` is exactly as the harness last knew it — its kind, bytes, link
/// target and the mode the harness set — and, for a symlink, the file it leads to as well when
/// the harness knows that one: the calls of the case left it as it was.
pub(super) fn as_before(sb: &Sandbox, key: &Path) -> bool {
    let known = |k: &Path| sb.known().get(k).cloned().unwrap_or(Known::Absent);
    let here = sb.actual(key);
    if compare_known("", &known(key), &here).is_some() {
        return false;
    }
    if !matches!(here, Actual::Symlink(_)) {
        return true;
    }
    let root = fs::canonicalize(sb.root()).unwrap_or_else(|_| sb.root().to_path_buf());
    match fs::canonicalize(sb.root().join(key))
        .ok()
        .and_then(|t| t.strip_prefix(&root).ok().map(Path::to_path_buf))
    {
        Some(target) if sb.known().contains_key(&target) => {
            compare_known("", &known(&target), &sb.actual(&target)).is_none()
        }
        _ => true,
    }
}

/// Checks one `expect_files` entry.
pub(super) fn check_expect_file(
    sb: &Sandbox,
    path: &str,
    key: &Path,
    e: &ExpectFile,
) -> Option<Failure> {
    let abs = sb.root().join(key);
    let here = sandbox::actual_at(&abs);
    let problem = |what: String, expected: Value| Failure {
        reason: format!("{path}: {what}"),
        expected: Some(expected),
        actual: Some(actual_json(&here)),
        diff: None,
        classes: vec![Class::Data],
        untouched: false,
    };
    if e.absent {
        return (here != Actual::Absent).then(|| {
            problem(
                format!("must be absent but is {}", kind(&here)),
                json!({"absent": true}),
            )
        });
    }
    if e.unchanged {
        let known = sb.known().get(key).cloned().unwrap_or(Known::Absent);
        if let Some(f) = compare_known(path, &known, &here) {
            return Some(f);
        }
    }
    if e.is_symlink && !matches!(here, Actual::Symlink(_)) {
        return Some(problem(
            format!("must still be a symlink but is {}", kind(&here)),
            json!({"is_symlink": true}),
        ));
    }
    if e.replaced {
        use std::os::unix::fs::MetadataExt;
        let now = fs::metadata(&abs).ok().map(|m| (m.dev(), m.ino()));
        if now.is_some() && now == sb.initial_inode(key) {
            return Some(problem(
                "was rewritten in place (same inode): a writer killed mid-write leaves a half-written file; DISK-1 requires a temp file renamed over the target".into(),
                json!({"replaced": true}),
            ));
        }
    }
    // Everything else is judged on the final target (through symlinks).
    let target = sandbox::actual_at(&fs::canonicalize(&abs).unwrap_or_else(|_| abs.clone()));
    match &e.content {
        None => {}
        Some(Content::Bytes(want)) => match &target {
            Actual::File { bytes, .. } if bytes == want => {}
            Actual::File { bytes, .. } => {
                return Some(bytes_failure(path, "content differs", want, bytes));
            }
            other => {
                return Some(Failure {
                    reason: format!("{path}: expected a regular file, found {}", kind(other)),
                    expected: Some(bytes_json(want)),
                    actual: Some(actual_json(other)),
                    diff: None,
                    classes: vec![Class::Data],
                    untouched: false,
                })
            }
        },
        Some(Content::Symlink(t)) if here != Actual::Symlink(PathBuf::from(t)) => {
            return Some(problem(
                format!("must be a symlink to {t}"),
                json!({"symlink": t}),
            ));
        }
        Some(Content::Hardlink(other)) => {
            let same = sb.abs(other).ok().and_then(|o| {
                let (a, b) = (fs::metadata(&abs).ok()?, fs::metadata(o).ok()?);
                Some(a.dev() == b.dev() && a.ino() == b.ino())
            });
            if same != Some(true) {
                return Some(problem(
                    format!("must be a hard link of {other}"),
                    json!({"hardlink": other}),
                ));
            }
        }
        Some(Content::Dir) if !matches!(target, Actual::Dir(_)) => {
            return Some(problem("must be a directory".into(), json!({"dir": true})));
        }
        Some(Content::Fifo) if target != Actual::Fifo => {
            return Some(problem("must be a FIFO".into(), json!({"fifo": true})));
        }
        Some(Content::Symlink(_) | Content::Dir | Content::Fifo) => {}
    }
    if let Some(mode) = e.mode {
        match fs::metadata(&abs) {
            Ok(m) if m.permissions().mode() & 0o7777 == mode => {}
            Ok(m) => {
                return Some(problem(
                    format!(
                        "mode is {:04o}, expected {mode:04o}",
                        m.permissions().mode() & 0o7777
                    ),
                    json!({"mode": format!("{mode:04o}")}),
                ))
            }
            Err(err) => {
                return Some(problem(
                    format!("cannot read its mode: {err}"),
                    json!({"mode": format!("{mode:04o}")}),
                ))
            }
        }
    }
    None
}
