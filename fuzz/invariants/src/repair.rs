//! `repair`: input repair (REPAIR-2, REPAIR-3, REPAIR-4, REPAIR-6) against a naive oracle.

use crate::depth::Ending;
use crate::ensure;
use crate::framing::{self, Writer};
use crate::hard_parts::{expand, span};
use arbitrary::{Result, Unstructured};
use editref::matching::Haystack;
use editref::repair::repair as run_repair;

/// How the `old_string` of a [`RepairCase`] is made, so that each repair is reached often.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairShape {
    /// `old` as given.
    AsGiven,
    /// A slice of the file as it is (REPAIR-4 with MATCH-1).
    Slice,
    /// A slice of the file with its curly quotes straightened (REPAIR-4 with MATCH-2).
    Straightened,
    /// A slice of the file with its tags abbreviated the way the API does (`<name>` → `<n>`).
    Sanitized,
    /// A slice of the file with Read's line-number prefixes.
    Prefixed,
    /// Both of the above.
    SanitizedPrefixed,
    /// A slice of the file with its non-ASCII characters spelled as `\uXXXX`.
    Escaped,
    /// A slice of the file, searched in a copy of the file whose non-ASCII is spelled `\uXXXX`.
    EscapedFile,
}

impl RepairShape {
    const ALL: [RepairShape; 8] = [
        RepairShape::AsGiven,
        RepairShape::Slice,
        RepairShape::Straightened,
        RepairShape::Sanitized,
        RepairShape::Prefixed,
        RepairShape::SanitizedPrefixed,
        RepairShape::Escaped,
        RepairShape::EscapedFile,
    ];

    fn read(u: &mut Unstructured<'_>) -> Result<RepairShape> {
        Ok(RepairShape::ALL[usize::from(framing::byte(u)?) % RepairShape::ALL.len()])
    }

    fn tag(self) -> u8 {
        RepairShape::ALL
            .iter()
            .position(|&s| s == self)
            .unwrap_or(0) as u8
    }
}

/// Input of `repair`.
///
/// Framing: shape byte, param byte (bits 0–1 prefix format, bit 2 upper-case hex, bit 3 prefix
/// `new` too, bit 4 sanitize `new` too, bits 5–7 all set: file body verbatim instead of expanded), start
/// u16, len u16 (the slice holds `1 + len % 48` characters), line-number shift u16, then the
/// file body (stand-ins of [`crate::hard_parts::expand`] make its hard parts: tags REPAIR-1
/// abbreviates, curly quotes, non-ASCII, `\u` escapes), old and new texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairCase {
    /// How `old_string` is made.
    pub shape: RepairShape,
    /// Bits choosing formats (see the framing).
    pub param: u8,
    /// Start of the file slice (byte offset, snapped to a character boundary).
    pub start: u16,
    /// Length of the file slice.
    pub len: u16,
    /// Added to the slice's real first line number (0: the numbers Read would show).
    pub shift: u16,
    /// The file body (its text's LF view is searched).
    pub body: Vec<u8>,
    /// `old_string` for [`RepairShape::AsGiven`].
    pub old: String,
    /// `new_string`.
    pub new: String,
}

crate::framed!(RepairCase {
    shape: RepairShape::read,
    param: framing::byte,
    start: framing::u16_le,
    len: framing::u16_le,
    shift: framing::u16_le,
    body: framing::blob,
    old: framing::text,
    new: framing::text
});

impl RepairCase {
    /// The input bytes that decode to this case (seed writing).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut w = Writer::new();
        w.byte(self.shape.tag()).byte(self.param);
        w.u16_le(self.start).u16_le(self.len).u16_le(self.shift);
        w.blob(&self.body)?;
        w.text(&self.old)?;
        w.text(&self.new)?;
        Some(w.finish())
    }
}

/// The desanitization table of REPAIR-1; deliberately duplicates SPEC.md's table (not the code's).
const TABLE: [(&str, &str); 18] = [
    ("<fnr>", "<function_results>"),
    ("<n>", "<name>"),
    ("</n>", "</name>"),
    ("<o>", "<output>"),
    ("</o>", "</output>"),
    ("<e>", "<error>"),
    ("</e>", "</error>"),
    ("<s>", "<system>"),
    ("</s>", "</system>"),
    ("<r>", "<result>"),
    ("</r>", "</result>"),
    ("< META_START >", "<META_START>"),
    ("< META_END >", "<META_END>"),
    ("< EOT >", "<EOT>"),
    ("< META >", "<META>"),
    ("< SOS >", "<SOS>"),
    ("\n\nH:", "\n\nHuman:"),
    ("\n\nA:", "\n\nAssistant:"),
];

