//! PATH-1..4, DISK-2/3 and READ-5 against hostile paths: escapes from the root (`..`, absolute
//! paths, symlinks pointing outside directly, through a chain or through a symlinked parent
//! directory, and a directory swapped for a symlink between the checks and the write), hard
//! links, FIFOs, sockets and devices (no hang), NUL bytes, very long paths and names, and
//! names that are not UTF-8.
//!
//! Every refusal must carry the expected code and leave the whole sandbox — the root *and* the
//! files outside it — exactly as it was, with no temp residue; every success must produce the
//! exact bytes.

mod reliability_support;

use editref::disk::{FaultFs, Op, RealFs};
use editref::{Config, Session};
use reliability_support as rs;
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

const NOTEBOOK: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"c1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x = 1\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

/// `top/root` (the session's root and working directory) next to `top/outside`, with links
/// from the root to the outside of every kind.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new() -> Tree {
        let dir = rs::sandbox();
        let top = dir.path();
        let root = top.join("root");
        let outside = top.join("outside");
        for d in [&root, &outside, &outside.join("dir"), &root.join("sub")] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(outside.join("secret.txt"), "outside secret\n").expect("write");
        std::fs::write(outside.join("dir/inner.txt"), "outside inner\n").expect("write");
        std::fs::write(outside.join("nb.ipynb"), NOTEBOOK).expect("write");
        std::fs::write(root.join("inside.txt"), "inside\n").expect("write");
        std::fs::write(root.join("sub/f.txt"), "inside sub\n").expect("write");
        symlink("../outside/secret.txt", root.join("link-rel")).expect("symlink");
        symlink(outside.join("secret.txt"), root.join("link-abs")).expect("symlink");
        symlink("chain2", root.join("chain1")).expect("symlink");
        symlink("sub/../chain3", root.join("chain2")).expect("symlink");
        symlink("../outside/secret.txt", root.join("chain3")).expect("symlink");
        symlink("../outside/dir", root.join("dirlink")).expect("symlink");
        symlink("../outside/nb.ipynb", root.join("nb-link.ipynb")).expect("symlink");
        symlink("../outside", root.join("out")).expect("symlink");
        Tree { dir }
    }

    fn top(&self) -> &Path {
        self.dir.path()
    }

    fn root(&self) -> PathBuf {
        self.top().join("root")
    }

    fn session(&self) -> Session {
        Session::new(Config::new(self.root()).with_root(self.root()))
    }
}

/// Counts what was tried, for the figures.
#[derive(Default)]
struct Tally {
    tried: u64,
    changed: u64,
    wrong: Vec<String>,
}

impl Tally {
    /// One call that must be refused with one of `codes` and change nothing.
    fn refused(
        &mut self,
        tree: &Tree,
        session: &Session,
        tool: &str,
        input: Value,
        codes: &[&str],
    ) {
        self.tried += 1;
        let shown: String = input.to_string().chars().take(160).collect();
        let before = rs::snapshot(tree.top());
        let r = session.call(tool, &input);
        let after = rs::snapshot(tree.top());
        let changes = rs::diff(&before, &after);
        if !changes.is_empty() {
            self.changed += 1;
            self.wrong
                .push(format!("{tool} {shown}: changed the tree: {changes:?}"));
        }
        match r {
            Err(e) if codes.contains(&e.code.as_str()) => {}
            other => self.wrong.push(format!(
                "{tool} {shown}: want one of {codes:?}, got {:?}",
                other.map(|_| "ok").map_err(|e| e.code.as_str())
            )),
        }
    }

    fn finish(self, test: &'static str, extra: &[(&str, u64)]) {
        let mut rec = rs::Record::new("paths", test);
        rec.set("hostile_calls", self.tried)
            .set("corrupted", self.changed)
            .set(
                "wrong_code",
                self.wrong.len() as u64 - self.changed.min(self.wrong.len() as u64),
            );
        for (k, v) in extra {
            rec.set(k, *v);
        }
        rec.write();
        assert!(
            self.wrong.is_empty(),
            "{} problems:\n{}",
            self.wrong.len(),
            self.wrong.join("\n")
        );
    }
}

