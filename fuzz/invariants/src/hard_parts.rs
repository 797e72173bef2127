//! Files and strings built from the hard parts of the text model, and `old_string`s drawn from
//! the file's own text — so that a fuzzer's random bytes mostly make meaningful edits.
//!
//! A body is raw bytes in which a few rarely typed bytes stand for the hard parts (see
//! [`expand`]): CRLF, a lone CR, non-ASCII that windows-1252 has or lacks, a character outside
//! the BMP (a surrogate pair in UTF-16), the tags REPAIR-1 abbreviates, a `\u` escape
//! (REPAIR-6), curly quotes and an em dash (MATCH-2/4). A [`FileForm`] then makes file bytes of
//! it: UTF-8 with or without BOM, UTF-16LE/BE with BOM, windows-1252, or the raw bytes as they
//! are (legacy bytes, invalid UTF-8, NUL). [`span`] picks an `old_string` from the file's text
//! and [`Perturb`] changes it the ways models do.

use crate::framing;
use arbitrary::{Result, Unstructured};

/// The stand-in bytes and the hard part each stands for.
pub const STAND_INS: [(u8, &str); 16] = [
    // NUL makes a file binary (TEXT-7); only raw bodies keep it, text bodies get a line break.
    (0x00, "\n"),
    (0x01, "\r\n"),
    (0x02, "\r"),
    (0x03, "\u{E9}"),
    (0x04, "\u{20AC}"),
    (0x05, "\u{1F600}"),
    (0x06, "<name>"),
    (0x07, "</name>"),
    (0x0B, "<function_results>"),
    (0x0C, "\n\nHuman:"),
    (0x0E, "\\u00e9"),
    (0x0F, "\u{2014}"),
    (b'`', "\u{2018}"),
    (b'~', "\u{2019}"),
    (b'^', "\u{201C}"),
    (b'|', "\u{201D}"),
];

