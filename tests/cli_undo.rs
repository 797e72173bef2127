//! UNDO-7 across the front ends, as users run them: the CLI subcommands, `editref call` (with and
//! without `--session`), `editref mcp` and `editref undo` keep one journal per root in the
//! user's state directory, so a write made through one is undone through another — and the
//! working tree holds nothing but the user's files. Every step checks the exact bytes on disk.
//!
//! Each test gives the binary a state directory of its own (`XDG_STATE_HOME`), so nothing is
//! written into the home of whoever runs the tests.

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_editref");

/// A project directory and a state directory beside it, both in a fresh temp directory.
struct Home {
    _dir: tempfile::TempDir,
    state: PathBuf,
    root: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let root = top.join("My Project");
        std::fs::create_dir(&root).unwrap();
        Home {
            state: top.join("state"),
            root,
            _dir: dir,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(&self.root)
            .env("XDG_STATE_HOME", &self.state)
            .env("NO_COLOR", "1");
        c
    }

    /// Runs a subcommand with `stdin`; returns the exit code and stdout.
    fn run(&self, args: &[&str], stdin: &str) -> (i32, String) {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, out) = self.run(args, "");
        assert_eq!(code, 0, "editref {args:?}: {out}");
        out
    }

    /// `editref call` with one JSON call; returns the reply.
    fn call(&self, args: &[&str], call: Value) -> Value {
        let mut all = vec!["call"];
        all.extend_from_slice(args);
        let (_, out) = self.run(&all, &call.to_string());
        serde_json::from_str(out.lines().next().unwrap_or("")).unwrap_or(Value::Null)
    }

    fn put(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.root.join(name), bytes).unwrap();
    }

    fn get(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.root.join(name)).unwrap()
    }

    /// The journal of the project: `<state>/editref/undo/<name>-<xxh3-64 of the root>`.
    fn journal(&self) -> PathBuf {
        let hash = xxhash_rust::xxh3::xxh3_64(self.root.as_os_str().as_encoded_bytes());
        self.state
            .join("editref/undo")
            .join(format!("My_Project-{hash:016x}"))
    }

    /// The names in the project directory: the user's files, nothing of editref's.
    fn tree(&self) -> Vec<String> {
        names(&self.root)
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn edit_args<'a>(old: &'a str, new: &'a str) -> Vec<&'a str> {
    vec![
        "edit",
        "f.txt",
        "--old-string",
        old,
        "--new-string",
        new,
        "--no-fsync",
    ]
}

#[test]
fn a_cli_edit_is_recorded_in_the_state_directory_and_undone_by_the_cli() {
    let h = Home::new();
    h.put("f.txt", b"one\r\ntwo\r\n");
    h.ok(&edit_args("two", "2"));
    assert_eq!(h.get("f.txt"), b"one\r\n2\r\n");
    assert_eq!(h.tree(), ["f.txt"], "no journal in the working tree");
    let journal = h.journal();
    let files = names(&journal);
    assert!(files.contains(&"root".to_string()) && files.contains(&"index".to_string()));
    assert_eq!(files.iter().filter(|n| n.ends_with(".json")).count(), 1);
    let mut root = h.root.as_os_str().as_encoded_bytes().to_vec();
    root.push(b'\n');
    assert_eq!(std::fs::read(journal.join("root")).unwrap(), root);
    assert_eq!(names(&h.state.join("editref/undo")).len(), 1);
    let out = h.ok(&["undo", "f.txt", "--no-fsync"]);
    assert_eq!(out, "restored f.txt (undid Edit)\n");
    assert_eq!(h.get("f.txt"), b"one\r\ntwo\r\n");
    assert_eq!(h.tree(), ["f.txt"]);
}

#[test]
fn call_with_and_without_a_session_shares_the_journal_with_the_cli() {
    let h = Home::new();
    h.put("f.txt", b"a\nb\n");
    let session_file = h.state.parent().unwrap().join("session.json");
    let s = session_file.to_str().unwrap();
    let read = json!({"tool": "Read", "input": {"file_path": "f.txt"}});
    assert_eq!(h.call(&["--session", s, "--no-fsync"], read)["ok"], true);
    let edit = json!({"tool": "Edit",
                      "input": {"file_path": "f.txt", "old_string": "b", "new_string": "B"}});
    assert_eq!(h.call(&["--session", s, "--no-fsync"], edit)["ok"], true);
    let edit = json!({"tool": "Edit",
                      "input": {"file_path": "f.txt", "old_string": "a", "new_string": "A"}});
    assert_eq!(h.call(&["--no-fsync"], edit)["ok"], true);
    assert_eq!(h.get("f.txt"), b"A\nB\n");
    // The one-shot call's unit first, through `call`; then the session's, through the CLI.
    let undo = json!({"tool": "Undo", "input": {"file_path": "f.txt"}});
    let out = h.call(&["--no-fsync"], undo);
    assert_eq!(out["output"]["undone"][0]["tool"], "Edit", "{out}");
    assert_eq!(h.get("f.txt"), b"a\nB\n");
    h.ok(&["undo", "f.txt", "--no-fsync"]);
    assert_eq!(h.get("f.txt"), b"a\nb\n");
    assert_eq!(h.tree(), ["f.txt"]);
}

/// `--root` and `--cwd` given relative are read as the session reads them (the root against
/// the working directory), so the journal is the root's whatever directory the process runs in.
#[test]
fn a_relative_root_finds_the_same_journal() {
    let h = Home::new();
    h.put("f.txt", b"x\n");
    let top = h.root.parent().unwrap();
    let mut call = h.command(&["call", "--cwd", "My Project", "--root", ".", "--no-fsync"]);
    let mut child = call
        .current_dir(top)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let edit = json!({"tool": "Edit",
                      "input": {"file_path": "f.txt", "old_string": "x", "new_string": "y"}});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(edit.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(h.get("f.txt"), b"y\n");
    assert_eq!(names(&h.state.join("editref/undo")).len(), 1);
    assert!(
        h.journal().is_dir(),
        "the journal of the project, not of its parent"
    );
    h.ok(&["undo", "f.txt", "--no-fsync"]);
    assert_eq!(h.get("f.txt"), b"x\n");
}

#[test]
fn a_refused_write_leaves_nothing_in_the_tree_or_the_state_directory() {
    let h = Home::new();
    h.put("f.txt", b"one\n");
    let (code, out) = h.run(&edit_args("absent", "x"), "");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("(not_found)"), "{out}");
    assert_eq!(h.get("f.txt"), b"one\n");
    assert_eq!(h.tree(), ["f.txt"]);
    assert!(
        !h.state.exists(),
        "nothing recorded for a write that did not happen"
    );
    // Nor does undo make a journal to find nothing in.
    let (code, out) = h.run(&["undo", "f.txt"], "");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("(nothing_to_undo)"), "{out}");
    assert!(!h.state.exists());
}

