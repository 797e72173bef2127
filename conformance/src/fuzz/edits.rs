//! One edit as a model sends it: an `old_string` cut from the text the file holds (as the
//! generator guesses it) — whole lines, part of a line, or across a line break — and then,
//! some of the time, retyped the way models retype it: straight quotes for curly ones, Read's
//! line prefixes, abbreviated tags, CRLF, a typo. Also what the file holds after the edit, as
//! far as the generator can tell, so the next edit can be cut from that.

use super::gen_edit::GenEdit;
use super::parts::{self, Allowed, Encoding, CURLY, TAGS};
use arbitrary::{Result, Unstructured};

/// One edit whose `old_string` is cut from `text` (the LF view) and perhaps perturbed.
pub(crate) fn gen_edit(
    u: &mut Unstructured<'_>,
    allowed: &Allowed,
    text: &str,
    encoding: Encoding,
) -> Result<GenEdit> {
    let narrow = encoding.narrow();
    let mut old = cut(u, text)?;
    if old.is_empty() {
        old = parts::word(u)?.to_string();
    }
    let mut new = match u.choose_index(20)? {
        0 => old.clone(),
        1 | 2 => String::new(),
        3..=11 => {
            let w = parts::word(u)?;
            let v = parts::word(u)?;
            let swapped = old.replacen(w, v, 1);
            if swapped == old {
                format!("{old}{v}")
            } else {
                swapped
            }
        }
        _ => parts::new_text(u, narrow, allowed.has("crlf"))?,
    };
    // Text a model is likely to retype in its own way is retyped that way half the time.
    let curly = CURLY.iter().any(|(c, _)| old.contains(*c));
    let tagged = TAGS.iter().any(|(full, _)| old.contains(full));
    let choice = if curly && allowed.has("curly_quotes") && u.ratio(1, 2)? {
        1
    } else if tagged && allowed.has("desanitize") && u.ratio(1, 2)? {
        3
    } else {
        u.choose_index(12)?
    };
    match choice {
        0 if allowed.has("crlf") => {
            old = old.replace('\n', "\r\n");
        }
        1 if allowed.has("curly_quotes") => {
            old = parts::straighten(&old);
        }
        2 if allowed.has("line_prefix_repair") => {
            let first = line_of(text, &old);
            old = prefixed(&old, first);
            if u.ratio(1, 2)? {
                new = prefixed(&new, first);
            }
        }
        3 if allowed.has("desanitize") => {
            for (full, short) in TAGS {
                old = old.replace(full, short);
            }
        }
        4 => {
            // A typo: one character changed (never found, or found elsewhere).
            let mut chars: Vec<char> = old.chars().collect();
            let i = u.choose_index(chars.len())?;
            chars[i] = *u.choose(&['x', ' ', ';', 'e'])?;
            old = chars.into_iter().collect();
        }
        _ => {}
    }
    let replace_all = allowed.has("replace_all") && u.ratio(1, 5)?;
    Ok(GenEdit {
        old,
        new,
        replace_all,
    })
}

/// A span of `text` at character boundaries: whole lines, part of a line, or across a break.
fn cut(u: &mut Unstructured<'_>, text: &str) -> Result<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let first = u.choose_index(lines.len())?;
    Ok(match u.choose_index(10)? {
        0..=4 => {
            let n = u.int_in_range(1..=2)?;
            let end = (first + n).min(lines.len());
            lines[first..end].join("\n")
        }
        5..=7 => {
            let chars: Vec<char> = lines[first].chars().collect();
            if chars.is_empty() {
                return Ok(String::new());
            }
            // At least a few characters: a one-letter old_string is rarely what a model sends.
            let a = u
                .choose_index(chars.len())?
                .min(chars.len().saturating_sub(4));
            let b = u.int_in_range((a + 4).min(chars.len())..=chars.len())?;
            chars[a..b].iter().collect()
        }
        _ => {
            let next = lines.get(first + 1).copied().unwrap_or("");
            let tail: String = lines[first]
                .chars()
                .rev()
                .take(4)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let head: String = next.chars().take(4).collect();
            format!("{tail}\n{head}")
        }
    })
}

/// The 1-based line of `text` where `needle` starts (1 when it is not there).
fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map_or(1, |at| text[..at].matches('\n').count() + 1)
}

/// `s` with Read's line-number prefix (`N<TAB>`, right-aligned to six) on each line.
fn prefixed(s: &str, first: usize) -> String {
    s.split('\n')
        .enumerate()
        .map(|(i, l)| format!("{:>6}\t{l}", first + i))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the file holds after `edit` as far as the generator can tell: the exact text
/// replaced (once, or everywhere with `replace_all`); unchanged when it is not there.
pub(crate) fn apply_guess(text: &str, edit: &GenEdit) -> String {
    let old = edit.old.replace("\r\n", "\n");
    if old.is_empty() || !text.contains(&old) {
        return text.to_string();
    }
    let new = edit.new.replace("\r\n", "\n");
    if edit.replace_all {
        text.replace(&old, &new)
    } else {
        text.replacen(&old, &new, 1)
    }
}
