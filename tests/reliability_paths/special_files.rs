//! PATH-3 and READ-5: FIFOs, sockets and device nodes as targets — refused without hanging, by
//! every tool, in a child process under a watchdog — and a FIFO swapped in for a file just
//! before it is loaded.
//!
//! The suite is one binary in modules by kind of hostile path; the sandbox ([`crate::Tree`]),
//! the tally of refusals and the list of tools to aim are shared from `main.rs`.

use crate::{every_tool, rs, Tree};
use editref::disk::{FaultFs, Op, RealFs};
use editref::{Config, Session};
use serde_json::json;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Makes a character device node in the sandbox (root only); `None` when not permitted.
fn mknod_char(path: &Path, major: u32, minor: u32) -> Option<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a valid NUL-terminated path; mknod has no other memory effects.
    let rc = unsafe {
        libc::mknod(
            c.as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(major, minor),
        )
    };
    (rc == 0).then_some(())
}

#[test]
fn path_3_fifos_sockets_and_devices_never_hang_and_are_refused() {
    let tree = Tree::new();
    let root = tree.root();
    for name in ["fifo", "fifo.ipynb"] {
        let c = std::ffi::CString::new(root.join(name).as_os_str().as_bytes()).expect("path");
        // SAFETY: valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0, "mkfifo");
    }
    let _listener = std::os::unix::net::UnixListener::bind(root.join("sock")).expect("bind");
    // Device nodes inside the sandbox when permitted (so that a bug could never replace a real
    // /dev entry); otherwise links to the real, harmless ones.
    let mut devices = Vec::new();
    for (name, minor, real) in [
        ("null", 3, "/dev/null"),
        ("zero", 5, "/dev/zero"),
        ("full", 7, "/dev/full"),
    ] {
        let p = root.join(format!("dev-{name}"));
        if mknod_char(&p, 1, minor).is_none() {
            symlink(real, &p).expect("symlink");
        }
        devices.push(format!("dev-{name}"));
    }
    let root_arg = root.to_str().expect("UTF-8").to_string();
    let mut tried = 0u64;
    let mut problems = Vec::new();
    let (mut wrong_code, mut changed) = (0u64, 0u64);
    let mut targets: Vec<String> = vec!["fifo".into(), "fifo.ipynb".into(), "sock".into()];
    targets.extend(devices.iter().cloned());
    for p in &targets {
        for (tool, input) in every_tool(p) {
            let codes: &[&str] = match tool {
                "Read" => &["blocked_path"],
                "NotebookEdit" if !p.ends_with(".ipynb") => &["not_notebook"],
                _ => &["not_regular_file"],
            };
            // Device links to the real /dev resolve outside the root.
            let codes: Vec<&str> = codes.iter().copied().chain(["outside_root"]).collect();
            tried += 1;
            let before = rs::snapshot(tree.top());
            // Each call in its own process with a watchdog: a hang fails the test, never stalls it.
            let (reply, _) = rs::call(
                &root,
                &["--root", &root_arg],
                &json!({"tool": tool, "input": input}),
            );
            let code = rs::code_of(&reply).unwrap_or_else(|| "ok".into());
            if !codes.contains(&code.as_str()) {
                wrong_code += 1;
                problems.push(format!("{tool} {p}: want {codes:?}, got {code}"));
            }
            let changes = rs::diff(&before, &rs::snapshot(tree.top()));
            if !changes.is_empty() {
                changed += 1;
                problems.push(format!("{tool} {p}: changed {changes:?}"));
            }
        }
    }
    // Real device paths by name, read-only tools only (READ-5), and one-shot refusals.
    for dev in [
        "/dev/zero",
        "/dev/urandom",
        "/dev/stdin",
        "/dev/tty",
        "/dev/fd/0",
        "/proc/self/fd/0",
        "/dev/null",
    ] {
        tried += 1;
        let (reply, _) = rs::call(
            &root,
            &[],
            &json!({"tool": "Read", "input": {"file_path": dev}}),
        );
        if rs::code_of(&reply).as_deref() != Some("blocked_path") {
            wrong_code += 1;
            problems.push(format!("Read {dev}: {reply}"));
        }
    }
    let mut rec = rs::Record::new("paths", "special_files");
    rec.set("hostile_calls", tried)
        .set("wrong_code", wrong_code)
        .set("corrupted", changed)
        .set(
            "device_nodes",
            if std::fs::symlink_metadata(root.join("dev-null"))
                .map(|m| m.file_type().is_symlink())
                .unwrap_or(true)
            {
                "links to /dev"
            } else {
                "mknod in sandbox"
            },
        );
    rec.write();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn path_3_a_fifo_swapped_in_before_the_load_does_not_hang() {
    let tree = Tree::new();
    let root = tree.root();
    let reader = tree.session();
    reader
        .call("Read", &json!({"file_path": "inside.txt"}))
        .expect("Read");
    let target = root.join("inside.txt");
    let fired = Arc::new(AtomicBool::new(false));
    let f2 = fired.clone();
    let t2 = target.clone();
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, _| {
        if op == Op::OpenRead && !f2.swap(true, Ordering::SeqCst) {
            std::fs::remove_file(&t2).expect("remove");
            let c = std::ffi::CString::new(t2.as_os_str().as_bytes()).expect("path");
            // SAFETY: valid path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
        }
    });
    let session = Session::with_fs(Config::new(&root).with_root(&root), Arc::new(fs));
    session.set_read_state(reader.read_state());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = session.call(
            "Edit",
            &json!({"file_path": "inside.txt", "old_string": "inside", "new_string": "x"}),
        );
        let _ = tx.send(r.map_err(|e| e.code.as_str()));
    });
    let r = rx
        .recv_timeout(rs::WATCHDOG)
        .expect("the edit hung on a FIFO");
    assert!(fired.load(Ordering::SeqCst));
    let right_code = matches!(r, Err("not_regular_file") | Err("stale"));
    assert!(std::fs::symlink_metadata(&target)
        .expect("lstat")
        .file_type()
        .is_fifo_like());
    assert!(rs::residue(tree.top()).is_empty());
    let mut rec = rs::Record::new("paths", "fifo_swapped_in");
    rec.set("hostile_calls", 1)
        .set("wrong_code", u64::from(!right_code));
    rec.write();
    assert!(right_code, "want not_regular_file or stale, got {r:?}");
}

trait FifoLike {
    fn is_fifo_like(&self) -> bool;
}

impl FifoLike for std::fs::FileType {
    fn is_fifo_like(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_fifo()
    }
}
