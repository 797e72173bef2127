//! A UTF-16 file answered from its bytes (TEXT-1, TEXT-3, TEXT-5): most UTF-16 files hold
//! neither CR, nor a character outside the BMP, nor NUL. For those, every code unit is one
//! character and every LF one line break, so the file can be searched, cut into lines and
//! hashed as units, and decoded only where a window of its lines is needed — instead of
//! decoding all of it, a second copy as large as half the file, before the first search.
//!
//! Offsets here are byte offsets into the text after the BOM ("raw"), always even.

use super::encoding;
use super::TextEncoding;
use xxhash_rust::xxh3::Xxh3;

/// The code unit of LF.
const LF: u16 = 0x0A;

/// When `bytes` is UTF-16 with its BOM, an even length and no unit that is NUL, CR or half a
/// surrogate pair: its encoding and whether it is big endian. Such a text decodes without
/// error, one character per unit, and its LF view is itself.
pub(super) fn plain(bytes: &[u8]) -> Option<(TextEncoding, bool)> {
    let (encoding, big_endian) = match bytes.get(..2) {
        Some(b"\xFF\xFE") => (TextEncoding::Utf16Le, false),
        Some(b"\xFE\xFF") => (TextEncoding::Utf16Be, true),
        _ => return None,
    };
    let raw = &bytes[2..];
    if !raw.len().is_multiple_of(2) {
        return None;
    }
    // Blocks of units folded without an early exit inside, so that the loop vectorises.
    let clean = raw.chunks(256).all(|block| {
        !block.chunks_exact(2).fold(false, |bad, pair| {
            let u = unit(pair, big_endian);
            bad | (u == 0) | (u == 0x0D) | (u & 0xF800 == 0xD800)
        })
    });
    clean.then_some((encoding, big_endian))
}

/// The unit of a byte pair.
fn unit(pair: &[u8], big_endian: bool) -> u16 {
    let pair = [pair[0], pair.get(1).copied().unwrap_or(0)];
    if big_endian {
        u16::from_be_bytes(pair)
    } else {
        u16::from_le_bytes(pair)
    }
}

/// The text of `raw`, a plain UTF-16 text (see [`plain`]) or an even slice of one.
pub(super) fn decode(raw: &[u8], big_endian: bool) -> String {
    // A plain text has no error to report; should one appear all the same, the characters
    // are taken unit by unit rather than lost.
    encoding::decode_utf16(raw, big_endian).unwrap_or_else(|_| {
        char::decode_utf16(raw.chunks_exact(2).map(|p| unit(p, big_endian)))
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    })
}

/// Every place `needle` (encoded units) starts at a unit of `raw`, leftmost first and not
/// overlapping. A byte match at an odd offset straddles two units and is no match; the search
/// goes on from the byte after it, so that it hides no match overlapping it.
pub(super) fn find(raw: &[u8], needle: &[u8]) -> Vec<(usize, usize)> {
    let finder = memchr::memmem::Finder::new(needle);
    let mut hits = Vec::new();
    let mut from = 0;
    while let Some(i) = finder.find(&raw[from..]) {
        let at = from + i;
        if at.is_multiple_of(2) {
            hits.push((at, at + needle.len()));
            from = at + needle.len();
        } else {
            from = at + 1;
        }
        if needle.is_empty() {
            break;
        }
    }
    hits
}

/// Whether the byte `k` of `raw`, an LF byte, is the low half of an LF unit; returns the unit's
/// offset.
fn lf_unit_at(raw: &[u8], k: usize, big_endian: bool) -> Option<usize> {
    let start = if big_endian { k.checked_sub(1)? } else { k };
    (start.is_multiple_of(2) && raw.get(start..start + 2).map(|p| unit(p, big_endian)) == Some(LF))
        .then_some(start)
}

