//! Evidence: how bytes, entries and differences are shown in a report — escaped text next to
//! hex, a short line diff, and the JSON shapes of what was expected and what was found.
//!
//! A failure is only useful if a person can see the difference, and the differences that matter
//! in this corpus are often invisible (CR, BOM, NBSP, trailing bytes). Every check that compares
//! bytes or entries renders them through here, so they read alike in every report format.

use super::Failure;
use crate::class::Class;
use crate::sandbox::{Actual, Known};
use serde_json::{json, Value};

/// How much of a byte string a report shows (escaped text and hex are each cut there).
const SHOW: usize = 4096;

/// Bytes as readable text: printable characters as they are, `\n`, `\r`, `\t`, `\\`, other
/// control and invisible characters as `\u{…}`, invalid UTF-8 as `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() || is_invisible(c) => {
                    out.push_str(&format!("\\u{{{:04x}}}", c as u32))
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// Characters that print as nothing or as a space but change the bytes.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{feff}' | '\u{200b}'..='\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{00a0}' | '\u{00ad}'
    )
}

/// Bytes as space-separated lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Cuts `s` to at most `n` bytes on a character boundary, marking the cut with `…`.
fn truncate(mut s: String, n: usize) -> String {
    if s.len() > n {
        let mut cut = n;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// Bytes for a report: length, escaped text and hex (both cut at 4 KiB).
pub fn bytes_json(bytes: &[u8]) -> Value {
    json!({
        "len": bytes.len(),
        "text": truncate(escape_bytes(bytes), SHOW),
        "hex": truncate(hex(&bytes[..bytes.len().min(SHOW / 3)]), SHOW),
    })
}

/// A unified line diff of two byte strings (lines escaped, so CR and BOMs show), at most
/// 40 lines; `None` when both are empty or identical.
pub fn short_diff(expected: &[u8], actual: &[u8]) -> Option<String> {
    if expected == actual {
        return None;
    }
    let lines = |b: &[u8]| -> Vec<String> {
        b.split_inclusive(|c| *c == b'\n')
            .map(escape_bytes)
            .collect()
    };
    let (e, a) = (lines(expected), lines(actual));
    let e_refs: Vec<&str> = e.iter().map(String::as_str).collect();
    let a_refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let diff = similar::TextDiff::from_slices(&e_refs, &a_refs);
    let mut out = String::from("--- expected\n+++ actual\n");
    for group in diff.grouped_ops(2) {
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                out.push(sign);
                out.push_str(change.value());
                out.push('\n');
            }
        }
    }
    let mut lines: Vec<&str> = out.lines().collect();
    if lines.len() > 42 {
        lines.truncate(42);
        lines.push("…");
    }
    Some(lines.join("\n"))
}

/// An entry as found on disk, in a report's JSON shape.
pub(super) fn actual_json(a: &Actual) -> Value {
    match a {
        Actual::File { bytes, mode } => {
            let mut v = bytes_json(bytes);
            v["mode"] = Value::from(format!("{mode:04o}"));
            v
        }
        Actual::Symlink(t) => json!({"symlink": t.to_string_lossy()}),
        Actual::Dir(m) => json!({"dir": true, "mode": format!("{m:04o}")}),
        Actual::Fifo => json!({"fifo": true}),
        Actual::Other => json!({"special": true}),
        Actual::Absent => json!({"absent": true}),
        Actual::Unreadable(e) => json!({"unreadable": e}),
    }
}

/// An entry as the harness knows it, in a report's JSON shape.
pub(super) fn known_json(k: &Known) -> Value {
    match k {
        Known::File { bytes, mode } => {
            let mut v = bytes_json(bytes);
            if let Some(m) = mode {
                v["mode"] = Value::from(format!("{m:04o}"));
            }
            v
        }
        Known::Symlink(t) => json!({"symlink": t.to_string_lossy()}),
        Known::Dir(_) => json!({"dir": true}),
        Known::Fifo => json!({"fifo": true}),
        Known::Absent => json!({"absent": true}),
    }
}

/// What an entry on disk is, in words ("a symlink", "absent").
pub(super) fn kind(a: &Actual) -> &'static str {
    match a {
        Actual::File { .. } => "a regular file",
        Actual::Symlink(_) => "a symlink",
        Actual::Dir(_) => "a directory",
        Actual::Fifo => "a FIFO",
        Actual::Other => "a special file",
        Actual::Absent => "absent",
        Actual::Unreadable(_) => "unreadable",
    }
}

/// How a reason shows `b` from byte `start` on: up to 48 bytes, escaped and cut at 80
/// characters, `…` marking what is left out before and after. Whether it shows the bytes whole
/// from `start` on is [`window_is_whole`].
pub fn window(b: &[u8], start: usize) -> String {
    let tail = &b[start.min(b.len())..];
    let shown = truncate(escape_bytes(&tail[..tail.len().min(48)]), 80);
    let more = if tail.len() > 48 { "…" } else { "" };
    format!("{}\"{shown}{more}\"", if start > 0 { "…" } else { "" })
}

/// Whether [`window`] shows every byte of `b` from `start` on, nothing cut.
pub fn window_is_whole(b: &[u8], start: usize) -> bool {
    let tail = &b[start.min(b.len())..];
    tail.len() <= 48 && escape_bytes(tail).len() <= 80
}

/// Whether `text`, a `bytes_json` text, shows `b` whole (nothing cut at 4 KiB) and equal.
pub fn shows_whole(text: &str, b: &[u8]) -> bool {
    let escaped = escape_bytes(b);
    escaped.len() <= SHOW && escaped == text
}

/// The failure for two byte strings that differ, its reason pointing at the first difference.
pub(super) fn bytes_failure(path: &str, what: &str, expected: &[u8], actual: &[u8]) -> Failure {
    // Show both sides from a little before the first difference, so the reason line points at it.
    let first = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let start = first.saturating_sub(16);
    Failure {
        reason: format!(
            "{path}: {what} at byte {first} (expected {}, got {}; {} vs {} bytes)",
            window(expected, start),
            window(actual, start),
            expected.len(),
            actual.len()
        ),
        expected: Some(bytes_json(expected)),
        actual: Some(bytes_json(actual)),
        diff: short_diff(expected, actual),
        classes: vec![Class::Data],
        untouched: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_shows_what_matters() {
        assert_eq!(escape_bytes(b"a\r\nb\t\\"), "a\\r\\nb\\t\\\\");
        assert_eq!(
            escape_bytes(&[0xEF, 0xBB, 0xBF, b'x', 0xFF]),
            "\\u{feff}x\\xFF"
        );
        assert_eq!(escape_bytes("é".as_bytes()), "é");
        let d = short_diff(b"a\nb\n", b"a\r\nb\n").unwrap();
        assert!(d.contains("-a\\n") && d.contains("+a\\r\\n"), "{d}");
    }
}
