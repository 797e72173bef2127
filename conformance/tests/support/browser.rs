//! What the browser tests share: Debian's Chromium, and the pinned playwright-core that drives
//! it, installed with npm into `target/html-report-test` on first use (it needs `node`, `npm`
//! and the package index).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The exact playwright-core release the test drives the browser with.
pub const PLAYWRIGHT: &str = "playwright-core@1.65.1";
/// Debian's Chromium, which the browser tests drive.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// `target/html-report-test`, where playwright-core is installed.
pub fn tool_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap_or(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join("html-report-test")
}

/// Installs playwright-core into `dir` unless it is there; fails saying what is missing.
pub fn ensure_playwright(dir: &Path) {
    if dir
        .join("node_modules/playwright-core/package.json")
        .is_file()
    {
        return;
    }
    std::fs::create_dir_all(dir).unwrap();
    let out = Command::new("timeout")
        .args([
            "600",
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            PLAYWRIGHT,
        ])
        .current_dir(dir)
        .output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "npm install {PLAYWRIGHT} failed (the HTML report test needs node, npm and the package index): {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("cannot run npm (the HTML report test needs node and npm): {e}"),
    }
}