fn desanitize(s: &str) -> (String, Vec<usize>) {
    let mut out = s.to_string();
    let mut applied = Vec::new();
    for (i, (short, long)) in TABLE.iter().enumerate() {
        let next = out.replace(short, long);
        if next != out {
            applied.push(i);
            out = next;
        }
    }
    (out, applied)
}

fn apply_entries(s: &str, entries: &[usize]) -> String {
    entries
        .iter()
        .fold(s.to_string(), |acc, &i| acc.replace(TABLE[i].0, TABLE[i].1))
}

fn sanitize(s: &str) -> String {
    TABLE
        .iter()
        .rev()
        .fold(s.to_string(), |acc, (short, long)| acc.replace(long, short))
}

/// MATCH-2's folding; deliberately duplicates the spec's four-quote table.
fn fold(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            c => c,
        })
        .collect()
}

/// "Occurs" of REPAIR-4: exactly, or after folding curly quotes in both.
fn occurs(view: &str, needle: &str) -> bool {
    !needle.is_empty() && (view.contains(needle) || fold(view).contains(&fold(needle)))
}

/// Read's three prefix formats, in the order the implementation tries them.
const FORMATS: [fn(u64) -> String; 3] = [
    |n| format!("{n}\t"),
    |n| format!("{n:>6}\u{2192}"),
    |n| format!("{n:>6}\t"),
];

fn prefix_lines(s: &str, format: usize, first: u64) -> String {
    let f = FORMATS[format % 3];
    let mut lines: Vec<&str> = s.split('\n').collect();
    let final_empty = lines.len() > 1 && lines.last() == Some(&"");
    if final_empty {
        lines.pop();
    }
    let mut out: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}{l}", f(first + i as u64)))
        .collect();
    if final_empty {
        out.push(String::new());
    }
    out.join("\n")
}

/// REPAIR-3's shape test, naively: one format, consecutive numbers from the first line's.
fn strip_model(s: &str) -> Option<(usize, String)> {
    let mut lines: Vec<&str> = s.split('\n').collect();
    let final_empty = lines.len() > 1 && lines.last() == Some(&"");
    if final_empty {
        lines.pop();
    }
    let digits: String = lines
        .first()?
        .trim_start_matches(' ')
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    let first: u64 = digits.parse().ok()?;
    'formats: for (k, f) in FORMATS.iter().enumerate() {
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            match l.strip_prefix(f(first + i as u64).as_str()) {
                Some(rest) => out.push(rest),
                None => continue 'formats,
            }
        }
        if final_empty {
            out.push("");
        }
        return Some((k, out.join("\n")));
    }
    None
}

/// REPAIR-6's spelling of non-ASCII as `\uXXXX` (UTF-16 units), written here from the spec.
fn escape(s: &str, upper: bool) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&if upper {
                    format!("\\u{unit:04X}")
                } else {
                    format!("\\u{unit:04x}")
                });
            }
        }
    }
    out
}

/// REPAIR-6's other direction: `\\uXXXX` (either case) decoded, surrogate pairs joined. `None`
/// when an escape is a lone surrogate: no character can stand for it, and the spec does not say
/// whether the other escapes are then decoded, so the model leaves such strings undecided.
fn unescape(s: &str) -> Option<String> {
    let unit = |at: &str| {
        let hex = at.strip_prefix("\\u")?.get(..4)?;
        if hex.chars().all(|c| c.is_ascii_hexdigit()) {
            u16::from_str_radix(hex, 16).ok()
        } else {
            None
        }
    };
    let mut out = String::new();
    let mut i = 0;
    while i < s.len() {
        if let Some(u) = unit(&s[i..]) {
            let pair = unit(&s[i + 6..]).filter(|_| (0xD800..0xDC00).contains(&u));
            if let Some(c) = pair.and_then(|l| char::decode_utf16([u, l]).next()?.ok()) {
                out.push(c);
                i += 12;
                continue;
            }
            let c = char::from_u32(u32::from(u))?;
            out.push(c);
            i += 6;
            continue;
        }
        let c = s[i..].chars().next().unwrap_or('\0');
        out.push(c);
        i += c.len_utf8().max(1);
    }
    Some(out)
}

