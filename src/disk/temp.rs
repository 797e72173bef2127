//! The documented temp-file name (D10): `.<name>.editref-<pid>-<random>.tmp` next to the
//! target, and the test for that shape.
//!
//! A file of its own because the name is a promise beyond the write that makes it: files of
//! this shape are the only residue a killed process can leave (DISK-5), they must be
//! attributable to a process when found orphaned, and the tests and the reliability suite
//! recognise residue by this shape. [`temp_owner`] reads the writer's PID back, which is how
//! an orphan of a dead writer is told from the temp file of a live one (D24); a file moved
//! aside by a batch ([`parked_path`]) has a shape of its own, because it holds the old content
//! of a file and is never removed as an orphan.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The documented temp-file name (D10): `.<name>.editref-<pid>-<random>.tmp` next to the target.
/// Files of this shape are the only residue a killed process can leave, and are never read.
pub fn temp_path(target: &Path) -> PathBuf {
    temp_path_ending(target, "")
}

/// The name a batch moves a file it deletes to (`.<name>.editref-<pid>-<random>.parked.tmp`)
/// until every other change of the batch is in place. It is residue of the temp-file shape
/// ([`is_temp_name`]), but [`temp_owner`] does not claim it: after a crash it is the only copy
/// of that file's content, so no later edit removes it.
pub fn parked_path(target: &Path) -> PathBuf {
    temp_path_ending(target, ".parked")
}

fn temp_path_ending(target: &Path, ending: &str) -> PathBuf {
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
        ".{short}.editref-{}-{:08x}{ending}.tmp",
        std::process::id(),
        seed as u32
    ))
}

/// Whether a file name has the temp-file shape of [`temp_path`].
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.contains(".editref-")
}

/// The PID of the process that wrote a temp file named by [`temp_path`], read from the name;
/// `None` for every other name, parked files included. Only names of exactly this shape are
/// ever considered for removal as orphans.
pub fn temp_owner(name: &str) -> Option<u32> {
    let rest = name.strip_suffix(".tmp")?;
    let at = rest.rfind(".editref-")?;
    if !rest.starts_with('.') || at == 0 {
        return None;
    }
    let (pid, hex) = rest.get(at + ".editref-".len()..)?.split_once('-')?;
    let digits = |s: &str, ok: fn(&u8) -> bool| !s.is_empty() && s.bytes().all(|b| ok(&b));
    if hex.len() != 8 || !digits(hex, u8::is_ascii_hexdigit) || !digits(pid, u8::is_ascii_digit) {
        return None;
    }
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_read_back_from_temp_names_only() {
        let temp = temp_path(Path::new("/d/a.txt"));
        let name = temp.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(temp_owner(&name), Some(std::process::id()));
        let parked = parked_path(Path::new("/d/a.txt"));
        let parked = parked.file_name().unwrap().to_string_lossy().into_owned();
        assert!(is_temp_name(&parked));
        assert_eq!(temp_owner(&parked), None);
        assert_eq!(
            temp_owner(".a.editref-1-2.tmp.editref-42-0badf00d.tmp"),
            Some(42)
        );
        for other in [
            "a.txt",
            ".a.txt.editref-x-deadbeef.tmp",
            ".a.txt.editref-12-deadbee.tmp",
            ".a.txt.editref--deadbeef.tmp",
            "a.txt.editref-12-deadbeef.tmp",
            ".editref-12-deadbeef.tmp",
            ".a.txt.editref-99999999999-deadbeef.tmp",
            ".a.txt.editref-+12-deadbeef.tmp",
        ] {
            assert_eq!(temp_owner(other), None, "{other}");
        }
    }

    #[test]
    fn temp_names_fit_name_max_for_any_255_byte_name() {
        use std::os::unix::ffi::OsStrExt;
        let names: [std::ffi::OsString; 4] = [
            "a".repeat(255).into(),
            "€".repeat(85).into(),
            // Two-byte characters after one byte: the 180-byte cut falls inside a character.
            format!("a{}", "é".repeat(127)).into(),
            std::ffi::OsStr::from_bytes(&[0xff; 255]).to_os_string(),
        ];
        // What the temp name keeps: the longest run of whole characters of at most 180 bytes
        // (bytes that are not UTF-8 shown as U+FFFD, three bytes each).
        let kept = [
            "a".repeat(180),
            "€".repeat(60),
            format!("a{}", "é".repeat(89)),
            "\u{FFFD}".repeat(60),
        ];
        for (name, kept) in names.into_iter().zip(kept) {
            let temp = temp_path(&Path::new("/d").join(&name));
            let temp_name = temp.file_name().unwrap();
            assert!(temp_name.len() <= 255, "{} bytes", temp_name.len());
            let shown = temp_name.to_string_lossy();
            assert!(is_temp_name(&shown));
            assert!(shown.starts_with(&format!(".{kept}.editref-")), "{shown}");
        }
    }

    /// The temp-file shape needs all three marks — a leading dot, `.editref-` and a `.tmp`
    /// ending — so that a user's file that has only some of them is never counted as a
    /// leftover of editref's.
    #[test]
    fn a_temp_name_has_all_three_marks() {
        assert!(is_temp_name(".a.txt.editref-12-deadbeef.tmp"));
        for other in [
            "a.txt.editref-12-deadbeef.tmp",
            ".a.txt.editref-12-deadbeef",
            ".a.txt.tmp",
            "notes.editref-draft",
        ] {
            assert!(!is_temp_name(other), "{other}");
        }
    }
}
