//! TEXT-1..7 (SPEC §2, the text model): encodings, BOM, line endings, lossless bytes outside the
//! edit, binary files.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::{Code, Config, Session};
use serde_json::json;

#[test]
fn text_1_encodings_by_bom_and_checked_legacy() {
    let t = sb();
    assert_eq!(
        t.edited(b"\xFE\xFF\x00a\x00b", "a", "x"),
        b"\xFE\xFF\x00x\x00b"
    );
    let t = sb();
    let latin = b"caf\xE9 cr\xE8me br\xFBl\xE9e \x93quoted\x94 and more words here\n";
    let out = t.edited(latin, "br\u{fb}l\u{e9}e", "glac\u{e9}e");
    assert_eq!(
        out,
        b"caf\xE9 cr\xE8me glac\xE9e \x93quoted\x94 and more words here\n"
    );
}

#[test]
fn text_2_undecodable_bytes_are_refused_untouched() {
    let t = sb();
    t.put("f.txt", b"\xEF\xBB\xBFok \xFF\xFE bad");
    let _ = t.call("Read", json!({"file_path": "f.txt"}));
    let s2 = Session::new(Config::new(&t.root).one_shot());
    let before = t.get("f.txt");
    let err = s2
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "ok", "new_string": "no"}),
        )
        .unwrap_err();
    assert_eq!(err.code, Code::Encoding);
    assert_eq!(t.get("f.txt"), before);
    t.assert_no_residue();
}

#[test]
fn text_3_bom_kept_and_never_shown() {
    let t = sb();
    t.put("f.txt", b"\xEF\xBB\xBFhello\n");
    let r = t.read("f.txt");
    assert_eq!(r["file"]["content"], "1\thello");
    t.edit("f.txt", "hello", "bye").unwrap();
    assert_eq!(t.get("f.txt"), b"\xEF\xBB\xBFbye\n");
    let t = sb();
    assert_eq!(t.edited(b"\xFF\xFEh\0i\0", "hi", "yo"), b"\xFF\xFEy\0o\0");
}

#[test]
fn text_4_dominant_ending_strict_majority() {
    let t = sb();
    assert_eq!(
        t.edited(b"a\r\nb\r\nc\n", "c", "c\nd"),
        b"a\r\nb\r\nc\r\nd\n"
    );
    let t = sb();
    assert_eq!(
        t.edited(b"a\r\nb\n", "b", "b\nc"),
        b"a\r\nb\nc\n",
        "tie is LF"
    );
}

#[test]
fn text_5_lf_old_string_matches_crlf_file() {
    let t = sb();
    assert_eq!(
        t.edited(b"one\r\ntwo\r\n", "one\ntwo", "1\n2"),
        b"1\r\n2\r\n"
    );
    let t = sb();
    assert_eq!(
        t.edited(b"one\r\ntwo\r\n", "one\r\ntwo", "1\r\n2"),
        b"1\r\n2\r\n"
    );
}

#[test]
fn text_6_bytes_outside_the_span_are_identical() {
    let t = sb();
    let file = b"keep\r\nmixed\nlone\rcr\r\nedit me\nend";
    assert_eq!(
        t.edited(file, "edit me", "edited"),
        b"keep\r\nmixed\nlone\rcr\r\nedited\nend"
    );
}

#[test]
fn text_7_nul_means_binary() {
    let t = sb();
    t.put("f.bin", b"abc\0def");
    t.refused("f.bin", Code::Binary, "Read", json!({"file_path": "f.bin"}));
    let one = Session::new(Config::new(&t.root).one_shot());
    let err = one
        .call(
            "Edit",
            &json!({"file_path": "f.bin", "old_string": "abc", "new_string": "x"}),
        )
        .unwrap_err();
    assert_eq!(err.code, Code::Binary);
    assert_eq!(t.get("f.bin"), b"abc\0def");
    t.assert_no_residue();
}