/// The five tools aimed at one path (and the create form of Edit).
fn every_tool(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("Read", json!({"file_path": path})),
        (
            "Edit",
            json!({"file_path": path, "old_string": "outside", "new_string": "PWNED"}),
        ),
        (
            "Edit",
            json!({"file_path": path, "old_string": "", "new_string": "PWNED"}),
        ),
        (
            "MultiEdit",
            json!({"file_path": path, "edits": [{"old_string": "outside", "new_string": "PWNED"}]}),
        ),
        ("Write", json!({"file_path": path, "content": "PWNED\n"})),
        (
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "c1", "new_source": "PWNED"}),
        ),
    ]
}

#[test]
fn path_2_escapes_are_outside_root_for_every_tool() {
    let tree = Tree::new();
    let session = tree.session();
    let abs = tree.top().join("outside/secret.txt");
    let abs = abs.to_str().expect("UTF-8 sandbox");
    let paths = [
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "./../outside/new.txt",
        abs,
        "link-rel",
        "link-abs",
        "chain1",
        "dirlink/inner.txt",
        "dirlink/new.txt",
        "out/dir/inner.txt",
        "out/brand/new/dir/file.txt",
        "nb-link.ipynb",
        "../outside/nb.ipynb",
        "out/nb.ipynb",
    ];
    let mut t = Tally::default();
    for p in paths {
        for (tool, input) in every_tool(p) {
            // NotebookEdit checks the extension first (NOTEBOOK-1).
            let codes: &[&str] = if tool == "NotebookEdit" && !p.ends_with(".ipynb") {
                &["not_notebook", "outside_root"]
            } else {
                &["outside_root"]
            };
            t.refused(&tree, &session, tool, input, codes);
        }
    }
    // The same through the binary, with the root on the command line.
    let root = tree.root();
    let root_arg = root.to_str().expect("UTF-8");
    for p in [
        "link-rel",
        "chain1",
        "dirlink/new.txt",
        "../outside/secret.txt",
    ] {
        t.tried += 1;
        let before = rs::snapshot(tree.top());
        let (reply, _) = rs::call(
            &root,
            &["--root", root_arg],
            &json!({"tool": "Write", "input": {"file_path": p, "content": "PWNED"}}),
        );
        if rs::code_of(&reply).as_deref() != Some("outside_root") {
            t.wrong.push(format!("editref call Write {p}: {reply}"));
        }
        if !rs::diff(&before, &rs::snapshot(tree.top())).is_empty() {
            t.changed += 1;
            t.wrong
                .push(format!("editref call Write {p} changed the tree"));
        }
        t.tried += 1;
        let mut cmd = Command::new(rs::BIN);
        cmd.current_dir(&root)
            .args(["edit", p, "--json", "--root", root_arg])
            .args(["--old-string", "outside", "--new-string", "PWNED"]);
        let run = rs::run(&mut cmd, None);
        run.assert_answered("editref edit");
        if rs::code_of(&run.json()).as_deref() != Some("outside_root") {
            t.wrong.push(format!("editref edit {p}: {:?}", run.json()));
        }
    }
    t.finish("escapes", &[]);
}

/// Swaps `root/sub` for a symlink to `target` (relative to the sandbox) when the tool is about
/// to create its temp file — after every check has passed.
fn swap_parent_during(
    tree: &Tree,
    tool: &str,
    input: Value,
    move_real_dir_to: Option<&str>,
) -> Result<Value, editref::ToolError> {
    let root = tree.root();
    let top = tree.top().to_path_buf();
    let config = || Config::new(&root).with_root(&root);
    let reader = Session::new(config());
    if tool != "Write" || input["file_path"] == json!("sub/f.txt") {
        let _ = reader.call("Read", &json!({"file_path": "sub/f.txt"}));
    }
    let armed = Arc::new(AtomicU64::new(u64::MAX));
    let fired = Arc::new(AtomicBool::new(false));
    let (a2, f2) = (armed.clone(), fired.clone());
    let moved = move_real_dir_to.map(|m| top.join(m));
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, nth| {
        if op == Op::CreateExclusive
            && nth == a2.load(Ordering::SeqCst)
            && !f2.swap(true, Ordering::SeqCst)
        {
            let sub = top.join("root/sub");
            match &moved {
                // The real directory moves outside and a link to it takes its place.
                Some(to) => {
                    std::fs::rename(&sub, to).expect("move the directory out");
                    symlink(to, &sub).expect("symlink");
                }
                // The directory is set aside and a link to an outside directory takes its place.
                None => {
                    std::fs::rename(&sub, top.join("root/sub-aside")).expect("set aside");
                    symlink(top.join("outside/dir"), &sub).expect("symlink");
                }
            }
        }
    });
    let session = Session::with_fs(config(), Arc::new(fs.clone()));
    session.set_read_state(reader.read_state());
    let base = fs
        .log()
        .iter()
        .filter(|o| **o == Op::CreateExclusive)
        .count() as u64;
    armed.store(base + 1, Ordering::SeqCst);
    let r = session.call(tool, &input);
    assert!(fired.load(Ordering::SeqCst), "the swap never ran");
    r
}

