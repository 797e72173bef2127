//! The per-case file tree: building it byte-exactly, the harness actions that stand in for other
//! programs, and the state the harness knows every entry should be in.
//!
//! Each case gets a fresh private directory (the *case root*) holding `sandbox/`, the directory
//! the implementation works in. Case paths are relative to the sandbox; a path starting with
//! `../` lives in the case root, outside the sandbox, which is how root-escape cases get a target
//! that exists. Internally every entry is keyed by its path relative to the case root
//! (`sandbox/a.txt`, `outside.txt`), so both halves are walked and checked alike.

use crate::case::{Content, FileForm};
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The name of the sandbox directory inside the case root.
pub const SANDBOX: &str = "sandbox";

/// Maps a case path to its path relative to the case root, lexically.
///
/// `a.txt` → `sandbox/a.txt`, `../x` → `x`. A path that is empty, absolute, contains NUL, or
/// climbs out of the case root (`../../x`) is refused: the harness never touches anything
/// outside the directory it made.
pub fn root_relative(case_path: &str) -> Result<PathBuf, String> {
    if case_path.is_empty() {
        return Err("a path must not be empty".into());
    }
    if case_path.contains('\0') {
        return Err("a path must not contain NUL".into());
    }
    let p = Path::new(case_path);
    if p.is_absolute() {
        return Err(format!(
            "'{case_path}' is absolute; paths are relative to the sandbox"
        ));
    }
    let mut parts: Vec<String> = vec![SANDBOX.to_string()];
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(format!(
                        "'{case_path}' leaves the case directory; one leading ../ is the limit"
                    ));
                }
            }
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            _ => return Err(format!("'{case_path}' is not a relative path")),
        }
    }
    if parts.is_empty() || parts == [SANDBOX] {
        return Err(format!("'{case_path}' names a directory the harness owns"));
    }
    Ok(parts.iter().collect())
}

/// The case path of a root-relative key (the inverse of [`root_relative`], for messages).
pub fn case_path(key: &Path) -> String {
    match key.strip_prefix(SANDBOX) {
        Ok(rest) => rest.to_string_lossy().into_owned(),
        Err(_) => format!("../{}", key.to_string_lossy()),
    }
}

/// What the harness knows an entry to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    /// A regular file with these bytes; `mode` when the harness set it.
    File {
        /// The bytes.
        bytes: Vec<u8>,
        /// Permission bits, when the case set them.
        mode: Option<u32>,
    },
    /// A symbolic link with this target.
    Symlink(PathBuf),
    /// A directory; `mode` when the harness set it.
    Dir(Option<u32>),
    /// A named pipe.
    Fifo,
    /// Removed by a harness action: nothing may be there.
    Absent,
}

/// What is actually on disk at a path (not following a final symlink).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actual {
    /// A regular file.
    File {
        /// Its bytes.
        bytes: Vec<u8>,
        /// Permission bits.
        mode: u32,
    },
    /// A symbolic link.
    Symlink(PathBuf),
    /// A directory.
    Dir(u32),
    /// A named pipe.
    Fifo,
    /// A socket, device or other special file.
    Other,
    /// Nothing.
    Absent,
    /// It exists but could not be read.
    Unreadable(String),
}

/// One case's directory tree and what the harness knows of it. Removed (made writable first)
/// when dropped.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    dir: PathBuf,
    known: BTreeMap<PathBuf, Known>,
    inodes: BTreeMap<PathBuf, (u64, u64)>,
    keep: bool,
}

fn err(context: impl std::fmt::Display, e: io::Error) -> String {
    format!("{context}: {e}")
}

impl Sandbox {
    /// Makes a fresh case root under `parent` (the system temp dir by default).
    pub fn new(parent: Option<&Path>) -> Result<Sandbox, String> {
        let base = match parent {
            Some(p) => p.to_path_buf(),
            None => std::env::temp_dir(),
        };
        let base = fs::canonicalize(&base).map_err(|e| err(base.display(), e))?;
        let root = unique_dir(&base).map_err(|e| err("cannot create the case directory", e))?;
        let dir = root.join(SANDBOX);
        fs::create_dir(&dir).map_err(|e| err(dir.display(), e))?;
        Ok(Sandbox {
            root,
            dir,
            known: BTreeMap::new(),
            inodes: BTreeMap::new(),
            keep: false,
        })
    }