/// Where a `repair` input ended: which branch of REPAIR-2/3/4/6 (and, for REPAIR-4, which of
/// MATCH-1/2 found the literal text) decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairEnd {
    /// `old_string` is empty: nothing to repair.
    EmptyOld,
    /// REPAIR-4 with MATCH-1: the literal text occurs, no repair fired.
    OccursExactly,
    /// REPAIR-4 with MATCH-2: the literal text occurs only quote-folded, no repair fired.
    OccursFolded,
    /// REPAIR-2: desanitization fired, with exactly the entries the spec gives.
    Desanitized,
    /// REPAIR-3: line-number prefixes stripped.
    PrefixStripped,
    /// REPAIR-2 then REPAIR-3.
    DesanitizedAndStripped,
    /// REPAIR-6: `\uXXXX` in `old_string` decoded.
    EscapesDecoded,
    /// REPAIR-6: non-ASCII in `old_string` found as escapes in the file.
    EscapedFileMatched,
    /// No repair applies and the text does not occur (the engine will say `not_found`).
    NotRepaired,
}

impl RepairEnd {
    /// The ending as the depth table counts it: a repair decided by the spec is the real check.
    pub fn ending(self) -> Ending {
        let place = match self {
            RepairEnd::EmptyOld => "empty_old",
            RepairEnd::OccursExactly => "occurs_exactly",
            RepairEnd::OccursFolded => "occurs_folded",
            RepairEnd::Desanitized => "desanitized",
            RepairEnd::PrefixStripped => "prefix_stripped",
            RepairEnd::DesanitizedAndStripped => "desanitized_and_stripped",
            RepairEnd::EscapesDecoded => "escapes_decoded",
            RepairEnd::EscapedFileMatched => "escaped_file_matched",
            RepairEnd::NotRepaired => "not_repaired",
        };
        match self {
            RepairEnd::Desanitized
            | RepairEnd::PrefixStripped
            | RepairEnd::DesanitizedAndStripped
            | RepairEnd::EscapesDecoded
            | RepairEnd::EscapedFileMatched => Ending::deep(place),
            _ => Ending::shallow(place),
        }
    }
}

