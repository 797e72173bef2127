//! The edit model's own decoding and encoding, written from SPEC.md (TEXT-1/2/3/7, D1–D3, D11,
//! D16) and sharing no code with the library's `src/text/`: the BOM is sniffed here, UTF-8 is
//! validated by `std`, UTF-16 is decoded and encoded by hand, and legacy code pages go through
//! `encoding_rs` directly. A model that decoded with the code under test would agree with it
//! about every decoding bug.
//!
//! Which legacy encoding a file is in is a guess (TEXT-1: "may be detected"); the spec does not
//! say how to guess, so the model takes the library's guess as given and checks everything the
//! spec does say about it: the round trip is exact, no undefined byte, no NUL, no damaged UTF-8.

use encoding_rs::Encoding;

/// How the model reads and writes a file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelEncoding {
    /// UTF-8, with or without `EF BB BF`.
    Utf8 {
        /// The file starts with the UTF-8 BOM.
        bom: bool,
    },
    /// UTF-16 with its BOM (`FF FE` little endian, `FE FF` big endian).
    Utf16 {
        /// Big endian.
        big_endian: bool,
    },
    /// A legacy code page, as guessed by the library and checked by the model.
    Legacy(&'static Encoding),
}

impl ModelEncoding {
    /// The BOM written in front of the text (TEXT-3: preserved exactly as found).
    pub fn bom(self) -> &'static [u8] {
        match self {
            ModelEncoding::Utf8 { bom: true } => b"\xEF\xBB\xBF",
            ModelEncoding::Utf16 { big_endian: false } => b"\xFF\xFE",
            ModelEncoding::Utf16 { big_endian: true } => b"\xFE\xFF",
            _ => b"",
        }
    }

    /// Bytes one character takes in this encoding (for the byte offsets of TEXT-6).
    pub fn width(self, c: char) -> usize {
        match self {
            ModelEncoding::Utf8 { .. } => c.len_utf8(),
            ModelEncoding::Utf16 { .. } => 2 * c.len_utf16(),
            ModelEncoding::Legacy(enc) => enc.encode(c.encode_utf8(&mut [0; 4])).0.len(),
        }
    }
}

/// Why the model refuses a file (EDIT-1 step 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelRefusal {
    /// `encoding`: no lossless reading (TEXT-1/2, D3, D16).
    Encoding,
    /// `binary`: a NUL in the text (TEXT-7, D2).
    Binary,
}

/// A decoded file: its encoding and its text exactly as stored (CRLF and lone CR intact).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelText {
    /// How to write it back.
    pub encoding: ModelEncoding,
    /// The stored text, BOM removed.
    pub stored: String,
}

/// Decodes by TEXT-1: a BOM decides; else valid UTF-8 is UTF-8; else `legacy` (the library's
/// guess, `None` when it had none) is accepted only when the spec's conditions hold.
pub fn decode(bytes: &[u8], legacy: Option<&'static Encoding>) -> Result<ModelText, ModelRefusal> {
    // TEXT-7 and D1 speak of NUL *bytes*: in anything but UTF-16 with a BOM, one makes the file
    // binary whether or not the rest would decode (EDIT-1 step 9 lists `encoding` first, but a
    // file with a NUL byte is not text in the first place). UTF-16 is checked after decoding (D2).
    let wide = bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF");
    if !wide && bytes.contains(&0) {
        return Err(ModelRefusal::Binary);
    }
    let (encoding, stored) = if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        let text = std::str::from_utf8(rest).map_err(|_| ModelRefusal::Encoding)?;
        (ModelEncoding::Utf8 { bom: true }, text.to_string())
    } else if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        (
            ModelEncoding::Utf16 { big_endian: false },
            utf16(rest, false)?,
        )
    } else if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        (
            ModelEncoding::Utf16 { big_endian: true },
            utf16(rest, true)?,
        )
    } else if let Ok(text) = std::str::from_utf8(bytes) {
        (ModelEncoding::Utf8 { bom: false }, text.to_string())
    } else {
        let enc = legacy.ok_or(ModelRefusal::Encoding)?;
        (ModelEncoding::Legacy(enc), legacy_text(bytes, enc)?)
    };
    if stored.contains('\0') {
        return Err(ModelRefusal::Binary);
    }
    Ok(ModelText { encoding, stored })
}

/// UTF-16 by hand: pairs of bytes, surrogates paired; odd length or a lone surrogate is
/// `encoding` (D3), a U+0000 is `binary` (D2), and when a file has both a lone surrogate and a
/// U+0000, the one that comes first in the file decides (D3).
fn utf16(bytes: &[u8], big_endian: bool) -> Result<String, ModelRefusal> {
    if !bytes.len().is_multiple_of(2) {
        return Err(ModelRefusal::Encoding);
    }
    let units = bytes.chunks(2).map(|p| {
        if big_endian {
            u16::from(p[0]) << 8 | u16::from(p[1])
        } else {
            u16::from(p[1]) << 8 | u16::from(p[0])
        }
    });
    let mut text = String::new();
    for unit in char::decode_utf16(units) {
        match unit {
            Ok('\0') => return Err(ModelRefusal::Binary),
            Ok(c) => text.push(c),
            Err(_) => return Err(ModelRefusal::Encoding),
        }
    }
    Ok(text)
}

