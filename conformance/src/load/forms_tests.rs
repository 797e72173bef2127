//! The tests of file forms: encodings, bytes, links, modes.

use super::super::steps::parse_shift;
use super::*;

#[test]
fn encodings_and_hex() {
    assert_eq!(encode_text("é", "windows-1252", None).unwrap(), vec![0xE9]);
    assert!(encode_text("日本", "windows-1252", None).is_err());
    assert_eq!(
        encode_text("日", "shift_jis", None).unwrap(),
        vec![0x93, 0xFA]
    );
    assert_eq!(
        encode_text("a", "utf-16be", None).unwrap(),
        vec![0xFE, 0xFF, 0, b'a']
    );
    assert_eq!(
        encode_text("a", "utf-16le", Some(false)).unwrap(),
        vec![b'a', 0]
    );
    assert_eq!(
        encode_text("a", "utf-8-bom", None).unwrap(),
        vec![0xEF, 0xBB, 0xBF, b'a']
    );
    assert!(encode_text("a", "latin-9", None).is_err());
    assert_eq!(decode_hex("0d 0A\nff").unwrap(), vec![13, 10, 255]);
    assert!(decode_hex("abc").is_err());
    assert!(decode_hex("zz").is_err());
    assert_eq!(parse_mode("0755"), Some(0o755));
    assert_eq!(parse_mode("0855"), None);
    assert_eq!(parse_shift("+1500ms"), Some(1_500_000_000));
    assert_eq!(parse_shift("-0.5s"), Some(-500_000_000));
    assert_eq!(parse_shift("5s"), None);
}
