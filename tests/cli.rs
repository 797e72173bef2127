//! The binary as users drive it: `editref serve` over adapter protocol v1, `editref call` with and
//! without a session file, and the human subcommands with their exit codes. Every edit checks
//! the exact bytes on disk.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_editref");

/// The state directory the spawned binary keeps its undo journals in (UNDO-7): one under the
/// build's temp space, never the home of whoever runs the tests.
fn state_home() -> std::path::PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("state")
}

struct Serve {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Serve {
    fn start() -> Serve {
        let mut child = Command::new(BIN)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Serve {
            child,
            stdin,
            stdout,
        }
    }

    fn raw(&mut self, line: &str) -> Value {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
        let mut reply = String::new();
        self.stdout.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap()
    }

    fn send(&mut self, v: Value) -> Value {
        self.raw(&v.to_string())
    }

    fn call(&mut self, tool: &str, input: Value) -> Value {
        self.send(json!({"type": "call", "seq": 1, "tool": tool, "input": input}))
    }

    fn bye(mut self) {
        self.send_no_reply(json!({"type": "bye"}));
        let status = self.child.wait().unwrap();
        assert!(status.success());
    }

    fn send_no_reply(&mut self, v: Value) {
        self.stdin.write_all(v.to_string().as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }
}

fn read_then_edit(s: &mut Serve, dir: &Path, name: &str, old: &str, new: &str) -> Value {
    let p = dir.join(name);
    let p = p.to_str().unwrap();
    let r = s.call("Read", json!({"file_path": p}));
    assert_eq!(r["ok"], true, "{r}");
    s.call(
        "Edit",
        json!({"file_path": p, "old_string": old, "new_string": new}),
    )
}

#[test]
fn serve_edits_every_hard_kind_of_file_byte_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(d.join("crlf.txt"), b"one\r\ntwo\r\nthree\r\n").unwrap();
    std::fs::write(d.join("u16.txt"), b"\xFF\xFEh\0i\0\r\0\n\0").unwrap();
    std::fs::write(
        d.join("latin.txt"),
        b"na\xEFve caf\xE9 \x93smart\x94 quotes, cr\xE8me br\xFBl\xE9e\n",
    )
    .unwrap();
    std::fs::write(d.join("curly.md"), "He said “hello”.\n".as_bytes()).unwrap();
    std::fs::create_dir(d.join("dots")).unwrap();
    std::fs::write(d.join("dots/rc"), b"set a\n").unwrap();
    std::os::unix::fs::symlink("dots/rc", d.join("rc-link")).unwrap();

