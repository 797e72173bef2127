//! Input repair (REPAIR-1..6): the model's intent is right but its literal text can be slightly
//! off in known ways. Each repair fires only when the text as given does not occur and the
//! repaired text does (REPAIR-4), so a file that really contains the odd-looking text is never
//! touched by a repair.
//!
//! Order: desanitize (REPAIR-1/2), then line-number prefixes (REPAIR-3) on the desanitized
//! text, then `\uXXXX` escapes (REPAIR-6). The repairs that fired are reported by name.

use crate::matching::Haystack;
use std::borrow::Cow;

/// REPAIR-1: the API's abbreviations and what they stand for, applied in this order.
pub const DESANITIZE: [(&str, &str); 18] = [
    ("<fnr>", "<function_results>"),
    ("<n>", "<name>"),
    ("</n>", "</name>"),
    ("<o>", "<output>"),
    ("</o>", "</output>"),
    ("<e>", "<error>"),
    ("</e>", "</error>"),
    ("<s>", "<system>"),
    ("</s>", "</system>"),
    ("<r>", "<result>"),
    ("</r>", "</result>"),
    ("< META_START >", "<META_START>"),
    ("< META_END >", "<META_END>"),
    ("< EOT >", "<EOT>"),
    ("< META >", "<META>"),
    ("< SOS >", "<SOS>"),
    ("\n\nH:", "\n\nHuman:"),
    ("\n\nA:", "\n\nAssistant:"),
];

/// A repair's name as reported in results.
pub const DESANITIZE_NAME: &str = "desanitize";
/// See [`DESANITIZE_NAME`].
pub const LINE_PREFIX_NAME: &str = "line_prefix";
/// See [`DESANITIZE_NAME`].
pub const UNICODE_ESCAPE_NAME: &str = "unicode_escape";

/// The strings after repair and the repairs that fired.
///
/// The strings borrow the ones given whenever a repair left them as they were — by far the
/// usual case, and the one that matters for a string of many megabytes: repairing it must not
/// copy it when nothing fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired<'s> {
    /// `old_string` to search for.
    pub old: Cow<'s, str>,
    /// `new_string` to write.
    pub new: Cow<'s, str>,
    /// Names of the repairs that fired, in order.
    pub repairs: Vec<&'static str>,
}

/// Repairs one edit against the text it applies to. Both strings must already have CRLF turned
/// into LF (TEXT-5).
pub fn repair<'s>(hay: &Haystack<'_>, old: &'s str, new: &'s str) -> Repaired<'s> {
    let unchanged = || Repaired {
        old: Cow::Borrowed(old),
        new: Cow::Borrowed(new),
        repairs: Vec::new(),
    };
    if old.is_empty() || hay.occurs(old) {
        return unchanged();
    }
    let (candidate, applied) = desanitize(old);
    let mut repairs = Vec::new();
    if !applied.is_empty() {
        if hay.occurs(&candidate) {
            return Repaired {
                old: candidate,
                new: apply_entries(new, &applied),
                repairs: vec![DESANITIZE_NAME],
            };
        }
        repairs.push(DESANITIZE_NAME);
    }
    let new_base = || apply_entries(new, &applied);
    if let Some((format, stripped)) = strip_prefixes(&candidate) {
        if hay.occurs(&stripped) {
            let base = new_base();
            let new = match strip_all_with(&base, format) {
                Some(stripped) => Cow::Owned(stripped),
                None => base,
            };
            repairs.push(LINE_PREFIX_NAME);
            return Repaired {
                old: Cow::Owned(stripped),
                new,
                repairs,
            };
        }
    }
    if let Some((old, new)) = unicode_escapes(hay, &candidate, new_base) {
        repairs.push(UNICODE_ESCAPE_NAME);
        return Repaired {
            old: Cow::Owned(old),
            new: Cow::Owned(new),
            repairs,
        };
    }
    unchanged()
}