/// TEXT-1's conditions on a legacy reading: decodes without error, re-encodes to the very
/// bytes, and for a single-byte code page no undefined byte (decoded to a C1 control, as the
/// WHATWG tables do) and no valid multi-byte UTF-8 character (D16, damaged UTF-8).
fn legacy_text(bytes: &[u8], enc: &'static Encoding) -> Result<String, ModelRefusal> {
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    if had_errors {
        return Err(ModelRefusal::Encoding);
    }
    if enc.is_single_byte() && (text.chars().any(is_c1) || has_utf8_multibyte(bytes)) {
        return Err(ModelRefusal::Encoding);
    }
    let (back, _, unmappable) = enc.encode(&text);
    if unmappable || back.as_ref() != bytes {
        return Err(ModelRefusal::Encoding);
    }
    Ok(text.into_owned())
}

fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9F}').contains(&c)
}

/// Whether `bytes` hold at least one well-formed multi-byte UTF-8 sequence (lead byte and the
/// right number of continuation bytes, decoding to a valid scalar value).
fn has_utf8_multibyte(bytes: &[u8]) -> bool {
    (0..bytes.len()).any(|i| {
        let n = match bytes[i] {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return false,
        };
        bytes
            .get(i..i + n)
            .is_some_and(|seq| std::str::from_utf8(seq).is_ok())
    })
}

/// Encodes `text` (BOM first) per TEXT-2/D11; `Err(c)` names the first character the encoding
/// cannot hold (for a single-byte code page, also one that would become an undefined byte).
pub fn encode(text: &str, encoding: ModelEncoding) -> Result<Vec<u8>, char> {
    let mut out = encoding.bom().to_vec();
    match encoding {
        ModelEncoding::Utf8 { .. } => out.extend_from_slice(text.as_bytes()),
        ModelEncoding::Utf16 { big_endian } => {
            for unit in text.encode_utf16() {
                let [hi, lo] = [(unit >> 8) as u8, unit as u8];
                out.extend_from_slice(&if big_endian { [hi, lo] } else { [lo, hi] });
            }
        }
        ModelEncoding::Legacy(enc) => {
            let (bytes, _, unmappable) = enc.encode(text);
            if unmappable || (enc.is_single_byte() && text.chars().any(is_c1)) {
                let mut buf = [0; 4];
                let bad = text.chars().find(|&c| {
                    (enc.is_single_byte() && is_c1(c)) || enc.encode(c.encode_utf8(&mut buf)).2
                });
                return Err(bad.unwrap_or('\u{FFFD}'));
            }
            out.extend_from_slice(&bytes);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_decide_and_utf16_is_read_by_hand() {
        // TEXT-1: the BOM decides, and TEXT-3 keeps it on the way back.
        let le = decode(b"\xFF\xFEa\0\r\0\n\0", None).unwrap();
        assert_eq!(le.encoding, ModelEncoding::Utf16 { big_endian: false });
        assert_eq!(le.stored, "a\r\n");
        assert_eq!(
            encode(&le.stored, le.encoding).unwrap(),
            b"\xFF\xFEa\0\r\0\n\0"
        );
        let be = decode(b"\xFE\xFF\xD8\x3D\xDE\x00", None).unwrap();
        assert_eq!(be.stored, "\u{1F600}");
        // D3: odd length and a lone surrogate are `encoding`; D2: U+0000 is `binary`.
        assert_eq!(decode(b"\xFF\xFEa", None), Err(ModelRefusal::Encoding));
        assert_eq!(
            decode(b"\xFF\xFE\x3D\xD8", None),
            Err(ModelRefusal::Encoding)
        );
        assert_eq!(decode(b"\xFF\xFE\0\0", None), Err(ModelRefusal::Binary));
        // D3: a U+0000 and a lone surrogate in one file, the first decides.
        assert_eq!(
            decode(b"\xFF\xFE\0\0\x00\xD8", None),
            Err(ModelRefusal::Binary)
        );
        assert_eq!(
            decode(b"\xFF\xFE\x00\xD8a\0\0\0", None),
            Err(ModelRefusal::Encoding)
        );
        assert_eq!(decode(b"a\0b", None), Err(ModelRefusal::Binary));
        // A NUL byte outside UTF-16 is binary even where the rest would not decode (TEXT-7, D1).
        assert_eq!(
            decode(b"\xEF\xBB\xBFa\0\xEF", None),
            Err(ModelRefusal::Binary)
        );
        assert_eq!(
            decode(b"\xE9\0", Some(encoding_rs::WINDOWS_1252)),
            Err(ModelRefusal::Binary)
        );
    }

    #[test]
    fn legacy_is_accepted_only_as_the_spec_says() {
        let cp = encoding_rs::WINDOWS_1252;
        // TEXT-1: "caf\xE9" is not UTF-8; as windows-1252 it round-trips.
        let t = decode(b"caf\xE9 \x80", Some(cp)).unwrap();
        assert_eq!(t.stored, "caf\u{E9} \u{20AC}");
        assert_eq!(encode("\u{E9}", t.encoding).unwrap(), b"\xE9");
        // Undefined byte 0x81; damaged UTF-8 (D16); no guess at all.
        assert_eq!(decode(b"a\x81\xE9", Some(cp)), Err(ModelRefusal::Encoding));
        assert_eq!(
            decode(b"\xC3\xA9\xE9", Some(cp)),
            Err(ModelRefusal::Encoding)
        );
        assert_eq!(decode(b"\xE9", None), Err(ModelRefusal::Encoding));
        // D11: a character the code page has no byte for.
        assert_eq!(encode("a\u{1F600}", t.encoding), Err('\u{1F600}'));
        assert_eq!(encode("a\u{81}", t.encoding), Err('\u{81}'));
    }
}
