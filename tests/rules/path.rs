//! PATH-1..4 (SPEC §11, paths and security): invalid paths, root confinement, special files,
//! hostile inputs.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::{Code, Config, Session};
use serde_json::json;
use std::path::PathBuf;

#[test]
fn path_1_nul_and_empty() {
    let t = sb();
    for p in ["", "a\0b"] {
        let e = t
            .call(
                "Edit",
                json!({"file_path": p, "old_string": "a", "new_string": "b"}),
            )
            .unwrap_err();
        assert_eq!(e.code, Code::InvalidPath);
    }
    assert_eq!(
        std::fs::read_dir(&t.root).unwrap().count(),
        0,
        "nothing created"
    );
}

#[test]
fn path_2_escapes_refused_for_reads_and_writes() {
    let t = sb();
    let outside = t.root.parent().unwrap().join("secret.txt");
    std::fs::write(&outside, b"s\n").unwrap();
    std::os::unix::fs::symlink(&outside, t.p("link")).unwrap();
    for p in ["../secret.txt", "link", outside.to_str().unwrap()] {
        assert_eq!(
            t.call("Read", json!({"file_path": p})).unwrap_err().code,
            Code::OutsideRoot,
            "{p}"
        );
        let one = Session::new(Config::new(&t.root).with_root(&t.root).one_shot());
        let e = one
            .call(
                "Edit",
                &json!({"file_path": p, "old_string": "s", "new_string": "x"}),
            )
            .unwrap_err();
        assert_eq!(e.code, Code::OutsideRoot, "{p}");
        let e = one
            .call("Write", &json!({"file_path": p, "content": "x"}))
            .unwrap_err();
        assert_eq!(e.code, Code::OutsideRoot, "{p}");
    }
    assert_eq!(std::fs::read(&outside).unwrap(), b"s\n");
    assert!(std::fs::symlink_metadata(t.p("link"))
        .unwrap()
        .file_type()
        .is_symlink());
    t.assert_no_residue();
    let beside: Vec<_> = std::fs::read_dir(t.root.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| editref::disk::is_temp_name(n))
        .collect();
    assert!(
        beside.is_empty(),
        "temp residue outside the root: {beside:?}"
    );
}

#[test]
fn path_3_special_files_never_written() {
    let t = sb();
    let fifo = t.p("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let one = Session::new(Config::new(&t.root).one_shot());
    let e = one
        .call("Write", &json!({"file_path": "pipe", "content": "x"}))
        .unwrap_err();
    assert_eq!(e.code, Code::NotRegularFile);
    let e = one
        .call(
            "Edit",
            &json!({"file_path": "pipe", "old_string": "a", "new_string": "b"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::NotRegularFile);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    t.assert_no_residue();
}

/// PATH-4 with EDIT-1 step 1 and §12: a hostile input is answered with the code the spec names
/// for it, never a panic. Anything that is not an object of the tool's fields, and any tool name
/// that is not a tool, is `invalid_input` (a field of another tool is an unknown field: D29). A
/// path the file system cannot even look up (10 000 bytes, beyond
/// PATH_MAX) is a path problem: `invalid_path`.
#[test]
fn path_4_hostile_inputs_get_coded_errors() {
    let t = sb();
    t.put("f.txt", b"a\n");
    let long = "x".repeat(10_000);
    let cases = [
        json!(null),
        json!([1, 2]),
        json!({"file_path": ["x"]}),
        json!({"file_path": "f.txt", "old_string": {"a": 1}, "new_string": "b"}),
        json!({"file_path": long, "old_string": "a", "new_string": "b"}),
    ];
    for (i, input) in cases.iter().enumerate() {
        for tool in ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Nope"] {
            // Only Edit accepts every field of the last input, so only Edit gets to the path.
            let want = if i == 4 && tool == "Edit" {
                Code::InvalidPath
            } else {
                Code::InvalidInput
            };
            let e = t.call(tool, input.clone()).unwrap_err();
            assert_eq!(e.code, want, "{tool} on input {i}: {}", e.message);
        }
    }
    // The over-long path through each tool's own fields.
    for (tool, input) in [
        ("Read", json!({"file_path": long})),
        ("Write", json!({"file_path": long, "content": "x"})),
        (
            "MultiEdit",
            json!({"file_path": long, "edits": [{"old_string": "a", "new_string": "b"}]}),
        ),
    ] {
        let e = t.call(tool, input).unwrap_err();
        assert_eq!(e.code, Code::InvalidPath, "{tool}: {}", e.message);
    }
    assert_eq!(t.get("f.txt"), b"a\n");
    t.assert_no_residue();
}

/// D15: a relative path is taken from the session's working directory, with `.` and `..`
/// settled lexically; `~` alone and `~/…` stand for `$HOME`, while `~name` is an ordinary
/// relative name (editref does not look up other users' homes).
#[test]
fn d15_relative_paths_and_home() {
    let t = sb();
    let home: PathBuf = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/".into())
        .components()
        .collect();
    assert_eq!(t.s.lexical("a/./b/../c").unwrap(), t.root.join("a/c"));
    assert_eq!(t.s.lexical("~").unwrap(), home);
    assert_eq!(t.s.lexical("~/").unwrap(), home);
    assert_eq!(t.s.lexical("~/x/y").unwrap(), home.join("x/y"));
    assert_eq!(t.s.lexical("~x").unwrap(), t.root.join("~x"));
}
