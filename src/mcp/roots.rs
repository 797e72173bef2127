//! Root confinement for an MCP connection: the directories its calls may read and write, and
//! which editref session serves a path.
//!
//! A [`Session`] confines itself to one root (PATH-2). With several roots the connection keeps
//! one session per root and sends each call to the first root its paths resolve into (with
//! every symlink followed, by the session's own resolution); a path that resolves into none is
//! refused with `outside_root`, and so is a call whose paths lie under different roots. A
//! given file always lands in the same session, so read-before-write and staleness work as
//! with a single root; and each check is the session's own, made again by the tool itself, so
//! a symlink swapped in between is still caught.

use crate::undo::UndoPlace;
use crate::{Code, Config, Session, ToolError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The sessions of one connection, one per root, in the order the roots were given.
pub struct Roots {
    cwd: PathBuf,
    fsync: bool,
    undo: UndoPlace,
    sessions: Vec<(PathBuf, Arc<Session>)>,
}

impl Roots {
    /// Sessions for `dirs` (at least one is expected; none means the working directory).
    /// Relative paths resolve against `cwd` when it lies under a root, else against the first
    /// root.
    pub fn new(dirs: &[PathBuf], cwd: &Path, fsync: bool, undo: &UndoPlace) -> Roots {
        Roots::reusing(dirs, cwd, fsync, undo, &[])
    }

    /// The same connection with a new set of roots: sessions of roots that remain are kept, with
    /// their read state.
    pub fn rebuilt(&self, dirs: &[PathBuf]) -> Roots {
        Roots::reusing(dirs, &self.cwd, self.fsync, &self.undo, &self.sessions)
    }

    fn reusing(
        dirs: &[PathBuf],
        cwd: &Path,
        fsync: bool,
        undo: &UndoPlace,
        old: &[(PathBuf, Arc<Session>)],
    ) -> Roots {
        let mut roots: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            let dir = canonical(&cwd.join(dir));
            if !roots.contains(&dir) {
                roots.push(dir);
            }
        }
        if roots.is_empty() {
            roots.push(canonical(cwd));
        }
        let here = canonical(cwd);
        let session_cwd = if roots.iter().any(|r| here.starts_with(r)) {
            cwd.to_path_buf()
        } else {
            roots[0].clone()
        };
        let sessions = roots
            .into_iter()
            .map(|root| {
                let kept = old.iter().find(|(r, s)| {
                    *r == root
                        && s.config().cwd == session_cwd
                        && s.config().fsync == fsync
                        && s.config().undo == undo.config_for(&root)
                });
                let session = match kept {
                    Some((_, s)) => Arc::clone(s),
                    None => {
                        let mut config = Config::new(&session_cwd).with_root(&root);
                        config.fsync = fsync;
                        config.undo = undo.config_for(&root);
                        Arc::new(Session::new(config))
                    }
                };
                (root, session)
            })
            .collect();
        Roots {
            cwd: cwd.to_path_buf(),
            fsync,
            undo: undo.clone(),
            sessions,
        }
    }

    /// The roots, canonical, in order.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.sessions.iter().map(|(r, _)| r.clone()).collect()
    }

    /// Whether there is more than one root, so that a call must be routed by its paths.
    pub fn several(&self) -> bool {
        self.sessions.len() > 1
    }

    /// The session that serves a call naming `paths` (see [`super::paths::named`]): the root
    /// they all lie under, each path going to the first root it resolves into. A call that
    /// names no path goes to the first session, whose input check refuses it. A path that
    /// resolves into no root is `outside_root`; so is a call whose paths lie under different
    /// roots: a call is served by one session, confined to one root, and changes all its files
    /// or none (BATCH-1), which no two sessions could promise together.
    pub fn route(&self, paths: &[String]) -> Result<Arc<Session>, ToolError> {
        let first = match self.sessions.first() {
            Some((_, s)) => s,
            None => return Err(ToolError::new(Code::OutsideRoot, "No root is configured.")),
        };
        if !self.several() || paths.is_empty() {
            return Ok(Arc::clone(first));
        }
        let mut chosen: Vec<(&str, usize)> = Vec::with_capacity(paths.len());
        for path in paths {
            match self.root_of(path) {
                Some(i) => chosen.push((path, i)),
                None => return Err(self.outside_every_root(path)),
            }
        }
        let (first_path, i) = chosen[0];
        if let Some((other, j)) = chosen.iter().find(|(_, j)| *j != i) {
            return Err(ToolError::new(
                Code::OutsideRoot,
                format!(
                    "This call names files under more than one root: '{first_path}' lies under {} and '{other}' under {}. One call changes the files of one root only (all of them or none); nothing was changed. Split it into one call per root.",
                    self.sessions[i].0.display(),
                    self.sessions[*j].0.display()
                ),
            ));
        }
        Ok(Arc::clone(&self.sessions[i].1))
    }

    /// The index of the first root `path` resolves into, or of the first session that refuses
    /// the path for another reason than lying outside (the tool gives that refusal).
    fn root_of(&self, path: &str) -> Option<usize> {
        self.sessions.iter().position(
            |(_, session)| !matches!(session.resolve(path), Err(e) if e.code == Code::OutsideRoot),
        )
    }

    fn outside_every_root(&self, path: &str) -> ToolError {
        let list: Vec<String> = self
            .sessions
            .iter()
            .map(|(r, _)| r.display().to_string())
            .collect();
        ToolError::new(
            Code::OutsideRoot,
            format!(
                "'{path}' resolves outside every allowed root ({}). Only files under these roots can be read or changed.",
                list.join(", ")
            ),
        )
    }
}

