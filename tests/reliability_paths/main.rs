//! PATH-1..4, DISK-2/3 and READ-5 against hostile paths: escapes from the root (`..`, absolute
//! paths, symlinks pointing outside directly, through a chain or through a symlinked parent
//! directory, and a directory swapped for a symlink between the checks and the write), hard
//! links, FIFOs, sockets and devices (no hang), NUL bytes, very long paths and names, and
//! names that are not UTF-8.
//!
//! Every refusal must carry the expected code and leave the whole sandbox — the root *and* the
//! files outside it — exactly as it was, with no temp residue; every success must produce the
//! exact bytes.
//!
//! One test binary in modules by kind of hostile path: `escapes.rs` (the root and hard links),
//! `special_files.rs` (FIFOs, sockets, devices), `names.rs` (NUL, long and non-UTF-8 names).
//! This file holds what they share: the sandbox tree, the tally and the tools to aim.

#[path = "../reliability_support/mod.rs"]
mod reliability_support;

mod adversary;
mod escapes;
mod names;
mod special_files;

use editref::{Config, Session};
use reliability_support as rs;
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

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