    /// The sandbox directory (absolute, canonical): the implementation's cwd and root.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The case root that holds the sandbox and the `../` entries.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Keeps the tree on disk after the case (for debugging a failure).
    pub fn keep(&mut self) {
        self.keep = true;
    }

    /// Absolute path of a case path.
    pub fn abs(&self, case_path: &str) -> Result<PathBuf, String> {
        Ok(self.root.join(root_relative(case_path)?))
    }

    /// What the harness knows, keyed by root-relative path.
    pub fn known(&self) -> &BTreeMap<PathBuf, Known> {
        &self.known
    }

    /// Creates the initial tree: directories, regular files, FIFOs, hard links, symlinks, and
    /// finally the modes (deepest first, so a read-only directory is filled before it closes).
    pub fn build(&mut self, files: &[(String, FileForm)]) -> Result<(), String> {
        let mut entries = Vec::new();
        for (p, form) in files {
            entries.push((root_relative(p)?, p.as_str(), form));
        }
        let rank = |c: &Content| match c {
            Content::Dir => 0,
            Content::Bytes(_) => 1,
            Content::Fifo => 2,
            Content::Hardlink(_) => 3,
            Content::Symlink(_) => 4,
        };
        entries.sort_by_key(|(k, _, f)| (rank(&f.content), k.components().count()));
        for (key, case_path, form) in &entries {
            let abs = self.root.join(key);
            if let Some(parent) = abs.parent() {
                fs::create_dir_all(parent).map_err(|e| err(case_path, e))?;
            }
            match &form.content {
                Content::Dir => {
                    fs::create_dir_all(&abs).map_err(|e| err(case_path, e))?;
                    self.known.insert(key.clone(), Known::Dir(form.mode));
                }
                Content::Bytes(bytes) => {
                    fs::write(&abs, bytes).map_err(|e| err(case_path, e))?;
                    self.known.insert(
                        key.clone(),
                        Known::File {
                            bytes: bytes.clone(),
                            mode: form.mode,
                        },
                    );
                }
                Content::Fifo => {
                    mkfifo(&abs).map_err(|e| err(format!("{case_path}: mkfifo"), e))?;
                    self.known.insert(key.clone(), Known::Fifo);
                }
                Content::Hardlink(other) => {
                    let other_key = root_relative(other)?;
                    fs::hard_link(self.root.join(&other_key), &abs)
                        .map_err(|e| err(format!("{case_path}: hard link to {other}"), e))?;
                    let bytes = match self.known.get(&other_key) {
                        Some(Known::File { bytes, .. }) => bytes.clone(),
                        _ => fs::read(&abs).map_err(|e| err(case_path, e))?,
                    };
                    self.known.insert(
                        key.clone(),
                        Known::File {
                            bytes,
                            mode: form.mode,
                        },
                    );
                }
                Content::Symlink(target) => {
                    std::os::unix::fs::symlink(target, &abs).map_err(|e| err(case_path, e))?;
                    self.known
                        .insert(key.clone(), Known::Symlink(PathBuf::from(target)));
                }
            }
        }
        let mut with_mode: Vec<_> = entries
            .iter()
            .filter_map(|(k, p, f)| {
                f.mode
                    .map(|m| (k, *p, m, matches!(f.content, Content::Dir)))
            })
            .collect();
        // Files first, then directories from the deepest up.
        with_mode
            .sort_by_key(|(k, _, _, is_dir)| (*is_dir, std::cmp::Reverse(k.components().count())));
        for (key, case_path, mode, _) in with_mode {
            fs::set_permissions(self.root.join(key), fs::Permissions::from_mode(mode))
                .map_err(|e| err(format!("{case_path}: chmod"), e))?;
            self.sync_mode_of_inode(&self.root.join(key), mode);
        }
        for (key, _, _) in &entries {
            if let Ok(m) = fs::metadata(self.root.join(key)) {
                use std::os::unix::fs::MetadataExt;
                self.inodes.insert(key.clone(), (m.dev(), m.ino()));
            }
        }
        Ok(())
    }

    /// Device and inode of the file at `key` (through symlinks) when the sandbox was built: an
    /// atomic replace (DISK-1) leaves a new inode there, an in-place rewrite the same one.
    pub fn initial_inode(&self, key: &Path) -> Option<(u64, u64)> {
        self.inodes.get(key).copied()
    }

