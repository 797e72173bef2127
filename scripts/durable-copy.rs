//! `durable-copy SRC DST`: the floor of a durable, atomic whole-file rewrite, for
//! `scripts/bench-floor`.
//!
//! It does what any tool that promises a durable, atomic replacement of DST must do at the
//! least, and nothing more: create a new file in DST's directory, copy SRC into it inside the
//! kernel (`copy_file_range`, as `cp` does: no byte passes through user space), give it SRC's
//! mode, `fsync` it, rename it over DST, and `fsync` the directory so that the rename survives a
//! crash. An edit tool must also read and search the file, so this is a lower bound of an edit,
//! not a competitor. Built by `scripts/bench-floor` with `rustc -O` (standard library only).

use std::ffi::c_int;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::process::ExitCode;

extern "C" {
    // glibc's wrapper of copy_file_range(2).
    fn copy_file_range(
        fd_in: c_int,
        off_in: *mut i64,
        fd_out: c_int,
        off_out: *mut i64,
        len: usize,
        flags: u32,
    ) -> isize;
}

fn durable_copy(src: &Path, dst: &Path) -> io::Result<()> {
    let input = File::open(src)?;
    let meta = input.metadata()?;
    let dir = match dst.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = dst
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "DST has no file name"))?;
    let tmp = dir.join(format!(
        ".{}.durable-copy.{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let output = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    let result = (|| {
        let mut left = meta.len() as usize;
        while left > 0 {
            // SAFETY: two descriptors this function owns; null offsets use and advance the
            // files' own positions.
            let n = unsafe {
                copy_file_range(
                    input.as_raw_fd(),
                    std::ptr::null_mut(),
                    output.as_raw_fd(),
                    std::ptr::null_mut(),
                    left,
                    0,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if n == 0 {
                break; // the source shrank meanwhile
            }
            left -= n as usize;
        }
        output.set_permissions(fs::Permissions::from_mode(meta.permissions().mode()))?;
        output.sync_all()?;
        drop(output);
        fs::rename(&tmp, dst)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: durable-copy SRC DST");
        return ExitCode::from(2);
    }
    match durable_copy(Path::new(&args[0]), Path::new(&args[1])) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("durable-copy: {e}");
            ExitCode::FAILURE
        }
    }
}
