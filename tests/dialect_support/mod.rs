//! What the dialect tests of the binary share: a sandbox with a working tree, an undo journal
//! and a state directory apart from it, the binary run in it, and the tree as bytes.
//!
//! The journal is always named explicitly (`--undo-dir`) and `XDG_STATE_HOME` points into the
//! sandbox, so no test depends on where the journal lives by default, and the working tree
//! holds exactly the files the tools write: a snapshot of it shows a temp file left behind or a
//! file created by a refusal as plainly as a changed byte.

#![allow(dead_code)] // each test file uses its own share of the helpers

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_editref");

/// One test's directories: `work` (the tree the tools edit, and the working directory), `undo`
/// (the journal) and `state` (`XDG_STATE_HOME`), side by side in a temp dir.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    pub work: PathBuf,
    pub undo: PathBuf,
    pub state: PathBuf,
}

/// What the binary did: exit code, stdout, stderr.
pub struct Run {
    pub code: i32,
    pub out: String,
    pub err: String,
}

impl Run {
    /// stdout as JSON (`Null` when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.out).unwrap_or(Value::Null)
    }
}

impl Sandbox {
    /// A fresh sandbox with `files` (path → bytes) in its working tree.
    pub fn new(files: &[(&str, &[u8])]) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let s = Sandbox {
            work: root.join("work"),
            undo: root.join("undo"),
            state: root.join("state"),
            _dir: dir,
        };
        std::fs::create_dir(&s.work).unwrap();
        std::fs::create_dir(&s.state).unwrap();
        for (path, bytes) in files {
            s.put(path, bytes);
        }
        s
    }

    /// Writes a file of the working tree, making its directories.
    pub fn put(&self, path: &str, bytes: &[u8]) {
        let p = self.work.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    /// The bytes of a file of the working tree.
    pub fn bytes(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.work.join(path)).unwrap()
    }

    /// Runs `editref ARGS` in `cwd` (the working tree when `None`) with `stdin`.
    pub fn run_in(&self, cwd: Option<&Path>, args: &[&str], stdin: &str) -> Run {
        let mut child = Command::new(BIN)
            .args(args)
            .current_dir(cwd.unwrap_or(&self.work))
            .env("XDG_STATE_HOME", &self.state)
            .env("NO_COLOR", "1")
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
        Run {
            code: out.status.code().unwrap_or(-1),
            out: String::from_utf8_lossy(&out.stdout).into_owned(),
            err: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// `editref SUBCOMMAND ARGS --undo-dir UNDO` in the working tree, with `stdin`.
    pub fn run(&self, args: &[&str], stdin: &str) -> Run {
        let undo = self.undo.to_str().unwrap();
        let mut all = args.to_vec();
        all.extend(["--undo-dir", undo]);
        self.run_in(None, &all, stdin)
    }

    /// `editref call` with `{"tool": TOOL, "input": INPUT}` on stdin: (exit code, reply).
    pub fn call(&self, tool: &str, input: Value) -> (i32, Value) {
        let line = serde_json::json!({"tool": tool, "input": input}).to_string();
        let r = self.run(&["call"], &line);
        (r.code, r.json())
    }

    /// Every entry of the working tree: path → bytes, a symlink as `-> TARGET`, a directory
    /// as `/`. A temp file left behind, or anything a refusal created, shows up here.
    pub fn tree(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        walk(&self.work, "", &mut out);
        out
    }
}

fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = format!("{prefix}{}", e.file_name().to_string_lossy());
        let meta = std::fs::symlink_metadata(e.path()).unwrap();
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(e.path()).unwrap();
            out.insert(name, format!("-> {}", target.display()).into_bytes());
        } else if meta.is_dir() {
            out.insert(format!("{name}/"), Vec::new());
            walk(&e.path(), &format!("{name}/"), out);
        } else {
            out.insert(name, std::fs::read(e.path()).unwrap());
        }
    }
}

/// The tree `files` describes, in the form of [`Sandbox::tree`] (directories listed too).
pub fn tree_of(files: &[(&str, &[u8])]) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for (path, bytes) in files {
        let mut dir = String::new();
        let parts: Vec<&str> = path.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            dir.push_str(part);
            dir.push('/');
            out.insert(dir.clone(), Vec::new());
        }
        out.insert((*path).to_string(), bytes.to_vec());
    }
    out
}

/// Asserts the working tree holds exactly `files`, byte for byte, and nothing else.
#[track_caller]
pub fn assert_tree(s: &Sandbox, files: &[(&str, &[u8])]) {
    let got = s.tree();
    let want = tree_of(files);
    if got != want {
        let show = |t: &BTreeMap<String, Vec<u8>>| -> Vec<String> {
            t.iter()
                .map(|(k, v)| format!("{k}: {:?}", String::from_utf8_lossy(v)))
                .collect()
        };
        panic!(
            "the working tree differs\n  want: {:#?}\n  got:  {:#?}",
            show(&want),
            show(&got)
        );
    }
}
