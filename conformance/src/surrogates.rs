//! Lone surrogate escapes in a tool's JSON: legal JSON text that serde_json will not decode.
//!
//! JSON allows any `\uXXXX` escape, so `"\ud800"` (half of a UTF-16 pair, standing alone) is
//! valid JSON text — and a tool that reads a UTF-16 file holding an unpaired surrogate may well
//! write it. serde_json refuses it when it builds a `String`, which would turn a valid reply
//! into a `crash` of the case. A valid reply must be judged instead, so before a reply line is
//! decoded every lone surrogate escape in it is replaced by `\ufffd` (U+FFFD, the replacement
//! character). Pairs and every other byte are left as they are, so a reply that serde_json
//! already accepts is decoded exactly as before, and a reply that differs from the expectation
//! only through a lone surrogate still differs — it fails, it does not crash.

use std::borrow::Cow;

/// The escape a lone surrogate becomes.
const REPLACEMENT: &[u8] = b"\\ufffd";

/// The code unit of a `\uXXXX` escape starting at `at` (the backslash), when there is one.
fn escape_at(text: &[u8], at: usize) -> Option<u16> {
    let rest = text.get(at..at + 6)?;
    if rest[0] != b'\\' || rest[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&rest[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// Whether a code unit is the first half of a UTF-16 surrogate pair.
fn is_high(u: u16) -> bool {
    (0xD800..=0xDBFF).contains(&u)
}

/// Whether a code unit is the second half of a UTF-16 surrogate pair.
fn is_low(u: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&u)
}

/// `text` (one line of JSON) with every lone surrogate escape inside a string replaced by
/// `\ufffd`; borrowed unchanged when there is none. Escapes outside strings, escaped
/// backslashes (`\\ud800` is the text `\ud800`, not an escape) and whole pairs are kept.
pub fn mend_lone_surrogates(text: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut in_string = false;
    let mut i = 0;
    let mut copied = 0;
    while i < text.len() {
        let b = text[i];
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => match escape_at(text, i) {
                Some(hi) if is_high(hi) && escape_at(text, i + 6).is_some_and(is_low) => i += 12,
                Some(u) if is_high(u) || is_low(u) => {
                    let buf = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
                    buf.extend_from_slice(&text[copied..i]);
                    buf.extend_from_slice(REPLACEMENT);
                    i += 6;
                    copied = i;
                }
                // Any other escape is two bytes long as far as strings go (`\uXXXX` is then
                // skipped as ordinary characters).
                _ => i += 2,
            },
            _ => i += 1,
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut buf) => {
            buf.extend_from_slice(&text[copied.min(text.len())..]);
            Cow::Owned(buf)
        }
    }
}

/// Parses one line of JSON as a tool or adapter wrote it, lone surrogates mended first (see
/// the module documentation); every other fault is serde_json's error, as before.
pub fn parse_line(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    let mended = mend_lone_surrogates(text.as_bytes());
    serde_json::from_slice(&mended)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mended(s: &str) -> String {
        String::from_utf8(mend_lone_surrogates(s.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn lone_halves_become_the_replacement_character() {
        assert!(serde_json::from_str::<serde_json::Value>(r#"{"a":"x\ud800y"}"#).is_err());
        assert_eq!(mended(r#"{"a":"x\ud800y"}"#), r#"{"a":"x\ufffdy"}"#);
        assert_eq!(mended(r#"{"a":"\uDC00"}"#), r#"{"a":"\ufffd"}"#);
        assert_eq!(mended(r#"["\ud800\u0041"]"#), r#"["\ufffd\u0041"]"#);
        // A high half at the very end of a string, and two high halves in a row.
        assert_eq!(mended(r#"["\ud800\ud800"]"#), r#"["\ufffd\ufffd"]"#);
        assert_eq!(
            parse_line(r#"{"content":"1\t\ud83d"}"#).unwrap(),
            json!({"content": "1\t\u{fffd}"})
        );
    }

    #[test]
    fn everything_else_is_left_alone() {
        for s in [
            r#"{"a":"\ud83d\ude00"}"#,
            r#"{"a":"\\ud800"}"#,
            r#"{"a":"é\"\\","b":[1,2]}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"a":"\ud80"#,
            "",
        ] {
            assert!(
                matches!(mend_lone_surrogates(s.as_bytes()), Cow::Borrowed(_)),
                "{s}"
            );
        }
        assert_eq!(
            parse_line(r#"{"a":"\ud83d\ude00"}"#).unwrap(),
            json!({"a": "😀"})
        );
        assert!(parse_line("not json").is_err());
    }
}
