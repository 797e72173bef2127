//! `quotes`: curly-quote folding and restyling (MATCH-2, MATCH-4).

use crate::framing::{self, Writer};
use crate::model::{fold_char, restyle as model_restyle};
use crate::{ensure, Check};
use editref::matching::Haystack;
use editref::text::quotes::{fold, has_curly, is_curly, restyle, Around, Folded};

/// Input of `quotes`: three texts in which the ASCII stand-ins `` ` `` `~` `^` `|` stand for
/// ‘ ’ “ ” (so that the fuzzer meets curly quotes on nearly every input).
///
/// Framing: the three texts in field order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteCase {
    /// A file text, folded and searched.
    pub text: String,
    /// A `new_string` to restyle, also used as a needle.
    pub new: String,
    /// The `actual` text whose quote style is copied.
    pub actual: String,
}

crate::framed!(QuoteCase {
    text: framing::text,
    new: framing::text,
    actual: framing::text
});

impl QuoteCase {
    /// The input bytes that decode to this case (seed writing).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut w = Writer::new();
        w.text(&self.text)?;
        w.text(&self.new)?;
        w.text(&self.actual)?;
        Some(w.finish())
    }
}

fn stand_ins(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '`' => '\u{2018}',
            '~' => '\u{2019}',
            '^' => '\u{201C}',
            '|' => '\u{201D}',
            c => c,
        })
        .collect()
}

/// Checks that folding keeps the length in characters, changes exactly the curly quotes and
/// maps every folded offset back to the same character of the original; that the fallback
/// search reports spans of the file's own text that fold to the needle, as many as a naive
/// count; and that restyling changes nothing but straight quotes — into curly ones of the same
/// kind, following the spec's opening/closing/apostrophe rule.
pub fn quotes(case: &QuoteCase) -> Check {
    let text = stand_ins(&case.text);
    let new = stand_ins(&case.new);
    let actual = stand_ins(&case.actual);

    // Folding.
    let f = Folded::new(&text);
    ensure!(f.text == fold(&text), "fold and Folded::new disagree");
    ensure!(
        has_curly(&text) == text.chars().any(is_curly),
        "has_curly is wrong"
    );
    let folded: Vec<char> = f.text.chars().collect();
    let original: Vec<char> = text.chars().collect();
    ensure!(
        folded.len() == original.len(),
        "folding changed the length in characters"
    );
    for (i, (&a, &b)) in original.iter().zip(&folded).enumerate() {
        ensure!(fold_char(a) == b, "char {i}: {a:?} folded to {b:?}");
    }
    let mut orig_offset = 0;
    for (i, (fo, _)) in f.text.char_indices().enumerate() {
        ensure!(
            f.to_original(fo) == orig_offset,
            "to_original({fo}) = {}, expected {orig_offset}",
            f.to_original(fo)
        );
        orig_offset += original[i].len_utf8();
    }
    ensure!(
        f.to_original(f.text.len()) == text.len(),
        "end of folded text does not map to the end"
    );

    // The fallback search.
    if !new.is_empty() {
        let hits = Haystack::new(&text).find(&new);
        let space = |s: &str| {
            if hits.via_quotes {
                fold(s).into_owned()
            } else {
                s.to_string()
            }
        };
        let needle = space(&new);
        for &(s, e) in &hits.spans {
            ensure!(
                text.is_char_boundary(s) && text.is_char_boundary(e),
                "hit {s}..{e} splits a character"
            );
            ensure!(
                space(&text[s..e]) == needle,
                "hit {s}..{e} = {:?} does not match {new:?}",
                &text[s..e]
            );
        }
        let naive = space(&text).matches(needle.as_str()).count();
        ensure!(
            hits.spans.len() == naive,
            "{} hits, naive count {naive} (via_quotes: {})",
            hits.spans.len(),
            hits.via_quotes
        );
        if !hits.spans.is_empty() {
            ensure!(
                hits.via_quotes != text.contains(new.as_str()),
                "fallback used although the exact text occurs, or the reverse"
            );
        }
    }

    // Restyling.
    let out = restyle(&new, &actual, Around::default());
    let out_chars: Vec<char> = out.chars().collect();
    let new_chars: Vec<char> = new.chars().collect();
    ensure!(
        out_chars.len() == new_chars.len(),
        "restyle changed the length in characters"
    );
    for (i, (&a, &b)) in new_chars.iter().zip(&out_chars).enumerate() {
        let ok = a == b
            || (a == '"' && matches!(b, '\u{201C}' | '\u{201D}'))
            || (a == '\'' && matches!(b, '\u{2018}' | '\u{2019}'));
        ensure!(ok, "restyle changed char {i} from {a:?} to {b:?}");
    }
    let actual_chars: Vec<char> = actual.chars().collect();
    let want = model_restyle(&new, &actual_chars, None, None);
    ensure!(
        out == want,
        "restyle gave {out:?}, the spec's rule gives {want:?}"
    );
    Ok(())
}
