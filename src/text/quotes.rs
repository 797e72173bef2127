//! Curly quotes (MATCH-2, MATCH-4): folding for the fallback search, and restyling the new text
//! so that a file written with typographic quotes keeps them.
//!
//! Folding maps ‘ ’ to `'` and “ ” to `"`, nothing else. The curly forms take three bytes in
//! UTF-8 and the straight ones one, so a folded text keeps a map of where the curly quotes
//! were; every folded offset maps back to the original with one binary search.

use std::borrow::Cow;

const LEFT_SINGLE: char = '\u{2018}';
const RIGHT_SINGLE: char = '\u{2019}';
const LEFT_DOUBLE: char = '\u{201C}';
const RIGHT_DOUBLE: char = '\u{201D}';

/// Whether a character is one of the four curly quotes MATCH-2 folds.
pub fn is_curly(c: char) -> bool {
    matches!(c, LEFT_SINGLE | RIGHT_SINGLE | LEFT_DOUBLE | RIGHT_DOUBLE)
}

/// The folded form of the curly quote whose UTF-8 encoding is `E2 80 <third>`, if any.
fn folded_quote(third: Option<&u8>) -> Option<char> {
    match third {
        Some(0x98 | 0x99) => Some('\''),
        Some(0x9C | 0x9D) => Some('"'),
        _ => None,
    }
}

/// A character as folding sees it: curly quotes become straight ones, everything else stays.
pub fn fold_char(c: char) -> char {
    match c {
        LEFT_SINGLE | RIGHT_SINGLE => '\'',
        LEFT_DOUBLE | RIGHT_DOUBLE => '"',
        other => other,
    }
}

/// Whether a string has any curly quote, i.e. whether folding would change it.
pub fn has_curly(s: &str) -> bool {
    // All four are E2 80 xx; in valid UTF-8 an E2 always starts a character, so looking at
    // the byte after each E2 80 is exact (and stays a SIMD scan on text full of dashes).
    let bytes = s.as_bytes();
    memchr::memmem::find_iter(bytes, b"\xE2\x80").any(|i| folded_quote(bytes.get(i + 2)).is_some())
}

/// A folded text and the map back to the original.
#[derive(Debug, Clone)]
pub struct Folded<'a> {
    /// The text with curly quotes replaced by straight ones.
    pub text: Cow<'a, str>,
    /// Folded offsets of each replaced quote, ascending.
    quotes: Vec<usize>,
}

impl<'a> Folded<'a> {
    /// Folds `s`; borrows when there is nothing to fold.
    pub fn new(s: &'a str) -> Folded<'a> {
        if !has_curly(s) {
            return Folded {
                text: Cow::Borrowed(s),
                quotes: Vec::new(),
            };
        }
        let bytes = s.as_bytes();
        let mut text = String::with_capacity(s.len());
        let mut quotes = Vec::new();
        let mut last = 0;
        for i in memchr::memmem::find_iter(bytes, b"\xE2\x80") {
            if let Some(q) = folded_quote(bytes.get(i + 2)) {
                text.push_str(&s[last..i]);
                quotes.push(text.len());
                text.push(q);
                last = i + 3;
            }
        }
        text.push_str(&s[last..]);
        Folded {
            text: Cow::Owned(text),
            quotes,
        }
    }

    /// Maps a folded offset back to the original text.
    pub fn to_original(&self, offset: usize) -> usize {
        offset + 2 * self.quotes.partition_point(|&q| q < offset)
    }
}

/// Folds a string without keeping the map (for needles).
pub fn fold(s: &str) -> Cow<'_, str> {
    Folded::new(s).text
}

fn opens(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => matches!(
            c,
            ' ' | '\t' | '\n' | '\r' | '(' | '[' | '{' | '\u{2014}' | '\u{2013}'
        ),
    }
}

/// The file's characters on either side of a hit: what a quote at the very start or end of the
/// new text stands next to once it is in place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Around {
    /// The character just before the hit (`None` at the start of the file).
    pub before: Option<char>,
    /// The character just after the hit (`None` at the end of the file).
    pub after: Option<char>,
}

impl Around {
    /// The neighbours of the span `start..end` of `text` (byte offsets at char boundaries).
    pub fn of(text: &str, start: usize, end: usize) -> Around {
        Around {
            before: text.get(..start).and_then(|t| t.chars().next_back()),
            after: text.get(end..).and_then(|t| t.chars().next()),
        }
    }
}