/// An undo run from another directory than the write looks in that directory's journal and
/// finds nothing: the refusal names the journal it looked in and its root, so the person sees
/// why (and where the write is: under the project's root). The file stays as the edit left it.
#[test]
fn an_undo_from_another_directory_names_the_journal_it_looked_in() {
    let h = Home::new();
    h.put("f.txt", b"one\n");
    h.ok(&edit_args("one", "two"));
    let parent = h.root.parent().unwrap();
    let out = h
        .command(&["undo", "My Project/f.txt", "--no-fsync"])
        .current_dir(parent)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    // The parent's journal: its name made safe (a temp directory's leading `.` made `_`).
    let hash = xxhash_rust::xxh3::xxh3_64(parent.as_os_str().as_encoded_bytes());
    let name = parent.file_name().unwrap().to_str().unwrap();
    let name = name
        .strip_prefix('.')
        .map_or(name.to_string(), |n| format!("_{n}"));
    let looked_in = h.state.join(format!("editref/undo/{name}-{hash:016x}"));
    let expected = format!(
        "editref: refused (nothing_to_undo): No write of 'My Project/f.txt' is recorded in the \
         undo journal of {} ({}), so there is nothing to undo.",
        parent.display(),
        looked_in.display()
    );
    assert!(err.starts_with(&expected), "{err}\nexpected: {expected}");
    assert!(
        err.contains("each root keeps a journal of its own"),
        "{err}"
    );
    assert_eq!(h.get("f.txt"), b"two\n");
    // From the project itself, the same undo finds the write.
    h.ok(&["undo", "f.txt", "--no-fsync"]);
    assert_eq!(h.get("f.txt"), b"one\n");
}

