//! Tests of [`super`]: TEXT-1/2/7 decoding and encoding, byte for byte.
use super::*;

/// TEXT-1, TEXT-7: the two-thread scan of a large input finds what one pass finds,
/// whatever sits at the split (a character cut in two, a NUL, a CR, a bad byte).
#[test]
fn text_1_two_thread_scan_agrees_with_one_pass() {
    let n = PARALLEL_SCAN_MIN + 10;
    let mid = n / 2;
    let base = vec![b'a'; n];
    let mut cases: Vec<Vec<u8>> = vec![base.clone()];
    for (offset, insert) in [(0, "€"), (1, "€"), (2, "€"), (3, "😀"), (0, "é")] {
        let mut v = base.clone();
        let at = mid - offset;
        v[at..at + insert.len()].copy_from_slice(insert.as_bytes());
        cases.push(v);
    }
    // A character cut at the very start too: the split must not step back before it.
    for (at, byte) in [
        (mid + 5, 0u8),
        (n - 1, b'\r'),
        (mid + 1, 0xFF),
        (mid, 0x80),
        (0, 0x80),
    ] {
        let mut v = base.clone();
        v[at] = byte;
        cases.push(v);
    }
    for bytes in &cases {
        assert_eq!(Scan::of_large(bytes), Scan::of(bytes));
        let expect_valid = !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok();
        assert_eq!(Scan::of(bytes).valid, expect_valid);
        let decoded = decode(bytes);
        match std::str::from_utf8(bytes) {
            Ok(text) if !bytes.contains(&0) => {
                assert_eq!(decoded.unwrap().text, text);
            }
            _ => assert!(!matches!(
                decoded,
                Ok(Decoded {
                    encoding: TextEncoding::Utf8 { .. },
                    ..
                })
            )),
        }
    }
}

fn round_trip(bytes: &[u8]) -> Vec<u8> {
    let d = decode(bytes).expect("accepted");
    let mut out = d.encoding.bom().to_vec();
    d.encoding
        .encode_into(&d.text, &mut out)
        .expect("encodable");
    out
}

#[test]
fn text_1_bom_selects_the_encoding() {
    assert_eq!(
        decode(b"\xEF\xBB\xBFhi").unwrap().encoding,
        TextEncoding::Utf8 { bom: true }
    );
    assert_eq!(
        decode(b"\xFF\xFEh\0i\0").unwrap().encoding,
        TextEncoding::Utf16Le
    );
    assert_eq!(
        decode(b"\xFE\xFF\0h\0i").unwrap().encoding,
        TextEncoding::Utf16Be
    );
    assert_eq!(decode(b"\xFE\xFF\0h\0i").unwrap().text, "hi");
}

#[test]
fn text_2_round_trips_are_exact() {
    for bytes in [
        &b"plain\r\nmixed\nlone\rcr"[..],
        b"\xEF\xBB\xBFbom",
        b"\xFF\xFEa\0\r\0\n\0",
        b"caf\xE9 na\xEFve r\xE9sum\xE9 \x93quoted\x94 text here",
    ] {
        assert_eq!(round_trip(bytes), bytes);
    }
}

#[test]
fn text_1_windows_1252_is_detected_when_exact() {
    let d = decode(b"caf\xE9 na\xEFve r\xE9sum\xE9 \x93quoted\x94 text here").unwrap();
    assert!(matches!(d.encoding, TextEncoding::Legacy(_)));
    assert!(d.text.contains("café"));
}

#[test]
fn text_1_bytes_a_code_page_leaves_undefined_are_refused() {
    // 0x81 has no character in windows-1252; WHATWG decodes it to the C1 control U+0081.
    for bytes in [
        &b"caf\xE9 na\xEFve r\xE9sum\xE9 \x81 text here\n"[..],
        b"ok \x81\nfoo\n",
    ] {
        match decode(bytes) {
            Err(DecodeError::Encoding(m)) => assert!(m.contains("undefined"), "{m}"),
            other => panic!("{bytes:?}: {other:?}"),
        }
    }
    // The characters windows-1252 does give 0x80..0x9F (€, curly quotes, …) are text.
    let d = decode(b"\x80 5, \x93quoted\x94 and caf\xE9 na\xEFve r\xE9sum\xE9").unwrap();
    assert!(
        d.text.contains('€') && d.text.contains('\u{201C}'),
        "{:?}",
        d.text
    );
}

