//! The hard parts generated files are made of: lines of code and prose with straight and curly
//! quotes, tags the API abbreviates, tabs, non-ASCII text, long lines (some beyond 2,000
//! characters) — and the line endings,
//! encodings and perturbations that make a naive `str.replace` go wrong.
//!
//! Everything here is a table or a small choice over one, so that a generated case reads like
//! something an agent really edits and a shrunk finding stays legible. What a choice may use is
//! bounded by the features the implementation declared ([`Allowed`]) — except the kinds of file
//! every tool meets ([`GUARDS`]): a tool that does not claim UTF-16 is still handed a UTF-16
//! file, and must not corrupt it.

use arbitrary::{Result, Unstructured};

/// Words the lines are built from.
const WORDS: [&str; 12] = [
    "alpha", "beta", "gamma", "value", "count", "name", "result", "item", "total", "index", "foo",
    "bar",
];

/// Indentation of a line: none, spaces or a tab.
const INDENTS: [&str; 4] = ["", "    ", "\t", "  "];

/// Tags as they are in files, with the form the API abbreviates them to (REPAIR-2).
pub const TAGS: [(&str, &str); 4] = [
    ("<function_results>", "<fnr>"),
    ("<name>", "<n>"),
    ("</name>", "</n>"),
    ("<output>", "<o>"),
];

/// Curly quotes and the straight quotes a model types instead (MATCH-2).
pub const CURLY: [(char, char); 4] = [
    ('\u{201C}', '"'),
    ('\u{201D}', '"'),
    ('\u{2018}', '\''),
    ('\u{2019}', '\''),
];

/// `text` with every curly quote made straight, as a model retypes it.
pub fn straighten(text: &str) -> String {
    text.chars()
        .map(|ch| {
            CURLY
                .iter()
                .find(|(c, _)| *c == ch)
                .map_or(ch, |(_, straight)| *straight)
        })
        .collect()
}

/// The kinds of file every edit tool meets whether or not it declares them, as the corpus's
/// `guard` cases hold: CRLF and mixed line endings, a UTF-8 BOM, UTF-16, windows-1252, a
/// symlinked file, a file's mode. A feature says what a tool *does* with such a file (match an
/// LF `old_string` in CRLF text, repair quotes); whether it corrupts the file is not optional,
/// so such files are generated for every tool, and a case needs none of these features for
/// them ([`super::requires`]).
pub const GUARDS: [&str; 8] = [
    "crlf",
    "mixed_eol",
    "utf8_bom",
    "utf16le",
    "utf16be",
    "legacy_encoding",
    "symlink",
    "posix_mode",
];

/// The features a generated case may need, read off the implementation's declared ones.
#[derive(Debug, Clone, Default)]
pub struct Allowed {
    /// The declared feature names.
    pub features: Vec<String>,
}

impl Allowed {
    /// The features `declared` names.
    pub fn new(declared: &[String]) -> Allowed {
        Allowed {
            features: declared.to_vec(),
        }
    }

    /// Whether `feature` was declared: what the generator may ask of the tool (a repair, a
    /// tool, a CRLF `old_string`).
    pub fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }

    /// Whether files of the kind `feature` names may be generated: declared, or one of the
    /// [`GUARDS`] every tool meets.
    pub fn meets(&self, feature: &str) -> bool {
        GUARDS.contains(&feature) || self.has(feature)
    }
}

/// How a file's text is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without BOM.
    Utf8,
    /// UTF-8 with BOM.
    Utf8Bom,
    /// UTF-16LE with BOM.
    Utf16Le,
    /// UTF-16BE with BOM.
    Utf16Be,
    /// windows-1252 (only text it can encode, with at least one byte above 0x7F).
    Windows1252,
}

impl Encoding {
    /// The spelling of `encoding:` in a corpus file form.
    pub fn corpus_name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf8Bom => "utf-8-bom",
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf16Be => "utf-16be",
            Encoding::Windows1252 => "windows-1252",
        }
    }

    /// The feature a file in this encoding needs, if any.
    pub fn feature(self) -> Option<&'static str> {
        match self {
            Encoding::Utf8 => None,
            Encoding::Utf8Bom => Some("utf8_bom"),
            Encoding::Utf16Le => Some("utf16le"),
            Encoding::Utf16Be => Some("utf16be"),
            Encoding::Windows1252 => Some("legacy_encoding"),
        }
    }

    /// The text in this encoding, as the corpus encodes it; `None` when it cannot be encoded.
    pub fn encode(self, text: &str) -> Option<Vec<u8>> {
        crate::load::encode_text(text, self.corpus_name(), None).ok()
    }

    /// Picks an encoding among the declared ones (UTF-8 most of the time).
    pub fn pick(u: &mut Unstructured<'_>, allowed: &Allowed) -> Result<Encoding> {
        let mut options = vec![Encoding::Utf8, Encoding::Utf8, Encoding::Utf8];
        for e in [
            Encoding::Utf8Bom,
            Encoding::Utf16Le,
            Encoding::Utf16Be,
            Encoding::Windows1252,
        ] {
            if e.feature().is_some_and(|f| allowed.meets(f)) {
                options.push(e);
            }
        }
        Ok(*u.choose(&options)?)
    }

    /// Whether text for this encoding must stay within windows-1252.
    pub fn narrow(self) -> bool {
        self == Encoding::Windows1252
    }
}

/// How the lines of a file end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endings {
    /// `\n` everywhere.
    Lf,
    /// `\r\n` everywhere.
    Crlf,
    /// Each line its own, with the odd lone `\r`.
    Mixed,
}

