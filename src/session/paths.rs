//! Path rules (PATH-1, PATH-2): what a model-supplied path names, where it really leads once
//! every symlink is followed, and whether that lies inside the session's root.
//!
//! Resolution is the first step of every tool and the only place a model's path string turns
//! into a file-system path, so confinement is decided once, here, for every tool alike.

use super::Session;
use crate::disk;
use crate::error::{Code, ToolError, ToolResult};
use std::io;
use std::path::PathBuf;

/// A path after PATH-1/PATH-2: as given, lexically normalised, and with every symlink followed.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The path string the model sent.
    pub given: String,
    /// Absolute and lexically normalised (no symlinks followed): what the model named.
    pub lexical: PathBuf,
    /// The final target: where reads and writes really go (DISK-2).
    pub target: PathBuf,
    /// Whether the target exists.
    pub exists: bool,
}

impl Session {
    /// PATH-1 and PATH-2: resolves a model-supplied path.
    pub fn resolve(&self, given: &str) -> ToolResult<Resolved> {
        let lexical = self.lexical(given)?;
        let (target, exists) =
            disk::real_path(self.fs(), &lexical).map_err(|e| path_error(&e, given))?;
        if let Some(root) = &self.root {
            if !target.starts_with(root) {
                return Err(ToolError::new(
                    Code::OutsideRoot,
                    format!(
                        "'{given}' resolves to {}, which is outside the allowed root {}. Only files under the root can be read or changed.",
                        target.display(),
                        root.display()
                    ),
                ));
            }
        }
        Ok(Resolved {
            given: given.to_string(),
            lexical,
            target,
            exists,
        })
    }

    /// PATH-1 and the lexical part of resolution: `~`, relative paths, `.` and `..`.
    pub fn lexical(&self, given: &str) -> ToolResult<PathBuf> {
        if given.trim().is_empty() {
            return Err(ToolError::new(
                Code::InvalidPath,
                "The path is empty. Give the path of the file, e.g. src/main.rs or an absolute path.",
            ));
        }
        if given.contains('\0') {
            return Err(ToolError::new(
                Code::InvalidPath,
                "The path contains a NUL byte, which no file name can hold. Send the path without it.",
            ));
        }
        let expanded: PathBuf = match given.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                let home = std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| "/".into());
                home.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(given),
        };
        Ok(disk::normalize(&self.config.cwd.join(expanded)))
    }
}

fn path_error(e: &io::Error, given: &str) -> ToolError {
    if crate::error::is_escape(e) {
        return ToolError::escaped(given);
    }
    match e.raw_os_error() {
        Some(libc::ELOOP) => ToolError::new(
            Code::InvalidPath,
            format!("'{given}' has too many levels of symbolic links (a loop?). Use the real path of the file."),
        ),
        Some(libc::ENAMETOOLONG) => ToolError::new(
            Code::InvalidPath,
            format!("The path is too long for the file system ({} bytes). Use a shorter path.", given.len()),
        ),
        Some(libc::ENOTDIR) => ToolError::new(
            Code::FileNotFound,
            format!("'{given}' goes through something that is not a directory. Check the path."),
        ),
        _ if e.kind() == io::ErrorKind::PermissionDenied => ToolError::new(
            Code::PermissionDenied,
            format!("Permission denied while resolving '{given}': {e}."),
        ),
        _ => ToolError::io(&format!("Could not resolve '{given}'"), e),
    }
}
