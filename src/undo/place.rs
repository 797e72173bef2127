//! Where a front end keeps the journal (UNDO-7): by default one journal per root, in the
//! user's state directory — never in the working tree.
//!
//! A working tree holds only the user's files: a journal there shows in `git status`, can be
//! committed by accident, is lost by `git clean` and `git stash -u`, and turns up as an
//! unexpected file wherever a tree is compared with what the tools wrote (the conformance
//! corpus does exactly that). So the journal of root `R` is
//! `<state>/<name>-<hash>`, where `<state>` is `$XDG_STATE_HOME/editref/undo` (or
//! `~/.local/state/editref/undo`), `<name>` is the last component of `R` made safe and short,
//! for a human looking around, and `<hash>` is 16 hex digits of xxh3-64 of the canonical `R`,
//! which makes the name unique. Every front end — the CLI subcommands, `call`, `mcp` and
//! `editref undo` — derives the same directory from the same root, so a write made by one can
//! be undone through another.

use super::UndoConfig;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where a front end keeps the journal (UNDO-7), from `--undo-dir` / `--no-undo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UndoPlace {
    /// One journal per root, in this base directory (the user's state directory unless a
    /// caller gives another, see [`UndoPlace::user_state`]): the default.
    PerRoot(PathBuf),
    /// One directory for every session (`--undo-dir`).
    Dir(PathBuf),
    /// No journal: writes are not recorded and undo is refused (`--no-undo`).
    Off,
}

impl Default for UndoPlace {
    /// [`UndoPlace::user_state`].
    fn default() -> UndoPlace {
        UndoPlace::user_state()
    }
}

impl UndoPlace {
    /// One journal per root under the user's state directory ([`state_base`], read from the
    /// environment now).
    pub fn user_state() -> UndoPlace {
        UndoPlace::PerRoot(state_base())
    }

    /// The journal of a session rooted at `root` (its working directory when it has none).
    /// For [`UndoPlace::PerRoot`] the root is made canonical first (symlinks followed, as the
    /// session itself resolves it), so every spelling of one directory finds one journal.
    pub fn config_for(&self, root: &Path) -> Option<UndoConfig> {
        match self {
            UndoPlace::PerRoot(base) => {
                let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
                let mut config = UndoConfig::new(journal_dir(base, &root));
                config.root = Some(root);
                Some(config)
            }
            UndoPlace::Dir(dir) => Some(UndoConfig::new(dir)),
            UndoPlace::Off => None,
        }
    }

    /// From the two command-line flags; neither given means [`UndoPlace::user_state`].
    pub fn from_flags(dir: Option<PathBuf>, off: bool) -> UndoPlace {
        match (dir, off) {
            (_, true) => UndoPlace::Off,
            (Some(d), false) => UndoPlace::Dir(d),
            (None, false) => UndoPlace::user_state(),
        }
    }
}

/// The base of the per-root journals, from this process's environment: see
/// [`state_base_from`].
pub fn state_base() -> PathBuf {
    state_base_from(
        std::env::var_os("XDG_STATE_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
        &std::env::temp_dir(),
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() },
    )
}

/// The base of the per-root journals: `$XDG_STATE_HOME/editref/undo`, else
/// `$HOME/.local/state/editref/undo` — each only when it is an absolute path, as the XDG base
/// directory specification asks — else `editref-undo-<uid>` in the system's temp directory.
pub fn state_base_from(
    xdg_state_home: Option<&OsStr>,
    home: Option<&OsStr>,
    temp: &Path,
    uid: u32,
) -> PathBuf {
    if let Some(state) = absolute(xdg_state_home) {
        return state.join("editref/undo");
    }
    if let Some(home) = absolute(home) {
        return home.join(".local/state/editref/undo");
    }
    temp.join(format!("editref-undo-{uid}"))
}

/// `v` as a path, when it is an absolute one.
fn absolute(v: Option<&OsStr>) -> Option<&Path> {
    v.map(Path::new).filter(|p| p.is_absolute())
}

/// The journal of `root` (canonical) under `base`: `<name>-<hash>`, where `name` is the root's
/// last component with every byte outside `[A-Za-z0-9._-]` made `_`, no leading dot, at most
/// 32 bytes (`root` for `/`), and `hash` 16 hex digits of xxh3-64 of the root's bytes.
pub fn journal_dir(base: &Path, root: &Path) -> PathBuf {
    base.join(format!(
        "{}-{:016x}",
        readable_name(root),
        xxhash_rust::xxh3::xxh3_64(root.as_os_str().as_bytes())
    ))
}

/// The last component of `root`, safe and short enough for a directory name.
fn readable_name(root: &Path) -> String {
    let Some(last) = root.file_name() else {
        return "root".to_string();
    };
    let mut name: String = last
        .as_bytes()
        .iter()
        .take(32)
        .map(|&b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-' => b as char,
            _ => '_',
        })
        .collect();
    if name.starts_with('.') {
        name.replace_range(..1, "_");
    }
    name
}
