//! PATH-2 and DISK-3: escapes from the root — `..`, absolute paths, symlinks pointing outside
//! directly, through a chain or through a symlinked parent directory, a parent directory
//! swapped for a symlink between the checks and the write — and hard links, inside the root
//! and to the outside.
//!
//! The suite is one binary in modules by kind of hostile path; the sandbox ([`crate::Tree`]),
//! the tally of refusals and the list of tools to aim are shared from `main.rs`.

use crate::{every_tool, rs, Tally, Tree};
use editref::disk::{FaultFs, Op, RealFs};
use editref::{Config, Session};
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

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
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, _| {
        // The temp file is about to be created (unnamed, or named where the file system
        // cannot make unnamed files).
        if matches!(op, Op::CreateUnnamed | Op::CreateExclusive)
            && a2.load(Ordering::SeqCst) != u64::MAX
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
        .filter(|o| matches!(o, Op::CreateUnnamed | Op::CreateExclusive))
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
    rec.set("hostile_calls", tried)
        .set(
            "corrupted",
            problems
                .iter()
                .filter(|p| p.contains("outside the root"))
                .count() as u64,
        )
        .set(
            "wrong_code",
            problems
                .iter()
                .filter(|p| p.contains("want stale or outside_root"))
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
