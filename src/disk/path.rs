//! Paths before any file is touched: lexical normalisation ([`normalize`]) and symlink
//! resolution that also works for files that do not exist yet ([`real_path`]).
//!
//! Kept apart from loading and writing because both the session's root confinement (PATH-2)
//! and the atomic write's last check of the target's directory rely on the same resolution.

use super::fs::{Fs, Kind};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Lexical normalisation: removes `.` and resolves `..` against earlier components (never above
/// the root). The path must be absolute.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// Follows every symlink in `path` (absolute), like `realpath`, but also for paths whose final
/// components do not exist yet. Returns the final path and whether it exists. A `..` in `path`
/// is taken where it stands, after the links before it are followed, as the kernel takes it:
/// `link/..` is the parent of the link's target, not the directory holding the link.
pub fn real_path(fs: &dyn Fs, path: &Path) -> io::Result<(PathBuf, bool)> {
    let mut resolved = PathBuf::from("/");
    let mut pending: std::collections::VecDeque<std::ffi::OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    let mut links = 0;
    while let Some(name) = pending.pop_front() {
        if name == ".." {
            resolved.pop();
            continue;
        }
        if name == "." {
            continue;
        }
        let candidate = resolved.join(&name);
        match fs.symlink_metadata(&candidate) {
            Ok(m) if m.kind == Kind::Symlink => {
                links += 1;
                if links > 40 {
                    return Err(io::Error::from_raw_os_error(libc::ELOOP));
                }
                let target = fs.read_link(&candidate)?;
                if target.is_absolute() {
                    resolved = PathBuf::from("/");
                }
                let mut parts: Vec<std::ffi::OsString> = target
                    .components()
                    .filter_map(|c| match c {
                        Component::Normal(n) => Some(n.to_os_string()),
                        Component::ParentDir => Some("..".into()),
                        _ => None,
                    })
                    .collect();
                while let Some(p) = parts.pop() {
                    pending.push_front(p);
                }
            }
            Ok(_) => resolved = candidate,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                resolved = candidate;
                for rest in pending {
                    if rest == ".." {
                        resolved.pop();
                    } else {
                        resolved.push(rest);
                    }
                }
                return Ok((resolved, false));
            }
            Err(e) => return Err(e),
        }
    }
    Ok((resolved, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealFs;

    #[test]
    fn real_path_follows_links_even_for_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (p, exists) = real_path(&RealFs, &base.join("link/new.txt")).unwrap();
        assert_eq!(p, base.join("real/new.txt"));
        assert!(!exists);
    }

    /// A `..` in the path given is taken after the link before it is followed, as the kernel
    /// and `realpath` take it: the answer for an existing file is `canonicalize`'s.
    #[test]
    fn real_path_takes_a_dot_dot_after_the_link_before_it_as_realpath_does() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        std::fs::write(base.join("a/f"), "x").unwrap();
        std::os::unix::fs::symlink("a/b", base.join("link")).unwrap();
        let given = base.join("link/../f");
        let (p, exists) = real_path(&RealFs, &given).unwrap();
        assert_eq!(p, std::fs::canonicalize(&given).unwrap());
        assert_eq!(p, base.join("a/f"));
        assert!(exists);
        let (p, exists) = real_path(&RealFs, &base.join("link/../new.txt")).unwrap();
        assert_eq!(p, base.join("a/new.txt"));
        assert!(!exists);
    }

    /// Resolution follows as many symlinks as the kernel does, 40, and no more: a chain of
    /// 40 links reaches its file, a chain of 41 is ELOOP (which resolution reports as a loop).
    #[test]
    fn real_path_follows_forty_links_and_refuses_a_forty_first() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(base.join("f"), "x").unwrap();
        // l1 -> f, l2 -> l1, ..., l41 -> l40: resolving lN follows N links.
        std::os::unix::fs::symlink("f", base.join("l1")).unwrap();
        for n in 2..=41 {
            std::os::unix::fs::symlink(format!("l{}", n - 1), base.join(format!("l{n}"))).unwrap();
        }
        let (p, exists) = real_path(&RealFs, &base.join("l40")).unwrap();
        assert_eq!(p, base.join("f"));
        assert!(exists);
        let e = real_path(&RealFs, &base.join("l41")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
    }
}