    /// Every known regular file sharing the inode of `abs` (itself, hard links, and the targets
    /// of symlinks resolve to the same inode) — the entries a write through `abs` changes.
    fn same_inode_keys(&self, abs: &Path) -> Vec<PathBuf> {
        let Ok(meta) = fs::metadata(abs) else {
            return Vec::new();
        };
        self.known
            .iter()
            .filter(|(_, k)| matches!(k, Known::File { .. } | Known::Dir(_)))
            .filter(|(key, _)| {
                fs::metadata(self.root.join(key))
                    .map(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
                    .unwrap_or(false)
            })
            .map(|(key, _)| key.clone())
            .collect()
    }

    fn sync_mode_of_inode(&mut self, abs: &Path, mode: u32) {
        for key in self.same_inode_keys(abs) {
            match self.known.get_mut(&key) {
                Some(Known::File { mode: m, .. }) | Some(Known::Dir(m)) => *m = Some(mode),
                _ => {}
            }
        }
    }

    /// `modify`: another program rewrites the file in place (through symlinks, keeping the
    /// inode), then its mtime is set to the previous one + 2 s, or exactly the previous one with
    /// `keep_mtime`.
    pub fn modify(
        &mut self,
        case_path: &str,
        form: &FileForm,
        keep_mtime: bool,
    ) -> Result<(), String> {
        let key = root_relative(case_path)?;
        let abs = self.root.join(&key);
        let Content::Bytes(bytes) = &form.content else {
            return Err("modify writes bytes only".into());
        };
        let previous = fs::metadata(&abs).ok();
        let prev_mtime = previous.as_ref().and_then(|m| m.modified().ok());
        if let Some(parent) = abs.parent() {
            fs::create_dir_all(parent).map_err(|e| err(case_path, e))?;
        }
        // A read-only file is opened for writing after lending it the owner's write bit.
        let restore = match &previous {
            Some(m) if m.permissions().mode() & 0o200 == 0 => {
                let mode = m.permissions().mode();
                fs::set_permissions(&abs, fs::Permissions::from_mode(mode | 0o200))
                    .map_err(|e| err(case_path, e))?;
                Some(mode)
            }
            _ => None,
        };
        let written = (|| -> io::Result<fs::File> {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&abs)?;
            f.write_all(bytes)?;
            f.flush()?;
            Ok(f)
        })();
        if let Some(mode) = restore {
            let _ = fs::set_permissions(&abs, fs::Permissions::from_mode(mode));
        }
        let file = written.map_err(|e| err(format!("modify {case_path}"), e))?;
        if let Some(prev) = prev_mtime {
            let mtime = if keep_mtime {
                prev
            } else {
                prev + Duration::from_secs(2)
            };
            file.set_modified(mtime)
                .map_err(|e| err(format!("modify {case_path}: set mtime"), e))?;
        }
        drop(file);
        if let Some(mode) = form.mode {
            fs::set_permissions(&abs, fs::Permissions::from_mode(mode))
                .map_err(|e| err(format!("modify {case_path}: chmod"), e))?;
        }
        let is_link = fs::symlink_metadata(&abs).is_ok_and(|m| m.file_type().is_symlink());
        let mut keys = self.same_inode_keys(&abs);
        if !is_link && !keys.contains(&key) {
            keys.push(key);
        }
        for k in keys {
            let mode = match (self.known.get(&k), form.mode) {
                (_, Some(m)) => Some(m),
                (Some(Known::File { mode, .. }), None) => *mode,
                _ => None,
            };
            self.known.insert(
                k,
                Known::File {
                    bytes: bytes.clone(),
                    mode,
                },
            );
        }
        Ok(())
    }