/// Where the line that holds the unit at `at` starts: after the last LF unit before `at`.
pub(super) fn line_start(raw: &[u8], at: usize, big_endian: bool) -> usize {
    let mut end = at;
    while let Some(k) = memchr::memrchr(LF as u8, &raw[..end]) {
        if let Some(u) = lf_unit_at(raw, k, big_endian).filter(|u| u + 2 <= at) {
            return u + 2;
        }
        end = k;
    }
    0
}

/// Where the line that holds the unit at `at` ends: after the first LF unit from `at` on, or
/// at the end of the text.
pub(super) fn line_end(raw: &[u8], at: usize, big_endian: bool) -> usize {
    let mut from = at;
    while let Some(i) = memchr::memchr(LF as u8, &raw[from..]) {
        let k = from + i;
        if let Some(u) = lf_unit_at(raw, k, big_endian).filter(|&u| u >= at) {
            return u + 2;
        }
        from = k + 1;
    }
    raw.len()
}

/// The LF units of `raw[..end]`: the 0-based line the unit at `end` is on.
pub(super) fn lines_before(raw: &[u8], end: usize, big_endian: bool) -> usize {
    memchr::memchr_iter(LF as u8, &raw[..end])
        .filter(|&k| lf_unit_at(raw, k, big_endian).is_some_and(|u| u + 2 <= end))
        .count()
}

