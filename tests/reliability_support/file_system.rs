//! Which file system a test directory is on: crash residue depends on it (`O_TMPFILE` is a
//! file-system feature), so the report names it.

use std::path::{Path, PathBuf};

/// The type of the file system holding `dir` (`ext4`, `tmpfs`, `overlay`, …), as the kernel
/// names it in `/proc/self/mountinfo` for the deepest mount point above `dir`; `unknown` when
/// that cannot be read. Crash residue depends on it: `O_TMPFILE` is a file-system feature.
pub fn name_of(dir: &Path) -> String {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    // mountinfo escapes space, tab, newline and backslash in paths as octal (`\040`).
    let unescape = |p: &str| {
        let mut out = String::new();
        let mut chars = p.chars().peekable();
        while let Some(c) = chars.next() {
            let code: String = if c == '\\' {
                chars.clone().take(3).collect()
            } else {
                String::new()
            };
            match u8::from_str_radix(&code, 8) {
                Ok(b) if code.len() == 3 => {
                    out.push(char::from(b));
                    chars.nth(2);
                }
                _ => out.push(c),
            }
        }
        PathBuf::from(out)
    };
    info.lines()
        .filter_map(|line| {
            // `id parent major:minor root mount-point options [optional…] - type source …`
            let fields: Vec<&str> = line.split(' ').collect();
            let mount = unescape(fields.get(4)?);
            let dash = fields.iter().position(|f| *f == "-")?;
            let kind = fields.get(dash + 1)?;
            dir.starts_with(&mount)
                .then(|| (mount.components().count(), kind.to_string()))
        })
        // The last of equally deep mounts is the one on top.
        .fold(
            None,
            |best: Option<(usize, String)>, (depth, kind)| match best {
                Some((d, _)) if d > depth => best,
                _ => Some((depth, kind)),
            },
        )
        .map_or_else(|| "unknown".to_string(), |(_, kind)| kind)
}