    /// `touch`: shifts the mtime (through symlinks) by `shift_ns`, content untouched.
    pub fn touch(&mut self, case_path: &str, shift_ns: i128) -> Result<(), String> {
        let abs = self.abs(case_path)?;
        let meta = fs::metadata(&abs).map_err(|e| err(format!("touch {case_path}"), e))?;
        if meta.file_type().is_fifo_like() {
            return Err(format!("touch {case_path}: not on a FIFO or device"));
        }
        let now = meta
            .modified()
            .map_err(|e| err(format!("touch {case_path}"), e))?;
        let since_epoch = match now.duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        };
        let target = since_epoch + shift_ns;
        let mtime = if target >= 0 {
            UNIX_EPOCH + Duration::from_nanos(target as u64)
        } else {
            UNIX_EPOCH - Duration::from_nanos(target.unsigned_abs() as u64)
        };
        let file = fs::File::open(&abs).map_err(|e| err(format!("touch {case_path}"), e))?;
        file.set_modified(mtime)
            .map_err(|e| err(format!("touch {case_path}"), e))
    }

    /// `chmod`: sets the permission bits (through symlinks).
    pub fn chmod(&mut self, case_path: &str, mode: u32) -> Result<(), String> {
        let abs = self.abs(case_path)?;
        fs::set_permissions(&abs, fs::Permissions::from_mode(mode))
            .map_err(|e| err(format!("chmod {case_path}"), e))?;
        self.sync_mode_of_inode(&abs, mode);
        Ok(())
    }

    /// `remove`: deletes the entry (a directory with its contents; a symlink, not its target).
    pub fn remove(&mut self, case_path: &str) -> Result<(), String> {
        let key = root_relative(case_path)?;
        let abs = self.root.join(&key);
        let meta = fs::symlink_metadata(&abs).map_err(|e| err(format!("remove {case_path}"), e))?;
        if meta.is_dir() {
            make_writable(&abs);
            fs::remove_dir_all(&abs)
        } else {
            fs::remove_file(&abs)
        }
        .map_err(|e| err(format!("remove {case_path}"), e))?;
        for (k, v) in self.known.iter_mut() {
            if k.starts_with(&key) {
                *v = Known::Absent;
            }
        }
        self.known.insert(key, Known::Absent);
        Ok(())
    }

    /// The whole tree below the case root as it is now, keyed by root-relative path (the
    /// sandbox directory itself excluded). Symlinks are not followed.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Actual> {
        let mut out = BTreeMap::new();
        walk(&self.root, &self.root, &mut out);
        out.remove(Path::new(SANDBOX));
        out
    }

    /// The entry at a root-relative key, without following a final symlink.
    pub fn actual(&self, key: &Path) -> Actual {
        actual_at(&self.root.join(key))
    }
}

trait FifoLike {
    fn is_fifo_like(&self) -> bool;
}

impl FifoLike for fs::FileType {
    fn is_fifo_like(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_fifo() || self.is_char_device() || self.is_block_device() || self.is_socket()
    }
}

/// The entry at an absolute path, without following a final symlink.
pub fn actual_at(abs: &Path) -> Actual {
    let meta = match fs::symlink_metadata(abs) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Actual::Absent,
        Err(e) => return Actual::Unreadable(e.to_string()),
    };
    use std::os::unix::fs::FileTypeExt;
    let ft = meta.file_type();
    let mode = meta.permissions().mode() & 0o7777;
    if ft.is_symlink() {
        match fs::read_link(abs) {
            Ok(t) => Actual::Symlink(t),
            Err(e) => Actual::Unreadable(e.to_string()),
        }
    } else if ft.is_dir() {
        Actual::Dir(mode)
    } else if ft.is_file() {
        match fs::read(abs) {
            Ok(bytes) => Actual::File { bytes, mode },
            Err(e) => Actual::Unreadable(e.to_string()),
        }
    } else if ft.is_fifo() {
        Actual::Fifo
    } else {
        Actual::Other
    }
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Actual>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let key = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let actual = actual_at(&path);
        let is_dir = matches!(actual, Actual::Dir(_));
        out.insert(key, actual);
        if is_dir {
            walk(root, &path, out);
        }
    }
}