/// Replaces every stand-in byte by its hard part, then reads the result as (lossy) UTF-8.
pub fn expand(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match STAND_INS.iter().find(|(s, _)| *s == b) {
            Some((_, part)) => out.extend_from_slice(part.as_bytes()),
            None => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How file bytes are made from a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileForm {
    /// The body bytes exactly as they are, without stand-ins: invalid UTF-8, legacy bytes, NUL.
    Raw,
    /// The expanded body as UTF-8.
    Utf8,
    /// `EF BB BF` then the expanded body as UTF-8.
    Utf8Bom,
    /// The expanded body as UTF-16LE with its BOM.
    Utf16Le,
    /// The expanded body as UTF-16BE with its BOM.
    Utf16Be,
    /// The expanded body as windows-1252, characters it lacks written as `?`.
    Windows1252,
}

impl FileForm {
    const ALL: [FileForm; 6] = [
        FileForm::Raw,
        FileForm::Utf8,
        FileForm::Utf8Bom,
        FileForm::Utf16Le,
        FileForm::Utf16Be,
        FileForm::Windows1252,
    ];

    /// Reads a form byte: 0 to 5 name the forms in order (what [`FileForm::tag`] writes);
    /// above that, one byte in eight is [`FileForm::Raw`] and the rest are the text forms, so
    /// that random bytes mostly make files the tools accept (a raw body is often refused, and
    /// libFuzzer keeps many of them for the decoder's coverage alone).
    pub fn read(u: &mut Unstructured<'_>) -> Result<FileForm> {
        let b = usize::from(framing::byte(u)?);
        Ok(match b {
            b if b < FileForm::ALL.len() => FileForm::ALL[b],
            b if b % 8 == 0 => FileForm::Raw,
            b => FileForm::ALL[1 + b % (FileForm::ALL.len() - 1)],
        })
    }

    /// The byte [`FileForm::read`] reads back as this form.
    pub fn tag(self) -> u8 {
        FileForm::ALL.iter().position(|&f| f == self).unwrap_or(0) as u8
    }

    /// The text the body stands for, `None` for [`FileForm::Raw`] (whose bytes are not text
    /// until decoded). For windows-1252 the characters it lacks are already `?` here, so this is
    /// exactly the text the file holds.
    pub fn text(self, body: &[u8]) -> Option<String> {
        let text = expand(body);
        match self {
            FileForm::Raw => None,
            FileForm::Windows1252 => Some(
                text.chars()
                    .map(|c| {
                        let mut buf = [0; 4];
                        let (_, _, lacks) =
                            encoding_rs::WINDOWS_1252.encode(c.encode_utf8(&mut buf));
                        if lacks || ('\u{80}'..='\u{9F}').contains(&c) {
                            '?'
                        } else {
                            c
                        }
                    })
                    .collect(),
            ),
            _ => Some(text),
        }
    }

    /// The file bytes of a text in this form (for [`FileForm::Raw`], its UTF-8).
    pub fn encode(self, text: &str) -> Vec<u8> {
        let utf16 = |big: bool| {
            let mut out = if big {
                vec![0xFE, 0xFF]
            } else {
                vec![0xFF, 0xFE]
            };
            for unit in text.encode_utf16() {
                out.extend_from_slice(&if big {
                    unit.to_be_bytes()
                } else {
                    unit.to_le_bytes()
                });
            }
            out
        };
        match self {
            FileForm::Raw | FileForm::Utf8 => text.as_bytes().to_vec(),
            FileForm::Utf8Bom => [&b"\xEF\xBB\xBF"[..], text.as_bytes()].concat(),
            FileForm::Utf16Le => utf16(false),
            FileForm::Utf16Be => utf16(true),
            FileForm::Windows1252 => encoding_rs::WINDOWS_1252.encode(text).0.into_owned(),
        }
    }
}

/// How an `old_string` drawn from the file is changed before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Perturb {
    /// Sent as found, grown until it occurs once.
    Unique,
    /// Sent as found at its length, however often it occurs.
    AsCut,
    /// Straight quotes curled (MATCH-2 must fold them back).
    Curled,
    /// Curly quotes straightened (MATCH-2, and MATCH-4 styles the new text).
    Straightened,
    /// CRLF and LF swapped (TEXT-5 normalises them).
    EndingsFlipped,
    /// A copy of it planted right after it in the file (MATCH-3: ambiguous unless `replace_all`).
    /// Only the first edit plants (into a text form); a later one is cut as is.
    Planted,
}

impl Perturb {
    /// Whether the span is grown until it occurs once.
    pub fn grows(self) -> bool {
        !matches!(self, Perturb::AsCut | Perturb::Planted)
    }

    /// Applies the perturbation to a slice of the file.
    pub fn apply(self, s: &str) -> String {
        match self {
            Perturb::Unique | Perturb::AsCut | Perturb::Planted => s.to_string(),
            Perturb::Curled => curl(s),
            Perturb::Straightened => s
                .chars()
                .map(|c| match c {
                    '\u{2018}' | '\u{2019}' => '\'',
                    '\u{201C}' | '\u{201D}' => '"',
                    c => c,
                })
                .collect(),
            Perturb::EndingsFlipped => flip_endings(s),
        }
    }
}

/// Curls straight quotes the simple way a model's text might: `"` opening after whitespace or at
/// the start, closing elsewhere; `'` always ’.
fn curl(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev: Option<char> = None;
    for c in s.chars() {
        out.push(match c {
            '"' if prev.is_none_or(char::is_whitespace) => '\u{201C}',
            '"' => '\u{201D}',
            '\'' => '\u{2019}',
            c => c,
        });
        prev = Some(c);
    }
    out
}

/// CRLF becomes LF and a bare LF becomes CRLF.
pub fn flip_endings(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {
                chars.next();
                out.push('\n');
            }
            '\n' => out.push_str("\r\n"),
            c => out.push(c),
        }
    }
    out
}

