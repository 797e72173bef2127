//! The case generator: a [`GenCase`] — files made of the hard parts, and a sequence of calls
//! with harness actions between them — built from an `arbitrary` byte source.
//!
//! The same function serves two drivers: a seed (through [`from_seed`], which stretches a
//! `u64` into bytes, so a run is repeatable from its seed) and the cargo-fuzz engine (which
//! hands [`generate`] its own bytes). A generated case is *meaningful* most of the time: the
//! `old_string` of an edit is cut from the text the file holds at that point (as the generator
//! guesses it), then sometimes perturbed the way models perturb it — straight quotes for curly
//! ones, a Read line prefix, an abbreviated tag, CRLF, a typo. The expected outcome is not
//! generated at all: it comes from running the reference on the same case.

use super::parts::{self, Allowed, Encoding, Endings, CURLY, TAGS};
use arbitrary::{Result, Unstructured};

/// One file of a generated case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenFile {
    /// Case path.
    pub path: String,
    /// The text, line endings included.
    pub text: String,
    /// How it is stored.
    pub encoding: Encoding,
}

/// One edit of an Edit or MultiEdit call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenEdit {
    /// `old_string`.
    pub old: String,
    /// `new_string`.
    pub new: String,
    /// `replace_all` (sent only when true).
    pub replace_all: bool,
}

/// One step of a generated case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenStep {
    /// Read, whole or a window of lines.
    Read {
        /// Case path.
        path: String,
        /// `offset` and `limit`, when a window.
        window: Option<(u64, u64)>,
    },
    /// Edit.
    Edit {
        /// Case path.
        path: String,
        /// The edit.
        edit: GenEdit,
    },
    /// MultiEdit.
    MultiEdit {
        /// Case path.
        path: String,
        /// The edits, in order.
        edits: Vec<GenEdit>,
    },
    /// Write.
    Write {
        /// Case path.
        path: String,
        /// The content.
        content: String,
    },
    /// Another program rewrites the file (same encoding).
    Modify {
        /// Case path.
        path: String,
        /// The new text.
        text: String,
        /// Its encoding.
        encoding: Encoding,
    },
    /// The file's mtime moves forward, its content stays.
    Touch {
        /// Case path.
        path: String,
    },
}

/// A generated case: files, symlinks to them, and steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenCase {
    /// The files before the first step.
    pub files: Vec<GenFile>,
    /// Symlinks (`link path`, `target`) created before the first step.
    pub links: Vec<(String, String)>,
    /// The steps.
    pub steps: Vec<GenStep>,
}

/// Stretches a seed into bytes for [`Unstructured`] (splitmix64): the same seed gives the same
/// case on every machine.
pub fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The case of one seed, for an implementation declaring `allowed`.
pub fn from_seed(seed: u64, allowed: &Allowed) -> GenCase {
    let bytes = seed_bytes(seed, 4096);
    let mut u = Unstructured::new(&bytes);
    // Running out of bytes only makes later choices the first option; it never fails, but the
    // fallback keeps this total should that change.
    generate(&mut u, allowed).unwrap_or_else(|_| GenCase {
        files: Vec::new(),
        links: Vec::new(),
        steps: Vec::new(),
    })
}

/// What the generator believes a file holds now, to cut the next `old_string` from.
struct Guess {
    path: String,
    text: String,
    encoding: Encoding,
}

/// Generates one case from `u`, using only what `allowed` declares.
pub fn generate(u: &mut Unstructured<'_>, allowed: &Allowed) -> Result<GenCase> {
    let encoding = Encoding::pick(u, allowed)?;
    let endings = Endings::pick(u, allowed)?;
    let mut text = parts::file_text(u, endings, encoding.narrow())?;
    let encoding = match encoding {
        // A windows-1252 file needs a byte above 0x7F to be one; otherwise it is UTF-8.
        Encoding::Windows1252 if text.is_ascii() => {
            text.push_str("caf\u{e9}\n");
            Encoding::Windows1252
        }
        e => e,
    };
    let mut files = vec![GenFile {
        path: "a.txt".into(),
        text: text.clone(),
        encoding,
    }];
    let mut links = Vec::new();
    if allowed.has("symlink") && u.ratio(1, 6)? {
        links.push(("link.txt".to_string(), "a.txt".to_string()));
    }
    let mut guess = vec![Guess {
        path: "a.txt".into(),
        text: parts::lf_view(&text),
        encoding,
    }];
    if u.ratio(1, 8)? {
        let t = parts::file_text(u, Endings::Lf, false)?;
        files.push(GenFile {
            path: "b.txt".into(),
            text: t.clone(),
            encoding: Encoding::Utf8,
        });
        guess.push(Guess {
            path: "b.txt".into(),
            text: t,
            encoding: Encoding::Utf8,
        });
    }
    let mut steps = Vec::new();
    let skip_first_read = allowed.has("read_before_write") && u.ratio(1, 10)?;
    if !skip_first_read {
        for g in &guess {
            steps.push(GenStep::Read {
                path: g.path.clone(),
                window: None,
            });
        }
    }
    let count = u.int_in_range(1..=4)?;
    for _ in 0..count {
        let g = u.choose_index(guess.len())?;
        let path = call_path(u, &links, &guess[g].path)?;
        let kind = pick_kind(u, allowed)?;
        let crlf = allowed.has("crlf");
        let step = match kind {
            Kind::Read => read_step(u, allowed, &path)?,
            Kind::Edit => {
                let edit = gen_edit(u, allowed, &guess[g].text, guess[g].encoding)?;
                guess[g].text = apply_guess(&guess[g].text, &edit);
                GenStep::Edit { path, edit }
            }
            Kind::MultiEdit => {
                let n = u.int_in_range(1..=3)?;
                let mut edits = Vec::new();
                let mut t = guess[g].text.clone();
                for _ in 0..n {
                    let e = gen_edit(u, allowed, &t, guess[g].encoding)?;
                    t = apply_guess(&t, &e);
                    edits.push(e);
                }
                guess[g].text = t;
                GenStep::MultiEdit { path, edits }
            }
            Kind::Write => {
                let content = parts::new_text(u, guess[g].encoding.narrow(), crlf)?;
                let target = *u.choose(&[path.as_str(), "new.txt", "sub/new.txt"])?;
                if target == path {
                    guess[g].text = parts::lf_view(&content);
                }
                GenStep::Write {
                    path: target.to_string(),
                    content,
                }
            }
            Kind::Modify => {
                let extra = parts::line(u, guess[g].encoding.narrow())?;
                let text = format!("{}{}\n", guess[g].text, extra);
                guess[g].text = text.clone();
                GenStep::Modify {
                    path: guess[g].path.clone(),
                    text,
                    encoding: guess[g].encoding,
                }
            }
            Kind::Touch => GenStep::Touch {
                path: guess[g].path.clone(),
            },
        };
        steps.push(step);
    }
    Ok(GenCase {
        files,
        links,
        steps,
    })
}

