//! How a region of a `not_found` hint differs from the old string, in words (MATCH-6).
//!
//! The hint's similarity compares text with whitespace collapsed and curly quotes folded, so a
//! region that differs from `old_string` only in its indentation scores 100 %: "100 % similar"
//! tells the model nothing about what to change. When the difference is only layout or quote
//! characters, the message says which — only whitespace, tabs where the model wrote spaces,
//! `'` where it wrote `"` — which is exactly what the model must fix. The region's text and
//! the old string are compared here, when the message is written; the search is not involved.

/// What alone sets a region apart from the old string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Likeness {
    /// Only whitespace: spaces, tabs, line breaks.
    Whitespace,
    /// Only the whitespace that starts lines: the file indents with tabs where the old string
    /// has spaces (`Some(true)`), the other way round (`Some(false)`), or by another amount.
    Indentation(Option<bool>),
    /// Only quote characters: the first the file has where the old string has another.
    Quotes { file: char, old: char },
    /// Only whitespace and quote characters.
    WhitespaceAndQuotes,
}

impl Likeness {
    /// The words that follow "it differs from old_string only in".
    pub(super) fn words(self) -> String {
        match self {
            Likeness::Whitespace => "whitespace (spaces, tabs or line breaks)".into(),
            Likeness::Indentation(Some(true)) => {
                "indentation (the file indents with tabs where old_string has spaces)".into()
            }
            Likeness::Indentation(Some(false)) => {
                "indentation (the file indents with spaces where old_string has tabs)".into()
            }
            Likeness::Indentation(None) => "indentation".into(),
            Likeness::Quotes { file, old } => {
                format!("quotes (the file has {file} where old_string has {old})")
            }
            Likeness::WhitespaceAndQuotes => "whitespace and quotes".into(),
        }
    }
}

/// The quote characters a model mixes up: straight and curly, single and double, backtick.
fn is_quote(c: char) -> bool {
    matches!(
        c,
        '\'' | '"' | '`' | '\u{2018}' | '\u{2019}' | '\u{201C}' | '\u{201D}'
    )
}

/// `s` without whitespace, and with every quote character made `'` when `quotes` is set.
fn squashed(s: &str, quotes: bool) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(move |c| if quotes && is_quote(c) { '\'' } else { c })
}

/// How `region` differs from `old`, when it differs only in whitespace or quotes.
pub(super) fn likeness(region: &str, old: &str) -> Option<Likeness> {
    if region == old {
        return None;
    }
    if squashed(region, false).eq(squashed(old, false)) {
        return Some(indentation(region, old).unwrap_or(Likeness::Whitespace));
    }
    let same_but_quotes = region.chars().count() == old.chars().count()
        && region
            .chars()
            .zip(old.chars())
            .all(|(a, b)| a == b || (is_quote(a) && is_quote(b)));
    if same_but_quotes {
        let (file, old) = region.chars().zip(old.chars()).find(|(a, b)| a != b)?;
        return Some(Likeness::Quotes { file, old });
    }
    if squashed(region, true).eq(squashed(old, true)) {
        return Some(Likeness::WhitespaceAndQuotes);
    }
    None
}

/// `Likeness::Indentation` when the two differ only in the whitespace that starts lines, line
/// for line; which way tabs and spaces go when every differing line agrees.
fn indentation(region: &str, old: &str) -> Option<Likeness> {
    let file_lines: Vec<&str> = region.split('\n').collect();
    let old_lines: Vec<&str> = old.split('\n').collect();
    if file_lines.len() != old_lines.len() {
        return None;
    }
    let lead = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    let mut way: Option<Option<bool>> = None;
    for (f, o) in file_lines.into_iter().zip(old_lines) {
        if f == o {
            continue;
        }
        let (fi, oi) = (lead(f), lead(o));
        if f[fi..] != o[oi..] {
            return None;
        }
        let (f_tabs, o_tabs) = (f[..fi].contains('\t'), o[..oi].contains('\t'));
        let this = (f_tabs != o_tabs).then_some(f_tabs);
        way = Some(match way {
            None => this,
            Some(before) if before == this => this,
            Some(_) => None,
        });
    }
    way.map(Likeness::Indentation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_6_only_whitespace_indentation_or_quotes_is_named() {
        let old = "if x:\n    print('yes')";
        assert_eq!(
            likeness("if x:\n\tprint('yes')", old),
            Some(Likeness::Indentation(Some(true)))
        );
        assert_eq!(
            likeness(old, "if x:\n\tprint('yes')"),
            Some(Likeness::Indentation(Some(false)))
        );
        assert_eq!(
            likeness("if x:\n        print('yes')", old),
            Some(Likeness::Indentation(None))
        );
        // Tabs on one line, spaces on another: indentation, no single way.
        assert_eq!(
            likeness("\ta\n  b", "  a\n\tb"),
            Some(Likeness::Indentation(None))
        );
        assert_eq!(
            likeness("if x:  \n    print('yes')", old),
            Some(Likeness::Whitespace)
        );
        assert_eq!(
            likeness("if x: print('yes')", old),
            Some(Likeness::Whitespace),
            "a line break is whitespace"
        );
        assert_eq!(
            likeness("if x:\n    print(\"yes\")", old),
            Some(Likeness::Quotes {
                file: '"',
                old: '\''
            })
        );
        assert_eq!(
            likeness("if x:\n        print(\"yes\")", old),
            Some(Likeness::WhitespaceAndQuotes)
        );
        // Anything else is a real difference: the percentage stands.
        assert_eq!(likeness("if y:\n    print('yes')", old), None);
        assert_eq!(likeness("if x:\n    print('yes!')", old), None);
        assert_eq!(likeness(old, old), None);
    }

    #[test]
    fn the_words_say_what_to_fix() {
        assert_eq!(
            Likeness::Indentation(Some(true)).words(),
            "indentation (the file indents with tabs where old_string has spaces)"
        );
        assert_eq!(
            Likeness::Quotes {
                file: '\u{2019}',
                old: '\''
            }
            .words(),
            "quotes (the file has \u{2019} where old_string has ')"
        );
    }
}
