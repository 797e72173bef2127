//! The documented temp-file name (D10): `.<name>.editref-<pid>-<random>.tmp` next to the
//! target, and the test for that shape.
//!
//! A file of its own because the name is a promise beyond the write that makes it: files of
//! this shape are the only residue a killed process can leave (DISK-5), they must be
//! attributable to a process when found orphaned, and the tests and the reliability suite
//! recognise residue by this shape.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The documented temp-file name (D10): `.<name>.editref-<pid>-<random>.tmp` next to the target.
/// Files of this shape are the only residue a killed process can leave, and are never read.
pub fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = xxhash_rust::xxh3::xxh3_64(
        format!("{}-{n}-{nanos}-{}", std::process::id(), target.display()).as_bytes(),
    );
    // Keep the whole name within NAME_MAX (255 bytes): at most 180 *bytes* of the target's
    // name, cut at a character boundary (a name of 85 three-byte characters is 255 bytes).
    let mut short = String::new();
    for c in name.chars() {
        if short.len() + c.len_utf8() > 180 {
            break;
        }
        short.push(c);
    }
    target.with_file_name(format!(
        ".{short}.editref-{}-{:08x}.tmp",
        std::process::id(),
        seed as u32
    ))
}

/// Whether a file name has the temp-file shape of [`temp_path`].
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.contains(".editref-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_fit_name_max_for_any_255_byte_name() {
        use std::os::unix::ffi::OsStrExt;
        let names: [std::ffi::OsString; 3] = [
            "a".repeat(255).into(),
            "€".repeat(85).into(),
            std::ffi::OsStr::from_bytes(&[0xff; 255]).to_os_string(),
        ];
        for name in names {
            let temp = temp_path(&Path::new("/d").join(&name));
            let temp_name = temp.file_name().unwrap();
            assert!(temp_name.len() <= 255, "{} bytes", temp_name.len());
            assert!(is_temp_name(&temp_name.to_string_lossy()));
        }
    }
}
