//! Just enough of a Rust lexer for the import checks: identifiers, `::`, punctuation and string
//! literals, with comments dropped and the inside of string and character literals never read
//! as code — so a `//` or a `crate::x` inside a string neither cuts a line nor counts as a use.

/// One token. Keywords are identifiers; numbers, characters and lifetimes are `Other`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword (a raw identifier without its `r#`).
    Ident(String),
    /// A string literal's text, escapes left as written (only `#[path = "…"]` reads it).
    Str(String),
    /// `::`.
    Sep,
    /// Any other punctuation character.
    Punct(char),
    /// A number, a character or byte literal, a lifetime.
    Other,
}

impl Tok {
    /// Whether this is the identifier `name`.
    pub fn is(&self, name: &str) -> bool {
        matches!(self, Tok::Ident(i) if i == name)
    }
}

fn ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The tokens of `src`.
pub fn tokens(src: &str) -> Vec<Tok> {
    let s: Vec<char> = src.chars().collect();
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some((text, next)) = string_literal(&s, i) {
            out.push(Tok::Str(text));
            i = next;
        } else if c == 'b' && at(i + 1) == '\'' {
            i = char_literal(&s, i + 1);
            out.push(Tok::Other);
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a, 'static).
            if at(i + 1) == '\\' || (at(i + 2) == '\'' && at(i + 1) != '\'') {
                i = char_literal(&s, i);
            } else {
                i += 1;
                while i < s.len() && ident_char(s[i]) {
                    i += 1;
                }
            }
            out.push(Tok::Other);
        } else if c == 'r' && at(i + 1) == '#' && ident_start(at(i + 2)) {
            let start = i + 2;
            i = start;
            while i < s.len() && ident_char(s[i]) {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].iter().collect()));
        } else if ident_start(c) {
            let start = i;
            while i < s.len() && ident_char(s[i]) {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].iter().collect()));
        } else if c.is_ascii_digit() {
            while i < s.len() && ident_char(s[i]) {
                i += 1;
            }
            out.push(Tok::Other);
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// A string literal starting at `i` (`"…"`, `b"…"`, `c"…"`, `r#"…"#`, `br"…"`, …): its text and
/// where it ends.
fn string_literal(s: &[char], i: usize) -> Option<(String, usize)> {
    let at = |k: usize| s.get(k).copied().unwrap_or('\0');
    let mut k = i;
    if matches!(at(k), 'b' | 'c') {
        k += 1;
    }
    let raw = at(k) == 'r';
    if raw {
        k += 1;
    }
    if k == i && at(k) != '"' {
        return None;
    }
    let mut hashes = 0;
    if raw {
        while at(k) == '#' {
            hashes += 1;
            k += 1;
        }
    }
    if at(k) != '"' || (k > i && !ident_boundary_before(s, i)) {
        return None;
    }
    k += 1;
    let start = k;
    loop {
        if k >= s.len() {
            return Some((s[start..].iter().collect(), k));
        }
        if !raw && s[k] == '\\' {
            k += 2;
            continue;
        }
        if s[k] == '"' && (0..hashes).all(|h| at(k + 1 + h) == '#') {
            return Some((s[start..k].iter().collect(), k + 1 + hashes));
        }
        k += 1;
    }
}

/// Whether a prefix such as `b` or `r` at `i` starts a token (and is not the end of a longer
/// identifier like `sub"`, which Rust does not have, or `var` followed by a string).
fn ident_boundary_before(s: &[char], i: usize) -> bool {
    i == 0 || !ident_char(s[i - 1])
}

/// The end of the character literal whose opening quote is at `i`.
fn char_literal(s: &[char], i: usize) -> usize {
    let mut k = i + 1;
    while k < s.len() && s[k] != '\'' {
        if s[k] == '\\' {
            k += 1;
        }
        k += 1;
    }
    k + 1
}