    let mut s = Serve::start();
    let hello = s.send(json!({"type": "hello", "protocol": 1}));
    assert_eq!(hello["protocol"], 1);
    assert_eq!(
        s.send(json!({"type": "case_start", "id": "demo", "sandbox": d})),
        json!({"type": "ready"})
    );
    let r = read_then_edit(&mut s, &d, "crlf.txt", "one\ntwo", "1\n2");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(d.join("crlf.txt")).unwrap(),
        b"1\r\n2\r\nthree\r\n"
    );
    let r = read_then_edit(&mut s, &d, "u16.txt", "hi", "yo");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(d.join("u16.txt")).unwrap(),
        b"\xFF\xFEy\0o\0\r\0\n\0"
    );
    let r = read_then_edit(&mut s, &d, "latin.txt", "café", "thé");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(d.join("latin.txt")).unwrap(),
        b"na\xEFve th\xE9 \x93smart\x94 quotes, cr\xE8me br\xFBl\xE9e\n"
    );
    let r = read_then_edit(&mut s, &d, "curly.md", "said \"hello\"", "said \"bye\"");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(d.join("curly.md")).unwrap(),
        "He said “bye”.\n".as_bytes()
    );
    let r = read_then_edit(&mut s, &d, "rc-link", "set a", "set b");
    assert_eq!(r["ok"], true, "{r}");
    assert!(std::fs::symlink_metadata(d.join("rc-link"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(d.join("dots/rc")).unwrap(), b"set b\n");
    assert_eq!(s.send(json!({"type": "case_end"})), json!({"type": "done"}));
    s.bye();
}

#[test]
fn serve_answers_bad_input_with_coded_errors_and_keeps_going() {
    let dir = tempfile::tempdir().unwrap();
    let d = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(d.join("f.txt"), b"a\n").unwrap();
    let p = d.join("f.txt");
    let mut s = Serve::start();
    s.send(json!({"type": "hello", "protocol": 1}));
    s.send(json!({"type": "case_start", "id": "bad", "sandbox": d}));
    let r = s.raw("{this is not json");
    assert_eq!(r["error"]["code"], "invalid_input");
    let r = s.call(
        "Edit",
        json!({"file_path": p, "old_string": "a", "new_string": "b", "bogus": true}),
    );
    assert_eq!(r["error"]["code"], "invalid_input");
    let r = s.call(
        "Edit",
        json!({"file_path": p, "old_string": 7, "new_string": "b"}),
    );
    assert_eq!(r["error"]["code"], "invalid_input");
    let r = s.call(
        "Edit",
        json!({"file_path": "a\u{0}b", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(r["error"]["code"], "invalid_path");
    let r = s.call("Read", json!({"file_path": d}));
    assert_eq!(r["error"]["code"], "is_directory");
    let fifo = d.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let r = s.call("Read", json!({"file_path": fifo}));
    assert_eq!(r["error"]["code"], "blocked_path");
    let r = s.call(
        "Edit",
        json!({"file_path": fifo, "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(r["error"]["code"], "not_regular_file");
    std::fs::write(d.join("bin.dat"), b"\x00\x01\x02").unwrap();
    let r = s.call("Read", json!({"file_path": d.join("bin.dat")}));
    assert_eq!(r["error"]["code"], "binary");
    std::fs::write(d.join("bad.txt"), b"caf\xC3\xA9 then a stray \xFF byte").unwrap();
    let r = s.call("Read", json!({"file_path": d.join("bad.txt")}));
    assert_eq!(r["error"]["code"], "encoding");
    std::fs::write(d.join("nb.ipynb"), b"{ not json").unwrap();
    let r = s.call("Read", json!({"file_path": d.join("nb.ipynb")}));
    assert_eq!(r["error"]["code"], "invalid_notebook");
    let r = s.call(
        "Edit",
        json!({"file_path": "/etc/hostname", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(r["error"]["code"], "outside_root");
    let r = s.send(json!({"type": "mystery"}));
    assert_eq!(r["error"]["code"], "invalid_input");
    assert_eq!(std::fs::read(&p).unwrap(), b"a\n");
    assert_eq!(std::fs::read(d.join("nb.ipynb")).unwrap(), b"{ not json");
    s.bye();
}

fn call(args: &[&str], stdin: &str, cwd: &Path) -> (i32, Value) {
    call_bytes(args, stdin.as_bytes(), cwd)
}

/// `editref ARGS` in `cwd`, its stdin a pipe, its undo journal under the tests' state home.
fn command(args: &[&str], cwd: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .current_dir(cwd)
        .env("XDG_STATE_HOME", state_home())
        .stdin(Stdio::piped());
    c
}

fn call_bytes(args: &[&str], stdin: &[u8], cwd: &Path) -> (i32, Value) {
    let mut child = command(args, cwd).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn call_with_a_session_file_enforces_read_before_write_and_staleness() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"a\n").unwrap();
    let sess = d.join("state.json");
    let s = sess.to_str().unwrap();
    let edit = r#"{"tool":"Edit","input":{"file_path":"f.txt","old_string":"a","new_string":"b"}}"#;
    let (code, v) = call(&["call", "--session", s], edit, d);
    assert_eq!((code, v["error"]["code"].clone()), (1, json!("not_read")));
    let (code, _) = call(
        &["call", "--session", s],
        r#"{"tool":"Read","input":{"file_path":"f.txt"}}"#,
        d,
    );
    assert_eq!(code, 0);
    std::fs::write(d.join("f.txt"), b"changed\n").unwrap();
    let f = std::fs::File::options()
        .write(true)
        .open(d.join("f.txt"))
        .unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3))
        .unwrap();
    let (code, v) = call(&["call", "--session", s], edit, d);
    assert_eq!((code, v["error"]["code"].clone()), (1, json!("stale")));
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"changed\n");
    // Without a session the call is one-shot: no read needed.
    let (code, v) = call(
        &["call"],
        r#"{"tool":"Edit","input":{"file_path":"f.txt","old_string":"changed","new_string":"c"}}"#,
        d,
    );
    assert_eq!((code, v["ok"].clone()), (0, json!(true)));
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"c\n");
    let (code, v) = call(&["call"], "not json", d);
    assert_eq!(
        (code, v["error"]["code"].clone()),
        (1, json!("invalid_input"))
    );
}

/// `editref call` parses the call as it reads it (a many-megabyte call is never held twice):
/// bytes that are not UTF-8, in a string or outside one, and text after the call are refused
/// like any other call that is not JSON, with a coded error, and the file stays as it was.
#[test]
fn call_refuses_a_call_that_is_not_utf8_or_not_one_value_with_a_coded_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"a\n").unwrap();
    let edit = |old: &[u8]| {
        let mut req = br#"{"tool":"Edit","input":{"file_path":"f.txt","old_string":""#.to_vec();
        req.extend_from_slice(old);
        req.extend_from_slice(br#"","new_string":"b"}}"#);
        req
    };
    let mut trailing = edit(b"a");
    trailing.extend_from_slice(b" {}");
    for (what, req) in [
        ("a string that is not UTF-8", edit(b"a\xff")),
        ("a lone continuation byte outside strings", {
            let mut r = edit(b"a");
            r.insert(1, 0x80);
            r
        }),
        ("a second value after the call", trailing),
    ] {
        let (code, v) = call_bytes(&["call"], &req, d);
        assert_eq!(
            (code, v["error"]["code"].clone()),
            (1, json!("invalid_input")),
            "{what}: {v}"
        );
        assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"a\n", "{what}");
        let left: Vec<_> = std::fs::read_dir(d).unwrap().collect();
        assert_eq!(left.len(), 1, "{what}: no temp file is left");
    }
    // The same call in valid UTF-8 succeeds.
    let (code, v) = call_bytes(&["call"], &edit(b"a"), d);
    assert_eq!((code, v["ok"].clone()), (0, json!(true)), "{v}");
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"b\n");
}

/// `editref call` whose reader has already gone (stdout a pipe closed at the other end) ends
/// quietly with the call's own exit code: the edit is made, the refusal is a refusal, and
/// nothing is said on stderr.
#[test]
fn call_into_a_closed_pipe_ends_quietly_with_the_calls_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"a\r\nb\r\n").unwrap();
    let quiet_call = |req: &str| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut child = command(&["call"], d)
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(req.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let edit = r#"{"tool":"Edit","input":{"file_path":"f.txt","old_string":"b","new_string":"c"}}"#;
    assert_eq!(quiet_call(edit), (Some(0), String::new()));
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"a\r\nc\r\n");
    // Refused (not_found now): exit 1, still nothing on stderr, the file as it was.
    assert_eq!(quiet_call(edit), (Some(1), String::new()));
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), b"a\r\nc\r\n");
    let left: Vec<_> = std::fs::read_dir(d).unwrap().collect();
    assert_eq!(left.len(), 1, "no temp file is left");
}

