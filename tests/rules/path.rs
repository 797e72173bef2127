//! PATH-1..4 (SPEC §11, paths and security): invalid paths, root confinement, special files,
//! hostile inputs.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::{Code, Config, Session};
use serde_json::json;

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
}

#[test]
fn path_4_hostile_inputs_get_coded_errors() {
    let t = sb();
    t.put("f.txt", b"a\n");
    for input in [
        json!(null),
        json!([1, 2]),
        json!({"file_path": ["x"]}),
        json!({"file_path": "f.txt", "old_string": {"a": 1}, "new_string": "b"}),
        json!({"file_path": "x".repeat(10_000), "old_string": "a", "new_string": "b"}),
    ] {
        for tool in ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Nope"] {
            let e = t.call(tool, input.clone()).unwrap_err();
            assert!(!e.code.as_str().is_empty());
        }
    }
    assert_eq!(t.get("f.txt"), b"a\n");
    t.assert_no_residue();
}