#[test]
fn path_2_a_parent_swapped_for_a_symlink_before_the_write_is_not_followed() {
    let mut tried = 0;
    let mut problems = Vec::new();
    let cases: Vec<(&str, Value)> = vec![
        (
            "Edit",
            json!({"file_path": "sub/f.txt", "old_string": "inside", "new_string": "PWNED"}),
        ),
        (
            "Write",
            json!({"file_path": "sub/f.txt", "content": "PWNED\n"}),
        ),
        (
            "Write",
            json!({"file_path": "sub/new.txt", "content": "PWNED\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "sub/new.txt", "old_string": "", "new_string": "PWNED\n"}),
        ),
    ];
    for moved in [None, Some("outside/moved")] {
        for (tool, input) in &cases {
            tried += 1;
            let tree = Tree::new();
            let outside_before = rs::snapshot(&tree.top().join("outside"));
            let r = swap_parent_during(&tree, tool, input.clone(), moved);
            let what = format!("{tool} {input} with the parent swapped ({moved:?})");
            // Whatever is outside the root now must be as it was (a moved directory keeps the
            // bytes it had when it moved).
            let outside_after = rs::snapshot(&tree.top().join("outside"));
            let changes: Vec<String> = rs::diff(&outside_before, &outside_after)
                .into_iter()
                .filter(|l| !(moved.is_some() && l.starts_with("added: moved")))
                .collect();
            if !changes.is_empty() {
                problems.push(format!("{what}: wrote outside the root: {changes:?}"));
            }
            if let Some(m) = moved {
                let f = tree.top().join(m).join("f.txt");
                if std::fs::read_to_string(&f).ok().as_deref() != Some("inside sub\n") {
                    problems.push(format!("{what}: the moved file changed outside the root"));
                }
                if tree.top().join(m).join("new.txt").exists() {
                    problems.push(format!("{what}: created a file outside the root"));
                }
            }
            match &r {
                Err(e) if ["stale", "outside_root"].contains(&e.code.as_str()) => {}
                other => problems.push(format!(
                    "{what}: want stale or outside_root, got {:?}",
                    other.as_ref().map(|_| "ok").map_err(|e| e.code.as_str())
                )),
            }
            if !rs::residue(tree.top()).is_empty() {
                problems.push(format!("{what}: residue {:?}", rs::residue(tree.top())));
            }
        }
    }
    let mut rec = rs::Record::new("paths", "parent_swapped_before_write");
    rec.set("hostile_calls", tried).set(
        "corrupted",
        problems
            .iter()
            .filter(|p| p.contains("outside the root"))
            .count() as u64,
    );
    rec.write();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn disk_3_hard_links_are_refused_inside_and_to_the_outside() {
    let tree = Tree::new();
    let root = tree.root();
    std::fs::write(root.join("a.txt"), "linked outside\n").expect("write");
    std::fs::hard_link(root.join("a.txt"), root.join("b.txt")).expect("link");
    std::fs::hard_link(tree.top().join("outside/secret.txt"), root.join("h.txt")).expect("link");
    std::fs::hard_link(tree.top().join("outside/nb.ipynb"), root.join("h.ipynb")).expect("link");
    let session = tree.session();
    let mut t = Tally::default();
    for p in ["a.txt", "b.txt", "h.txt", "h.ipynb"] {
        // Read is allowed (and records the read, so the writes below pass the read check).
        session
            .call("Read", &json!({"file_path": p}))
            .expect("Read a hard link");
        for (tool, input) in every_tool(p).into_iter().skip(1) {
            let codes: &[&str] = match (tool, p.ends_with(".ipynb")) {
                ("NotebookEdit", false) => &["not_notebook"],
                ("Edit" | "MultiEdit", true) => &["hard_link", "use_notebook_edit"],
                ("Edit", false) if input["old_string"] == json!("") => {
                    &["hard_link", "file_exists"]
                }
                _ => &["hard_link"],
            };
            t.refused(&tree, &session, tool, input, codes);
        }
    }
    t.finish("hard_links", &[]);
}

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
                problems.push(format!("{tool} {p}: want {codes:?}, got {code}"));
            }
            let changes = rs::diff(&before, &rs::snapshot(tree.top()));
            if !changes.is_empty() {
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
            problems.push(format!("Read {dev}: {reply}"));
        }
    }
    let mut rec = rs::Record::new("paths", "special_files");
    rec.set("hostile_calls", tried).set(
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
    assert!(
        matches!(r, Err("not_regular_file") | Err("stale")),
        "want not_regular_file or stale, got {r:?}"
    );
    assert!(std::fs::symlink_metadata(&target)
        .expect("lstat")
        .file_type()
        .is_fifo_like());
    assert!(rs::residue(tree.top()).is_empty());
    let mut rec = rs::Record::new("paths", "fifo_swapped_in");
    rec.set("hostile_calls", 1);
    rec.write();
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

#[test]
fn path_1_nul_bytes_and_empty_paths_are_invalid() {
    let tree = Tree::new();
    let session = tree.session();
    let mut t = Tally::default();
    for p in [
        "inside.txt\0",
        "\0",
        "in\0side.txt",
        "sub/\0/../inside.txt",
        "",
        "   ",
        "x\0.ipynb",
    ] {
        for (tool, input) in every_tool(p) {
            let codes: &[&str] = if tool == "NotebookEdit" && !p.ends_with(".ipynb") {
                &["not_notebook", "invalid_path"]
            } else {
                &["invalid_path"]
            };
            t.refused(&tree, &session, tool, input, codes);
        }
    }
    // Through the binary: a NUL in the JSON, and a lone surrogate that is no string at all.
    let root = tree.root();
    for raw in [
        r#"{"tool":"Write","input":{"file_path":"a\u0000b","content":"x"}}"#,
        r#"{"tool":"Write","input":{"file_path":"a\ud800b","content":"x"}}"#,
    ] {
        t.tried += 1;
        let before = rs::snapshot(tree.top());
        let mut cmd = Command::new(rs::BIN);
        cmd.arg("call").current_dir(&root);
        let run = rs::run(&mut cmd, Some(raw.as_bytes().to_vec()));
        run.assert_answered("editref call");
        let code = rs::code_of(&run.json());
        if !matches!(
            code.as_deref(),
            Some("invalid_path") | Some("invalid_input")
        ) {
            t.wrong.push(format!("{raw}: {code:?}"));
        }
        if !rs::diff(&before, &rs::snapshot(tree.top())).is_empty() {
            t.changed += 1;
            t.wrong.push(format!("{raw}: changed the tree"));
        }
    }
    t.finish("nul_and_empty", &[]);
}

#[test]
fn path_4_very_long_paths_are_refused_or_work_exactly() {
    let tree = Tree::new();
    let session = tree.session();
    let root = tree.root();
    let mut t = Tally::default();
    let long_name = "n".repeat(256);
    let long_path = "abcdefgh/".repeat(600) + "f.txt";
    for p in [long_name.as_str(), long_path.as_str()] {
        for (tool, input) in every_tool(p) {
            // A name over NAME_MAX fails resolution (invalid_path); a path over PATH_MAX whose
            // first directory is missing is simply not found, or cannot be created (io).
            let codes: &[&str] = if tool == "NotebookEdit" {
                &["not_notebook", "invalid_path"]
            } else {
                &["invalid_path", "file_not_found", "io"]
            };
            t.refused(&tree, &session, tool, input, codes);
        }
    }
    // The longest names and a deep path must simply work, with exact bytes.
    let mut ok = 0u64;
    let deep_len = 3900usize.saturating_sub(root.as_os_str().len());
    let deep = "d/".repeat(deep_len / 2) + "deep.txt";
    let names = [
        "a".repeat(255),
        "€".repeat(85),        // 255 bytes, 85 characters
        "é".repeat(127) + "x", // 255 bytes
        deep,
    ];
    for name in &names {
        let what = format!("{}-byte name", name.len());
        session
            .call("Write", &json!({"file_path": name, "content": "v1\n"}))
            .unwrap_or_else(|e| panic!("Write creating a {what}: {e}"));
        session
            .call(
                "Edit",
                &json!({"file_path": name, "old_string": "v1", "new_string": "v2"}),
            )
            .unwrap_or_else(|e| panic!("Edit of a {what}: {e}"));
        assert_eq!(
            std::fs::read(root.join(name)).expect("read"),
            b"v2\n",
            "{what}"
        );
        assert!(rs::residue(tree.top()).is_empty(), "{what}: residue");
        ok += 2;
    }
    t.finish("long_paths", &[("long_names_edited", ok)]);
}

#[test]
fn path_4_names_that_are_not_utf8() {
    let tree = Tree::new();
    let root = tree.root();
    let latin1 = OsStr::from_bytes(b"caf\xe9.txt");
    let long = OsStr::from_bytes(&[0xff; 255]);
    let dir = OsStr::from_bytes(b"d\xfe\xff");
    std::fs::write(root.join(latin1), "latin one\n").expect("write");
    std::fs::write(root.join(long), "long raw name\n").expect("write");
    std::fs::create_dir(root.join(dir)).expect("mkdir");
    symlink(latin1, root.join("to-latin1.txt")).expect("symlink");
    symlink(long, root.join("to-long.txt")).expect("symlink");
    symlink(dir, root.join("to-dir")).expect("symlink");
    let session = tree.session();
    let mut tried = 0u64;
    // Reachable through UTF-8 links: edited in place of the link's target, link kept.
    for (link, target, old, new) in [
        ("to-latin1.txt", latin1, "latin one", "latin two"),
        (
            "to-long.txt",
            long,
            "long raw name",
            "long raw name, edited",
        ),
    ] {
        tried += 2;
        session
            .call("Read", &json!({"file_path": link}))
            .expect("Read via link");
        session
            .call(
                "Edit",
                &json!({"file_path": link, "old_string": old, "new_string": new}),
            )
            .unwrap_or_else(|e| panic!("Edit via {link}: {e}"));
        assert_eq!(
            std::fs::read(root.join(target)).expect("read"),
            format!("{new}\n").as_bytes()
        );
        assert!(std::fs::symlink_metadata(root.join(link))
            .expect("lstat")
            .file_type()
            .is_symlink());
    }
    tried += 1;
    session
        .call(
            "Write",
            &json!({"file_path": "to-dir/new.txt", "content": "made\n"}),
        )
        .expect("Write into a non-UTF-8 directory");
    assert_eq!(
        std::fs::read(root.join(dir).join("new.txt")).expect("read"),
        b"made\n"
    );
    // A miss next to non-UTF-8 siblings: a plain file_not_found, whatever the suggestion.
    tried += 1;
    let e = session
        .call(
            "Edit",
            &json!({"file_path": "cafe.txt", "old_string": "a", "new_string": "b"}),
        )
        .expect_err("missing file");
    assert_eq!(e.code.as_str(), "file_not_found");
    // The command line cannot even name them as UTF-8: a usage error, never a panic.
    for args in [
        vec![
            OsStr::new("edit"),
            latin1,
            OsStr::new("--old-string"),
            OsStr::new("latin"),
            OsStr::new("--new-string"),
            OsStr::new("x"),
        ],
        vec![OsStr::new("read"), long],
    ] {
        tried += 1;
        let before = rs::snapshot(tree.top());
        let mut cmd = Command::new(rs::BIN);
        cmd.args(&args).current_dir(&root);
        let run = rs::run(&mut cmd, None);
        assert_eq!(
            run.code,
            Some(2),
            "usage error expected: {:?}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(rs::diff(&before, &rs::snapshot(tree.top())).is_empty());
    }
    assert!(rs::residue(tree.top()).is_empty());
    let mut rec = rs::Record::new("paths", "non_utf8_names");
    rec.set("hostile_calls", tried);
    rec.write();
}
