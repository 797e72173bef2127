//! Harness actions: `modify`, `touch`, `chmod`, `remove` and `link`, the steps in which the
//! harness plays another program changing the files between two calls.
//!
//! An action must change the disk the way a real program would (write in place through
//! symlinks, shift the mtime, keep the inode) and update the harness's record of every name the
//! change reaches, or the final checks would blame the implementation for the harness's own
//! writes. Each action does both, here.

use super::known::Known;
use super::paths::root_relative;
use super::{err, make_writable, Sandbox};
use crate::case::{Content, FileForm, Step};
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, UNIX_EPOCH};

impl Sandbox {
    /// Carries out a harness action between calls (`modify`, `touch`, `chmod`, `remove`,
    /// `link`); a call is not an action and does nothing here. The runner, the fuzzer's
    /// observation and a report judged again all act through this one place.
    pub fn act(&mut self, step: &Step) -> Result<(), String> {
        match step {
            Step::Call { .. } => Ok(()),
            Step::Modify {
                path,
                form,
                keep_mtime,
            } => self.modify(path, form, *keep_mtime),
            Step::Touch { path, shift_ns } => self.touch(path, *shift_ns),
            Step::Chmod { path, mode } => self.chmod(path, *mode),
            Step::Remove { path } => self.remove(path),
            Step::Link { path, target } => self.link(path, target),
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

    /// `link`: another program makes `case_path` a symbolic link to `target` — a new link, or
    /// one put in place of the file or link there (as `ln -sfn` does; a directory is refused).
    /// The link is made under a temporary name beside it and renamed over the old entry, so
    /// the path is never missing in between. Missing parent directories are created.
    pub fn link(&mut self, case_path: &str, target: &str) -> Result<(), String> {
        let key = root_relative(case_path)?;
        let abs = self.root.join(&key);
        let what = || format!("link {case_path}");
        if fs::symlink_metadata(&abs).is_ok_and(|m| m.is_dir()) {
            return Err(format!("{}: a directory is there", what()));
        }
        let parent = abs.parent().unwrap_or(&self.root).to_path_buf();
        fs::create_dir_all(&parent).map_err(|e| err(what(), e))?;
        let name = abs
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let tmp = parent.join(format!(".{name}.harness-link.tmp"));
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(target, &tmp).map_err(|e| err(what(), e))?;
        if let Err(e) = fs::rename(&tmp, &abs) {
            let _ = fs::remove_file(&tmp);
            return Err(err(what(), e));
        }
        self.known
            .insert(key, Known::Symlink(std::path::PathBuf::from(target)));
        Ok(())
    }
}

/// The file types `touch` refuses: FIFOs, devices and sockets.
trait FifoLike {
    fn is_fifo_like(&self) -> bool;
}

impl FifoLike for fs::FileType {
    fn is_fifo_like(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_fifo() || self.is_char_device() || self.is_block_device() || self.is_socket()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Actual;
    use std::path::Path;

    fn form(bytes: &[u8]) -> FileForm {
        FileForm {
            content: Content::Bytes(bytes.to_vec()),
            mode: None,
        }
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

        // A link made, then swapped to another file, between two calls.
        sb.link("l2", "h").unwrap();
        assert_eq!(
            sb.actual(Path::new("sandbox/l2")),
            Actual::Symlink("h".into())
        );
        sb.link("l", "h").unwrap();
        assert_eq!(
            sb.actual(Path::new("sandbox/l")),
            Actual::Symlink("h".into())
        );
        assert_eq!(
            sb.known().get(Path::new("sandbox/l")),
            Some(&Known::Symlink("h".into()))
        );
        // A file replaced by a link; no temporary name is left; a directory is refused.
        sb.link("h", "d/a.txt").unwrap();
        assert_eq!(
            sb.actual(Path::new("sandbox/h")),
            Actual::Symlink("d/a.txt".into())
        );
        assert_eq!(fs::read_dir(sb.dir()).unwrap().count(), 5);
        assert!(sb.link("d", "h").is_err());
        assert!(matches!(sb.actual(Path::new("sandbox/d")), Actual::Dir(_)));

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