fn run(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("XDG_STATE_HOME", state_home())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An edit named by its absolute path prints a diff whose headers name it as git does,
/// `a/…/f.txt`, not `a//…/f.txt`; the file holds the edit.
#[test]
fn the_diff_of_an_absolute_path_has_no_double_slash() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = d.join("f.txt");
    std::fs::write(&file, b"one\r\n").unwrap();
    let path = file.to_str().unwrap();
    let (code, out, err) = run(
        &["edit", path, "--old-string", "one", "--new-string", "two"],
        d,
    );
    assert_eq!(code, 0, "{err}");
    let name = path.trim_start_matches('/');
    assert!(
        out.starts_with(&format!(
            "--- a/{name}\n+++ b/{name}\n@@ -1,1 +1,1 @@\n-one\n+two\n"
        )),
        "{out}"
    );
    assert!(!out.contains("a//") && !out.contains("b//"), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), b"two\r\n");
}

#[test]
fn human_subcommands_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f.txt"), b"x = 1\r\ny = 1\r\n").unwrap();
    let (code, out, _) = run(
        &[
            "edit",
            "f.txt",
            "--old-string",
            "x = 1",
            "--new-string",
            "x = 2",
        ],
        d,
    );
    assert_eq!(code, 0);
    assert!(out.contains("-x = 1") && out.contains("+x = 2"), "{out}");
    assert_eq!(
        std::fs::read(d.join("f.txt")).unwrap(),
        b"x = 2\r\ny = 1\r\n"
    );
    let (code, _, err) = run(
        &["edit", "f.txt", "--old-string", "= ", "--new-string", "=="],
        d,
    );
    assert_eq!(code, 1);
    assert!(err.contains("ambiguous"), "{err}");
    let (code, out, _) = run(
        &[
            "edit",
            "f.txt",
            "--old-string",
            "y = 1",
            "--new-string",
            "y = 3",
            "--dry-run",
            "--json",
        ],
        d,
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["dryRun"], true);
    assert_eq!(
        std::fs::read(d.join("f.txt")).unwrap(),
        b"x = 2\r\ny = 1\r\n"
    );
    let (code, out, _) = run(&["read", "f.txt", "--offset", "2"], d);
    assert_eq!((code, out.as_str()), (0, "2\ty = 1\n"));
    let (code, _, _) = run(
        &[
            "multi-edit",
            "f.txt",
            "--edits",
            r#"[{"old_string":"x = 2","new_string":"x = 4"},{"old_string":"y = 1","new_string":"y = 5"}]"#,
        ],
        d,
    );
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read(d.join("f.txt")).unwrap(),
        b"x = 4\r\ny = 5\r\n"
    );
    let (code, _, _) = run(&["write", "g.txt", "--content", "new\n"], d);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(d.join("g.txt")).unwrap(), b"new\n");
    let (code, _, _) = run(&["edit", "f.txt", "--bogus"], d);
    assert_eq!(code, 2);
    let (code, _, err) = run(
        &[
            "edit",
            "../outside.txt",
            "--old-string",
            "a",
            "--new-string",
            "b",
            "--root",
            ".",
        ],
        d,
    );
    assert_eq!(code, 1);
    assert!(err.contains("outside_root"), "{err}");
}