/// The directory a `file://` root URI names; `None` for other schemes or a URI that does not
/// decode to a path.
pub fn path_of_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // file:///abs or file://localhost/abs
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = percent_decode(path)?;
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hi = (bytes.next()? as char).to_digit(16)?;
            let lo = (bytes.next()? as char).to_digit(16)?;
            out.push((hi * 16 + lo) as u8);
        } else {
            out.push(b);
        }
    }
    if out.contains(&0) {
        return None;
    }
    Some(out)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_decode_to_paths() {
        assert_eq!(
            path_of_uri("file:///a/b%20c"),
            Some(PathBuf::from("/a/b c"))
        );
        assert_eq!(path_of_uri("file://localhost/x"), Some(PathBuf::from("/x")));
        assert_eq!(path_of_uri("https://example.org/x"), None);
        assert_eq!(path_of_uri("file:///a%00b"), None);
        assert_eq!(path_of_uri("file:///a%4"), None);
    }

    #[test]
    fn a_path_goes_to_the_root_it_lies_under() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a)?;
        std::fs::create_dir_all(&b)?;
        let roots = Roots::new(&[a.clone(), b.clone()], dir.path(), false, &UndoPlace::Off);
        let in_b = b.join("f.txt");
        let session = roots.route(&[path(&in_b)]).map_err(std::io::Error::other)?;
        assert_eq!(
            session.config().root.as_deref(),
            Some(canonical(&b).as_path())
        );
        let outside = dir.path().join("c.txt");
        let err = roots.route(&[path(&outside)]).err().map(|e| e.code);
        assert_eq!(err, Some(Code::OutsideRoot));
        // A root that remains keeps its session (and its read state) when the roots change,
        // as long as relative paths still start at the same place.
        let in_a = a.join("f.txt");
        let before = roots.route(&[path(&in_a)]).map_err(std::io::Error::other)?;
        let again = roots.rebuilt(std::slice::from_ref(&a));
        let kept = again.route(&[path(&in_a)]).map_err(std::io::Error::other)?;
        assert!(Arc::ptr_eq(&before, &kept));
        assert_eq!(again.dirs(), vec![canonical(&a)]);
        Ok(())
    }

    fn path(p: &Path) -> String {
        p.display().to_string()
    }

    #[test]
    fn a_call_goes_to_the_one_root_of_all_its_paths() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a)?;
        std::fs::create_dir_all(&b)?;
        let roots = Roots::new(&[a.clone(), b.clone()], dir.path(), false, &UndoPlace::Off);
        let in_b = [path(&b.join("1.txt")), path(&b.join("sub/2.txt"))];
        let session = roots.route(&in_b).map_err(std::io::Error::other)?;
        assert_eq!(
            session.config().root.as_deref(),
            Some(canonical(&b).as_path())
        );
        let both = [path(&a.join("1.txt")), path(&b.join("2.txt"))];
        let Err(e) = roots.route(&both) else {
            panic!("paths under two roots were routed");
        };
        assert_eq!(e.code, Code::OutsideRoot);
        assert!(e.message.contains("more than one root"), "{}", e.message);
        let one_outside = [path(&b.join("1.txt")), path(&dir.path().join("c.txt"))];
        let e = roots.route(&one_outside).err().map(|e| e.code);
        assert_eq!(e, Some(Code::OutsideRoot));
        // No path: the first root's session, which refuses the input itself.
        let first = roots.route(&[]).map_err(std::io::Error::other)?;
        assert_eq!(
            first.config().root.as_deref(),
            Some(canonical(&a).as_path())
        );
        Ok(())
    }
}
