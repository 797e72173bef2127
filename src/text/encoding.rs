//! Byte ⇄ text decoding that never loses a byte (TEXT-1, TEXT-2, TEXT-3, TEXT-7).
//!
//! A file is accepted only when we can write back exactly the bytes we read for every part of it
//! that an edit does not replace. UTF-8 is taken as is; UTF-16 needs its BOM; any other bytes go
//! through legacy-encoding detection and are accepted only when decode → encode gives back the
//! identical bytes. Everything else is refused, never decoded lossily.

use encoding_rs::Encoding as Legacy;
use std::borrow::Cow;

/// How a file's bytes map to text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8; `bom` says whether `EF BB BF` leads the file.
    Utf8 {
        /// The file starts with the UTF-8 BOM.
        bom: bool,
    },
    /// UTF-16 little endian, with its `FF FE` BOM.
    Utf16Le,
    /// UTF-16 big endian, with its `FE FF` BOM.
    Utf16Be,
    /// A stateless legacy encoding (windows-1252, Shift_JIS, GBK, …) whose round trip was
    /// checked to be exact.
    Legacy(&'static Legacy),
}

impl TextEncoding {
    /// The BOM bytes this encoding writes in front of the text (empty when none).
    pub fn bom(self) -> &'static [u8] {
        match self {
            TextEncoding::Utf8 { bom: true } => b"\xEF\xBB\xBF",
            TextEncoding::Utf16Le => b"\xFF\xFE",
            TextEncoding::Utf16Be => b"\xFE\xFF",
            _ => b"",
        }
    }

    /// A short human name, used in messages and results.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 { bom: false } => "utf-8",
            TextEncoding::Utf8 { bom: true } => "utf-8-bom",
            TextEncoding::Utf16Le => "utf-16le",
            TextEncoding::Utf16Be => "utf-16be",
            TextEncoding::Legacy(e) => e.name(),
        }
    }

    /// Appends the encoded form of `text` (no BOM) to `out`.
    ///
    /// Fails with the first character the encoding cannot represent; nothing is appended then.
    pub fn encode_into(self, text: &str, out: &mut Vec<u8>) -> Result<(), char> {
        match self {
            TextEncoding::Utf8 { .. } => out.extend_from_slice(text.as_bytes()),
            TextEncoding::Utf16Le => {
                out.reserve(text.len() * 2);
                for unit in text.encode_utf16() {
                    out.extend_from_slice(&unit.to_le_bytes());
                }
            }
            TextEncoding::Utf16Be => {
                out.reserve(text.len() * 2);
                for unit in text.encode_utf16() {
                    out.extend_from_slice(&unit.to_be_bytes());
                }
            }
            TextEncoding::Legacy(enc) => {
                let (bytes, _, unmappable) = enc.encode(text);
                if unmappable {
                    let bad = text
                        .chars()
                        .find(|c| {
                            let mut buf = [0u8; 4];
                            enc.encode(c.encode_utf8(&mut buf)).2
                        })
                        .unwrap_or('\u{FFFD}');
                    return Err(bad);
                }
                out.extend_from_slice(&bytes);
            }
        }
        Ok(())
    }

    /// The number of encoded bytes `text` takes, for encodings where that is cheap to know
    /// without encoding (UTF-8 and UTF-16); `None` for legacy encodings.
    pub fn encoded_len(self, text: &str) -> Option<usize> {
        match self {
            TextEncoding::Utf8 { .. } => Some(text.len()),
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => Some(2 * utf16_units(text)),
            TextEncoding::Legacy(_) => None,
        }
    }
}

/// UTF-16 code units of a text: one per character (counted by its UTF-8 lead byte) plus one
/// more for each character outside the BMP (lead byte F0..F4). A byte loop the compiler
/// vectorises, instead of decoding every character.
fn utf16_units(text: &str) -> usize {
    // Per block of 127 bytes the count fits a u8 (at most 2 per byte), so the inner loop runs
    // on byte lanes.
    text.as_bytes()
        .chunks(127)
        .map(|block| {
            let n: u8 = block.iter().fold(0u8, |n, &b| {
                n + u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0)
            });
            usize::from(n)
        })
        .sum()
}

/// Why bytes were not accepted as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// TEXT-7: a NUL byte (or U+0000) means the file is binary.
    Binary,
    /// TEXT-1/2: no lossless interpretation was found; the string says why.
    Encoding(String),
}

