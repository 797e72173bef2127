//! MATCH-1, MATCH-2 and MATCH-4 written out again in the plainest way: every character offset
//! tried in turn, the curly quotes folded one character at a time, the straight quotes of a
//! new text curled one at a time after the character before them.

/// MATCH-2's folding, one character at a time.
pub fn fold(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' => '\'',
        '\u{201C}' | '\u{201D}' => '"',
        c => c,
    }
}

/// Non-overlapping hits of `needle` in `text`, left to right, by trying every character
/// offset; byte spans. `folded` compares the two after MATCH-2's folding.
pub fn naive_hits(text: &str, needle: &str, folded: bool) -> Vec<(usize, usize)> {
    let map = |c: char| if folded { fold(c) } else { c };
    let hay: Vec<(usize, char)> = text.char_indices().collect();
    let pat: Vec<char> = needle.chars().map(map).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while !pat.is_empty() && i + pat.len() <= hay.len() {
        if (0..pat.len()).all(|j| map(hay[i + j].1) == pat[j]) {
            let end = hay.get(i + pat.len()).map_or(text.len(), |&(b, _)| b);
            out.push((hay[i].0, end));
            i += pat.len();
        } else {
            i += 1;
        }
    }
    out
}

/// MATCH-1, then MATCH-2 only when MATCH-1 finds nothing; whether the hits came from MATCH-2.
pub fn find(text: &str, needle: &str) -> (Vec<(usize, usize)>, bool) {
    let exact = naive_hits(text, needle, false);
    if exact.is_empty() {
        (naive_hits(text, needle, true), true)
    } else {
        (exact, false)
    }
}

/// MATCH-4: `new` as written at a hit found by MATCH-2 whose text in the file is `actual`,
/// with `before` and `after` the file's characters around the hit. Straight double quotes are
/// curled when `actual` holds a curly double quote, single ones when it holds a curly single
/// quote: a `'` between two letters is ’; otherwise the opening form after nothing (the start
/// of the file), whitespace, `(`, `[`, `{`, an em or an en dash, the closing form after
/// anything else.
pub fn restyle(new: &str, actual: &str, before: Option<char>, after: Option<char>) -> String {
    let double = actual.contains(['\u{201C}', '\u{201D}']);
    let single = actual.contains(['\u{2018}', '\u{2019}']);
    let chars: Vec<char> = new.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = if i == 0 { before } else { Some(chars[i - 1]) };
        let next = chars.get(i + 1).copied().or(after);
        let opens = match prev {
            None => true,
            Some(p) => p.is_whitespace() || "([{\u{2014}\u{2013}".contains(p),
        };
        let letter = |c: Option<char>| c.is_some_and(char::is_alphabetic);
        out.push(match c {
            '\'' if single && letter(prev) && letter(next) => '\u{2019}',
            '\'' if single && opens => '\u{2018}',
            '\'' if single => '\u{2019}',
            '"' if double && opens => '\u{201C}',
            '"' if double => '\u{201D}',
            c => c,
        });
    }
    out
}