impl Endings {
    /// Picks line endings among those the features allow (every tool meets CRLF).
    pub fn pick(u: &mut Unstructured<'_>, allowed: &Allowed) -> Result<Endings> {
        let mut options = vec![Endings::Lf, Endings::Lf];
        if allowed.meets("crlf") {
            options.push(Endings::Crlf);
            options.push(Endings::Crlf);
            if allowed.meets("mixed_eol") {
                options.push(Endings::Mixed);
            }
        }
        Ok(*u.choose(&options)?)
    }

    /// The break after one line.
    fn one(self, u: &mut Unstructured<'_>) -> Result<&'static str> {
        Ok(match self {
            Endings::Lf => "\n",
            Endings::Crlf => "\r\n",
            Endings::Mixed => *u.choose(&["\n", "\r\n", "\r\n", "\r"])?,
        })
    }
}

/// A file's permission bits: mostly `0644`, sometimes an executable script's `0755` or a
/// private file's `0600` — what an edit must keep (DISK-1), whatever the tool declares.
pub fn mode(u: &mut Unstructured<'_>) -> Result<u32> {
    Ok(*u.choose(&[0o644, 0o644, 0o644, 0o755, 0o600])?)
}

/// One word.
pub fn word(u: &mut Unstructured<'_>) -> Result<&'static str> {
    Ok(*u.choose(&WORDS)?)
}

/// One line of text (no line break), from the shapes agents edit.
pub fn line(u: &mut Unstructured<'_>, narrow: bool) -> Result<String> {
    let indent = *u.choose(&INDENTS)?;
    let (a, b) = (word(u)?, word(u)?);
    let n: u16 = u.int_in_range(0..=999)?;
    let shapes = if narrow { 10 } else { 13 };
    Ok(match u.choose_index(shapes)? {
        0 => format!("{indent}let {a} = {n};"),
        1 => format!("{indent}return \"{a}\";"),
        2 => format!("{indent}print('{a} {b}')"),
        3 => format!("{indent}// {a} {b}"),
        4 => format!("{indent}say \u{201C}{a}\u{201D} and it\u{2019}s {b}"),
        5 => format!("{indent}<function_results>{a}</function_results>"),
        6 => format!("{indent}<name>{a}</name>"),
        7 => String::new(),
        8 => format!("{indent}if ({a}) {{ {b}(); }}"),
        9 => format!("{indent}caf\u{e9} {a} na\u{ef}ve {b}"),
        10 => format!("{indent}\u{65E5}\u{672C}\u{8A9E} {a}"),
        11 => format!("{indent}{a} \u{1F600} {b}"),
        _ => {
            let k = u.int_in_range(8..=40)?;
            format!("{indent}{}", [a, b].join(" ").repeat(k))
        }
    })
}

/// A line of more than 2,000 characters: longer than the lines some tools' Read shows whole,
/// so a Read of it tells whether and where a tool cuts it. Its end differs from its start, so
/// an edit cut from either end is found once.
pub fn long_line(u: &mut Unstructured<'_>, narrow: bool) -> Result<String> {
    let target = u.int_in_range(LONG_LINE + 1..=LONG_LINE + 400)?;
    let mut s = String::with_capacity(target + 32);
    let mut i = 0u32;
    while s.chars().count() < target {
        let w = word(u)?;
        s.push_str(w);
        s.push(if narrow || i % 7 != 3 { ' ' } else { '\u{e9}' });
        i += 1;
    }
    s.push_str("end;");
    Ok(s)
}

/// The line length, in characters, that [`long_line`] goes beyond.
pub const LONG_LINE: usize = 2000;

/// A file's text: lines with the chosen endings, some planted twice, and a final line break
/// most of the time. Returns the text as stored (endings included).
pub fn file_text(u: &mut Unstructured<'_>, endings: Endings, narrow: bool) -> Result<String> {
    let count = u.int_in_range(0..=10)?;
    let mut lines: Vec<String> = (0..count).map(|_| line(u, narrow)).collect::<Result<_>>()?;
    if !lines.is_empty() && u.ratio(1, 3)? {
        let from = u.choose_index(lines.len())?;
        let to = u.int_in_range(0..=lines.len())?;
        let copy = lines[from].clone();
        lines.insert(to, copy);
    }
    if u.ratio(1, 20)? {
        let at = u.int_in_range(0..=lines.len())?;
        lines.insert(at, long_line(u, narrow)?);
    }
    let final_break = u.ratio(3, 4)?;
    let mut text = String::new();
    let last = lines.len();
    for (i, l) in lines.iter().enumerate() {
        text.push_str(l);
        if i + 1 < last || final_break {
            text.push_str(endings.one(u)?);
        }
    }
    Ok(text)
}

/// Text a model would write as a replacement: a line or two, sometimes nothing.
pub fn new_text(u: &mut Unstructured<'_>, narrow: bool, crlf: bool) -> Result<String> {
    let count = u.int_in_range(0..=2)?;
    let lines: Vec<String> = (0..count).map(|_| line(u, narrow)).collect::<Result<_>>()?;
    let sep = if crlf && u.ratio(1, 4)? { "\r\n" } else { "\n" };
    Ok(lines.join(sep))
}

/// The text as the model sees it in Read: CRLF as LF (TEXT-5), a lone CR left as it is.
pub fn lf_view(text: &str) -> String {
    text.replace("\r\n", "\n")
}