/// The human edit output is the same diff the JSON result carries, then one summary line;
/// a dry run prints what would change and leaves the bytes alone (EDIT-6, EDIT-7).
#[test]
fn human_edit_output_is_the_json_diff_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = b"a tok\nb\nc\nd\ne\nf\ng\nh\ni tok\n";
    std::fs::write(d.join("f.txt"), original).unwrap();
    let args = [
        "edit",
        "f.txt",
        "--old-string",
        "tok",
        "--new-string",
        "TOK",
        "--replace-all",
    ];
    let mut dry = args.to_vec();
    dry.extend(["--dry-run", "--json"]);
    let (code, out, _) = run(&dry, d);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let diff = v["diff"].as_str().unwrap().to_string();
    assert_eq!(v["structuredPatch"].as_array().unwrap().len(), 2);
    let mut dry_human = args.to_vec();
    dry_human.push("--dry-run");
    let (code, out, _) = run(&dry_human, d);
    assert_eq!(code, 0);
    assert_eq!(out, format!("{diff}would change f.txt (2 replacements)\n"));
    assert_eq!(std::fs::read(d.join("f.txt")).unwrap(), original);
    let (code, out, _) = run(&args, d);
    assert_eq!(code, 0);
    assert_eq!(out, format!("{diff}changed f.txt (2 replacements)\n"));
    assert_eq!(
        std::fs::read(d.join("f.txt")).unwrap(),
        b"a TOK\nb\nc\nd\ne\nf\ng\nh\ni TOK\n"
    );
    let (code, out, _) = run(
        &[
            "multi-edit",
            "f.txt",
            "--edits",
            r#"[{"old_string":"a TOK","new_string":"A"},{"old_string":"i TOK","new_string":"I"}]"#,
        ],
        d,
    );
    assert_eq!(code, 0);
    assert!(
        out.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n-a TOK\n+A\n"),
        "{out}"
    );
    assert!(out.ends_with("changed f.txt (2 edits)\n"), "{out}");
    assert_eq!(
        std::fs::read(d.join("f.txt")).unwrap(),
        b"A\nb\nc\nd\ne\nf\ng\nh\nI\n"
    );
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // No temp file is left, and the undo journal (UNDO-7) is kept outside the working tree.
    assert_eq!(names, ["f.txt"]);
}

/// `editref conform …` hands its arguments to the harness binary, `editref-conform`, found next
/// to the running executable, and exits with the harness's status. A stand-in harness records
/// what it was given, so the test checks the hand-over itself, not the harness.
#[test]
fn conform_runs_the_harness_beside_the_binary_with_the_same_arguments() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let exe = dir.path().join("editref");
    // A hard link keeps the executable's path inside `dir` (current_exe follows no link).
    if std::fs::hard_link(BIN, &exe).is_err() {
        std::fs::copy(BIN, &exe).unwrap();
    }
    let record = dir.path().join("args.txt");
    let harness = dir.path().join("editref-conform");
    std::fs::write(
        &harness,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nexit 3\n",
            record.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&harness, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = Command::new(&exe)
        .args(["conform", "--impl", "python3 a b.py", "--only", "eol/*"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "the harness's exit status");
    assert_eq!(
        std::fs::read(&record).unwrap(),
        b"--impl\npython3 a b.py\n--only\neol/*\n"
    );
    // `editref help conform` is the harness's own --help.
    let out = Command::new(&exe)
        .args(["help", "conform"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(std::fs::read(&record).unwrap(), b"--help\n");
    // `--version` is the harness's too: passed on, not taken as editref's own.
    let out = Command::new(&exe)
        .args(["conform", "--version"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(std::fs::read(&record).unwrap(), b"--version\n");

    // Without a harness beside it (and none on PATH), a usage error that says how to get one.
    std::fs::remove_file(&harness).unwrap();
    let out = Command::new(&exe)
        .args(["conform", "--builtin"])
        .env("PATH", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("editref-conform"), "{err}");
}
