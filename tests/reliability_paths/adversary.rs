//! PATH-2 (D30) against a live adversary: while thousands of Reads, Edits and Writes run on
//! `d/…` inside the root, another thread swaps the directory `d` for a symlink to a directory
//! outside the root and back, in a tight loop (`renameat2` with `RENAME_EXCHANGE` of the real
//! directory and a symlink — relative `../outside` and absolute in turn — so that `d` is
//! always one or the other). The outside directory holds a canary and a file the edits would
//! match; it is watched with inotify for any open, access or change.
//!
//! Every call must either be done inside (a Read returns the inside bytes, an Edit lands in the
//! inside file, a Write creates its file inside) or be refused with a code; nothing outside
//! may be opened, changed or created. Run with `openat2` and with the `O_NOFOLLOW` walk.

use crate::rs;
use editref::disk::{BeneathFs, Resolver};
use editref::{Config, Session};
use serde_json::json;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

fn c(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).expect("no NUL in the sandbox")
}

/// Swaps the entries `a` and `b` atomically.
fn exchange(a: &CString, b: &CString) {
    // SAFETY: both are valid NUL-terminated paths for the duration of the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    assert_eq!(
        rc,
        0,
        "RENAME_EXCHANGE: {}",
        std::io::Error::last_os_error()
    );
}

/// An inotify watch on a directory: every open, read, change or new entry in it.
struct Watch(libc::c_int);

impl Watch {
    fn new(dir: &Path) -> Watch {
        // SAFETY: plain system calls; the path is a valid NUL-terminated string.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        assert!(fd >= 0, "inotify_init1");
        let mask = libc::IN_OPEN
            | libc::IN_ACCESS
            | libc::IN_MODIFY
            | libc::IN_ATTRIB
            | libc::IN_CREATE
            | libc::IN_DELETE
            | libc::IN_MOVED_TO
            | libc::IN_MOVED_FROM
            | libc::IN_CLOSE_WRITE;
        // SAFETY: as above.
        let wd = unsafe { libc::inotify_add_watch(fd, c(dir).as_ptr(), mask) };
        assert!(wd >= 0, "inotify_add_watch");
        Watch(fd)
    }

    /// The number of events seen so far.
    fn events(&self) -> u64 {
        let mut n = 0;
        let mut buf = [0u8; 4096];
        loop {
            // SAFETY: `buf` is writable for its full length, which is what is passed.
            let got = unsafe { libc::read(self.0, buf.as_mut_ptr().cast(), buf.len()) };
            if got <= 0 {
                return n;
            }
            let mut off = 0usize;
            let head = std::mem::size_of::<libc::inotify_event>();
            while off + head <= got as usize {
                // SAFETY: the kernel wrote whole events; read_unaligned copes with any offset.
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf.as_ptr().add(off).cast()) };
                n += 1;
                off += head + ev.len as usize;
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours and closed once.
        unsafe { libc::close(self.0) };
    }
}

/// Bytes, mtime and inode of every entry of a directory.
fn state(dir: &Path) -> BTreeMap<std::ffi::OsString, (Vec<u8>, i64, i64, u64)> {
    std::fs::read_dir(dir)
        .expect("list")
        .map(|e| {
            let e = e.expect("entry");
            let m = e.metadata().expect("stat");
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (e.file_name(), (bytes, m.mtime(), m.mtime_nsec(), m.ino()))
        })
        .collect()
}

