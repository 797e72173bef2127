//! READ-1..7 (SPEC §7, Read): numbered lines, size limits, partial reads, unchanged re-reads,
//! blocked devices, other kinds of file.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb, sb_with};
use editref::Code;
use serde_json::json;

#[test]
fn read_1_numbered_lines_without_phantom_line() {
    let t = sb();
    t.put("f.txt", b"\xEF\xBB\xBFa\r\nb\r\n");
    let r = t.read("f.txt");
    assert_eq!(r["file"]["content"], "1\ta\n2\tb");
    assert_eq!(r["file"]["totalLines"], 2);
    let t = sb_with(|mut c| {
        c.line_format = editref::LineFormat::Arrow;
        c
    });
    t.put("f.txt", b"a\n");
    assert_eq!(t.read("f.txt")["file"]["content"], "     1\u{2192}a");
}

#[test]
fn read_2_large_files_need_limit() {
    let t = sb();
    let big = "x".repeat(100).repeat(3000);
    t.put("big.txt", big.as_bytes());
    t.refused(
        "big.txt",
        Code::TooLarge,
        "Read",
        json!({"file_path": "big.txt"}),
    );
    let r = t
        .call(
            "Read",
            json!({"file_path": "big.txt", "offset": 1, "limit": 1}),
        )
        .unwrap();
    assert_eq!(r["file"]["numLines"], 1);
}

#[test]
fn read_3_partial_reads_that_cover_everything_count_as_full() {
    let t = sb();
    t.put("f.txt", b"1\n2\n3\n4\n");
    t.call("Read", json!({"file_path": "f.txt", "limit": 2}))
        .unwrap();
    t.refused(
        "f.txt",
        Code::PartialRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "3", "new_string": "x"}),
    );
    t.call(
        "Read",
        json!({"file_path": "f.txt", "offset": 3, "limit": 2}),
    )
    .unwrap();
    t.edit("f.txt", "3", "x").unwrap();
    assert_eq!(t.get("f.txt"), b"1\n2\nx\n4\n");
}

#[test]
fn read_4_unchanged_reread() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    assert_eq!(t.read("f.txt")["type"], "file_unchanged");
    t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(
        t.read("f.txt")["type"],
        "text",
        "writes do not dedup the next read"
    );
}

#[test]
fn read_5_blocked_devices_and_fifos() {
    let t = sb();
    for dev in ["/dev/zero", "/dev/stdin", "/dev/urandom", "/proc/self/fd/0"] {
        let e = t.call("Read", json!({"file_path": dev})).unwrap_err();
        assert_eq!(e.code, Code::BlockedPath, "{dev}");
    }
    let fifo = t.p("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let e = t.call("Read", json!({"file_path": "pipe"})).unwrap_err();
    assert_eq!(e.code, Code::BlockedPath);
}

#[test]
fn read_6_images_pdfs_notebooks() {
    let t = sb();
    t.put("i.png", b"\x89PNG\r\n\x1a\nrest");
    let r = t.read("i.png");
    assert_eq!(
        (r["type"].clone(), r["mediaType"].clone()),
        (json!("image"), json!("image/png"))
    );
    assert_eq!(r["base64"], "iVBORw0KGgpyZXN0");
    t.put("d.pdf", b"%PDF-1.4\n");
    assert_eq!(t.read("d.pdf")["type"], "pdf");
    let e = t
        .call("Read", json!({"file_path": "d.pdf", "pages": "1-30"}))
        .unwrap_err();
    assert_eq!(e.code, Code::InvalidInput);
    t.put("n.ipynb", br#"{"cells": [{"cell_type": "code", "source": ["a\n", "b"], "outputs": []}], "nbformat": 4, "nbformat_minor": 4}"#);
    let r = t.read("n.ipynb");
    assert_eq!(r["cells"][0]["cellId"], "cell-0");
    assert_eq!(r["cells"][0]["source"], "a\nb");
}

#[test]
fn read_7_order_devices_before_root_and_directories() {
    let t = sb();
    let e = t
        .call("Read", json!({"file_path": "/dev/zero"}))
        .unwrap_err();
    assert_eq!(e.code, Code::BlockedPath, "blocked before outside_root");
    std::fs::create_dir(t.p("d")).unwrap();
    assert_eq!(
        t.call("Read", json!({"file_path": "d"})).unwrap_err().code,
        Code::IsDirectory
    );
}