/// Gives the owner rwx on every directory below `dir` (and `dir`), so the tree can be removed
/// even after a case made parts of it read-only.
fn make_writable(dir: &Path) {
    if let Ok(meta) = fs::symlink_metadata(dir) {
        if meta.is_dir() {
            let mode = meta.permissions().mode();
            let _ = fs::set_permissions(dir, fs::Permissions::from_mode(mode | 0o700));
            if let Ok(entries) = fs::read_dir(dir) {
                for e in entries.filter_map(Result::ok) {
                    make_writable(&e.path());
                }
            }
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if !self.keep {
            make_writable(&self.root);
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

fn unique_dir(base: &Path) -> io::Result<PathBuf> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    for _ in 0..100 {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = base.join(format!(
            "editref-conform-{}-{nanos:08x}-{n}",
            std::process::id()
        ));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free directory name",
    ))
}

/// Creates a named pipe (mode 0644).
fn mkfifo(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(bytes: &[u8]) -> FileForm {
        FileForm {
            content: Content::Bytes(bytes.to_vec()),
            mode: None,
        }
    }

    #[test]
    fn case_paths_map_into_the_case_root() {
        assert_eq!(
            root_relative("a.txt").unwrap(),
            PathBuf::from("sandbox/a.txt")
        );
        assert_eq!(
            root_relative("./d/../a").unwrap(),
            PathBuf::from("sandbox/a")
        );
        assert_eq!(root_relative("../x").unwrap(), PathBuf::from("x"));
        assert!(root_relative("../../x").is_err());
        assert!(root_relative("/etc/passwd").is_err());
        assert!(root_relative("").is_err());
        assert!(root_relative("..").is_err());
        assert!(root_relative(".").is_err());
        assert_eq!(case_path(Path::new("sandbox/a/b")), "a/b");
        assert_eq!(case_path(Path::new("x")), "../x");
    }

    #[test]
    fn builds_every_form_and_tracks_actions() {
        let mut sb = Sandbox::new(None).unwrap();
        let files = vec![
            (
                "d".to_string(),
                FileForm {
                    content: Content::Dir,
                    mode: Some(0o755),
                },
            ),
            (
                "d/a.txt".to_string(),
                FileForm {
                    content: Content::Bytes(b"a\r\n".to_vec()),
                    mode: Some(0o600),
                },
            ),
            (
                "h".to_string(),
                FileForm {
                    content: Content::Hardlink("d/a.txt".into()),
                    mode: None,
                },
            ),
            (
                "l".to_string(),
                FileForm {
                    content: Content::Symlink("d/a.txt".into()),
                    mode: None,
                },
            ),
            (
                "p".to_string(),
                FileForm {
                    content: Content::Fifo,
                    mode: None,
                },
            ),
            ("../out.txt".to_string(), form(b"outside")),
        ];
        sb.build(&files).unwrap();
        let snap = sb.snapshot();
        assert_eq!(
            snap.get(Path::new("sandbox/d/a.txt")),
            Some(&Actual::File {
                bytes: b"a\r\n".to_vec(),
                mode: 0o600
            })
        );
        assert_eq!(
            snap.get(Path::new("sandbox/l")),
            Some(&Actual::Symlink("d/a.txt".into()))
        );
        assert_eq!(snap.get(Path::new("sandbox/p")), Some(&Actual::Fifo));
        assert!(matches!(
            snap.get(Path::new("out.txt")),
            Some(Actual::File { .. })
        ));

        // Writing through the symlink updates every name of the inode.
        let before = fs::metadata(sb.abs("d/a.txt").unwrap())
            .unwrap()
            .modified()
            .unwrap();
        sb.modify("l", &form(b"new"), false).unwrap();
        let after = fs::metadata(sb.abs("d/a.txt").unwrap())
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(
            after.duration_since(before).unwrap(),
            Duration::from_secs(2)
        );
        for k in ["sandbox/d/a.txt", "sandbox/h"] {
            assert!(
                matches!(sb.known().get(Path::new(k)), Some(Known::File { bytes, .. }) if bytes == b"new"),
                "{k}"
            );
        }
        assert_eq!(
            sb.known().get(Path::new("sandbox/l")),
            Some(&Known::Symlink("d/a.txt".into()))
        );

        sb.modify("d/a.txt", &form(b"kept"), true).unwrap();
        let kept = fs::metadata(sb.abs("d/a.txt").unwrap())
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(kept, after);

        sb.touch("d/a.txt", -5_000_000_000).unwrap();
        let touched = fs::metadata(sb.abs("d/a.txt").unwrap())
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(
            kept.duration_since(touched).unwrap(),
            Duration::from_secs(5)
        );

        sb.chmod("h", 0o444).unwrap();
        assert!(matches!(
            sb.known().get(Path::new("sandbox/d/a.txt")),
            Some(Known::File {
                mode: Some(0o444),
                ..
            })
        ));
        // modify lends itself the write bit on a read-only file and gives it back.
        sb.modify("h", &form(b"ro"), false).unwrap();
        let m = fs::metadata(sb.abs("h").unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(m, 0o444);

        sb.remove("d").unwrap();
        assert_eq!(
            sb.known().get(Path::new("sandbox/d/a.txt")),
            Some(&Known::Absent)
        );
        assert_eq!(sb.actual(Path::new("sandbox/d")), Actual::Absent);

        let root = sb.root().to_path_buf();
        fs::set_permissions(sb.dir(), fs::Permissions::from_mode(0o555)).unwrap();
        drop(sb);
        assert!(!root.exists());
    }
}