/// The kinds of step after the first reads.
#[derive(Clone, Copy)]
enum Kind {
    Read,
    Edit,
    MultiEdit,
    Write,
    Modify,
    Touch,
}

/// A step kind, weighted towards edits, among the declared tools.
fn pick_kind(u: &mut Unstructured<'_>, allowed: &Allowed) -> Result<Kind> {
    let mut options = vec![Kind::Edit; 6];
    options.push(Kind::Read);
    if allowed.has("multi_edit") {
        options.extend([Kind::MultiEdit, Kind::MultiEdit]);
    }
    if allowed.has("write") {
        options.push(Kind::Write);
    }
    if allowed.has("stale_detection") {
        options.extend([Kind::Modify, Kind::Touch]);
    }
    Ok(*u.choose(&options)?)
}

/// The path a call names: the file, or a symlink to it.
fn call_path(u: &mut Unstructured<'_>, links: &[(String, String)], file: &str) -> Result<String> {
    for (link, target) in links {
        if target == file && u.ratio(1, 2)? {
            return Ok(link.clone());
        }
    }
    Ok(file.to_string())
}

/// A Read of the whole file, or of a window when partial reads are declared (never the
/// first Read: a window there makes every later edit a `partial_read` refusal).
fn read_step(u: &mut Unstructured<'_>, allowed: &Allowed, path: &str) -> Result<GenStep> {
    let window = if allowed.has("partial_read") && u.ratio(1, 3)? {
        Some((u.int_in_range(1..=4)?, u.int_in_range(1..=3)?))
    } else {
        None
    };
    Ok(GenStep::Read {
        path: path.to_string(),
        window,
    })
}

/// One edit whose `old_string` is cut from `text` (the LF view) and perhaps perturbed.
fn gen_edit(
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
            for (curly, straight) in CURLY {
                old = old.replace(curly, &straight.to_string());
            }
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
fn apply_guess(text: &str, edit: &GenEdit) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Allowed {
        Allowed::new(
            &editref_protocol::FEATURES
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn a_seed_gives_the_same_case_every_time_and_seeds_differ() {
        let a = from_seed(7, &all());
        assert_eq!(a, from_seed(7, &all()));
        let distinct: std::collections::BTreeSet<String> = (0..50)
            .map(|s| format!("{:?}", from_seed(s, &all())))
            .collect();
        assert!(distinct.len() > 45, "{}", distinct.len());
    }

    #[test]
    fn only_declared_features_are_used() {
        let minimal = Allowed::new(&["read".to_string(), "edit".to_string()]);
        for seed in 0..300 {
            let c = from_seed(seed, &minimal);
            for f in &c.files {
                assert_eq!(f.encoding, Encoding::Utf8, "seed {seed}");
                assert!(!f.text.contains('\r'), "seed {seed}");
            }
            assert!(c.links.is_empty());
            for s in &c.steps {
                match s {
                    GenStep::Read { window, .. } => assert!(window.is_none()),
                    GenStep::Edit { edit, .. } => {
                        assert!(!edit.replace_all);
                        assert!(!edit.old.contains('\r'), "seed {seed}: {edit:?}");
                    }
                    other => panic!("seed {seed}: {other:?} needs an undeclared feature"),
                }
            }
        }
    }

    #[test]
    fn most_edits_cut_their_old_string_from_the_file() {
        let mut found = 0;
        let mut edits = 0;
        for seed in 0..400 {
            let c = from_seed(seed, &all());
            let text = parts::lf_view(&c.files[0].text);
            for s in &c.steps {
                if let GenStep::Edit { path, edit } = s {
                    if path == "a.txt" || path == "link.txt" {
                        edits += 1;
                        found += usize::from(text.contains(&edit.old));
                    }
                }
            }
        }
        assert!(edits > 200, "{edits}");
        assert!(found * 2 > edits, "{found} of {edits}");
    }

    #[test]
    fn windows_1252_files_are_encodable_and_not_plain_ascii() {
        for seed in 0..2000 {
            let c = from_seed(seed, &all());
            for f in &c.files {
                let bytes = f.encoding.encode(&f.text);
                assert!(bytes.is_some(), "seed {seed}: {f:?}");
                if f.encoding == Encoding::Windows1252 {
                    assert!(bytes.unwrap().iter().any(|b| *b > 0x7F), "seed {seed}");
                }
            }
        }
    }
}