fn run(test: &'static str, how: Resolver) {
    let sandbox = rs::sandbox();
    let top = std::fs::canonicalize(sandbox.path()).expect("canonical");
    let (root, outside) = (top.join("root"), top.join("outside"));
    std::fs::create_dir_all(root.join("d")).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(root.join("d/f.txt"), "n=0\n").expect("write");
    std::fs::write(outside.join("f.txt"), "n=0\nOUTSIDE\n").expect("write");
    std::fs::write(outside.join("canary.txt"), "canary\n").expect("write");
    symlink("../outside", root.join("swap-rel")).expect("symlink");
    symlink(&outside, root.join("swap-abs")).expect("symlink");
    let before = state(&outside);
    let watch = Watch::new(&outside);

    let total = rs::count("SWAP_EDITS", 300, 3000);
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps) = (stop.clone(), swaps.clone());
        let (d, rel, abs) = (
            c(&root.join("d")),
            c(&root.join("swap-rel")),
            c(&root.join("swap-abs")),
        );
        std::thread::spawn(move || {
            // Whole cycles only, so that `d` is the real directory again at the end.
            while !stop.load(Ordering::Relaxed) {
                for link in [&rel, &rel, &abs, &abs] {
                    exchange(&d, link);
                }
                swaps.fetch_add(4, Ordering::Relaxed);
            }
        })
    };

    let mut config = Config::new(&root).with_root(&root).one_shot();
    config.fsync = false;
    let fs = BeneathFs::with_resolver(&root, how).expect("open the root");
    let session = Session::with_fs(config, Arc::new(fs));
    let (mut done, mut edits, mut bad) = (0u64, 0u64, Vec::new());
    let mut refused: BTreeMap<String, u64> = BTreeMap::new();
    let mut written = Vec::new();
    for i in 0..total {
        let (tool, input) = match i % 3 {
            0 => ("Read", json!({"file_path": "d/f.txt"})),
            1 => (
                "Edit",
                json!({"file_path": "d/f.txt", "old_string": format!("n={edits}\n"),
                       "new_string": format!("n={}\n", edits + 1)}),
            ),
            _ => (
                "Write",
                json!({"file_path": format!("d/new-{i}.txt"), "content": format!("w{i}\n")}),
            ),
        };
        match session.call(tool, &input) {
            Ok(out) => {
                done += 1;
                if tool == "Read" && out.to_string().contains("OUTSIDE") {
                    bad.push(format!("Read {i} returned the outside file: {out}"));
                }
                if tool == "Edit" {
                    edits += 1;
                }
                if tool == "Write" {
                    written.push(i);
                }
            }
            Err(e) => *refused.entry(e.code.as_str().to_string()).or_default() += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().expect("the swapper");

    // Outside: no open, read or change seen, every byte, mtime and inode as it was.
    let accesses = watch.events();
    drop(watch);
    let changed_outside = before != state(&outside);
    // Inside: every call reported done was done there, exactly.
    let d = root.join("d");
    if std::fs::read(d.join("f.txt")).ok() != Some(format!("n={edits}\n").into_bytes()) {
        bad.push(format!("the inside file does not hold n={edits}"));
    }
    for i in &written {
        if std::fs::read(d.join(format!("new-{i}.txt"))).ok() != Some(format!("w{i}\n").into()) {
            bad.push(format!("Write {i} reported done is not inside"));
        }
    }
    let entries = std::fs::read_dir(&d).expect("list").count();
    if entries != 1 + written.len() || !rs::residue(&top).is_empty() {
        bad.push(format!(
            "{entries} entries inside for {} expected, residue {:?}",
            1 + written.len(),
            rs::residue(&top)
        ));
    }
    let allowed = ["outside_root", "stale", "file_not_found", "io"];
    for code in refused.keys() {
        if !allowed.contains(&code.as_str()) {
            bad.push(format!("refused with an unexpected code: {code}"));
        }
    }
    let escapes = accesses + u64::from(changed_outside);
    let mut rec = rs::Record::new("paths", test);
    rec.set("attempts", total)
        .set("swaps", swaps.load(Ordering::Relaxed))
        .set("done", done)
        .set("refused", total - done)
        .set("outside_accesses", accesses)
        .set("escapes", escapes)
        .set("corrupted", escapes + bad.len() as u64);
    // The codes the report has columns for are recorded even when no call got them (a run
    // without a single `stale` is a normal run, not a missing figure).
    for code in ["outside_root", "stale"] {
        rec.set(&format!("refused_{code}"), 0);
    }
    for (code, n) in &refused {
        rec.set(&format!("refused_{code}"), *n);
    }
    rec.write();
    assert_eq!(
        accesses, 0,
        "{accesses} opens or changes seen outside the root"
    );
    assert!(!changed_outside, "the outside directory changed");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn path_2_a_directory_swapped_for_a_symlink_in_a_loop_never_leads_outside_openat2() {
    run("adversary_swap_openat2", Resolver::Kernel);
}

#[test]
fn path_2_a_directory_swapped_for_a_symlink_in_a_loop_never_leads_outside_walk() {
    run("adversary_swap_walk", Resolver::Walk);
}
