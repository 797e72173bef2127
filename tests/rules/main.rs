//! One or more tests per rule ID of SPEC.md, through the public `Session` API on real files.
//! Every test that edits checks the exact bytes on disk; every refusal checks that the file is
//! byte-identical and that no temp file was left behind.
//!
//! One test binary, one module per rule family (`text.rs` for TEXT-*, `matching.rs` for
//! MATCH-*, …); this file holds the sandbox ([`Sb`]) and the checks they all share.

use editref::disk::is_temp_name;
use editref::{Code, Config, Session};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

mod aliases;
mod apply_patch;
mod disk;
mod disk_attrs;
mod disk_new_files;
mod edit;
mod line_edit;
mod matching;
mod multi_edit;
mod notebook;
mod path;
mod read;
mod repair;
mod search_replace;
mod session;
mod text;
mod text_editor;
mod undo;
mod undo_journal;
mod write;

struct Sb {
    _dir: tempfile::TempDir,
    root: PathBuf,
    s: Session,
}

fn sb() -> Sb {
    sb_with(|c| c)
}

fn sb_with(f: impl FnOnce(Config) -> Config) -> Sb {
    sb_in(tempfile::tempdir().unwrap(), f)
}

/// A sandbox whose session keeps an undo journal beside the root, outside it (UNDO-7), so
/// that the root holds only what the tools write.
fn sb_undo() -> Sb {
    let dir = tempfile::tempdir().unwrap();
    let journal = std::fs::canonicalize(dir.path()).unwrap().join("journal");
    sb_in(dir, |c| c.with_undo(journal))
}

fn sb_in(dir: tempfile::TempDir, f: impl FnOnce(Config) -> Config) -> Sb {
    let root = std::fs::canonicalize(dir.path()).unwrap().join("root");
    std::fs::create_dir(&root).unwrap();
    let s = Session::new(f(Config::new(&root).with_root(&root)));
    Sb { _dir: dir, root, s }
}

impl Sb {
    fn p(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }
    fn put(&self, name: &str, bytes: &[u8]) {
        let p = self.p(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    fn get(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.p(name)).unwrap()
    }
    /// Another program rewrites the file: new bytes, and an mtime two seconds later, so the
    /// change shows whatever the file system's clock granularity.
    fn modify(&self, name: &str, bytes: &[u8]) {
        let p = self.p(name);
        let before = std::fs::metadata(&p).unwrap().modified().unwrap();
        std::fs::write(&p, bytes).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(before + std::time::Duration::from_secs(2))
            .unwrap();
    }
    fn call(&self, tool: &str, input: Value) -> Result<Value, editref::ToolError> {
        self.s.call(tool, &input)
    }
    fn read(&self, name: &str) -> Value {
        self.call("Read", json!({"file_path": name})).unwrap()
    }
    fn edit(&self, name: &str, old: &str, new: &str) -> Result<Value, editref::ToolError> {
        self.call(
            "Edit",
            json!({"file_path": name, "old_string": old, "new_string": new}),
        )
    }
    /// Reads, edits and returns the bytes on disk.
    fn edited(&self, bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
        self.put("f.txt", bytes);
        self.read("f.txt");
        self.edit("f.txt", old, new).unwrap();
        self.assert_no_residue();
        self.get("f.txt")
    }
    fn assert_no_residue(&self) {
        fn walk(dir: &Path) {
            for e in std::fs::read_dir(dir).unwrap() {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                assert!(!is_temp_name(&name), "temp residue: {name}");
                if e.file_type().unwrap().is_dir() {
                    walk(&e.path());
                }
            }
        }
        walk(&self.root);
    }
    /// EDIT-7 for a tool with a dry run: `f.txt` holds `alpha\nbeta\n` and was read in full;
    /// the dry run `input` of `tool` (which would make it `alpha\nBETA\n`) answers with
    /// `dryRun: true`, writes nothing and leaves the session's entry for the file exactly as it
    /// was. Then another program writes exactly the dry run's would-be content: an Edit is
    /// `stale`, since the model never saw that text (a dry run that remembered its result as
    /// read would let it through).
    fn dry_run_keeps_the_read_state(&self, tool: &str, input: Value) {
        self.put("f.txt", b"alpha\nbeta\n");
        self.read("f.txt");
        let target = self.p("f.txt");
        let before = self.s.entry(&target).expect("a full read is remembered");
        let entries = self.s.read_state().len();
        let out = self.call(tool, input).expect("the dry run succeeds");
        assert_eq!(out["dryRun"], true, "{tool}");
        assert_eq!(self.get("f.txt"), b"alpha\nbeta\n", "{tool}");
        self.assert_no_residue();
        assert_eq!(
            self.s.entry(&target),
            Some(before),
            "{tool}: a dry run changed the read state"
        );
        assert_eq!(self.s.read_state().len(), entries, "{tool}");
        self.modify("f.txt", b"alpha\nBETA\n");
        self.refused(
            "f.txt",
            Code::Stale,
            "Edit",
            json!({"file_path": "f.txt", "old_string": "alpha", "new_string": "A"}),
        );
        assert_eq!(self.get("f.txt"), b"alpha\nBETA\n", "{tool}");
    }
    /// Asserts a refusal with `code` that leaves `name` byte-identical and no residue.
    fn refused(&self, name: &str, code: Code, tool: &str, input: Value) -> editref::ToolError {
        let before = std::fs::read(self.p(name)).ok();
        let err = self.call(tool, input).expect_err("must be refused");
        assert_eq!(err.code, code, "{}", err.message);
        assert_eq!(
            std::fs::read(self.p(name)).ok(),
            before,
            "file changed on refusal"
        );
        self.assert_no_residue();
        err
    }
}