/// MATCH-4: restyles the straight quotes of `new` after the curly quotes found in `actual`
/// (the file's own text at the hit), which stands between `around.before` and `around.after`.
///
/// Only the quote kinds that `actual` uses in curly form are curled. Opening form after
/// nothing (the start of the file), whitespace, `(`, `[`, `{`, an em or en dash; closing form
/// otherwise; so a `'` between two letters is an apostrophe (’), as MATCH-4 asks. The first
/// character of `new` sees the file's character before the hit, so `'s` → `'` after "it"
/// gives "it’", not "it‘"; what follows a quote never decides its form.
pub fn restyle<'n>(new: &'n str, actual: &str, around: Around) -> Cow<'n, str> {
    let double = actual.contains(LEFT_DOUBLE) || actual.contains(RIGHT_DOUBLE);
    let single = actual.contains(LEFT_SINGLE) || actual.contains(RIGHT_SINGLE);
    let curls_double = double && new.contains('"');
    let curls_single = single && new.contains('\'');
    if !curls_double && !curls_single {
        return Cow::Borrowed(new);
    }
    let chars: Vec<char> = new.chars().collect();
    let mut out = String::with_capacity(new.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let prev = match i.checked_sub(1) {
            Some(j) => Some(chars[j]),
            None => around.before,
        };
        match c {
            '"' if double => out.push(if opens(prev) {
                LEFT_DOUBLE
            } else {
                RIGHT_DOUBLE
            }),
            // A `'` between two letters (an apostrophe) needs no case of its own: a letter
            // never opens, so it gets the closing form ’ like any quote after a letter.
            '\'' if single => out.push(if opens(prev) {
                LEFT_SINGLE
            } else {
                RIGHT_SINGLE
            }),
            other => out.push(other),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_2_folding_maps_offsets_back() {
        let s = "say “hi” ‘x’";
        let f = Folded::new(s);
        assert_eq!(f.text, "say \"hi\" 'x'");
        let dashes = Folded::new("a\u{2014}b\u{2026}\u{201C}c\u{201D}");
        assert_eq!(dashes.text, "a\u{2014}b\u{2026}\"c\"");
        assert!(!has_curly("em\u{2014}dash\u{2026}"));
        let start = f.text.find("\"hi\"").unwrap();
        let end = start + 4;
        assert_eq!(&s[f.to_original(start)..f.to_original(end)], "“hi”");
    }

    #[test]
    fn match_4_restyles_like_the_file() {
        let none = Around::default();
        assert_eq!(
            restyle("She said \"bye\" and it's 'ok' ('x')", "“a” ‘b’", none),
            "She said “bye” and it’s ‘ok’ (‘x’)"
        );
        assert_eq!(
            restyle("'tis 'quoted' don't 5' rock'n'roll", "‘a’", none),
            "‘tis ‘quoted’ don’t 5’ rock’n’roll"
        );
        assert_eq!(restyle("\"x\" 'y'", "“a”", none), "“x” 'y'");
        // One curly quote of a kind is enough to tell the file's style (a hit that ends a
        // quotation holds only its closing quote).
        assert_eq!(restyle("\"x\"", "bye\u{201D}", none), "\u{201C}x\u{201D}");
        assert_eq!(restyle("\"x\"", "\u{201C}hi", none), "\u{201C}x\u{201D}");
        assert_eq!(restyle("it's", "it\u{2019}s", none), "it\u{2019}s");
        assert_eq!(restyle("'x'", "\u{2018}hi", none), "\u{2018}x\u{2019}");
        // And the other way round: curly singles in the file curl only the singles.
        assert_eq!(restyle("\"x\" 'y'", "‘a’", none), "\"x\" ‘y’");
        assert_eq!(restyle("\"x\"", "plain", none), "\"x\"");
    }

    #[test]
    fn match_2_only_the_four_curly_quotes_are_curly() {
        for c in ['\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}'] {
            assert!(is_curly(c), "{c}");
        }
        for c in [
            '"', '\'', 'a', '\u{00AB}', '\u{201E}', '\u{2032}', '\u{2014}',
        ] {
            assert!(!is_curly(c), "{c}");
        }
    }

    #[test]
    fn match_4_the_ends_of_new_string_see_the_file_around_the_hit() {
        let text = "it’s here";
        let around = Around::of(text, 2, 6);
        assert_eq!(around.before, Some('t'));
        assert_eq!(around.after, Some(' '));
        // After a letter a quote closes; between two letters it is an apostrophe.
        assert_eq!(restyle("'", "’s", around), "’");
        assert_eq!(restyle("'x", "’s", around), "’x");
        let word = Around::of("don’t", 3, 6);
        assert_eq!(restyle("'", "’", word), "’");
        // At the start of the file and after a space, the opening form.
        assert_eq!(restyle("'a'", "‘b’", Around::of("‘b’", 0, 7)), "‘a’");
        assert_eq!(restyle("\"a\"", "“b”", Around::of("x “b”", 2, 9)), "“a”");
        assert_eq!(Around::of("", 0, 0), Around::default());
        // An apostrophe between letters, and one before a space, are both ’.
        assert_eq!(restyle("don't 'x", "‘y’", Around::default()), "don’t ‘x");
    }

    #[test]
    fn match_4_a_new_string_with_nothing_to_curl_is_returned_as_it_is() {
        // Curly double quotes in the file, only a straight single quote in the new text (and
        // the other way round): nothing to curl, so no copy is made.
        let around = Around::default();
        assert!(matches!(
            restyle("it's", "“a”", around),
            Cow::Borrowed("it's")
        ));
        assert!(matches!(
            restyle("\"a\"", "‘a’", around),
            Cow::Borrowed("\"a\"")
        ));
        assert!(matches!(
            restyle("plain", "“a” ‘b’", around),
            Cow::Borrowed("plain")
        ));
        // Each kind the file curls is curled when the new text has it.
        assert_eq!(restyle("\"a\" 'b'", "“a” ‘b’", around), "“a” ‘b’");
    }
}