/// The decoded text of a file and how it was encoded.
#[derive(Debug, Clone)]
pub struct Decoded<'a> {
    /// The encoding to write the text back with.
    pub encoding: TextEncoding,
    /// The text exactly as stored (CRLF and lone CR intact, BOM removed).
    pub text: Cow<'a, str>,
    /// Whether the text has a CR, when decoding found out anyway (UTF-8 scans for NUL and CR
    /// in one pass), so that the LF view does not scan again.
    pub(crate) has_cr: Option<bool>,
}

/// Legacy encodings we accept: stateless ones, so that any slice of the decoded text encodes
/// back to exactly the bytes it came from.
fn is_accepted_legacy(enc: &'static Legacy) -> bool {
    enc.is_single_byte()
        || enc == encoding_rs::SHIFT_JIS
        || enc == encoding_rs::EUC_JP
        || enc == encoding_rs::EUC_KR
        || enc == encoding_rs::GBK
        || enc == encoding_rs::GB18030
        || enc == encoding_rs::BIG5
}

/// Decodes file bytes per TEXT-1: BOM first, then UTF-8, then a checked legacy guess.
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, DecodeError> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return decode_utf8(rest, true);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return decode_utf16(rest, false).map(|text| Decoded {
            encoding: TextEncoding::Utf16Le,
            text: Cow::Owned(text),
            has_cr: None,
        });
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return decode_utf16(rest, true).map(|text| Decoded {
            encoding: TextEncoding::Utf16Be,
            text: Cow::Owned(text),
            has_cr: None,
        });
    }
    decode_utf8(bytes, false)
}

/// What one pass over would-be UTF-8 bytes found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scan {
    /// A NUL byte (TEXT-7).
    nul: bool,
    /// A CR byte (for the LF view).
    cr: bool,
    /// Valid UTF-8 (only looked at when there is no NUL).
    valid: bool,
}

impl Scan {
    fn of(bytes: &[u8]) -> Scan {
        // NUL and CR in one pass; after a first CR, NUL alone.
        let (nul, cr) = match memchr::memchr2(0, b'\r', bytes) {
            None => (false, false),
            Some(i) if bytes[i] == 0 => (true, false),
            Some(i) => (memchr::memchr(0, &bytes[i + 1..]).is_some(), true),
        };
        // SIMD validation: several times faster than the standard library's on text with
        // non-ASCII.
        let valid = !nul && simdutf8::basic::from_utf8(bytes).is_ok();
        Scan { nul, cr, valid }
    }

    /// [`Scan::of`], on two threads for large inputs: the checks are pure CPU work over
    /// memory, and an edit of a large file is otherwise bound by them. The halves split at a
    /// byte that does not continue a character, so valid halves make a valid whole.
    fn of_large(bytes: &[u8]) -> Scan {
        if bytes.len() < PARALLEL_SCAN_MIN {
            return Scan::of(bytes);
        }
        let mut split = bytes.len() / 2;
        // At most 3 steps back in valid UTF-8; in invalid input the second half then starts
        // with a continuation byte and is found invalid, as the whole is.
        for _ in 0..3 {
            if bytes[split] & 0xC0 != 0x80 {
                break;
            }
            split -= 1;
        }
        let (first, second) = bytes.split_at(split);
        let halves = std::thread::scope(|s| {
            let other = std::thread::Builder::new()
                .name("editref-scan".into())
                .spawn_scoped(s, || Scan::of(second))
                .ok()?;
            let a = Scan::of(first);
            let b = other.join().ok()?;
            Some(Scan {
                nul: a.nul || b.nul,
                cr: a.cr || b.cr,
                valid: a.valid && b.valid,
            })
        });
        // No thread to be had: one pass on this one.
        halves.unwrap_or_else(|| Scan::of(bytes))
    }
}

/// Inputs from this size on are scanned on two threads (below it, starting a thread costs
/// more than it saves).
const PARALLEL_SCAN_MIN: usize = 4 << 20;

fn decode_utf8(bytes: &[u8], bom: bool) -> Result<Decoded<'_>, DecodeError> {
    let scan = Scan::of_large(bytes);
    if scan.nul {
        return Err(DecodeError::Binary);
    }
    if scan.valid {
        // SAFETY: `Scan` validated every byte as UTF-8 — in one piece, or as two pieces split
        // before a byte that starts a character, whose concatenation is then valid as well.
        let text = unsafe { std::str::from_utf8_unchecked(bytes) };
        return Ok(Decoded {
            encoding: TextEncoding::Utf8 { bom },
            text: Cow::Borrowed(text),
            has_cr: Some(scan.cr),
        });
    }
    // Invalid: the standard library's error gives the position.
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(Decoded {
            encoding: TextEncoding::Utf8 { bom },
            text: Cow::Borrowed(text),
            has_cr: Some(scan.cr),
        }),
        Err(err) if bom => Err(DecodeError::Encoding(format!(
            "the file starts with a UTF-8 byte order mark but byte {} is not valid UTF-8",
            err.valid_up_to() + 3
        ))),
        Err(err) => decode_legacy(bytes, err.valid_up_to()),
    }
}

