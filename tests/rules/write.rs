//! WRITE-1..5 (SPEC §6, Write): creating, overwriting after a full read, content as sent, the
//! result, the read state after.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::Code;
use serde_json::json;

#[test]
fn write_1_creates_with_parents_without_read() {
    let t = sb();
    let out = t
        .call(
            "Write",
            json!({"file_path": "a/b/c.txt", "content": "x\r\ny"}),
        )
        .unwrap();
    assert_eq!(out["type"], "create");
    assert_eq!(t.get("a/b/c.txt"), b"x\r\ny");
}

#[test]
fn write_2_existing_needs_full_fresh_read() {
    let t = sb();
    t.put("f.txt", b"1\n2\n");
    t.refused(
        "f.txt",
        Code::NotRead,
        "Write",
        json!({"file_path": "f.txt", "content": "x"}),
    );
    t.call("Read", json!({"file_path": "f.txt", "limit": 1}))
        .unwrap();
    t.refused(
        "f.txt",
        Code::PartialRead,
        "Write",
        json!({"file_path": "f.txt", "content": "x"}),
    );
}

#[test]
fn write_3_encoding_kept_endings_as_given() {
    let t = sb();
    t.put("f.txt", b"\xFF\xFEa\0\r\0\n\0");
    t.read("f.txt");
    t.call("Write", json!({"file_path": "f.txt", "content": "b\nc"}))
        .unwrap();
    assert_eq!(t.get("f.txt"), b"\xFF\xFEb\0\n\0c\0");
}

#[test]
fn write_4_result_shape() {
    let t = sb();
    t.put("f.txt", b"old\n");
    t.read("f.txt");
    let out = t
        .call("Write", json!({"file_path": "f.txt", "content": "new\n"}))
        .unwrap();
    assert_eq!(out["type"], "update");
    assert_eq!(out["originalFile"], "old\n");
    assert_eq!(out["structuredPatch"][0]["lines"], json!(["-old", "+new"]));
    assert_eq!(t.get("f.txt"), b"new\n");
}

#[test]
fn write_5_written_content_counts_as_read() {
    let t = sb();
    t.call("Write", json!({"file_path": "f.txt", "content": "a\n"}))
        .unwrap();
    t.call("Write", json!({"file_path": "f.txt", "content": "b\n"}))
        .unwrap();
    t.edit("f.txt", "b", "c").unwrap();
    assert_eq!(t.get("f.txt"), b"c\n");
}

/// WRITE-1 with DISK-1: the parent directories belong to the write. A name the file system
/// refuses (longer than 255 bytes) fails after they were made, and the failed write takes
/// them back: the tree is exactly as before, no empty `a/b/c` left behind.
#[test]
fn write_1_a_failed_create_leaves_no_directory_behind() {
    let t = sb();
    t.put("keep.txt", b"k\n");
    let name = format!("a/b/c/{}.txt", "n".repeat(300));
    let err = t
        .call("Write", json!({"file_path": name, "content": "deep\n"}))
        .expect_err("a 300-byte name cannot be created");
    assert_eq!(err.code, Code::Io, "{}", err.message);
    assert!(
        !t.p("a").exists(),
        "the directories made for the failed write remain"
    );
    assert_eq!(t.get("keep.txt"), b"k\n");
    t.assert_no_residue();
}

/// WRITE-1: a directory that already existed is not the write's to remove, even when the
/// write below it fails.
#[test]
fn write_1_a_failed_create_keeps_directories_that_were_there() {
    let t = sb();
    t.put("a/keep.txt", b"k\n");
    let name = format!("a/b/{}.txt", "n".repeat(300));
    let err = t
        .call("Write", json!({"file_path": name, "content": "x"}))
        .expect_err("a 300-byte name cannot be created");
    assert_eq!(err.code, Code::Io, "{}", err.message);
    assert!(t.p("a").is_dir());
    assert!(!t.p("a/b").exists());
    assert_eq!(t.get("a/keep.txt"), b"k\n");
    t.assert_no_residue();
}