/// Whether `s` can hold an abbreviation of the table at all: all but the last two start with
/// `<`, and those two with a blank line. One SIMD scan, so that a long string without either
/// skips the eighteen searches of the table.
fn may_be_sanitized(s: &str) -> bool {
    memchr::memchr(b'<', s.as_bytes()).is_some()
        || memchr::memmem::find(s.as_bytes(), b"\n\n").is_some()
}

/// Applies the whole table to `s`; returns the result and the entries that changed it. The
/// result borrows `s` when no entry applies.
pub fn desanitize(s: &str) -> (Cow<'_, str>, Vec<usize>) {
    let mut out = Cow::Borrowed(s);
    let mut applied = Vec::new();
    if !may_be_sanitized(s) {
        return (out, applied);
    }
    for (i, (short, long)) in DESANITIZE.iter().enumerate() {
        if out.contains(short) {
            out = Cow::Owned(out.replace(short, long));
            applied.push(i);
        }
    }
    (out, applied)
}

/// The entries `entries` of the table applied to `s` (borrowed when there are none).
fn apply_entries<'s>(s: &'s str, entries: &[usize]) -> Cow<'s, str> {
    let mut out = Cow::Borrowed(s);
    for &i in entries {
        let (short, long) = DESANITIZE[i];
        out = Cow::Owned(out.replace(short, long));
    }
    out
}

/// The three line-number prefix formats Read has emitted (REPAIR-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefixFormat {
    /// `N\t`
    Compact,
    /// `{N:>6}→` (U+2192), unpadded from six digits on.
    Arrow,
    /// `{N:>6}\t`
    Legacy,
}

impl PrefixFormat {
    const ALL: [PrefixFormat; 3] = [
        PrefixFormat::Compact,
        PrefixFormat::Arrow,
        PrefixFormat::Legacy,
    ];

    /// The exact prefix this format gives line `n`.
    pub fn prefix(self, n: u64) -> String {
        match self {
            PrefixFormat::Compact => format!("{n}\t"),
            PrefixFormat::Arrow => format!("{n:>6}\u{2192}"),
            PrefixFormat::Legacy => format!("{n:>6}\t"),
        }
    }
}

/// The number a line's prefix would carry: optional spaces, then digits.
fn leading_number(line: &str) -> Option<u64> {
    let rest = line.trim_start_matches(' ');
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 18 {
        return None;
    }
    rest[..digits].parse().ok()
}

/// The lines that must carry a prefix: all of them, except a final empty one. An iterator, not
/// a list: a string of a million lines is walked, never indexed.
fn prefixed_lines(s: &str) -> (std::str::Split<'_, char>, bool) {
    match s.strip_suffix('\n') {
        Some(body) => (body.split('\n'), true),
        None => (s.split('\n'), false),
    }
}

/// REPAIR-3's shape test: every line (a final empty line excepted) starts with the prefix of
/// one single format, numbered consecutively upwards. Returns the format and the stripped text.
pub fn strip_prefixes(s: &str) -> Option<(PrefixFormat, String)> {
    let (lines, final_empty) = prefixed_lines(s);
    let first_line = lines.clone().next()?;
    let first = leading_number(first_line)?;
    'formats: for format in PrefixFormat::ALL {
        if !first_line.starts_with(format.prefix(first).as_str()) {
            continue;
        }
        let mut out = String::with_capacity(s.len());
        for (i, line) in lines.clone().enumerate() {
            let prefix = format.prefix(first + i as u64);
            match line.strip_prefix(prefix.as_str()) {
                Some(rest) => {
                    if i > 0 {
                        out.push('\n');
                    }
                    out.push_str(rest);
                }
                None => continue 'formats,
            }
        }
        if final_empty {
            out.push('\n');
        }
        return Some((format, out));
    }
    None
}

/// Strips `format` from every line of `s` when every line carries it (any numbers).
fn strip_all_with(s: &str, format: PrefixFormat) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    let (lines, final_empty) = prefixed_lines(s);
    let mut out = String::with_capacity(s.len());
    for (i, line) in lines.enumerate() {
        let prefix = format.prefix(leading_number(line)?);
        let rest = line.strip_prefix(prefix.as_str())?;
        if i > 0 {
            out.push('\n');
        }
        out.push_str(rest);
    }
    if final_empty {
        out.push('\n');
    }
    Some(out)
}