fn decode_legacy(bytes: &[u8], bad_at: usize) -> Result<Decoded<'_>, DecodeError> {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let guess = detector.guess(None, chardetng::Utf8Detection::Allow);
    let refuse = || {
        DecodeError::Encoding(format!(
            "byte {bad_at} is not valid UTF-8 and no legacy encoding reproduces the file's bytes exactly"
        ))
    };
    if guess == encoding_rs::UTF_8 || !is_accepted_legacy(guess) {
        return Err(refuse());
    }
    // Valid multi-byte UTF-8 next to invalid bytes, in what would be a single-byte encoding, is
    // damaged UTF-8: accepting it would write new text in a second encoding into the same file
    // (D16). Multi-byte encodings (Shift_JIS, GBK, …) legitimately contain such byte pairs.
    if guess.is_single_byte() && bytes.utf8_chunks().any(|c| !c.valid().is_ascii()) {
        return Err(DecodeError::Encoding(format!(
            "byte {bad_at} is not valid UTF-8 although the file has valid UTF-8 characters (damaged UTF-8)"
        )));
    }
    let text = guess
        .decode_without_bom_handling_and_without_replacement(bytes)
        .ok_or_else(refuse)?;
    if text.contains('\0') {
        return Err(DecodeError::Binary);
    }
    // A single-byte code page decodes only the bytes it defines. The WHATWG tables map the
    // bytes a code page leaves undefined (windows-1252's 81, 8D, 8F, 90, 9D) to C1 control
    // characters, which no text holds: such a file is not in that encoding (TEXT-1).
    if guess.is_single_byte() {
        if let Some(at) = text
            .chars()
            .position(|c| ('\u{80}'..='\u{9F}').contains(&c))
        {
            return Err(DecodeError::Encoding(format!(
                "byte {bad_at} is not valid UTF-8, and byte {at} (0x{:02X}) is undefined in {}, the closest legacy encoding",
                bytes.get(at).copied().unwrap_or(0),
                guess.name()
            )));
        }
    }
    let (again, _, unmappable) = guess.encode(&text);
    if unmappable || again.as_ref() != bytes {
        return Err(refuse());
    }
    Ok(Decoded {
        encoding: TextEncoding::Legacy(guess),
        text: Cow::Owned(text.into_owned()),
        has_cr: None,
    })
}

pub(super) fn decode_utf16(bytes: &[u8], big_endian: bool) -> Result<String, DecodeError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(DecodeError::Encoding(
            "the file has a UTF-16 byte order mark but an odd number of bytes".into(),
        ));
    }
    // encoding_rs's SIMD decoder for the common, well-formed case; it refuses unpaired
    // surrogates, and the loop below then finds which error comes first, as it always did.
    let enc = if big_endian {
        encoding_rs::UTF_16BE
    } else {
        encoding_rs::UTF_16LE
    };
    // Sized for mostly-ASCII text plus an eighth: the decoder touches every page of the spare
    // capacity, so a worst-case (3 bytes per unit) buffer would cost half again the file in
    // memory. Text with more non-ASCII grows the buffer below.
    let units = bytes.len() / 2;
    let mut decoder = enc.new_decoder_without_bom_handling();
    let mut text = super::buffer::large_string(units + units / 8 + 16);
    let mut input = bytes;
    loop {
        let (result, read) = decoder.decode_to_string_without_replacement(input, &mut text, true);
        input = &input[read..];
        match result {
            encoding_rs::DecoderResult::InputEmpty => {
                if memchr::memchr(0, text.as_bytes()).is_some() {
                    return Err(DecodeError::Binary);
                }
                return Ok(text);
            }
            encoding_rs::DecoderResult::OutputFull => {
                text.reserve(input.len() / 2 * 3 + 16);
            }
            encoding_rs::DecoderResult::Malformed(..) => break,
        }
    }
    let units = bytes.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    for (index, unit) in char::decode_utf16(units).enumerate() {
        match unit {
            Ok('\0') => return Err(DecodeError::Binary),
            Ok(c) => text.push(c),
            Err(_) => {
                return Err(DecodeError::Encoding(format!(
                    "the UTF-16 text has an unpaired surrogate near code unit {index}"
                )))
            }
        }
    }
    Ok(text)
}

#[cfg(test)]
#[path = "encoding_tests.rs"]
mod tests;
