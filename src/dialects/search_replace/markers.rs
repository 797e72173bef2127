//! What one line of a reply is: a block marker, a fence, a file name, or none of these
//! (BLOCK-1, BLOCK-2).
//!
//! Kept apart from the block state machine so that each recognition rule can be read, and
//! tested, on a single line.

/// The two spellings of the markers; a block may open in one and end in the other, but messages
/// name the closing marker that matches the opening one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// `SEARCH` / `REPLACE`, Aider's current spelling.
    SearchReplace,
    /// `ORIGINAL` / `UPDATED`, the older spelling some models still write.
    OriginalUpdated,
}

impl Style {
    /// The canonical opening marker, as messages quote it.
    pub(super) fn open(self) -> &'static str {
        match self {
            Style::SearchReplace => "<<<<<<< SEARCH",
            Style::OriginalUpdated => "<<<<<<< ORIGINAL",
        }
    }

    /// The canonical closing marker, as messages quote it.
    pub(super) fn end(self) -> &'static str {
        match self {
            Style::SearchReplace => ">>>>>>> REPLACE",
            Style::OriginalUpdated => ">>>>>>> UPDATED",
        }
    }
}

/// The canonical divider, as messages quote it.
pub(super) const DIVIDER: &str = "=======";

/// A line that structures blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Marker {
    /// `<<<<<<< SEARCH` (or `ORIGINAL`): a block opens.
    Open(Style),
    /// `=======`: the SEARCH text ends and the REPLACE text begins.
    Divider,
    /// `>>>>>>> REPLACE` (or `UPDATED`): the block ends.
    End(Style),
}

/// Fewest and most marker characters a marker may have (BLOCK-1). Fewer or more make an
/// ordinary line, so a 4-character `<<<<` or a 10-character rule of `=` is text.
const RUN: std::ops::RangeInclusive<usize> = 5..=9;

/// Whether the line is a marker, and which (BLOCK-1): after trimming surrounding whitespace, a
/// run of 5 to 9 `<`, `=` or `>`; the divider is the run alone, the others are followed by
/// spaces or tabs and their word (`SEARCH`/`ORIGINAL`, optionally with a `>` after it, or
/// `REPLACE`/`UPDATED`). Words are case-sensitive.
pub(super) fn marker(line: &str) -> Option<Marker> {
    let t = line.trim();
    let c = match t.as_bytes().first() {
        Some(b'<') => '<',
        Some(b'=') => '=',
        Some(b'>') => '>',
        _ => return None,
    };
    let rest = t.trim_start_matches(c);
    // The run is ASCII, so its length in bytes is its length in characters.
    if !RUN.contains(&(t.len() - rest.len())) {
        return None;
    }
    if c == '=' {
        return rest.is_empty().then_some(Marker::Divider);
    }
    let word = rest
        .strip_prefix([' ', '\t'])?
        .trim_start_matches([' ', '\t']);
    match (c, word) {
        ('<', "SEARCH" | "SEARCH>") => Some(Marker::Open(Style::SearchReplace)),
        ('<', "ORIGINAL" | "ORIGINAL>") => Some(Marker::Open(Style::OriginalUpdated)),
        ('>', "REPLACE") => Some(Marker::End(Style::SearchReplace)),
        ('>', "UPDATED") => Some(Marker::End(Style::OriginalUpdated)),
        _ => None,
    }
}

/// The info string of a fence line (three or more backticks or tildes, then the info string),
/// trimmed; `None` when the line is not a fence.
pub(super) fn fence_info(line: &str) -> Option<&str> {
    let t = line.trim();
    for c in ['`', '~'] {
        let rest = t.trim_start_matches(c);
        if t.len() - rest.len() >= 3 {
            return Some(rest.trim());
        }
    }
    None
}

/// The file name a fence's info string names (BLOCK-2): ```` ```src/app.py ````. An info string
/// is a name only when it contains a `.` or a `/` — ```` ```python ```` names a language.
pub(super) fn fence_name(info: &str) -> Option<String> {
    let name = name_in(info)?;
    (name.contains('.') || name.contains('/')).then_some(name)
}

/// The file name a whole line offers (BLOCK-2), or `None` when the line is not a name.
///
/// Decorations models put around a name are removed, repeatedly and in any nesting: leading `#`
/// (a Markdown heading), a trailing `:`, surrounding `*` (bold), backticks, and a pair of
/// matching `'` or `"` quotes. What is left is a name when it has a letter or a digit (so `...`,
/// which elides, and a `---` rule are not names) and no whitespace — unless it was quoted or
/// backticked, which is how a name with a space must be written. Markers and fences are never
/// names.
pub(super) fn name_in(line: &str) -> Option<String> {
    if marker(line).is_some() || fence_info(line).is_some() {
        return None;
    }
    let mut name = line.trim();
    let mut quoted = false;
    loop {
        let before = name;
        name = name.trim_start_matches('#').trim();
        name = name.strip_suffix(':').unwrap_or(name).trim();
        name = name.trim_matches('*').trim();
        let unticked = name.trim_matches('`');
        if unticked.len() != name.len() {
            quoted |= name.starts_with('`') && name.ends_with('`') && name.len() >= 2;
            name = unticked.trim();
        }
        for q in ['"', '\''] {
            if name.len() >= 2 && name.starts_with(q) && name.ends_with(q) {
                // Both quotes are one ASCII byte, so the slice stays on character boundaries.
                name = name.get(1..name.len() - 1).unwrap_or("").trim();
                quoted = true;
            }
        }
        if name == before {
            break;
        }
    }
    let wordless = !name.chars().any(char::is_alphanumeric);
    let spaced = name.chars().any(char::is_whitespace);
    if wordless || (spaced && !quoted) {
        return None;
    }
    Some(name.to_string())
}