#[test]
fn text_1_a_byte_the_code_page_leaves_undefined_is_refused() {
    // 0x81 has no character in windows-1252 (WHATWG decodes it to the C1 control U+0081).
    let t = sb();
    t.put("f.txt", b"caf\xE9 na\xEFve r\xE9sum\xE9 \x81 text\n");
    let e = t.refused(
        "f.txt",
        Code::Encoding,
        "Read",
        json!({"file_path": "f.txt"}),
    );
    assert!(
        e.message.contains("undefined in windows-1252"),
        "{}",
        e.message
    );
}

/// Files whose only NUL lies far from the start: after 9,000 bytes (past the first 8 KiB),
/// after 70,000 (past 64 KiB), as the very last byte, and in the second half of a file large
/// enough to be mapped and scanned in two halves — in UTF-8 with LF or CRLF, with a BOM, in
/// windows-1252, and as a U+0000 in UTF-16LE (D2). `foo` occurs once in each.
fn far_nul_files() -> Vec<(String, Vec<u8>)> {
    let a = |n: usize| "a".repeat(n);
    let utf16 = |s: &str| {
        let mut out = vec![0xFF, 0xFE];
        out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        out
    };
    let mut files = vec![
        (
            "at 9000".to_string(),
            format!("{}\0\nfoo\n", a(9000)).into_bytes(),
        ),
        (
            "at 70000".into(),
            format!("{}\0\nfoo\n", a(70_000)).into_bytes(),
        ),
        (
            "last byte".into(),
            format!("{}\nfoo\n\0", a(9000)).into_bytes(),
        ),
        (
            "crlf".into(),
            format!("{}\0\r\nfoo\r\n", a(9000)).into_bytes(),
        ),
        (
            "bom".into(),
            format!("\u{FEFF}{}\0\nfoo\n", a(9000)).into_bytes(),
        ),
        ("utf-16le".into(), utf16(&format!("{}\0\nfoo\n", a(9000)))),
    ];
    let mut legacy = b"caf\xE9\n".to_vec();
    legacy.extend(format!("{}\0\nfoo\n", a(9000)).bytes());
    files.push(("windows-1252".into(), legacy));
    let half = 5 << 20;
    let mut big = format!("{}\nfoo\n", a(half)).into_bytes();
    big.extend(std::iter::repeat_n(b'b', half));
    big.extend(b"\0\n");
    files.push(("second half of 10 MiB".into(), big));
    files
}

#[test]
fn text_7_d6_a_nul_far_from_the_start_still_means_binary() {
    let t = sb();
    let one = Session::new(Config::new(&t.root).one_shot());
    for (name, bytes) in far_nul_files() {
        t.put("f.txt", &bytes);
        let mut reads = vec![json!({"file_path": "f.txt", "offset": 1, "limit": 2})];
        if bytes.len() <= 256 << 10 {
            reads.push(json!({"file_path": "f.txt"}));
        }
        for input in reads {
            match t.call("Read", input) {
                Ok(_) => panic!("{name}: Read showed a binary file"),
                Err(e) => assert_eq!(e.code, Code::Binary, "{name}: {}", e.message),
            }
            assert!(t.get("f.txt") == bytes, "{name}: Read changed the file");
        }
        let calls = [
            (
                "Edit",
                json!({"file_path": "f.txt", "old_string": "foo", "new_string": "bar"}),
            ),
            (
                "MultiEdit",
                json!({"file_path": "f.txt", "edits": [{"old_string": "foo", "new_string": "bar"}]}),
            ),
            ("Write", json!({"file_path": "f.txt", "content": "foo\n"})),
        ];
        for (tool, input) in calls {
            match one.call(tool, &input) {
                Ok(_) => panic!("{name}: {tool} took a binary file for text"),
                Err(e) => assert_eq!(e.code, Code::Binary, "{name}: {tool}: {}", e.message),
            }
            assert!(t.get("f.txt") == bytes, "{name}: {tool} changed the file");
            t.assert_no_residue();
        }
    }
}