/// Feeds the text of `raw` (an even slice of a plain text) to `hasher` a block at a time,
/// without holding all of it; returns the text's length in bytes.
pub(super) fn hash_text(hasher: &mut Xxh3, raw: &[u8], big_endian: bool) -> u64 {
    let mut len = 0;
    for block in raw.chunks(1 << 16) {
        let text = decode(block, big_endian);
        hasher.update(text.as_bytes());
        len += text.len() as u64;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` as UTF-16 bytes without a BOM.
    fn units(s: &str, big_endian: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let encoding = if big_endian {
            TextEncoding::Utf16Be
        } else {
            TextEncoding::Utf16Le
        };
        let _ = encoding.encode_into(s, &mut out);
        out
    }

    /// A byte match that straddles two units is none, and the search resumes at the next byte,
    /// so that a real match overlapping it is found: "䅁䅁" (41 41 41 41) after "䄰" (30 41
    /// little endian) matches first at byte 1, then at byte 2.
    #[test]
    fn text_1_matches_start_at_units_and_a_straddling_one_hides_none() {
        let le = [0x30, 0x41, 0x41, 0x41, 0x41, 0x41];
        assert_eq!(units("\u{4130}\u{4141}\u{4141}", false), le);
        assert_eq!(find(&le, &units("\u{4141}\u{4141}", false)), [(2, 6)]);
        let be = units("\u{3041}\u{4141}\u{4141}", true);
        assert_eq!(be, [0x30, 0x41, 0x41, 0x41, 0x41, 0x41]);
        assert_eq!(find(&be, &units("\u{4141}\u{4141}", true)), [(2, 6)]);
        // Several matches, not overlapping, the second right after the first.
        let text = units("abab ab", false);
        assert_eq!(find(&text, &units("ab", false)), [(0, 4), (4, 8), (10, 14)]);
        assert_eq!(find(&text, &units("b a", false)), [(6, 12)]);
        assert_eq!(find(&text, &units("x", false)), []);
    }

    /// Lines are cut at LF units only: a unit whose one byte is that of LF (U+0A41, U+410A,
    /// U+0A0A) is an ordinary character, in either byte order.
    #[test]
    fn text_4_lines_end_at_lf_units_only() {
        for big_endian in [false, true] {
            let text = "a\u{0A41}\n\u{410A}\u{0A0A}\nb\n";
            let raw = units(text, big_endian);
            // Units: a ੁ LF 䄊 ਊ LF b LF — bytes 0, 2, 4, 6, 8, 10, 12, 14.
            assert_eq!(line_start(&raw, 0, big_endian), 0);
            assert_eq!(line_start(&raw, 4, big_endian), 0, "the LF unit itself");
            assert_eq!(line_start(&raw, 6, big_endian), 6);
            assert_eq!(line_start(&raw, 10, big_endian), 6);
            assert_eq!(line_start(&raw, 12, big_endian), 12);
            assert_eq!(line_end(&raw, 0, big_endian), 6);
            assert_eq!(line_end(&raw, 4, big_endian), 6);
            assert_eq!(line_end(&raw, 6, big_endian), 12);
            assert_eq!(line_end(&raw, 12, big_endian), 16);
            assert_eq!(line_end(&raw, 16, big_endian), 16);
            let lines: Vec<usize> = [0, 4, 6, 12, 14, 16]
                .iter()
                .map(|&at| lines_before(&raw, at, big_endian))
                .collect();
            assert_eq!(lines, [0, 0, 1, 2, 2, 3]);
            assert_eq!(decode(&raw, big_endian), text);
        }
        // No LF at all: one line.
        let raw = units("\u{0A41}\u{410A}", false);
        assert_eq!(
            (line_start(&raw, 2, false), line_end(&raw, 0, false)),
            (0, 4)
        );
        assert_eq!(lines_before(&raw, 4, false), 0);
    }

    /// TEXT-1: only BOM-led UTF-16 of even length without NUL, CR or surrogate units is
    /// plain; every other text is decoded whole, as before.
    #[test]
    fn text_1_plain_utf16_has_no_nul_cr_or_surrogate() {
        let with_bom = |bom: &[u8], s: &str, big_endian: bool| {
            let mut b = bom.to_vec();
            b.extend(units(s, big_endian));
            b
        };
        let le = |s: &str| with_bom(b"\xFF\xFE", s, false);
        let be = |s: &str| with_bom(b"\xFE\xFF", s, true);
        assert_eq!(plain(&le("a\nb ਊ")), Some((TextEncoding::Utf16Le, false)));
        assert_eq!(plain(&be("a\nb ਊ")), Some((TextEncoding::Utf16Be, true)));
        assert_eq!(plain(&le("")), Some((TextEncoding::Utf16Le, false)));
        // Units that look bad in the other byte order are fine: 0D 0A, 00 0D, D8 41.
        assert_eq!(
            plain(&le("\u{0A0D}\u{0D00}\u{41D8}")),
            Some((TextEncoding::Utf16Le, false))
        );
        // One bad unit, or several in one block (a pair of surrogates, two CRs, two NULs, a
        // CR and a NUL): each is enough.
        for bad in [
            "a\rb",
            "a\0b",
            "a\u{10000}b",
            "\u{D7FF}\u{E000}\r",
            "a\r\nb\r\n",
            "\0x\0",
            "\r\0",
            "\0\r\u{10000}",
        ] {
            assert_eq!(plain(&le(bad)), None, "{bad:?}");
            assert_eq!(plain(&be(bad)), None, "{bad:?}");
        }
        // The last of 129 units, past the first block of 256 bytes.
        assert_eq!(plain(&le(&format!("{}\r", "a".repeat(128)))), None);
        assert_eq!(
            plain(&le(&"a".repeat(129))),
            Some((TextEncoding::Utf16Le, false))
        );
        let mut odd = le("ab");
        odd.push(b'c');
        assert_eq!(plain(&odd), None);
        assert_eq!(plain(b"ab\n"), None);
        assert_eq!(plain(b"\xEF\xBB\xBFab"), None);
        assert_eq!(plain(b"\xFF"), None);
    }

    /// The hash of a text fed a block at a time is the hash of the whole text, across block
    /// boundaries, with the text's length in UTF-8 bytes.
    #[test]
    fn hashing_units_in_blocks_is_hashing_the_text() {
        let text: String = (0..70_000u32)
            .map(|i| char::from_u32(0x20 + i % 0x7000).unwrap_or('x'))
            .collect();
        for big_endian in [false, true] {
            let mut hasher = Xxh3::new();
            let len = hash_text(&mut hasher, &units(&text, big_endian), big_endian);
            assert_eq!(len, text.len() as u64);
            assert_eq!(
                hasher.digest128(),
                xxhash_rust::xxh3::xxh3_128(text.as_bytes())
            );
        }
    }
}
