//! DISK-1, DISK-5 and SESSION-3 under injected faults, through the file-system seam
//! (`editref::disk::FaultFs` behind a library `Session`).
//!
//! Named cases pin the error code of each classic failure — ENOSPC, EIO on write and on fsync,
//! EACCES on the directory, a failing rename, and the file deleted, replaced or modified
//! between the checks and the write. The sweep then fails *every* file-system call that each
//! tool makes, one at a time, with EIO, ENOSPC, EACCES, a short write and a simulated crash
//! (that call and every later one fail, so no clean-up runs). After every fault: the result is
//! either the exact expected bytes or a coded error with every file as it was and no residue
//! (after a crash, old-or-new bytes and at most an orphan temp file); and the same session then
//! completes the call.
//!
//! One test binary in modules by kind of fault: `named.rs` (the classic failures), `races.rs`
//! (changes between the checks and the write), `sweep.rs` (every call, every way). This file
//! holds what they share: the scenarios, their sandbox and the groups of scenarios.

#[path = "../reliability_support/mod.rs"]
mod reliability_support;

mod named;
mod races;
mod sweep;

use editref::disk::{Fault, FaultFs, Op, RealFs};
use editref::{Config, Session};
use reliability_support as rs;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const TEXT: &str = "alpha\nbeta\ngamma\n";

