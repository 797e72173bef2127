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
