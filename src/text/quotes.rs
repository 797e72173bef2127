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

/// Whether a string has any curly quote, i.e. whether folding would change it.
pub fn has_curly(s: &str) -> bool {
    // All four share the lead bytes E2 80; check those first.
    memchr::memmem::find(s.as_bytes(), b"\xE2\x80").is_some() && s.chars().any(is_curly)
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
        let mut text = String::with_capacity(s.len());
        let mut quotes = Vec::new();
        for c in s.chars() {
            match c {
                LEFT_SINGLE | RIGHT_SINGLE => {
                    quotes.push(text.len());
                    text.push('\'');
                }
                LEFT_DOUBLE | RIGHT_DOUBLE => {
                    quotes.push(text.len());
                    text.push('"');
                }
                other => text.push(other),
            }
        }
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

/// MATCH-4: restyles the straight quotes of `new` after the curly quotes found in `actual`
/// (the file's own text at the hit).
///
/// Only the quote kinds that `actual` uses in curly form are curled. Opening form at the start
/// or after whitespace, `(`, `[`, `{`, em or en dash; closing form otherwise; a `'` between two
/// letters is an apostrophe (’).
pub fn restyle<'n>(new: &'n str, actual: &str) -> Cow<'n, str> {
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
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        match c {
            '"' if double => out.push(if opens(prev) {
                LEFT_DOUBLE
            } else {
                RIGHT_DOUBLE
            }),
            '\'' if single => {
                let between_letters =
                    prev.is_some_and(char::is_alphabetic) && next.is_some_and(char::is_alphabetic);
                out.push(if between_letters {
                    RIGHT_SINGLE
                } else if opens(prev) {
                    LEFT_SINGLE
                } else {
                    RIGHT_SINGLE
                });
            }
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
        let start = f.text.find("\"hi\"").unwrap();
        let end = start + 4;
        assert_eq!(&s[f.to_original(start)..f.to_original(end)], "“hi”");
    }

    #[test]
    fn match_4_restyles_like_the_file() {
        assert_eq!(
            restyle("She said \"bye\" and it's 'ok' ('x')", "“a” ‘b’"),
            "She said “bye” and it’s ‘ok’ (‘x’)"
        );
        assert_eq!(
            restyle("'tis 'quoted' don't 5' rock'n'roll", "‘a’"),
            "‘tis ‘quoted’ don’t 5’ rock’n’roll"
        );
        assert_eq!(restyle("\"x\" 'y'", "“a”"), "“x” 'y'");
        assert_eq!(restyle("\"x\"", "plain"), "\"x\"");
    }
}