const NOTEBOOK: &str = r#"{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "c1",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "1\n"
     ]
    }
   ],
   "source": [
    "print(1)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;

const NOTEBOOK_AFTER: &str = r#"{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "c1",
   "metadata": {},
   "outputs": [],
   "source": [
    "print(2)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;

/// One tool call on a small tree, with the tree it must produce.
struct Scenario {
    name: &'static str,
    /// Files present before the call.
    files: &'static [(&'static str, &'static str)],
    /// File read (in full) before the call, when the tool needs it.
    read: Option<&'static str>,
    tool: &'static str,
    input: fn() -> Value,
    /// Files after a successful call (all others unchanged).
    after: &'static [(&'static str, &'static str)],
    /// The file the call creates, if any (its new parent directories may outlive a failure).
    creates: Option<&'static str>,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "edit",
            files: &[("f.txt", TEXT)],
            read: Some("f.txt"),
            tool: "Edit",
            input: || json!({"file_path": "f.txt", "old_string": "beta", "new_string": "BETA"}),
            after: &[("f.txt", "alpha\nBETA\ngamma\n")],
            creates: None,
        },
        Scenario {
            name: "multi_edit",
            files: &[("f.txt", TEXT)],
            read: Some("f.txt"),
            tool: "MultiEdit",
            input: || {
                json!({"file_path": "f.txt", "edits": [
                    {"old_string": "alpha", "new_string": "ALPHA"},
                    {"old_string": "gamma\n", "new_string": "gamma\ndelta\n"}]})
            },
            after: &[("f.txt", "ALPHA\nbeta\ngamma\ndelta\n")],
            creates: None,
        },
        Scenario {
            name: "write_update",
            files: &[("f.txt", TEXT)],
            read: Some("f.txt"),
            tool: "Write",
            input: || json!({"file_path": "f.txt", "content": "replaced\n"}),
            after: &[("f.txt", "replaced\n")],
            creates: None,
        },
        Scenario {
            name: "write_create",
            files: &[("f.txt", TEXT)],
            read: None,
            tool: "Write",
            input: || json!({"file_path": "sub/dir/new.txt", "content": "created\n"}),
            after: &[("f.txt", TEXT), ("sub/dir/new.txt", "created\n")],
            creates: Some("sub/dir/new.txt"),
        },
        Scenario {
            name: "edit_create",
            files: &[("f.txt", TEXT)],
            read: None,
            tool: "Edit",
            input: || json!({"file_path": "made.txt", "old_string": "", "new_string": "made\n"}),
            after: &[("f.txt", TEXT), ("made.txt", "made\n")],
            creates: Some("made.txt"),
        },
        Scenario {
            name: "notebook_edit",
            files: &[("nb.ipynb", NOTEBOOK)],
            read: Some("nb.ipynb"),
            tool: "NotebookEdit",
            input: || json!({"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "print(2)"}),
            after: &[("nb.ipynb", NOTEBOOK_AFTER)],
            creates: None,
        },
    ]
}

/// A sandbox with the scenario's files, read as the scenario needs, and a session on a
/// `FaultFs` that has seen nothing but its own construction.
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    fs: FaultFs,
    session: Session,
    before: BTreeMap<PathBuf, rs::Node>,
}

fn setup(s: &Scenario) -> Setup {
    let dir = rs::sandbox();
    let root = dir.path().join("root");
    for (name, text) in s.files {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write fixture");
    }
    std::fs::create_dir_all(dir.path().join("outside")).expect("mkdir outside");
    std::fs::write(dir.path().join("outside/secret.txt"), "outside\n").expect("write");
    let config = || Config::new(&root).with_root(&root);
    let reader = Session::new(config());
    if let Some(p) = s.read {
        reader
            .call("Read", &json!({ "file_path": p }))
            .expect("the Read before the call");
    }
    let fs = FaultFs::new(Arc::new(RealFs));
    let session = Session::with_fs(config(), Arc::new(fs.clone()));
    session.set_read_state(reader.read_state());
    let before = rs::snapshot(dir.path());
    Setup {
        root: root.clone(),
        _dir: dir,
        fs,
        session,
        before,
    }
}

impl Setup {
    fn top(&self) -> &Path {
        self._dir.path()
    }

    /// Plans `fault` at the `n`-th (1-based) call of `op` made from now on.
    fn fail(&self, op: Op, n: u64, fault: Fault) {
        let base = self.fs.log().iter().filter(|o| **o == op).count() as u64;
        let _ = self.fs.clone().fail(op, base + n, fault);
    }

    fn call(&self, s: &Scenario) -> Result<Value, editref::ToolError> {
        self.session.call(s.tool, &(s.input)())
    }

    /// The differences from the tree before the call, ignoring new empty parent directories of
    /// a created file.
    fn changes(&self, s: &Scenario) -> Vec<String> {
        let after = rs::snapshot(self.top());
        let mut out = rs::diff(&self.before, &after);
        if let Some(c) = s.creates {
            let target = Path::new("root").join(c);
            out.retain(|line| {
                let Some(p) = line.strip_prefix("added: ") else {
                    return true;
                };
                let p = Path::new(p);
                !(target.starts_with(p) && p != target && after.get(p) == Some(&rs::Node::Dir))
            });
        }
        out
    }

    /// Asserts the tree is exactly the scenario's result.
    fn assert_done(&self, s: &Scenario, what: &str) {
        for (name, text) in s.after {
            assert_eq!(
                std::fs::read(self.root.join(name)).ok().as_deref(),
                Some(text.as_bytes()),
                "{what}: {name} does not hold the expected bytes"
            );
        }
        assert!(
            rs::residue(self.top()).is_empty(),
            "{what}: temp residue after success"
        );
        let after = rs::snapshot(self.top());
        for p in after.keys() {
            let known = self.before.contains_key(p)
                || s.creates
                    .is_some_and(|c| Path::new("root").join(c).starts_with(p));
            assert!(known, "{what}: unexpected entry {}", p.display());
        }
    }

    /// Asserts a refusal left everything as it was.
    fn assert_untouched(&self, s: &Scenario, what: &str) {
        let changes = self.changes(s);
        assert!(changes.is_empty(), "{what}: the tree changed: {changes:?}");
    }
}

fn code(r: &Result<Value, editref::ToolError>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => e.code.as_str(),
    }
}

fn scenario(name: &str) -> Scenario {
    scenarios()
        .into_iter()
        .find(|s| s.name == name)
        .expect("known scenario")
}

const WRITERS: [&str; 6] = [
    "edit",
    "multi_edit",
    "write_update",
    "write_create",
    "edit_create",
    "notebook_edit",
];
const UPDATERS: [&str; 4] = ["edit", "multi_edit", "write_update", "notebook_edit"];
