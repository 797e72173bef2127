//! PATH-1 and PATH-4: malformed names — NUL bytes and empty paths, names and paths over the
//! system's limits (and the longest that must work), and names that are not UTF-8.
//!
//! The suite is one binary in modules by kind of hostile path; the sandbox ([`crate::Tree`]),
//! the tally of refusals and the list of tools to aim are shared from `main.rs`.

use crate::{every_tool, rs, Tally, Tree};
use serde_json::json;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::process::Command;

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
    // Every call above asserted its outcome; reaching this point means none had a wrong code.
    let mut rec = rs::Record::new("paths", "non_utf8_names");
    rec.set("hostile_calls", tried).set("wrong_code", 0);
    rec.write();
}