/// A span of `text` to use as `old_string`: it starts at `start` (modulo the length, on a
/// character boundary, never inside a CRLF), holds `1 + len % 48` characters, and when `grow`
/// is set is lengthened (at most 256 characters more) until it occurs exactly once.
pub fn span(text: &str, start: u16, len: u8, grow: bool) -> (usize, usize) {
    span_from(text, usize::from(start) % (text.len() + 1), len, grow)
}

/// [`span`] from the byte offset `s` (at most the text's length), and moved past any of the
/// byte ranges `avoid` it would overlap (text that earlier edits of a MultiEdit inserted: an
/// `old_string` inside an earlier `new_string` is refused by MULTI-2, so a guided edit keeps out).
pub fn span_avoiding(
    text: &str,
    start: u16,
    len: u8,
    grow: bool,
    avoid: &[(usize, usize)],
) -> (usize, usize) {
    // `avoid` is ascending, and the span only moves forward: one pass finds its place.
    let mut at = span(text, start, len, false);
    for &(a, b) in avoid {
        if at.0 < b && a < at.1.max(at.0 + 1) {
            if b > text.len() {
                break;
            }
            at = span_from(text, b, len, false);
        }
    }
    if grow {
        at = span_from(text, at.0, len, true);
    }
    at
}

fn span_from(text: &str, mut s: usize, len: u8, grow: bool) -> (usize, usize) {
    while !text.is_char_boundary(s) {
        s -= 1;
    }
    if s > 0 && text[..s].ends_with('\r') && text[s..].starts_with('\n') {
        s -= 1;
    }
    let step = |e: usize| {
        let mut e = e + text[e..].chars().next().map_or(0, char::len_utf8);
        if text[..e].ends_with('\r') && text[e..].starts_with('\n') {
            e += 1;
        }
        e
    };
    let mut e = s;
    for _ in 0..1 + usize::from(len) % 48 {
        e = step(e);
    }
    if grow {
        for _ in 0..256 {
            if e >= text.len() || text.match_indices(&text[s..e]).nth(1).is_none() {
                break;
            }
            e = step(e);
        }
    }
    (s, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_expand_and_forms_encode() {
        assert_eq!(expand(b"a\x01b\x02^q|"), "a\r\nb\r\u{201C}q\u{201D}");
        assert_eq!(
            FileForm::Windows1252.text(b"\x03\x05").as_deref(),
            Some("\u{E9}?")
        );
        assert_eq!(FileForm::Windows1252.encode("\u{E9}?"), b"\xE9?");
        assert_eq!(FileForm::Utf16Be.encode("a"), b"\xFE\xFF\0a");
        assert_eq!(FileForm::Raw.text(b"x"), None);
    }

    #[test]
    fn spans_stay_on_boundaries_and_grow_until_unique() {
        let t = "ab\r\nab\r\nabc";
        // Never ends between CR and LF, never starts on the LF of a CRLF.
        assert_eq!(span(t, 1, 1, false), (1, 4));
        assert_eq!(span(t, 3, 0, false), (2, 4));
        // "ab" occurs three times; grown, it becomes "abc".
        assert_eq!(&t[span(t, 8, 1, true).0..span(t, 8, 1, true).1], "abc");
        assert_eq!(span("", 9, 9, true), (0, 0));
        assert_eq!(span("é", 1, 0, true), (0, 2));
        assert_eq!(flip_endings("a\r\nb\nc"), "a\nb\r\nc");
        // Kept out of text earlier edits inserted: from inside the range to its end.
        assert_eq!(span_avoiding("abcdefgh", 1, 1, false, &[(0, 4)]), (4, 6));
        assert_eq!(span_avoiding("abcdefgh", 1, 1, false, &[(3, 4)]), (1, 3));
        assert_eq!(
            span_avoiding("abcdefgh", 2, 1, false, &[(3, 4), (4, 6)]),
            (6, 8)
        );
        assert_eq!(
            Perturb::Curled.apply("say \"hi\" it's"),
            "say \u{201C}hi\u{201D} it\u{2019}s"
        );
    }
}
