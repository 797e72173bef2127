//! A read state persisted in a file, for `editref call --session FILE`: shell-driven agents run
//! one process per call and still get read-before-write and staleness checks (SESSION-1).
//!
//! The file is JSON. While a call runs, `FILE.lock` is held with an exclusive lock, so two calls
//! sharing one session file take turns instead of losing each other's entries; the state is
//! saved with an atomic replace.

use crate::session::ReadState;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// An open, locked session file.
pub struct SessionFile {
    path: PathBuf,
    _lock: File,
    /// The state read from the file (empty when the file did not exist).
    pub state: ReadState,
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// Opens (or starts) the session file at `path`, holding its lock until dropped.
pub fn open(path: &Path) -> io::Result<SessionFile> {
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(path))?;
    lock.lock()?;
    let state = match std::fs::read(path) {
        Ok(bytes) if bytes.is_empty() => ReadState::default(),
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not an editref session file: {e}", path.display()),
            )
        })?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => ReadState::default(),
        Err(e) => return Err(e),
    };
    Ok(SessionFile {
        path: path.to_path_buf(),
        _lock: lock,
        state,
    })
}

impl SessionFile {
    /// Writes the state back (temp file + rename, so a crash never leaves half a session).
    pub fn save(&mut self) -> io::Result<()> {
        let json = serde_json::to_vec(&self.state).map_err(io::Error::other)?;
        let mut name = self
            .path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(format!(".{}.tmp", std::process::id()));
        let temp = self.path.with_file_name(name);
        std::fs::write(&temp, json)?;
        std::fs::rename(&temp, &self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D25: a session file that is not there yet, or is empty (made by `touch`, say), starts
    /// an empty session; one that holds anything but the state is refused, and left as it was.
    #[test]
    fn d25_a_missing_or_empty_session_file_starts_empty_and_garbage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.json");
        assert!(open(&missing).unwrap().state.is_empty());
        let empty = dir.path().join("empty.json");
        std::fs::write(&empty, b"").unwrap();
        assert!(open(&empty).unwrap().state.is_empty());
        let garbage = dir.path().join("garbage.json");
        std::fs::write(&garbage, b"not json\n").unwrap();
        let e = open(&garbage).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(std::fs::read(&garbage).unwrap(), b"not json\n");
        // A session file that cannot be read is an error, not an empty session.
        let dir_there = dir.path().join("a-directory.json");
        std::fs::create_dir(&dir_there).unwrap();
        assert!(open(&dir_there).is_err());
    }
}
