//! Throw-away directories for the targets that touch the file system.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A fresh, empty directory, removed again on drop.
///
/// It is made under `$EDITREF_FUZZ_TMP` when set, else under `/dev/shm` when that exists (a
/// RAM file system: the fsyncs of the atomic-write path cost nothing there), else under the
/// system temp directory.
pub struct Sandbox {
    path: PathBuf,
}

impl Sandbox {
    /// Creates the directory; `Err` describes why it could not be made.
    pub fn new() -> Result<Sandbox, String> {
        let base = std::env::var_os("EDITREF_FUZZ_TMP")
            .map(PathBuf::from)
            .or_else(|| Some(PathBuf::from("/dev/shm")).filter(|p| p.is_dir()))
            .unwrap_or_else(std::env::temp_dir);
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| sweep(&base));
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = base.join(format!("editref-fuzz-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .map_err(|e| format!("cannot create sandbox {}: {e}", path.display()))?;
        // Canonical, so that root confinement compares like with like.
        let path =
            std::fs::canonicalize(&path).map_err(|e| format!("cannot resolve sandbox: {e}"))?;
        Ok(Sandbox { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Empties the directory (for a second run in the same place).
    pub fn reset(&self) -> Result<(), String> {
        let _ = std::fs::remove_dir_all(&self.path);
        std::fs::create_dir_all(&self.path).map_err(|e| format!("cannot recreate sandbox: {e}"))
    }

    /// Relative paths of every temp file (D10 shape) anywhere under the directory.
    pub fn temp_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![self.path.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                if is_dir {
                    stack.push(p);
                } else if editref::disk::is_temp_name(&e.file_name().to_string_lossy()) {
                    out.push(
                        p.strip_prefix(&self.path)
                            .map(Path::to_path_buf)
                            .unwrap_or(p),
                    );
                }
            }
        }
        out.sort();
        out
    }
}

/// Removes sandboxes left by fuzzing processes that no longer run (libFuzzer's fork mode kills
/// its workers, which then cannot clean up).
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("editref-fuzz-") else {
            continue;
        };
        let pid = rest.split(['-', '.']).next().unwrap_or("");
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if !Path::new("/proc").join(pid).exists() {
            let p = e.path();
            let _ = if p.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