#[test]
fn text_1_shift_jis_is_accepted_when_exact() {
    // "これはテストです。日本語の文章を書いています。" in Shift_JIS; contains pairs such as
    // C5 82 that are also valid UTF-8.
    let text = "これはテストです。日本語の文章を書いています。";
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(text);
    let d = decode(&bytes).expect("accepted");
    assert_eq!(d.encoding, TextEncoding::Legacy(encoding_rs::SHIFT_JIS));
    assert_eq!(d.text, text);
}

#[test]
fn text_1_every_accepted_multi_byte_encoding_is_accepted_when_exact() {
    // One text per encoding the detector names for it; each must decode to exactly that
    // text, in exactly that encoding, for the round trip to hold (TEXT-1, TEXT-2).
    let cases: [(&str, &'static Legacy); 4] = [
        (
            "这是一个测试文件。我们在这里写了很多中文句子，以便检测编码。",
            encoding_rs::GBK,
        ),
        (
            "這是一個測試檔案。我們在這裡寫了很多中文句子，以便偵測編碼。",
            encoding_rs::BIG5,
        ),
        (
            "이것은 시험 파일입니다. 여기에 한국어 문장을 많이 썼습니다.",
            encoding_rs::EUC_KR,
        ),
        (
            "これは試験用のファイルです。ここに日本語の文章をたくさん書きました。",
            encoding_rs::EUC_JP,
        ),
    ];
    for (text, enc) in cases {
        let (bytes, _, unmappable) = enc.encode(text);
        assert!(!unmappable, "{}", enc.name());
        let d = decode(&bytes).unwrap_or_else(|e| panic!("{} refused: {e:?}", enc.name()));
        assert_eq!(d.encoding, TextEncoding::Legacy(enc), "{}", enc.name());
        assert_eq!(d.text, text, "{}", enc.name());
        assert_eq!(round_trip(&bytes), bytes.as_ref(), "{}", enc.name());
    }
}

#[test]
fn text_2_a_legacy_file_whose_bytes_do_not_come_back_is_refused() {
    // Shift_JIS has characters with two byte forms: ED 40 and FA 5C are both 纊, and the
    // encoder writes FA 5C. A file using ED 40 decodes, but writing it back would change
    // bytes nobody edited, so it is not accepted as Shift_JIS (TEXT-2).
    let text = "これはテストです。日本語の文章を書いています。";
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode(text);
    let mut bytes = sjis.into_owned();
    bytes.extend_from_slice(&[0xED, 0x40]);
    bytes.extend_from_slice(&encoding_rs::SHIFT_JIS.encode(text).0);
    let (decoded, _, _) = encoding_rs::SHIFT_JIS.decode(&bytes);
    assert!(
        decoded.contains('纊'),
        "the fixture holds the character: {decoded}"
    );
    assert!(matches!(decode(&bytes), Err(DecodeError::Encoding(_))));
    // The canonical form of the same text is accepted.
    let (canonical, _, _) = encoding_rs::SHIFT_JIS.encode(&decoded);
    let d = decode(&canonical).expect("accepted");
    assert_eq!(d.encoding, TextEncoding::Legacy(encoding_rs::SHIFT_JIS));
    assert_eq!(d.text, decoded);
}

#[test]
fn text_1_a_large_utf16_file_decodes_within_its_memory_budget() {
    // About 4 MiB of mostly-ASCII UTF-16LE. The text buffer is sized for ASCII plus an
    // eighth (a UTF-16 edit's peak memory is budgeted at 1.2× the file), not for the
    // worst case of three bytes per unit, and grows only when the text needs it.
    let line = "    let cafe_count = total(items) + 1; // café\n";
    let text = line.repeat((4 << 20) / (2 * line.len()));
    let mut bytes = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    let units = (bytes.len() - 2) / 2;
    let d = decode(&bytes).expect("UTF-16LE");
    assert_eq!(d.encoding, TextEncoding::Utf16Le);
    assert_eq!(d.text, text);
    let Cow::Owned(decoded) = d.text else {
        panic!("UTF-16 text is decoded into a buffer of its own");
    };
    assert!(
        decoded.capacity() <= units + units / 8 + 16,
        "capacity {} for {units} units",
        decoded.capacity()
    );
}

#[test]
fn encodings_have_the_names_messages_and_library_users_show() {
    // Public API: the name a message gives the model ("the file's encoding (…) cannot
    // hold") and a library user shows. The WHATWG label for legacy encodings.
    assert_eq!(TextEncoding::Utf8 { bom: false }.name(), "utf-8");
    assert_eq!(TextEncoding::Utf8 { bom: true }.name(), "utf-8-bom");
    assert_eq!(TextEncoding::Utf16Le.name(), "utf-16le");
    assert_eq!(TextEncoding::Utf16Be.name(), "utf-16be");
    assert_eq!(
        TextEncoding::Legacy(encoding_rs::WINDOWS_1252).name(),
        "windows-1252"
    );
}

#[test]
fn d16_damaged_utf8_is_refused() {
    assert!(matches!(
        decode(
            "caf\u{e9} \u{ff}"
                .as_bytes()
                .iter()
                .copied()
                .chain([0xFF])
                .collect::<Vec<_>>()
                .as_slice()
        ),
        Err(DecodeError::Encoding(_))
    ));
}

#[test]
fn utf16_text_of_any_width_decodes() {
    // Mostly 3-byte characters: the decoder outgrows its first buffer.
    let s: String = "\u{4E2D}\u{6587}\u{1F600}a".repeat(5000);
    for big_endian in [false, true] {
        let bytes: Vec<u8> = s
            .encode_utf16()
            .flat_map(|u| {
                if big_endian {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect();
        assert_eq!(decode_utf16(&bytes, big_endian).unwrap(), s);
    }
}

#[test]
fn utf16_units_counts_like_encode_utf16() {
    for s in [
        "",
        "abc",
        "caf\u{e9}",
        "\u{2192}\u{1F600}x",
        "\u{10FFFF}\u{FFFF}",
    ] {
        assert_eq!(utf16_units(s), s.encode_utf16().count(), "{s:?}");
    }
}

#[test]
fn text_7_nul_means_binary() {
    assert_eq!(decode(b"a\0b").unwrap_err(), DecodeError::Binary);
    assert_eq!(decode(b"h\0i\0").unwrap_err(), DecodeError::Binary);
    assert_eq!(decode(b"\xFF\xFEa\0\0\0").unwrap_err(), DecodeError::Binary);
    // D3: a U+0000 and a lone surrogate in one file, the first in the file decides.
    assert_eq!(
        decode(b"\xFF\xFE\0\0\x00\xD8").unwrap_err(),
        DecodeError::Binary
    );
    assert!(matches!(
        decode(b"\xFF\xFE\x00\xD8a\0\0\0").unwrap_err(),
        DecodeError::Encoding(_)
    ));
}

#[test]
fn text_2_bad_utf16_is_refused() {
    assert!(matches!(
        decode(b"\xFF\xFEa"),
        Err(DecodeError::Encoding(_))
    ));
    assert!(matches!(
        decode(b"\xFF\xFE\x00\xD8a\0"),
        Err(DecodeError::Encoding(_))
    ));
    assert!(matches!(
        decode(b"\xEF\xBB\xBF\xFF"),
        Err(DecodeError::Encoding(_))
    ));
}

#[test]
fn unrepresentable_characters_are_reported() {
    let enc = TextEncoding::Legacy(encoding_rs::WINDOWS_1252);
    let mut out = Vec::new();
    assert_eq!(enc.encode_into("a\u{4E2D}", &mut out), Err('\u{4E2D}'));
    assert!(out.is_empty());
}