/// Decodes literal `\uXXXX` escapes (surrogate pairs joined); `None` when there are none or a
/// lone surrogate makes the text undecodable.
pub fn unescape_unicode(s: &str) -> Option<String> {
    if !s.contains("\\u") {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut units: Vec<u16> = Vec::new();
    let mut rest = s;
    let mut any = false;
    let flush = |units: &mut Vec<u16>, out: &mut String| -> Option<()> {
        if !units.is_empty() {
            out.push_str(&String::from_utf16(units).ok()?);
            units.clear();
        }
        Some(())
    };
    while !rest.is_empty() {
        if let Some(hex) = rest.strip_prefix("\\u").and_then(|r| r.get(..4)) {
            if let Ok(unit) = u16::from_str_radix(hex, 16) {
                if hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    units.push(unit);
                    rest = &rest[6..];
                    any = true;
                    continue;
                }
            }
        }
        flush(&mut units, &mut out)?;
        let c = rest.chars().next()?;
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    flush(&mut units, &mut out)?;
    any.then_some(out)
}

/// Writes every non-ASCII character of `s` as `\uXXXX` escapes in the given hex case.
pub fn escape_non_ascii(s: &str, upper: bool) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    let mut buf = [0u16; 2];
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        for unit in c.encode_utf16(&mut buf) {
            if upper {
                out.push_str(&format!("\\u{unit:04X}"));
            } else {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// REPAIR-6 in both directions. `new` is made only when a direction fires.
fn unicode_escapes<'s>(
    hay: &Haystack<'_>,
    old: &str,
    new: impl FnOnce() -> Cow<'s, str>,
) -> Option<(String, String)> {
    if let Some(plain) = unescape_unicode(old) {
        if hay.occurs(&plain) {
            let new = new();
            let new = unescape_unicode(&new).unwrap_or_else(|| new.into_owned());
            return Some((plain, new));
        }
    }
    if !old.is_ascii() {
        for upper in [false, true] {
            let escaped = escape_non_ascii(old, upper);
            if hay.occurs(&escaped) {
                return Some((escaped, escape_non_ascii(&new(), upper)));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<'s>(file: &str, old: &'s str, new: &'s str) -> Repaired<'s> {
        repair(&Haystack::new(file), old, new)
    }

    /// REPAIR-3: a prefix's number is the spaces and digits Read writes; at most 18 digits
    /// (any line number a file can have, and always a u64), more is not a prefix.
    #[test]
    fn repair_3_a_prefix_number_has_one_to_eighteen_digits() {
        assert_eq!(leading_number("     7\tx"), Some(7));
        assert_eq!(
            leading_number("123456789012345678\tx"),
            Some(123_456_789_012_345_678)
        );
        assert_eq!(leading_number("1234567890123456789\tx"), None);
        assert_eq!(leading_number("  \tx"), None);
        assert_eq!(leading_number("x1\t"), None);
    }

    #[test]
    fn repair_2_desanitizes_old_and_the_same_entries_in_new() {
        let r = run("<name>x</name> <o>", "<n>x</n>", "<n>y</n> <o>");
        assert_eq!(r.old, "<name>x</name>");
        assert_eq!(r.new, "<name>y</name> <o>");
        assert_eq!(r.repairs, vec!["desanitize"]);
    }

    #[test]
    fn repair_4_exact_text_wins() {
        let r = run("<n>x</n>", "<n>x</n>", "<n>y</n>");
        assert_eq!(r.old, "<n>x</n>");
        assert!(r.repairs.is_empty());
    }

    #[test]
    fn repair_3_strips_each_format_strictly() {
        let file = "alpha\nbeta\ngamma\n";
        let r = run(file, "2\tbeta\n3\tgamma", "2\tBETA\n3\tgamma");
        assert_eq!((&*r.old, &*r.new), ("beta\ngamma", "BETA\ngamma"));
        assert_eq!(r.repairs, vec!["line_prefix"]);
        let r = run(file, "     2\u{2192}beta\n     3\u{2192}gamma", "x");
        assert_eq!(r.old, "beta\ngamma");
        assert_eq!(r.new, "x", "new without prefixes stays as given");
        let r = run(file, "     2\tbeta\n", "     2\tB\n");
        assert_eq!((&*r.old, &*r.new), ("beta\n", "B\n"));
        // Non-consecutive numbers: no repair.
        assert!(run(file, "2\tbeta\n4\tgamma", "x").repairs.is_empty());
        // A TSV line that exists verbatim is exact text.
        assert!(run("12\tfoo\n", "12\tfoo", "x").repairs.is_empty());
        assert_eq!(
            strip_prefixes("123456\u{2192}a\n123457\u{2192}b").map(|x| x.1),
            Some("a\nb".to_string())
        );
    }

    #[test]
    fn repair_4_strings_are_borrowed_when_no_repair_fires() {
        // Found as given, and not found with nothing to repair: neither string is copied, which
        // is what keeps a not-found old_string of many megabytes from being held twice.
        for (file, old) in [
            ("let x = 1;\n", "let x = 1;"),
            ("let x = 1;\n", "let y = 2;"),
        ] {
            let r = run(file, old, "z");
            assert!(r.repairs.is_empty());
            assert!(matches!(r.old, Cow::Borrowed(_)), "{old:?}");
            assert!(matches!(r.new, Cow::Borrowed(_)), "{old:?}");
        }
        // A fired repair still hands back its own strings.
        let r = run("<name>x</name>", "<n>x</n>", "y");
        assert!(matches!(r.old, Cow::Owned(_)));
    }

    #[test]
    fn repair_1_desanitize_borrows_when_no_entry_applies() {
        let (out, applied) = desanitize("plain text\nwithout abbreviations");
        assert!(applied.is_empty());
        assert!(matches!(out, Cow::Borrowed(_)));
        // Each kind of trigger still fires: a `<` entry and a blank-line entry.
        assert_eq!(desanitize("a <n>").0, "a <name>");
        assert_eq!(desanitize("a\n\nH: hi").0, "a\n\nHuman: hi");
        assert_eq!(desanitize("a\n\nA: hi").1, vec![17]);
    }

    #[test]
    fn repair_3_prefixes_need_every_line_and_keep_a_final_break() {
        // The shape test walks the lines as before: a final empty line is exempt, any other
        // unprefixed line fails it, and a lone line break has no first number.
        assert_eq!(
            strip_prefixes("1\ta\n2\tb\n"),
            Some((PrefixFormat::Compact, "a\nb\n".to_string()))
        );
        assert_eq!(strip_prefixes("1\ta\nb\n"), None);
        assert_eq!(strip_prefixes("1\ta\n\n"), None);
        assert_eq!(strip_prefixes("\n"), None);
        assert_eq!(strip_prefixes(""), None);
        assert_eq!(
            strip_all_with("7\tx\n9\ty", PrefixFormat::Compact).as_deref(),
            Some("x\ny")
        );
    }

    #[test]
    fn repair_6_unicode_escapes_both_ways() {
        let r = run("name = \"café\"", "caf\\u00e9", "caf\\u00e8");
        assert_eq!((&*r.old, &*r.new), ("café", "cafè"));
        assert_eq!(r.repairs, vec!["unicode_escape"]);
        let r = run("name = \"caf\\u00E9\"", "café", "cafè");
        assert_eq!((&*r.old, &*r.new), ("caf\\u00E9", "caf\\u00E8"));
        assert_eq!(escape_non_ascii("😀", false), "\\ud83d\\ude00");
        assert_eq!(unescape_unicode("\\ud83d\\ude00").as_deref(), Some("😀"));
        assert_eq!(unescape_unicode("\\ud83d"), None);
    }
}