/// Builds the case's strings and checks the repair of `old`/`new` against the file:
/// no repair fires when `old` occurs (REPAIR-4); without a repair both strings come back as
/// given; a repaired `old` really occurs; repairs are listed once each, in pipeline order;
/// desanitization fires exactly when the spec says and applies the same entries to `new`
/// (REPAIR-2); line-prefix stripping fires when the spec says and yields the stripped text
/// (REPAIR-3).
pub fn repair(case: &RepairCase) -> Result<RepairEnd, String> {
    let p = case.param;
    let file = if p & 0xE0 == 0xE0 {
        String::from_utf8_lossy(&case.body).into_owned()
    } else {
        expand(&case.body)
    };
    let mut view = file.replace("\r\n", "\n");
    let (s, mut e) = span(&view, case.start, case.len as u8, false);
    // A shape that changes only certain text reaches to the next such text when the slice has
    // none: a long tag for the abbreviating shapes, a curly quote for the straightened one.
    let next = |what: &[&str]| {
        what.iter()
            .filter_map(|w| view[s..].find(w).map(|at| s + at + w.len()))
            .min()
    };
    let piece_changes = |e: usize| match case.shape {
        RepairShape::Sanitized | RepairShape::SanitizedPrefixed => {
            sanitize(&view[s..e]) != view[s..e]
        }
        RepairShape::Straightened => fold(&view[s..e]) != view[s..e],
        _ => true,
    };
    if !piece_changes(e) {
        let longs: Vec<&str> = TABLE.iter().map(|(_, long)| *long).collect();
        let reach = match case.shape {
            RepairShape::Straightened => next(&["\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}"]),
            _ => next(&longs),
        };
        e = reach.unwrap_or(e).max(e);
    }
    let piece = view[s..e].to_string();
    let line_of_piece = 1 + view[..s].matches('\n').count() as u64;
    let first = line_of_piece + u64::from(case.shift);
    let mut new = case.new.clone();
    if p & 16 != 0 {
        new = sanitize(&new);
    }
    if p & 8 != 0 {
        new = prefix_lines(&new, usize::from(p & 3), 1);
    }
    let old = match case.shape {
        RepairShape::AsGiven => case.old.clone(),
        RepairShape::Slice => piece.clone(),
        RepairShape::Straightened => fold(&piece),
        RepairShape::Sanitized => sanitize(&piece),
        RepairShape::Prefixed => prefix_lines(&piece, usize::from(p & 3), first),
        RepairShape::SanitizedPrefixed => {
            prefix_lines(&sanitize(&piece), usize::from(p & 3), first)
        }
        RepairShape::Escaped => escape(&piece, p & 4 != 0),
        RepairShape::EscapedFile => {
            view = escape(&view, p & 4 != 0);
            piece.clone()
        }
    };
    let old = old.replace("\r\n", "\n");
    let new = new.replace("\r\n", "\n");
    let hay = Haystack::new(&view);
    let r = run_repair(&hay, &old, &new);

    ensure!(
        hay.occurs(&old) == occurs(&view, &old),
        "Haystack::occurs disagrees with the naive search for {old:?}"
    );
    if old.is_empty() || occurs(&view, &old) {
        ensure!(
            r.repairs.is_empty() && r.old == old && r.new == new,
            "REPAIR-4: a repair fired although old_string occurs: {r:?}"
        );
        return Ok(if old.is_empty() {
            RepairEnd::EmptyOld
        } else if view.contains(old.as_str()) {
            RepairEnd::OccursExactly
        } else {
            RepairEnd::OccursFolded
        });
    }
    if r.repairs.is_empty() {
        ensure!(
            r.old == old && r.new == new,
            "no repair listed but the strings changed: {r:?}"
        );
    } else {
        ensure!(
            occurs(&view, &r.old),
            "repaired old_string {:?} does not occur",
            r.old
        );
        let order = ["desanitize", "line_prefix", "unicode_escape"];
        let ranks: Vec<Option<usize>> = r
            .repairs
            .iter()
            .map(|n| order.iter().position(|o| o == n))
            .collect();
        ensure!(
            ranks.iter().all(Option::is_some) && ranks.windows(2).all(|w| w[0] < w[1]),
            "repairs {:?} are not a subsequence of {order:?}",
            r.repairs
        );
    }

    // REPAIR-2: desanitize fires when (and only when) the desanitized old occurs.
    let (desanitized, entries) = desanitize(&old);
    if !entries.is_empty() && occurs(&view, &desanitized) {
        ensure!(
            r.repairs == ["desanitize"]
                && r.old == desanitized
                && r.new == apply_entries(&new, &entries),
            "REPAIR-2: expected desanitize to {desanitized:?} / {:?}, got {r:?}",
            apply_entries(&new, &entries)
        );
        return Ok(RepairEnd::Desanitized);
    }
    ensure!(
        r.repairs.first().copied() != Some("desanitize") || !entries.is_empty(),
        "desanitize listed though no entry applied"
    );

    // REPAIR-3: prefixes stripped when every line carries them and the stripped text occurs.
    if let Some((_, stripped)) = strip_model(&desanitized) {
        if occurs(&view, &stripped) {
            let mut want = Vec::new();
            if !entries.is_empty() {
                want.push("desanitize");
            }
            want.push("line_prefix");
            ensure!(
                r.repairs == want && r.old == stripped,
                "REPAIR-3: expected {want:?} and old {stripped:?}, got {r:?}"
            );
            return Ok(if entries.is_empty() {
                RepairEnd::PrefixStripped
            } else {
                RepairEnd::DesanitizedAndStripped
            });
        }
    }
    // REPAIR-6, where nothing above could have fired: escapes in old decoded, or old's
    // non-ASCII found escaped in the file (then new is escaped in the file's hex case).
    if entries.is_empty() && strip_model(&old).is_none() {
        let plain = unescape(&old).unwrap_or_else(|| old.clone());
        if plain != old && occurs(&view, &plain) {
            ensure!(
                r.repairs == ["unicode_escape"] && r.old == plain,
                "REPAIR-6: expected old {plain:?} with its escapes decoded, got {r:?}"
            );
            return Ok(RepairEnd::EscapesDecoded);
        }
        if !old.is_ascii() && !old.contains("\\u") {
            let (lower, upper) = (escape(&old, false), escape(&old, true));
            let hit = [(lower, false), (upper, true)]
                .into_iter()
                .find(|(e, _)| occurs(&view, e));
            if let Some((escaped, upper)) = hit {
                ensure!(
                    r.repairs == ["unicode_escape"] && r.old == escaped,
                    "REPAIR-6: expected old {escaped:?} as the file spells it, got {r:?}"
                );
                if r.old == escape(&old, !upper) || escape(&new, false) == escape(&new, true) {
                    ensure!(
                        r.new == escape(&new, false) || r.new == escape(&new, true),
                        "REPAIR-6: new {:?} not escaped like the file",
                        r.new
                    );
                } else {
                    ensure!(
                        r.new == escape(&new, upper),
                        "REPAIR-6: expected new {:?} in the file's hex case, got {:?}",
                        escape(&new, upper),
                        r.new
                    );
                }
                return Ok(RepairEnd::EscapedFileMatched);
            }
        }
    }
    if old.is_ascii() && !old.contains("\\u") {
        ensure!(
            !r.repairs.contains(&"unicode_escape"),
            "unicode_escape fired on a string it has nothing to act on: {r:?}"
        );
    }
    Ok(if r.repairs.contains(&"unicode_escape") {
        if old.contains("\\u") {
            RepairEnd::EscapesDecoded
        } else {
            RepairEnd::EscapedFileMatched
        }
    } else {
        RepairEnd::NotRepaired
    })
}
