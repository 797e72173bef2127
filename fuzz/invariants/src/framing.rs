//! The byte framing of the structured fuzz inputs, and its inverse for writing seeds.
//!
//! The input structs derive [`arbitrary::Arbitrary`], but every field names its own reader with
//! `#[arbitrary(with = …)]`, so the byte layout is defined here rather than by `arbitrary`'s
//! internals. That keeps two things stable: seeds generated from the conformance corpus (the
//! seed tool writes inputs with [`Writer`], the exact inverse of these readers) and the
//! committed regression files, which must decode the same way after an `arbitrary` upgrade or a
//! refactor of unrelated fields.
//!
//! The layout is deliberately plain:
//! - a *byte* is one byte (0 once the input is exhausted);
//! - a *blob* is a LEB128 length (at most three bytes, so at most 2 MiB) followed by that many
//!   bytes, clamped to what is left;
//! - a *text* is a blob read as UTF-8, invalid sequences replaced by U+FFFD;
//! - a *u16* is two bytes, little endian.

use arbitrary::{Result, Unstructured};

/// Longest blob the framing can describe (three LEB128 bytes).
pub const MAX_BLOB: usize = (1 << 21) - 1;

/// Reads one byte; 0 when the input is exhausted (so short inputs still decode).
pub fn byte(u: &mut Unstructured<'_>) -> Result<u8> {
    Ok(u.bytes(1).map(|b| b[0]).unwrap_or(0))
}

/// Reads a little-endian u16 (missing bytes read as 0).
pub fn u16_le(u: &mut Unstructured<'_>) -> Result<u16> {
    let lo = byte(u)?;
    let hi = byte(u)?;
    Ok(u16::from_le_bytes([lo, hi]))
}

/// Reads a length-prefixed byte string.
pub fn blob(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let mut len = 0usize;
    for shift in [0, 7, 14] {
        let b = byte(u)?;
        len |= usize::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            break;
        }
    }
    let n = len.min(u.len());
    Ok(u.bytes(n)?.to_vec())
}

/// Reads a blob as text (lossy UTF-8, so every input decodes).
pub fn text(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(String::from_utf8_lossy(&blob(u)?).into_owned())
}

/// Implements [`arbitrary::Arbitrary`] for a struct whose fields are each read by one reader
/// of this framing, in the order listed (the struct's field order).
///
/// This is what `#[derive(Arbitrary)]` with `#[arbitrary(with = …)]` on every field would do,
/// but the derive takes `size_of` of each field as the least input length it needs, and
/// libFuzzer's typed targets skip every input shorter than that (72 bytes for three
/// `String`s). The framing has no least length — an exhausted input reads as zeros — and this
/// impl says so.
#[macro_export]
macro_rules! framed {
    ($ty:ident { $($field:ident: $reader:path),* $(,)? }) => {
        impl<'a> arbitrary::Arbitrary<'a> for $ty {
            fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<$ty> {
                Ok($ty { $($field: $reader(u)?),* })
            }

            fn arbitrary_take_rest(
                mut u: arbitrary::Unstructured<'a>,
            ) -> arbitrary::Result<$ty> {
                Self::arbitrary(&mut u)
            }

            fn size_hint(_depth: usize) -> (usize, Option<usize>) {
                (0, None)
            }
        }
    };
}

/// Builds input bytes that the readers above decode back to the same values (seed writing).
#[derive(Debug, Default, Clone)]
pub struct Writer {
    out: Vec<u8>,
}

impl Writer {
    /// An empty input.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// Appends a byte.
    pub fn byte(&mut self, b: u8) -> &mut Writer {
        self.out.push(b);
        self
    }

    /// Appends a little-endian u16.
    pub fn u16_le(&mut self, v: u16) -> &mut Writer {
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a blob; fails (returns `None`) when it is longer than [`MAX_BLOB`].
    pub fn blob(&mut self, bytes: &[u8]) -> Option<&mut Writer> {
        if bytes.len() > MAX_BLOB {
            return None;
        }
        let mut len = bytes.len();
        loop {
            let low = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                self.out.push(low);
                break;
            }
            self.out.push(low | 0x80);
        }
        self.out.extend_from_slice(bytes);
        Some(self)
    }

    /// Appends a text as a blob.
    pub fn text(&mut self, s: &str) -> Option<&mut Writer> {
        self.blob(s.as_bytes())
    }

    /// The bytes written so far.
    pub fn finish(&self) -> Vec<u8> {
        self.out.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_is_the_inverse_of_the_readers() {
        let big = vec![b'x'; 20_000];
        let mut w = Writer::new();
        w.byte(7).u16_le(0xBEEF);
        w.blob(b"").unwrap();
        w.blob(&big).unwrap();
        w.text("héllo").unwrap();
        let bytes = w.finish();
        let mut u = Unstructured::new(&bytes);
        assert_eq!(byte(&mut u).unwrap(), 7);
        assert_eq!(u16_le(&mut u).unwrap(), 0xBEEF);
        assert_eq!(blob(&mut u).unwrap(), b"");
        assert_eq!(blob(&mut u).unwrap(), big);
        assert_eq!(text(&mut u).unwrap(), "héllo");
        assert!(u.is_empty());
        // Exhausted input decodes to defaults rather than failing.
        assert_eq!(byte(&mut u).unwrap(), 0);
        assert_eq!(blob(&mut u).unwrap(), b"");
    }

    #[test]
    fn lengths_are_clamped_to_the_input() {
        let mut u = Unstructured::new(&[0x7f, b'a', b'b']);
        assert_eq!(blob(&mut u).unwrap(), b"ab");
    }
}