#[test]
fn undo_dir_and_no_undo_keep_their_meaning() {
    let h = Home::new();
    h.put("f.txt", b"one\n");
    let elsewhere = h.state.parent().unwrap().join("journal");
    let j = elsewhere.to_str().unwrap();
    let mut args = edit_args("one", "two");
    args.extend(["--undo-dir", j]);
    h.ok(&args);
    assert!(names(&elsewhere).iter().any(|n| n.ends_with(".json")));
    assert!(
        !h.state.exists(),
        "--undo-dir puts the journal there and only there"
    );
    let mut args = edit_args("two", "three");
    args.push("--no-undo");
    h.ok(&args);
    assert!(!h.state.exists());
    let (code, out) = h.run(&["undo", "f.txt", "--undo-dir", j], "");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("(stale)"),
        "the write made without a journal: {out}"
    );
    assert_eq!(h.get("f.txt"), b"three\n");
    assert_eq!(h.tree(), ["f.txt"]);
}

#[cfg(feature = "mcp")]
mod mcp {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::process::{Child, ChildStdin};
    use std::sync::mpsc::{channel, Receiver};
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(60);

    /// `editref mcp` in the project directory (its root), spoken to in raw JSON-RPC lines.
    struct Server {
        child: Child,
        stdin: Option<ChildStdin>,
        lines: Receiver<String>,
        next: u64,
    }

    impl Server {
        fn start(h: &Home) -> Server {
            let mut child = h
                .command(&["mcp", "--no-fsync"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let stdout = child.stdout.take().unwrap();
            let (tx, lines) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            let mut s = Server {
                stdin: child.stdin.take(),
                child,
                lines,
                next: 0,
            };
            let init = s.request(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "undo-test", "version": "1"}}),
            );
            assert!(init.get("result").is_some(), "{init}");
            s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            s
        }

        fn send(&mut self, v: &Value) {
            let stdin = self.stdin.as_mut().unwrap();
            writeln!(stdin, "{v}").unwrap();
            stdin.flush().unwrap();
        }

        fn request(&mut self, method: &str, params: Value) -> Value {
            self.next += 1;
            let id = self.next;
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            loop {
                let line = self.lines.recv_timeout(WAIT).expect("an answer");
                let msg: Value = serde_json::from_str(&line).unwrap();
                if msg.get("id") == Some(&json!(id)) {
                    return msg;
                }
            }
        }

        /// A tool call; returns (isError, structuredContent).
        fn call(&mut self, tool: &str, args: Value) -> (bool, Value) {
            let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
            let result = &r["result"];
            (
                result["isError"].as_bool().unwrap_or(false),
                result["structuredContent"].clone(),
            )
        }

        fn stop(mut self) {
            drop(self.stdin.take());
            let _ = self.child.wait();
        }
    }

    #[test]
    fn an_edit_made_by_the_cli_is_undone_over_mcp_and_the_other_way_round() {
        let h = Home::new();
        h.put("f.txt", b"alpha\nbeta\n");
        h.ok(&edit_args("beta", "BETA"));
        assert_eq!(h.get("f.txt"), b"alpha\nBETA\n");

        let mut s = Server::start(&h);
        let (error, out) = s.call("Undo", json!({"file_path": "f.txt"}));
        assert!(!error, "{out}");
        assert_eq!(out["undone"][0]["tool"], "Edit");
        assert_eq!(
            h.get("f.txt"),
            b"alpha\nbeta\n",
            "the CLI's edit undone over MCP"
        );

        let (error, out) = s.call("Read", json!({"file_path": "f.txt"}));
        assert!(!error, "{out}");
        let (error, out) = s.call(
            "Edit",
            json!({"file_path": "f.txt", "old_string": "alpha", "new_string": "ALPHA"}),
        );
        assert!(!error, "{out}");
        assert_eq!(h.get("f.txt"), b"ALPHA\nbeta\n");
        s.stop();

        let out = h.ok(&["undo", "f.txt", "--no-fsync"]);
        assert_eq!(out, "restored f.txt (undid Edit)\n");
        assert_eq!(
            h.get("f.txt"),
            b"alpha\nbeta\n",
            "the MCP edit undone by the CLI"
        );
        assert_eq!(h.tree(), ["f.txt"], "no journal in the working tree");
        assert_eq!(names(&h.state.join("editref/undo")).len(), 1, "one journal");
        assert!(h.journal().is_dir());
    }
}
