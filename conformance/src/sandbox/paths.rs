//! Case paths: how a path written in a case maps into the case root, and back for messages.
//!
//! This mapping is the harness's safety boundary — every path a case names passes through
//! [`root_relative`] before anything is created, changed or removed, and it refuses whatever
//! would reach outside the directory the harness made. The loader rejects such paths with the
//! same function, so they are caught when a case is loaded rather than when it runs.

use std::path::{Component, Path, PathBuf};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
